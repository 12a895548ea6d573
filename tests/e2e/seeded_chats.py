"""Chats a browser test starts from, made without playing them turn by turn: lines written into
a new chat's session through the server's store, a SillyTavern chat imported over REST, or a
SillyTavern group chat file written for the page to import."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tests.e2e.conftest import Server, csrf_token, instance_new, message_send, turn_wait_done
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Page

LONG = "\n\n".join(f"Paragraph {n}: the caravan moved on through the dust." for n in range(1, 13))


def chat_with_rows_make(page: Page, server: Server) -> str:
    """A chat of one real turn, then seven more messages written into its session: one in
    Markdown, one long."""
    instance_id = instance_new(page, server)
    server.stub.script(Reply("First answer."))
    message_send(page, "Hello.")
    turn_wait_done(page)
    store = server.store
    session_id = server.instance_state(instance_id)["current_session_id"]
    read = store.session_read(instance_id, session_id)
    lines = list(read.lines)
    user = next(line for line in lines if line.get("role") == "user")
    reply = lines[-1]
    texts = ["The **bold** plan, *whispered*.", LONG, "Short one.", "Another.", "Fine.",
             "Go on.", "Last words."]
    for n, text in enumerate(texts):
        shape = user if n % 2 else reply
        lines.append({**shape, "content": text, "turn": 2 + n // 2})
    store.session_rewrite(instance_id, session_id, [read.metadata, *lines])
    return instance_id


def long_session_open(page: Page, server: Server, count: int) -> None:
    """A new instance whose session holds `count` lines ("line 0", …), open in the page."""
    instance_id = instance_new(page, server)
    store = server.store
    session_id = server.instance_state(instance_id)["current_session_id"]
    read = store.session_read(instance_id, session_id)
    lines = [{"role": "user" if n % 2 == 0 else "assistant", "content": f"line {n}",
              "turn": n // 2 + 1, "timestamp": "2026-11-23T20:00:00Z"} for n in range(count)]
    store.session_rewrite(instance_id, session_id, [read.metadata, *lines])
    page.reload()


def st_chat_import(page: Page, server: Server, lines: int) -> str:
    """A chat with `lines` messages (Alserqi and Ann in turn), imported as a SillyTavern file."""
    def line(number: int) -> dict:
        mine = number % 2 == 1
        return {"name": "Ann" if mine else "Alserqi", "is_user": mine, "is_system": False,
                "send_date": "2024-03-05T14:03:00.000Z",
                "mes": f"Line {number}: " + ("the wind turns. " * 6), "extra": {}}

    body = "".join(json.dumps(row) + "\n" for row in [
        {"user_name": "Ann", "character_name": "Alserqi", "chat_metadata": {}},
        *(line(n) for n in range(lines))])
    made = page.request.post(
        f"{server.url}/api/v1/instances/import", headers={"X-CSRFToken": csrf_token(page, server)},
        multipart={"file": {"name": "evening.jsonl", "mimeType": "application/jsonl",
                            "buffer": body.encode()},
                   "character_id": "char_alserqi"})
    assert made.ok, made.text()
    return made.json()["instance_id"]


def party_file_write(folder: Path, names: list[str]) -> Path:
    """A SillyTavern group chat (`party.jsonl` in `folder`) in which each of `names` pours tea."""
    path = folder / "party.jsonl"
    records = [{"user_name": "Tom", "character_name": names[0], "chat_metadata": {}}]
    records += [{"name": name, "is_user": False, "is_system": False, "mes": f"{name} pours tea.",
                 "send_date": "2024-01-01", "extra": {}} for name in names]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path
