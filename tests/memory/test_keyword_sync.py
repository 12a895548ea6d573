"""What the files hold is keyword-searchable at once when a chat opens, a session is archived or
a change is undone, even while an import's fill holds the memory worker (issue 30 item 4c)."""

from __future__ import annotations

import asyncio
import json
import os
import threading

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from chat.live import consumers
from memory import runtime
from personalab.asgi import application
from tests.memory.memory_turns import history_recalled, memory_turn_run
from tests.memory.recall_chats import EDITED, KEPT

pytestmark = pytest.mark.django_db(transaction=True)


NEW = "My cousin Theodora breeds alpacas near Cusco."


async def _chat_open(user, instance_id, monkeypatch):
    """A tab opens the chat; returns once the chat-open sync has been asked for (the socket
    asks on a task of its own, awaited only by its first question)."""
    asked = threading.Event()

    def follow_asked(store, *, instance_id):
        runtime.files_follow(store, instance_id=instance_id)
        asked.set()

    monkeypatch.setattr(consumers, "files_follow", follow_asked)
    client = Client()
    await sync_to_async(client.force_login)(user)
    headers = [(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1:8000"),
               (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]
    communicator = WebsocketCommunicator(application, f"/ws/chat/{instance_id}/",
                                         headers=headers)
    connected, _ = await communicator.connect()
    assert connected
    assert await asyncio.to_thread(asked.wait, 10)
    await communicator.disconnect()


def _restore_by_hand(store, instance, session):
    """The session file replaced by another copy (another inode): one line edited, one turn
    the app never saw appended."""
    path = store.session_path(instance, session)
    lines = path.read_text(encoding="utf-8").splitlines()
    turn = max(json.loads(line).get("turn") or 0 for line in lines)
    copy = [line.replace(KEPT, EDITED) for line in lines]
    for role, text in (("user", NEW), ("assistant", "Alpacas! How lovely.")):
        copy.append(json.dumps({"role": role, "content": text, "turn": turn + 1,
                                "timestamp": "2025-10-16T10:00:00Z"}))
    spare = path.with_suffix(".restored")
    spare.write_text("\n".join(copy) + "\n", encoding="utf-8")
    os.replace(spare, path)


def test_a_file_restored_by_hand_is_followed_on_the_keyword_side_when_the_chat_opens(
        store, instance, alice, memory_on, use_stub, monkeypatch):
    result, _ = asyncio.run(memory_turn_run(store, instance, KEPT))
    runtime.drain()  # embedded: the dense side holds the old text
    release = threading.Event()
    runtime.schedule(release.wait, 60)  # an import's fill holds the memory worker
    try:
        _restore_by_hand(store, instance, result.session_id)
        asyncio.run(_chat_open(alice, instance, monkeypatch))
        runtime.live_drain()
        assert NEW in history_recalled(store, instance, "Who breeds alpacas near Cusco?")
        assert EDITED in history_recalled(store, instance, "What did I bury under the old oak?")
        assert KEPT not in history_recalled(store, instance, "Where is the silver key buried?")
    finally:
        release.set()
    runtime.drain()
    recalled = history_recalled(store, instance, "What did I bury under the old oak?")
    assert EDITED in recalled and KEPT not in recalled
    assert NEW in history_recalled(store, instance, "Who breeds alpacas near Cusco?")


def test_an_archived_sessions_lines_leave_recall_at_once(
        store, instance, memory_on, use_stub, rest):
    result, _ = asyncio.run(memory_turn_run(store, instance, KEPT))
    runtime.drain()
    release = threading.Event()
    runtime.schedule(release.wait, 60)  # an import's fill holds the memory worker
    try:
        response = rest("post", f"/api/v1/instances/{instance}/sessions/"
                                    f"{result.session_id}/archive")
        assert response.status_code == 200
        runtime.live_drain()
        assert KEPT not in history_recalled(store, instance, "Where is the silver key buried?")
    finally:
        release.set()
    runtime.drain()
    assert KEPT not in history_recalled(store, instance, "Where is the silver key buried?")


def test_an_undone_edit_is_followed_at_once(store, instance, memory_on, use_stub, rest):
    result, _ = asyncio.run(memory_turn_run(store, instance, KEPT))
    runtime.drain()
    url = f"/api/v1/instances/{instance}/sessions/{result.session_id}/messages"
    release = threading.Event()
    runtime.schedule(release.wait, 60)  # an import's fill holds the memory worker
    try:
        rows = {row["content"]: row for row in rest("get", url).json()["rows"]}
        edited = rest("put", f"{url}/{rows[KEPT]['index']}",
                          {"fingerprint": rows[KEPT]["fingerprint"], "text": EDITED})
        assert edited.status_code == 200
        undone = rest("post", f"/api/v1/instances/{instance}/history/undo",
                          {"token": edited.json()["undo_token"]})
        assert undone.status_code == 200
        runtime.live_drain()
        assert KEPT in history_recalled(store, instance, "Where is the silver key buried?")
        assert EDITED not in history_recalled(store, instance, "Where is the copper compass?")
    finally:
        release.set()
    runtime.drain()
    assert KEPT in history_recalled(store, instance, "Where is the silver key buried?")
    assert EDITED not in history_recalled(store, instance, "Where is the copper compass?")
