"""A model server's refusal of a prompt longer than its context, read from its error: the
context it holds and the prompt's length as it counted them, where it says so.

Servers word it differently: OpenAI and OpenRouter ("maximum context length is 8192 tokens.
However, your messages resulted in 9000 tokens"), vLLM ("… you requested 5000 tokens (4000 in
the messages, 1000 in the completion)"), llama.cpp's server ("request (4476 tokens) exceeds the
available context size (4096 tokens)", with `n_ctx` and `n_prompt_tokens` in the body), LM
Studio ("loaded with context length of only 4096 tokens"), Anthropic-style gateways ("prompt is
too long: 210000 tokens > 200000 maximum"). A turn that meets one learns the window and asks
again (chat/play/overflow.py), so a long chat on a small server keeps going."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

# Only the start of an error is read: the patterns run on at most this many characters.
READ_CHARS = 4000

SIGNS = ("maximum context length", "context_length_exceeded", "exceeds the available context",
         "exceed_context_size", "context length of only", "prompt is too long",
         "context window", "too many tokens", "input is too long", "context size")
LIMIT_PATTERNS = (
    re.compile(r"maximum context length is (\d{2,9}) tokens"),
    re.compile(r"available context size \((\d{2,9}) tokens\)"),
    re.compile(r"context length of only (\d{2,9}) tokens"),
    re.compile(r"tokens > (\d{2,9}) maximum"),
    re.compile(r"\"n_ctx\": ?(\d{2,9})"),
)
PROMPT_PATTERNS = (
    re.compile(r"(\d{2,9}) in the messages"),
    re.compile(r"messages resulted in (\d{2,9}) tokens"),
    re.compile(r"request \((\d{2,9}) tokens\)"),
    re.compile(r"prompt is too long: (\d{2,9}) tokens"),
    re.compile(r"\"n_prompt_tokens\": ?(\d{2,9})"),
)


@dataclass(frozen=True)
class Overflow:
    limit: int | None  # the context the server holds, in its own tokens
    prompt: int | None  # the refused prompt's length, as the server counted it


def overflow_read(status: int, body: object, message: str) -> Overflow | None:
    """The overflow a refused request reports, or None when the error is about something else."""
    if status not in (400, 413, 422):
        return None
    try:
        shown = json.dumps(body, ensure_ascii=False) if body is not None else ""
    except (TypeError, ValueError):
        shown = ""
    text = f"{message} {shown}"[:READ_CHARS].lower()
    if not any(sign in text for sign in SIGNS):
        return None
    return Overflow(limit=_first_number(LIMIT_PATTERNS, text),
                    prompt=_first_number(PROMPT_PATTERNS, text))


def _first_number(patterns: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for pattern in patterns:
        found = pattern.search(text)
        if found:
            return int(found.group(1))
    return None
