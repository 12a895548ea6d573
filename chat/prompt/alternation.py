"""Prompt post-processing, as SillyTavern names it, chosen per connection (data/modules/llm.json
`prompt_processing`): "none" (the default, as SillyTavern: every message keeps its role, so a
Character's Note or post-history instructions arrive as system messages), "merge" (neighbours
of the same role joined), "strict" (below).

"strict": messages that strict chat templates accept (Llama-2, Mistral: "Conversation roles must
alternate user/assistant/user/assistant"): one system message first, then user and assistant
in turn. System notes after the first message are folded into the user side, neighbours of the
same role are merged, and a conversation that opens with the character's greeting gets a short
user line before it.

Example dialogue turns (system messages named example_user / example_assistant) keep their
name with "none"; merged or folded, a name would be lost, so each starts with its speaker's
"Name: " instead, as SillyTavern's converters for backends without names write them."""

from __future__ import annotations

JOINER = "\n\n"


def _merged(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    out: list[dict[str, str]] = []
    for message in messages:
        if out and out[-1]["role"] == message["role"]:
            joined = JOINER.join(p for p in (out[-1]["content"], message["content"]) if p)
            out[-1] = {"role": message["role"], "content": joined}
        else:
            out.append({"role": message["role"], "content": message["content"]})
    return out


def messages_alternate(messages: list[dict[str, str]], *, opening: str) -> list[dict[str, str]]:
    """`messages` as system?, user, assistant, user, ... (`opening` is the user line put before
    a leading assistant message)."""
    head = 0
    while head < len(messages) and messages[head]["role"] == "system":
        head += 1
    system = _merged(messages[:head])
    rest = [{"role": "user" if m["role"] == "system" else m["role"], "content": m["content"]}
            for m in messages[head:]]
    rest = _merged(rest)
    if rest and rest[0]["role"] == "assistant":
        rest.insert(0, {"role": "user", "content": opening})
    return system + rest


PROCESSING = ("none", "merge", "strict")
EXAMPLE_SPEAKERS = ("example_user", "example_assistant")


def _examples_named(messages: list[dict[str, str]], names: dict[str, str]) -> list[dict[str, str]]:
    out = []
    for message in messages:
        speaker = names.get(message.get("name", ""), "")
        content = message["content"]
        if speaker and not content.startswith(f"{speaker}: "):
            content = f"{speaker}: {content}"
        out.append({"role": message["role"], "content": content})
    return out


def messages_processed(messages: list[dict[str, str]], *, mode: str, opening: str,
                       user_name: str = "", character_name: str = "") -> list[dict[str, str]]:
    """`messages` as the connection's prompt post-processing wants them (`user_name`,
    `character_name`: who speaks an example turn once its name is gone)."""
    if mode in ("strict", "merge"):
        messages = _examples_named(messages, dict(zip(EXAMPLE_SPEAKERS,
                                                      (user_name, character_name), strict=True)))
    if mode == "strict":
        return messages_alternate(messages, opening=opening)
    if mode == "merge":
        return _merged(messages)
    # Only what the model is sent: the pipeline's own notes on a message (its lines) stay out;
    # `unnamed` (text completion only: a turn its instruct layout writes without a name) stays.
    return [{"role": m["role"], "content": m["content"],
             **({"unnamed": True} if m.get("unnamed") else {}),
             **({"name": m["name"]} if m.get("name") in EXAMPLE_SPEAKERS else {})}
            for m in messages]


def processing_mode(llm_settings: dict) -> str:
    mode = llm_settings.get("prompt_processing")
    return mode if mode in PROCESSING else "none"
