"""Text completion (`PERSONALAB_COMPLETION_API=text`): the final message list as one prompt
string, built with an instruct template (personalab/lib/instruct.py), sent to the endpoint's
`/completions` through the `openai` SDK and streamed back. For servers that run a model without
a chat template of their own: KoboldCpp, llama.cpp's server, text-generation-webui, vLLM.
Framework-free: the caller builds the settings."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import orjson

from personalab.lib import llm_body, sse
from personalab.lib.instruct import (
    InstructError,
    InstructPrompt,
    InstructTemplate,
    instruct_prompt,
    instruct_template_named,
    instruct_template_read,
)
from personalab.lib.jsontext import SurrogatesJoin, text_surrogates_replace
from personalab.lib.llm import (
    LLMError,
    LLMSettings,
    OpenAIProvider,
    _is_openai,
    sampling_split,
)
from personalab.lib.llm_offline import _shorten
from personalab.lib.reasoning import Reasoning, reasoning_split

# What complete() (a summary, a recap) takes of a reply before it stops reading: far more than
# any summary, far less than a runaway model can send.
COMPLETE_MAX_CHARS = 100_000
OPENAI_MAX_STOP = 4
_DATA_LINE = re.compile(rb"^data:(.*)$", re.MULTILINE)


def instruct_template_for(settings: LLMSettings) -> InstructTemplate:
    """The template the settings name: an imported SillyTavern preset (llm.json's `instruct`,
    or a JSON file named by PERSONALAB_INSTRUCT_TEMPLATE) or a built-in by its key."""
    if settings.instruct_custom:
        return instruct_template_read(settings.instruct_custom)
    name = settings.instruct_template.strip()
    if name.lower().endswith(".json"):
        try:
            with open(name, encoding="utf-8") as file:
                return instruct_template_read(json.loads(file.read(1 << 20)))
        except (OSError, ValueError, RecursionError) as err:
            raise InstructError(message=f"PERSONALAB_INSTRUCT_TEMPLATE: cannot read {name}: "
                                        f"{_shorten(str(err), 120)}") from err
    return instruct_template_named(name)


def prompt_for(messages: list[dict], *, context: dict,
               template: InstructTemplate) -> InstructPrompt:
    """The prompt a turn (or a task: `context["task"]`) sends, as the trace shows it."""
    task = context.get("task")
    ending = ("user" if task == "impersonate" else "assistant" if task in (None, "aside")
              else "task")
    if ending == "task":  # the task's own instruction, no speakers to tell apart
        template = replace(template, names_behavior="none")
    others = [str(name) for name in context.get("member_names") or []]
    prompt = instruct_prompt(messages, template=template,
                             char_name=str(context.get("character_name") or ""),
                             user_name=str(context.get("user_name") or ""),
                             group=bool(context.get("group")), ending=ending,
                             continue_last=bool(context.get("continue_from")), others=others,
                             story_raw=bool(context.get("story_raw")) and ending != "task",
                             chat_start=not context.get("chat_start_cut"))
    if context.get("names_stop") is False:  # a context template without names as stops
        names = {f"\n{name}:" for name in (context.get("user_name") or "User",
                                           context.get("character_name") or "Assistant",
                                           *others)}
        prompt = replace(prompt, stop=[word for word in prompt.stop if word not in names])
    return prompt


def text_trace_note(provider: object, context: dict) -> dict[str, Any]:
    """What a trace keeps to show the prompt string a text backend was sent (the template and
    the names; the messages are in the trace already), or nothing for a chat backend."""
    if not isinstance(provider, TextCompletionProvider):
        return {}
    try:
        template = provider.template()
    except LLMError as err:
        return {"completion_api": "text", "instruct_error": err.message}
    names = {key: context.get(key) for key in ("character_name", "user_name", "group", "task",
                                               "continue_from", "member_names", "story_raw",
                                               "story_stop", "context_template",
                                               "names_stop", "chat_start_cut")
             if context.get(key)}
    return {"completion_api": "text", "instruct": {"template": template.as_json(), **names}}


def stops_sent(stop: list[str], *, story_stop: list[str] | None, own: list[str] | None,
               capped: bool = False) -> list[str]:
    """What a text request sends as `stop`: the prompt's (names, then the instruct markers),
    the context template's chat-start and example separator lines when it asks for them, then
    the player's own; single_line's "\n" first, as SillyTavern's getStoppingStrings orders
    them. `capped`: OpenAI's endpoint, whose API refuses more than four."""
    stop = list(stop)
    for word in [*(story_stop or []), *(own or [])]:
        if word not in stop:
            stop.append(word)
    if "\n" in stop:  # the cap below keeps it
        stop.remove("\n")
        stop.insert(0, "\n")
    return stop[:OPENAI_MAX_STOP] if capped else stop


def trace_prompt_text(messages: list[dict], note: dict[str, Any], *,
                      generation: dict[str, Any] | None = None) -> InstructPrompt | None:
    """The prompt string of a traced turn (text_trace_note's `instruct`), rebuilt, with the
    stop strings the request sent (`generation`: its settings, the player's stop strings)."""
    try:
        template = instruct_template_read(note["template"])
    except (InstructError, KeyError, TypeError):
        return None
    context = {key: value for key, value in note.items() if key != "template"}
    prompt = prompt_for(messages, context=context, template=template)
    own = (generation or {}).get("stop")
    return replace(prompt, stop=stops_sent(prompt.stop, story_stop=note.get("story_stop"),
                                           own=own if isinstance(own, list) else None))


class TextCompletionProvider(OpenAIProvider):
    name = "openai-text"

    def __init__(self, settings: LLMSettings) -> None:
        super().__init__(settings)
        self.label = f"{self.model} @ {self._endpoint()} (text completion)"

    def template(self) -> InstructTemplate:
        try:
            return instruct_template_for(self.settings)
        except InstructError as err:
            raise LLMError(f"instruct template: {err.message}") from err

    def _request(self, messages: list[dict], context: dict) -> dict[str, Any]:
        prompt = prompt_for(messages, context=context, template=self.template())
        chosen, extra = sampling_split(context, base_url=self.settings.base_url)
        stop = stops_sent(prompt.stop, story_stop=context.get("story_stop"),
                          own=chosen.pop("stop", None),
                          capped=_is_openai(self.settings.base_url))
        return {"model": self.model, "prompt": prompt.text, "stop": stop, **chosen,
                "extra_body": extra or None}

    def stream(self, messages: list[dict], *, context: dict) -> AsyncIterator[str]:
        return reasoning_split(self._text_stream(messages, context=context))

    async def _text_stream(self, messages: list[dict], *, context: dict) -> AsyncIterator[str]:
        request = self._request(messages, context)
        # A continued reply goes on from its last word; a new one starts at its first.
        started = bool(context.get("continue_from"))
        try:
            # The SDK sends it; the events are read here as the chat stream reads them (a
            # line cap, an idle limit, a read at a time), never by the SDK's unbounded decoder.
            async with contextlib.AsyncExitStack() as stack:
                response = await llm_body.headers_within(stack.enter_async_context(
                    self._client().completions.with_streaming_response.create(
                        stream=True, extra_headers={"Accept-Encoding": "identity"}, **request)),
                    seconds=self._headers_seconds())
                raw = response.http_response
                if raw.headers.get("content-encoding", "identity") != "identity":
                    raise LLMError("the LLM compressed its stream, though asked not to")
                reader = TextSSEReader(max_line_bytes=self.settings.max_line_bytes)
                chunks = raw.aiter_raw()
                async for piece in sse.reads_parsed(chunks, reader.feed, done=lambda: reader.done,
                                                    idle_seconds=self.settings.idle_seconds):
                    if not started:
                        piece = piece.lstrip()  # the space after "Name:" the prompt ends with
                        started = bool(piece)
                    if piece:
                        yield piece
                for piece in reader.end():
                    yield piece
                await sse.rest_drained(chunks)
        except Exception as err:
            raise self._error_from(err) from err

    async def complete(self, messages: list[dict], *, context: dict) -> str:
        """A task's answer (a summary, a recap) read from the same bounded stream."""
        pieces: list[str] = []
        size = 0
        # Closed at once when the answer is long enough: the connection goes with it.
        async with contextlib.aclosing(self.stream(messages, context=context)) as stream:
            async for piece in stream:
                if isinstance(piece, Reasoning):
                    continue
                pieces.append(piece)
                size += len(piece)
                if size >= COMPLETE_MAX_CHARS:
                    break
        return text_surrogates_replace("".join(pieces)[:COMPLETE_MAX_CHARS])


class TextSSEReader:
    """Text-completion chunks (`choices[0].text`) of a server-sent-event stream, fed as the
    bytes arrive: the text of each read joined into one piece. `[DONE]` ends the stream; an
    event carrying `error` raises it as the LLM's error."""

    def __init__(self, *, max_line_bytes: int = LLMSettings.max_line_bytes) -> None:
        self._lines = sse.SSELines(max_line_bytes=max_line_bytes)
        self.done = False
        self._halves: SurrogatesJoin | None = None

    def feed(self, data: bytes) -> list[str]:
        if self.done:
            return []
        buffer = self._lines.feed(data)
        payloads = _DATA_LINE.findall(buffer)
        for position, payload in enumerate(payloads):
            if payload.strip() == b"[DONE]":
                self.done = True
                payloads = payloads[:position]
                break
        try:
            chunks = [orjson.loads(payload) for payload in payloads]
        except orjson.JSONDecodeError:
            # A lone surrogate escape (half an emoji): json keeps it, joined below.
            chunks = [json.loads(payload) for payload in payloads]
            self._halves = self._halves or SurrogatesJoin()
        text = "".join(map(_chunk_text, chunks))
        pieces = [text] if text else []
        if self._halves is None:
            return pieces
        pieces = self._halves.pieces(pieces)
        return pieces + self._halves.end() if self.done else pieces

    def end(self) -> list[str]:
        return self._halves.end() if self._halves is not None else []


def _chunk_text(chunk: object) -> str:
    if isinstance(chunk, dict) and chunk.get("error"):
        error = chunk["error"]
        message = error.get("message") if isinstance(error, dict) else str(error)
        raise LLMError(f"LLM stream reported an error: {_shorten(str(message), 200)}")
    choices = chunk.get("choices") if isinstance(chunk, dict) else None
    first = choices[0] if isinstance(choices, list) and choices else None
    text = first.get("text") if isinstance(first, dict) else None
    return text if isinstance(text, str) else ""
