"""LLM access: one small interface over an OpenAI-compatible endpoint, a local GGUF model
and the built-in offline demo. Framework-free: the caller builds the settings."""

from __future__ import annotations

import asyncio
import json
import re
import ssl
import threading
import weakref
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit, urlunsplit

import httpx2
import orjson

from personalab.lib import llm_body, sse
from personalab.lib.errors import AppError
from personalab.lib.jsontext import SurrogatesJoin, text_surrogates_replace
from personalab.lib.llm_offline import _shorten
from personalab.lib.llm_overflow import Overflow, overflow_read
from personalab.lib.reasoning import Reasoning, ThinkSplitter, reasoning_split

if TYPE_CHECKING:
    import openai

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_BASE_URL = "https://api.openai.com/v1"


@dataclass(frozen=True)
class LLMSettings:
    base_url: str = ""  # OPENAI_BASE_URL or data/modules/llm.json
    api_key: str = ""  # OPENAI_API_KEY, or llm.json's key for a base URL other than the env's
    model: str = ""  # PERSONALAB_MODEL
    timeout: float = 60.0  # read timeout between chunks
    # A stream with nothing to show for this long ends: a reply that is coming sends text (or
    # reasoning) within a minute even from a slow local model; a longer silence is a stuck
    # endpoint or one feeding empty deltas, and the player sees an error instead of waiting.
    idle_seconds: float = 60.0
    max_line_bytes: int = 2 << 20  # an event line; a chunk is a few hundred bytes
    # An answer that is not a stream (a summary's completion, an error): a summary is a few
    # kilobytes, so 4 MiB leaves room for a long reasoning trace; a server writes a finished
    # body at once, so one still arriving after this long is a hostile or broken endpoint.
    max_body_bytes: int = 4 << 20
    body_seconds: float = 60.0
    connect_timeout: float = 10.0
    gguf_path: str = ""  # PERSONALAB_GGUF
    offline_delay: float = 0.01  # pause between offline demo pieces
    # "chat" (/chat/completions) or "text": one prompt string to /completions (llm_text.py),
    # built with the instruct template: a built-in key, a preset file, or llm.json's `instruct`.
    completion_api: str = "chat"  # PERSONALAB_COMPLETION_API
    instruct_template: str = ""  # PERSONALAB_INSTRUCT_TEMPLATE
    instruct_custom: dict | None = field(default=None, compare=False, hash=False)


class LLMError(AppError):
    code, status = "llm_error", 502

    def __init__(self, message: str, *, overflow: Overflow | None = None) -> None:
        # It can quote the endpoint's error body, which goes into the reply's line.
        super().__init__(message=text_surrogates_replace(message))
        self.overflow = overflow  # the server refused the prompt as longer than its context


class Provider(Protocol):
    name: str
    label: str
    is_offline_demo: bool

    def stream(self, messages: list[dict], *, context: dict) -> AsyncIterator[str]: ...

    async def complete(self, messages: list[dict], *, context: dict) -> str: ...


def llm_settings_choose(environment: LLMSettings, overrides: dict | None = None) -> LLMSettings:
    """The settings a turn uses: the environment's (personalab/llm_config.py reads them), with
    the base URL, model, completion API and instruct template the settings page stored
    (data/modules/llm.json) on top."""
    overrides = overrides or {}
    chosen = {
        key: str(value).strip()
        for key, value in overrides.items()
        if key in ("base_url", "model", "completion_api", "instruct_template") and value
        and str(value).strip()
    }
    if isinstance(overrides.get("instruct"), dict) and chosen.get("instruct_template") == "custom":
        chosen["instruct_custom"] = overrides["instruct"]
    if ("base_url" in chosen
            and endpoint_key(chosen["base_url"]) != endpoint_key(environment.base_url)):
        # OPENAI_API_KEY belongs to the environment's endpoint: another base URL set on the
        # settings page gets only the key staff entered for it, never the server's.
        chosen["api_key"] = str(overrides.get("api_key") or "").strip()
    return replace(environment, **chosen)


def endpoint_key(base_url: str) -> str:
    """A base URL compared as the SDK uses it: "" is OpenAI's, case of scheme/host and a
    trailing slash do not matter."""
    parts = urlsplit((base_url or DEFAULT_BASE_URL).strip())
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path.rstrip("/"),
                       parts.query, ""))


# --- OpenAI-compatible endpoint -------------------------------------------------------------


class OpenAIProvider:
    name = "openai"
    is_offline_demo = False

    def __init__(self, settings: LLMSettings) -> None:
        self.settings = settings
        self.model = settings.model or DEFAULT_MODEL
        self.label = f"{self.model} @ {self._endpoint()}"

    def _endpoint(self) -> str:
        return self.settings.base_url or DEFAULT_BASE_URL

    def _client(self) -> openai.AsyncOpenAI:
        return _client_for_loop(self.settings)

    def _headers_seconds(self) -> float:
        return llm_body.headers_deadline(connect_timeout=self.settings.connect_timeout,
                                         read_timeout=self.settings.timeout)

    def stream(self, messages: list[dict], *, context: dict) -> AsyncIterator[str]:
        return reasoning_split(self._stream(messages, context=context))

    async def _stream(self, messages: list[dict], *, context: dict) -> AsyncIterator[str]:
        body = {"model": self.model, "messages": messages, "stream": True,
                **sampling(context, base_url=self.settings.base_url)}
        try:
            # The SDK's client sends the request (its auth, headers, timeouts and status
            # errors), but not through `chat.completions.create`: that walks the whole prompt
            # against the typed-dict annotations first, which cost more than the rest of the
            # turn before the first token (bench/stream_overhead.py). The messages are plain
            # JSON already. The event stream is read here, a network read at a time.
            response = await llm_body.headers_within(self._client().post(
                "/chat/completions", cast_to=httpx2.Response, content=_json_bytes(body),
                stream=True, options={"headers": {"Accept-Encoding": "identity"}}),
                seconds=self._headers_seconds())
            try:
                # A compressed read could unpack to any size before a line is looked at.
                if response.headers.get("content-encoding", "identity") != "identity":
                    raise LLMError("the LLM compressed its stream, though asked not to")
                reader = SSEReader(max_line_bytes=self.settings.max_line_bytes)
                chunks = response.aiter_raw()
                async for piece in sse.reads_parsed(chunks, reader.feed, done=lambda: reader.done,
                                                    idle_seconds=self.settings.idle_seconds):
                    yield piece
                for piece in reader.end():
                    yield piece
                await sse.rest_drained(chunks)
            finally:
                await response.aclose()
        except Exception as err:
            raise self._error_from(err) from err

    async def complete(self, messages: list[dict], *, context: dict) -> str:
        body = {"model": self.model, "messages": messages, "stream": False,
                **sampling(context, base_url=self.settings.base_url)}
        try:
            # Sent as _stream sends, and read here within llm_body's caps: the SDK's typed
            # call reads the whole body first, whatever its size or however slowly it comes.
            response = await llm_body.headers_within(self._client().post(
                "/chat/completions", cast_to=httpx2.Response, content=_json_bytes(body),
                stream=True, options={"headers": {"Accept-Encoding": "identity"}}),
                seconds=self._headers_seconds())
            try:
                data = await llm_body.body_read(response, max_bytes=self.settings.max_body_bytes,
                                                seconds=self.settings.body_seconds)
            finally:
                await response.aclose()
            return text_surrogates_replace(_without_reasoning(_completion_text(data)))
        except Exception as err:
            raise self._error_from(err) from err

    def _error_from(self, err: Exception) -> LLMError:
        import openai  # cheap here: the request that failed has loaded it

        if isinstance(err, LLMError):
            return err
        if isinstance(err, (sse.LineTooLong, sse.StreamIdle, llm_body.BodyTooLarge,
                            llm_body.BodyTooSlow, llm_body.BodyCompressed,
                            llm_body.HeadersTooSlow)):
            return LLMError(str(err))
        if isinstance(err, (openai.APITimeoutError, httpx2.TimeoutException)):
            return LLMError(f"LLM timed out after {self.settings.timeout:g}s")
        if isinstance(err, httpx2.TransportError):
            return LLMError(f"the connection to the LLM at {self._endpoint()} broke: "
                            f"{_shorten(str(err) or type(err).__name__, 120)}")
        if isinstance(err, openai.APIConnectionError):
            return LLMError(f"cannot connect to the LLM at {self._endpoint()}")
        if isinstance(err, openai.APIStatusError):
            return LLMError(_status_message(err.status_code, err.body, err.message),
                            overflow=overflow_read(err.status_code, err.body, err.message))
        if isinstance(err, (openai.APIError, ValueError, AttributeError, LookupError, TypeError)):
            return LLMError(f"LLM sent an unreadable response: {_shorten(str(err), 120)}")
        return LLMError(f"LLM request failed: {type(err).__name__}: {_shorten(str(err), 120)}")


SAMPLING_FIELDS = ("temperature", "top_p", "max_tokens", "presence_penalty",
                   "frequency_penalty", "stop", "seed", "logit_bias")
# Samplers OpenAI's own API refuses but the servers people run themselves take in the request
# body (llama.cpp, KoboldCpp, vLLM, text-generation-webui, Ollama, OpenRouter).
EXTRA_SAMPLING_FIELDS = ("top_k", "min_p", "repetition_penalty")
OPENAI_HOST = "api.openai.com"


def sampling(context: dict, *, base_url: str = "") -> dict[str, Any]:
    """The generation settings the caller set (context["generation"]); nothing else is sent,
    so the endpoint's defaults apply to the rest. The extra samplers go only to an endpoint
    that is not OpenAI's own (its API answers 400 to them)."""
    chosen = context.get("generation") or {}
    names = SAMPLING_FIELDS if _is_openai(base_url) else (*SAMPLING_FIELDS, *EXTRA_SAMPLING_FIELDS)
    return {name: chosen[name] for name in names if chosen.get(name) is not None}


def sampling_split(context: dict, *, base_url: str = "") -> tuple[dict[str, Any], dict[str, Any]]:
    """sampling(), as the SDK takes it: its own keyword arguments, and the rest for extra_body."""
    chosen = sampling(context, base_url=base_url)
    extra = {name: chosen.pop(name) for name in EXTRA_SAMPLING_FIELDS if name in chosen}
    if "repetition_penalty" in extra:
        # llama.cpp's server (and LM Studio) read it only as `repeat_penalty`; vLLM and
        # text-generation-webui only as `repetition_penalty`; KoboldCpp takes either.
        extra["repeat_penalty"] = extra["repetition_penalty"]
    return chosen, extra


def _gguf_sampling(context: dict) -> dict[str, Any]:
    """sampling() in llama-cpp-python's names (a local model takes every sampler)."""
    chosen, extra = sampling_split(context, base_url="local")
    if "repetition_penalty" in extra:
        extra["repeat_penalty"] = extra.pop("repetition_penalty")
    if "logit_bias" in chosen:
        chosen["logit_bias"] = {int(token): bias for token, bias in chosen["logit_bias"].items()}
    return {**chosen, **extra}


def _is_openai(base_url: str) -> bool:
    return urlsplit(endpoint_key(base_url)).hostname == OPENAI_HOST


# A `data:` line's payload: `.` stops at the line's end, so the match is linear in the read.
_DATA_LINE = re.compile(rb"^data:(.*)$", re.MULTILINE)


def _chunk_pieces(chunk: object) -> list[str]:
    """The reasoning (`reasoning_content`, or `reasoning`) and the reply text of a chunk."""
    choices = chunk.get("choices") if isinstance(chunk, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    delta = first.get("delta") if isinstance(first, dict) else None
    if not isinstance(delta, dict):
        return []
    thought = delta.get("reasoning_content") or delta.get("reasoning")
    content = delta.get("content")
    pieces = [Reasoning(thought)] if isinstance(thought, str) and thought else []
    return pieces + ([content] if isinstance(content, str) and content else [])


def _completion_text(data: bytes) -> str:
    """The reply text of a whole chat completion (ValueError/LLMError when it holds none)."""
    try:
        completion = orjson.loads(data)
    except orjson.JSONDecodeError:
        completion = json.loads(data)  # a lone surrogate escape, as SSEReader.feed keeps it
    if isinstance(completion, dict) and completion.get("error"):
        error = completion["error"]
        message = error.get("message") if isinstance(error, dict) else str(error)
        raise LLMError(f"LLM reported an error: {_shorten(str(message), 200)}")
    content = completion["choices"][0]["message"]["content"]
    if content is not None and not isinstance(content, str):
        raise ValueError("the reply's content is not text")
    return content or ""


def _without_reasoning(text: str) -> str:
    splitter = ThinkSplitter()
    parts = splitter.feed(text) + splitter.flush()
    return "".join(part for part in parts if not isinstance(part, Reasoning))


class SSEReader:
    """Chat-completion chunks of a server-sent-event stream, fed as the bytes arrive: the
    pieces of every whole `data:` line, in order, the reply text of one read joined into one
    piece (and its reasoning likewise), so what follows pays per read, not per chunk. `[DONE]`
    ends the stream; an event carrying `error` raises it as the LLM's error."""

    def __init__(self, *, max_line_bytes: int = LLMSettings.max_line_bytes) -> None:
        self._lines = sse.SSELines(max_line_bytes=max_line_bytes)
        self.done = False
        self._halves: SurrogatesJoin | None = None  # made once a chunk holds a lone surrogate

    def feed(self, data: bytes) -> list[str]:
        if self.done:
            return []
        buffer = self._lines.feed(data)  # whole lines only; the rest waits for the next read
        end = len(buffer)
        if sse.lines_without_text(buffer):
            return []
        # Lines that are not `data:` (comments, event names, ids, blank separators) are skipped;
        # one C-level scan of the read finds the others (a Python loop over the lines cost a
        # quarter of the parsing).
        payloads = _DATA_LINE.findall(buffer, 0, end)
        if buffer.find(b"[DONE]", 0, end) >= 0:  # no copy of the read
            payloads = self._before_done(payloads)
        pieces: list[str] = []
        run: list[str] = []  # consecutive pieces of one kind, joined when the kind changes
        # orjson parses a chunk in about half the time json takes, and this runs for every
        # piece of every reply (bench/stream_overhead.py). Each payload is parsed alone: joined
        # into one array, broken neighbours could add up to valid JSON.
        try:
            chunks = list(map(orjson.loads, payloads))
        except orjson.JSONDecodeError:
            # orjson refuses a lone surrogate escape (half an emoji, as a JavaScript server can
            # send, or an emoji cut in two between chunks): json keeps it, and the halves are
            # joined or become U+FFFD below (SurrogatesJoin). Invalid JSON still raises.
            chunks = [json.loads(payload) for payload in payloads]
            self._halves = self._halves or SurrogatesJoin()
        for chunk in chunks:
            try:  # the usual chunk, read without the checks of _chunk_pieces
                delta = chunk["choices"][0]["delta"]
                content = delta["content"]
                if (type(content) is str and type(delta) is dict and "error" not in chunk
                        and "reasoning_content" not in delta and "reasoning" not in delta):
                    if content:
                        if run and type(run[0]) is not str:
                            pieces.append(_joined(run))
                            run = []
                        run.append(content)
                    continue
            except (KeyError, IndexError, TypeError):
                pass
            if isinstance(chunk, dict) and chunk.get("error"):
                error = chunk["error"]
                message = error.get("message") if isinstance(error, dict) else str(error)
                raise LLMError(f"LLM stream reported an error: {_shorten(str(message), 200)}")
            for piece in _chunk_pieces(chunk):
                if run and type(piece) is not type(run[0]):
                    pieces.append(_joined(run))
                    run = []
                run.append(piece)
        if run:
            pieces.append(_joined(run))
        if self._halves is None:  # the usual stream: one comparison per read
            return pieces
        pieces = self._halves.pieces(pieces)
        return pieces + self._halves.end() if self.done else pieces

    def end(self) -> list[str]:
        """The stream ended without `[DONE]`: half an emoji still held, as U+FFFD."""
        return self._halves.end() if self._halves is not None else []

    def _before_done(self, payloads: list[bytes]) -> list[bytes]:
        """The payloads before `[DONE]`, which ends the stream (the words may also just be in
        a reply's text)."""
        for position, payload in enumerate(payloads):
            if payload.strip() == b"[DONE]":
                self.done = True
                return payloads[:position]
        return payloads


def _joined(run: list[str]) -> str:
    text = "".join(run)
    return Reasoning(text) if isinstance(run[0], Reasoning) else text


def _json_bytes(body: dict[str, Any]) -> bytes:
    """The request body as JSON (the client's headers say so): orjson is several times faster
    than json on a long prompt; anything it refuses (an int beyond 64 bits) goes through json."""
    try:
        return orjson.dumps(body)
    except TypeError:
        return json.dumps(body, ensure_ascii=False).encode("utf-8")


# One client per event loop and settings, shared by every turn on that loop. Building a client
# loads the CA bundle (50-300 ms of CPU, blocking the loop: with 200 turns starting at once the
# streams stalled for seconds and connects timed out), and a shared client keeps connections
# alive. httpx connection pools are bound to the loop that opened them, hence one per loop; a
# closed loop is never running again, so its client can never be handed to another loop.
_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict] = weakref.WeakKeyDictionary()
_clients_lock = threading.Lock()
_ssl_context: ssl.SSLContext | None = None


def _client_for_loop(settings: LLMSettings) -> openai.AsyncOpenAI:
    loop = asyncio.get_running_loop()
    key = (settings.base_url, settings.api_key, settings.timeout, settings.connect_timeout,
           settings.max_body_bytes, settings.body_seconds)
    with _clients_lock:
        if loop not in _clients:
            for closed in [other for other in _clients if other.is_closed()]:
                del _clients[closed]  # its pooled connections may keep it from being collected
        per_loop = _clients.setdefault(loop, {})
        if key not in per_loop:
            per_loop[key] = _client_new(settings)
        return per_loop[key]


def _client_new(settings: LLMSettings) -> openai.AsyncOpenAI:
    # Imported on the first request, not at the top: the SDK takes seconds to import (most of
    # it types this app never uses), and every process, test server and command would pay it
    # at start, most of them without ever calling a model (docs/testing.md).
    import openai

    global _ssl_context
    if _ssl_context is None:  # an SSL context is not bound to a loop: one for the process
        _ssl_context = httpx2.create_ssl_context()
    return openai.AsyncOpenAI(
        base_url=settings.base_url or None,
        api_key=settings.api_key or "not-needed",
        max_retries=0,
        timeout=openai.Timeout(settings.timeout, connect=settings.connect_timeout),
        http_client=openai.DefaultAsyncHttpxClient(verify=_ssl_context, event_hooks={
            "response": [llm_body.errors_bounded(max_bytes=settings.max_body_bytes,
                                                 seconds=settings.body_seconds)]}),
    )


def llm_client_warm() -> None:
    """Build the process's SSL context and import the HTTP stack now (server start-up): the
    first client of a process did both inside a turn's model-list call (0.17 s of CPU holding
    the interpreter lock; one 0.57 s loop step under load, bench/cross_account.py)."""
    _client_new(LLMSettings())  # no connection is opened; the client is dropped unused


def _status_message(status: int, body: object, fallback: str) -> str:
    detail = body.get("message") if isinstance(body, dict) else None
    detail = detail if isinstance(detail, str) and detail else fallback
    hint = " (check OPENAI_API_KEY)" if status in (401, 403) else ""
    return f"LLM service returned {status}{hint}: {_shorten(detail, 200)}"




# --- Local GGUF model (optional extra) ------------------------------------------------------

_gguf_models: dict[str, Any] = {}
_gguf_lock = threading.Lock()
_DONE = object()


class GGUFProvider:
    name = "gguf"
    is_offline_demo = False

    def __init__(self, settings: LLMSettings) -> None:
        self.path = settings.gguf_path
        self.label = f"Local GGUF model: {Path(self.path).name}"

    def _model(self) -> Any:
        try:
            from llama_cpp import Llama
        except ImportError as err:
            raise LLMError(
                "llama-cpp-python is not installed: pip install '.[gguf]' "
                "(or unset PERSONALAB_GGUF to use the offline demo)"
            ) from err
        with _gguf_lock:
            if self.path not in _gguf_models:
                if not Path(self.path).is_file():
                    raise LLMError(f"GGUF model not found: {self.path}")
                _gguf_models[self.path] = Llama(model_path=self.path, n_ctx=0, verbose=False)
            return _gguf_models[self.path]

    def stream(self, messages: list[dict], *, context: dict) -> AsyncIterator[str]:
        return reasoning_split(self._stream(messages, context=context))

    async def _stream(self, messages: list[dict], *, context: dict) -> AsyncIterator[str]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Any] = asyncio.Queue()
        stop = threading.Event()

        def post(item: Any) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the reader's loop is already closed
                stop.set()

        def produce() -> None:
            try:
                model = self._model()
                for chunk in model.create_chat_completion(messages=messages, stream=True,
                                                          **_gguf_sampling(context)):
                    if stop.is_set():
                        break
                    piece = chunk["choices"][0].get("delta", {}).get("content") or ""
                    if piece:
                        post(piece)
            except Exception as err:
                post(err)
            finally:
                post(_DONE)

        worker = threading.Thread(target=produce, name="gguf-generate", daemon=True)
        worker.start()
        try:
            while (item := await queue.get()) is not _DONE:
                if isinstance(item, LLMError):
                    raise item
                if isinstance(item, Exception):
                    raise LLMError(f"local model failed: {_shorten(str(item), 160)}") from item
                yield item
        finally:
            stop.set()

    async def complete(self, messages: list[dict], *, context: dict) -> str:
        return "".join([piece async for piece in self.stream(messages, context=context)
                        if not isinstance(piece, Reasoning)])
