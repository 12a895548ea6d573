"""The model list of an OpenAI-compatible endpoint (GET /v1/models): the settings page's "Test
connection" and the context length a turn asks for (chat/play/model_context.py), with the same key
rules as a turn, and any failure worded as a sentence.

The SDK's `models.list()` read the body whole with no limit; a hostile server could answer with
hundreds of megabytes, a gzip bomb, or headers and body a byte at a time. The list is read here
as a completion is (personalab/lib/llm_body.py): within PERSONALAB_LLM_MAX_BODY_BYTES, nothing
compressed, and the whole call within its `timeout`, headers included.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import quote

import httpx2

from personalab.lib import llm_body
from personalab.lib.jsontext import json_loads, text_surrogates_replace
from personalab.lib.llm import (
    DEFAULT_BASE_URL,
    OPENAI_HOST,
    LLMError,
    LLMSettings,
    _client_new,
    _status_message,
)
from personalab.lib.llm_offline import _shorten

CHECK_TIMEOUT = 5.0  # seconds for the whole check: the page waits on it
MAX_MODELS = 500  # a server may list thousands; the picker shows the first ones
# Where a server says the context it runs with (per slot), and the keys that lead to it.
SERVER_CONTEXT_ROUTES = (("/props", ("default_generation_settings", "n_ctx")),  # llama.cpp
                         ("/api/extra/true_max_context_length", ("value",)))  # KoboldCpp
# Ollama's context on GPUs under 24 GiB, when it runs the model with its default (docs:
# context-length); assumed only until the model is loaded and /api/ps says.
OLLAMA_DEFAULT_CONTEXT = 4096


def models_read(settings: LLMSettings, *, timeout: float) -> list[dict[str, Any]]:
    """The entries the endpoint lists (each a dict), read within the body caps and `timeout`
    seconds in all. Raises LLMError with a sentence. Called from a thread, never on the event
    loop (it runs a loop of its own)."""
    import openai  # on first use, as in personalab/lib/llm.py: the SDK takes seconds to import

    endpoint = settings.base_url or DEFAULT_BASE_URL
    try:
        data = asyncio.run(_models_body(settings, timeout=timeout))
    except (TimeoutError, openai.APITimeoutError, httpx2.TimeoutException):
        raise LLMError(f"The server at {endpoint} did not answer within {timeout:g} seconds.") \
            from None
    except (llm_body.BodyTooLarge, llm_body.BodyCompressed) as err:
        raise LLMError(f"The server at {endpoint}: {err}.") from None
    except (openai.APIConnectionError, httpx2.TransportError):
        raise LLMError(f"Could not connect to {endpoint}: check the address and that the "
                       "server is running.") from None
    except openai.APIStatusError as err:
        raise LLMError(_status_message(err.status_code, err.body, err.message) + ".") from None
    try:
        entries = json_loads(data)["data"]
        if not isinstance(entries, list):
            raise TypeError("data is not a list")
    except Exception as err:  # noqa: BLE001 — a body that is not a model list
        raise LLMError(f"The server at {endpoint} answered, but not with a model list: "
                       f"{_shorten(str(err) or type(err).__name__, 120)}.") from None
    return [entry for entry in entries if isinstance(entry, dict)]


async def _models_body(settings: LLMSettings, *, timeout: float) -> bytes:
    """The body of GET /models within `timeout` seconds, headers and body together."""
    client = _check_client(settings, timeout)  # its own: the loop it would be pooled on ends
    try:
        async with asyncio.timeout(timeout):
            return await _body_get(client, "/models", settings=settings, timeout=timeout)
    except llm_body.BodyTooSlow:
        raise TimeoutError from None
    finally:
        await client.close()


def _check_client(settings: LLMSettings, timeout: float) -> Any:
    return _client_new(replace(settings, timeout=timeout, connect_timeout=min(timeout, 3.0),
                               body_seconds=min(settings.body_seconds, timeout)))


async def _body_get(client: Any, path: str, *, settings: LLMSettings, timeout: float) -> bytes:
    response = await client.get(path, cast_to=httpx2.Response, stream=True,
                                options={"headers": {"Accept-Encoding": "identity"}})
    try:
        return await llm_body.body_read(response, max_bytes=settings.max_body_bytes,
                                        seconds=timeout)
    finally:
        await response.aclose()


@dataclass(frozen=True)
class ServedContext:
    tokens: int
    # False: Ollama's own default, assumed while the model is not loaded (it reports the
    # context it runs with only then); asked again soon rather than kept for the hour.
    settled: bool = True


def server_context_read(settings: LLMSettings, *, timeout: float) -> ServedContext | None:
    """The context a llama.cpp, KoboldCpp, LM Studio or Ollama server runs with, or None
    (another server, or no answer within `timeout` seconds). Their model lists report the model's training
    context or nothing, not the `-c` / `--contextsize` / `num_ctx` the server runs with, and
    KoboldCpp and Ollama cut a longer prompt's start without a word (the character's card and
    recalled memory first)."""
    base = (settings.base_url or "").rstrip("/")
    if not base or OPENAI_HOST in base:
        return None
    return asyncio.run(_served_context(settings, base.removesuffix("/v1"), timeout=timeout))


async def _served_context(settings: LLMSettings, root: str, *,
                          timeout: float) -> ServedContext | None:
    client = _check_client(settings, timeout)
    found: list[ServedContext] = []
    try:
        async with asyncio.timeout(timeout):  # every question and answer together
            for path, keys in SERVER_CONTEXT_ROUTES:
                value = _number_at(await _json_read(client, root + path, settings=settings,
                                                    timeout=timeout), keys)
                if value:
                    found.append(ServedContext(value))
            # LM Studio: the context the model was loaded with (its model list says none).
            studio = _number_at(await _json_read(
                client, f"{root}/api/v0/models/{quote(settings.model, safe='/')}",
                settings=settings, timeout=timeout), ("loaded_context_length",))
            if studio:
                found.append(ServedContext(studio))
            ollama = await _ollama_context(client, root, settings=settings, timeout=timeout)
            if ollama:
                found.append(ollama)
    except (TimeoutError, llm_body.BodyTooSlow):
        pass
    finally:
        await client.close()
    return min(found, key=lambda served: served.tokens) if found else None


async def _ollama_context(client: Any, root: str, *, settings: LLMSettings,
                          timeout: float) -> ServedContext | None:
    """What Ollama runs the model with: `/api/ps` while it is loaded, else the Modelfile's
    `num_ctx` (`/api/show`), else its default on a small GPU. None when `root` is not Ollama.
    Its OpenAI endpoint takes no context size: the server's setting is what a prompt meets."""
    loaded = await _json_read(client, root + "/api/ps", settings=settings, timeout=timeout)
    if not isinstance(loaded, dict) or not isinstance(loaded.get("models"), list):
        return None
    wanted = _ollama_name(settings.model)
    for entry in loaded["models"]:
        if isinstance(entry, dict) and wanted in {_ollama_name(str(entry.get(key) or ""))
                                                  for key in ("name", "model")}:
            value = _number_at(entry, ("context_length",))
            if value:
                return ServedContext(value)
    shown = await _json_read(client, root + "/api/show", settings=settings, timeout=timeout,
                             body={"model": settings.model})
    parameters = shown.get("parameters") if isinstance(shown, dict) else None
    for line in parameters.splitlines() if isinstance(parameters, str) else []:
        name, _, value = line.strip().partition(" ")
        if name == "num_ctx" and value.strip().isdigit() and int(value) > 0:
            return ServedContext(int(value))
    return ServedContext(OLLAMA_DEFAULT_CONTEXT, settled=False)


def _ollama_name(model: str) -> str:
    """Ollama's name for a model: "llama3" is "llama3:latest"."""
    return model if ":" in model else f"{model}:latest"


async def _json_read(client: Any, path: str, *, settings: LLMSettings, timeout: float,
                     body: dict[str, Any] | None = None) -> Any:
    """The JSON answer to GET `path` (POST `body` when given), or None for any failure."""
    try:
        if body is None:
            raw = await _body_get(client, path, settings=settings, timeout=timeout)
        else:
            response = await client.post(path, cast_to=httpx2.Response, body=body, stream=True,
                                         options={"headers": {"Accept-Encoding": "identity"}})
            try:
                raw = await llm_body.body_read(response, max_bytes=settings.max_body_bytes,
                                               seconds=timeout)
            finally:
                await response.aclose()
        return json_loads(raw)
    except (TimeoutError, llm_body.BodyTooSlow):
        raise
    except Exception:  # noqa: BLE001 — a route this server does not have, or not JSON
        return None


def _number_at(data: Any, keys: tuple[str, ...]) -> int | None:
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, int) and not isinstance(data, bool) and data > 0 else None


def llm_models_list(settings: LLMSettings, *, timeout: float = CHECK_TIMEOUT) -> list[str]:
    """The model ids the endpoint lists, sorted. Raises LLMError with a sentence a user can
    act on when the endpoint cannot be reached, refuses the key or answers nonsense."""
    endpoint = settings.base_url or DEFAULT_BASE_URL
    ids = {text_surrogates_replace(str(entry["id"])[:200])
           for entry in models_read(settings, timeout=timeout) if entry.get("id")}
    if not ids:
        raise LLMError(f"The server at {endpoint} answered but lists no models.")
    return sorted(ids)[:MAX_MODELS]
