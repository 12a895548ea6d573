"""A chat longer than a small context window, as the window tests build and send it: a
SillyTavern file of many messages of WORDS, the player's line over REST, and what the stub
server's recorded request held."""

from __future__ import annotations

import json

from personalab.lib.tokens import count_tokens

WORDS = "the lantern swings over the wet cobbles while the tide comes in slowly"


def st_chat(messages: int) -> bytes:
    """A SillyTavern JSONL chat of `messages` messages, `msg N` at the start of each."""
    records = [{"user_name": "Ann", "character_name": "Mira", "create_date": "2024-5-12",
                "chat_metadata": {}}]
    for n in range(messages):
        user = n % 2 == 0
        records.append({"name": "Ann" if user else "Mira", "is_user": user, "is_system": False,
                        "send_date": "May 12, 2024 5:41pm", "mes": f"msg {n}: {WORDS}",
                        "extra": {}})
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def prompt_tokens(request: dict) -> int:
    """The request's prompt in tokens as the app counts it: 4 a message, 3 priming the reply."""
    return sum(count_tokens(m["content"]) + 4 for m in request["messages"]) + 3


def chat_post(client, auth, instance: str, text: str):
    """The player's `text` sent to the chat over REST (`auth`: the account's bearer token)."""
    return client.post("/api/v1/chat", {"instance_id": instance, "query": text},
                       content_type="application/json", **auth)


def sent_text(request: dict) -> str:
    """Every message the model got, one after the other."""
    return "\n".join(m["content"] for m in request["messages"])
