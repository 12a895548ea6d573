"""The chat WebSocket: streaming, stop, disconnect, busy, malformed frames, origin and owner
checks, sockets per account and connects a minute."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from chat.live import consumers
from chat.live.consumers import ChatConsumer
from chat.live.frame_checks import ACTION_WINDOW_SECONDS, ConnectWindows
from personalab.asgi import application
from tests.socket_tabs import (
    HOST,
    ORIGIN,
    events_until_done,
    own_instance,
    session_cookie,
    tab_connect,
)
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


async def test_send_streams_tokens_then_done(alice, instance, use_stub, store):
    use_stub.script(Reply("我会等，等到最安全的时机。", chunk_size=2))
    communicator, connected = await tab_connect(alice, instance)
    assert connected
    await communicator.send_json_to({"type": "send", "content": "你打算等到什么时候？"})
    events = await events_until_done(communicator)
    await communicator.disconnect()
    tokens = "".join(e["content"] for e in events if e["type"] == "token")
    assert tokens == "我会等，等到最安全的时机。"
    assert events[-1]["type"] == "done" and events[-1]["turn"] == 1
    assert store.session_read(instance, "sess_001").messages[-1]["content"] == tokens


async def test_stop_ends_the_reply_and_keeps_it(alice, instance, use_stub, store):
    use_stub.script(Reply("z" * 300, chunk_size=1, delay=0.01))
    communicator, _ = await tab_connect(alice, instance)
    await communicator.send_json_to({"type": "send", "content": "go"})
    for _ in range(3):
        await communicator.receive_json_from(timeout=5)
    await communicator.send_json_to({"type": "stop"})
    events = await events_until_done(communicator)
    await communicator.disconnect()
    assert events[-1]["type"] == "done" and events[-1]["interrupted"] is True
    last = store.session_read(instance, "sess_001").messages[-1]
    assert last["interrupted"] is True and 3 <= len(last["content"]) < 300


async def test_disconnect_mid_stream_leaves_a_whole_marked_line(alice, instance, use_stub, store):
    use_stub.script(Reply("y" * 300, chunk_size=1, delay=0.01))
    communicator, _ = await tab_connect(alice, instance)
    await communicator.send_json_to({"type": "send", "content": "go"})
    await communicator.receive_json_from(timeout=5)
    await communicator.disconnect()
    for _ in range(50):
        read = store.session_read(instance, "sess_001")
        if read.partial is None and read.messages[-1]["role"] == "assistant":
            break
        await asyncio.sleep(0.1)
    assert read.problems == [] and read.messages[-1]["interrupted"] is True


async def test_a_page_drawn_writing_is_told_at_once_when_no_reply_streams(alice, instance):
    """A reload's stop finishes the reply while the page is drawn "writing…": its socket says
    so as it opens ("idle"), and the page reads the file then instead of 1.5 s later."""
    headers = [(b"origin", ORIGIN), (b"host", HOST), (b"cookie", await session_cookie(alice))]
    drawn_writing = WebsocketCommunicator(application, f"/ws/chat/{instance}/?writing=1",
                                          headers=headers)
    assert (await drawn_writing.connect())[0]
    assert await drawn_writing.receive_json_from(timeout=5) == {"type": "idle"}
    other, _ = await tab_connect(alice, instance)
    assert await other.receive_nothing(timeout=0.3)
    for tab in (drawn_writing, other):
        await tab.disconnect()


async def test_tokens_that_arrive_during_a_slow_send_come_joined_and_already_in_the_file(
        alice, instance, use_stub, store, monkeypatch):
    reply = "一二三四五六七八九十"
    use_stub.script(Reply(reply, chunk_size=1, delay=0.01))
    real_emit = ChatConsumer._emit
    sent: list[str] = []
    in_file_when_sent: list[bool] = []

    def file_text() -> str:
        return (store.session_read(instance, "sess_001").partial or {}).get("content", "")

    async def slow_first_token(self, event):
        if event["type"] == "token":
            for _ in range(500 if not sent else 0):  # a slow client: the whole reply arrives
                if file_text() == reply:
                    break
                await asyncio.sleep(0.01)
            sent.append(event["content"])
            in_file_when_sent.append(file_text().startswith("".join(sent)))
        await real_emit(self, event)

    monkeypatch.setattr(ChatConsumer, "_emit", slow_first_token)
    communicator, _ = await tab_connect(alice, instance)
    await communicator.send_json_to({"type": "send", "content": "数到十"})
    events = await events_until_done(communicator)
    await communicator.disconnect()
    tokens = [e["content"] for e in events if e["type"] == "token"]
    assert "".join(tokens) == reply and len(tokens) <= 2
    assert all(in_file_when_sent)


async def test_second_send_while_streaming_is_refused(alice, instance, use_stub):
    use_stub.script(Reply("w" * 100, chunk_size=1, delay=0.01))
    first, _ = await tab_connect(alice, instance)
    second, _ = await tab_connect(alice, instance)
    await first.send_json_to({"type": "send", "content": "one"})
    await first.receive_json_from(timeout=5)
    await second.send_json_to({"type": "send", "content": "two"})
    refusal = await second.receive_json_from(timeout=5)
    # The second tab follows the first tab's reply meanwhile: its tokens, or, when it joined
    # the layer's group after the reply began (a loaded machine), the file's text so far first.
    while refusal["type"] in ("stream", "token"):
        refusal = await second.receive_json_from(timeout=5)
    assert refusal["type"] == "error" and refusal["code"] == "busy"
    await events_until_done(first)
    await first.disconnect()
    await second.disconnect()


async def test_malformed_frames_get_clear_errors(alice, instance):
    communicator, _ = await tab_connect(alice, instance)
    await communicator.send_to(text_data="{nope")
    assert (await communicator.receive_json_from())["code"] == "bad_json"
    await communicator.send_to(text_data="[1, 2]")
    assert (await communicator.receive_json_from())["code"] == "bad_frame"
    await communicator.send_to(text_data="[" * 100_000 + "]" * 100_000)
    assert (await communicator.receive_json_from())["code"] == "bad_json"
    await communicator.send_json_to({"type": "dance"})
    assert (await communicator.receive_json_from())["code"] == "bad_type"
    await communicator.send_json_to({"type": "send", "content": ""})
    assert (await communicator.receive_json_from())["code"] == "bad_request"
    await communicator.disconnect()


async def test_other_users_anonymous_and_foreign_origins_are_refused(alice, bob, instance):
    for user, origin in ((bob, b"http://127.0.0.1:8000"), (None, b"http://127.0.0.1:8000"),
                         (alice, b"http://evil.example")):
        communicator, connected = await tab_connect(user, instance, origin=origin)
        assert not connected
        await communicator.disconnect()


async def test_a_socket_opened_before_a_log_out_neither_plays_nor_follows_the_chat(
        alice, instance, use_stub, store, monkeypatch):
    """The scope kept the user the socket was opened with: after the log out it still sent
    turns and received the next tab's tokens."""
    monkeypatch.setattr("chat.live.consumers.FOLLOW_CHECK_SECONDS", 0, raising=False)
    browser = Client()
    await sync_to_async(browser.force_login)(alice)
    headers = [(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1:8000"),
               (b"cookie", f"sessionid={browser.cookies['sessionid'].value}".encode())]
    sender, follower = (WebsocketCommunicator(application, f"/ws/chat/{instance}/",
                                              headers=headers) for _ in range(2))
    assert (await sender.connect())[0] and (await follower.connect())[0]
    await sync_to_async(browser.logout)()
    await sender.send_json_to({"type": "send", "content": "after the log out"})
    assert (await sender.receive_json_from())["code"] == "signed_out"
    assert (await sender.receive_output())["type"] == "websocket.close"
    lines = (await sync_to_async(store.session_read)(instance, "sess_001")).messages
    assert "after the log out" not in [line.get("content") for line in lines]
    use_stub.script(Reply("SECRET-REPLY", chunk_size=2))
    tab, _ = await tab_connect(alice, instance)  # another login of hers plays on
    await tab.send_json_to({"type": "send", "content": "still here"})
    assert "SECRET" in "".join(e.get("content", "") for e in await events_until_done(tab))
    heard = [await follower.receive_output() for _ in range(2)]
    assert [json.loads(heard[0]["text"])["code"], heard[1]["type"]] == [
        "signed_out", "websocket.close"]
    for socket in (tab, sender, follower):
        await socket.disconnect()


async def test_staff_may_open_any_instance(staff, instance):
    communicator, connected = await tab_connect(staff, instance)
    assert connected
    await communicator.disconnect()



async def test_regenerate_on_a_chat_ending_with_the_players_line_answers_it(
        alice, instance, use_stub, store):
    """The page sends ↻ as it is; the server sees the reply is missing and asks for it."""
    read = await sync_to_async(store.session_read)(instance, "sess_001")
    await sync_to_async(store.session_rewrite)(instance, "sess_001", [
        read.metadata, *read.lines, {"role": "user", "content": "Still there?", "turn": 1}])
    use_stub.script(Reply("Always."))
    communicator, _ = await tab_connect(alice, instance)
    await communicator.send_json_to({"type": "regenerate"})
    events = await events_until_done(communicator)
    await communicator.disconnect()
    assert events[-1]["type"] == "done"
    lines = (await sync_to_async(store.session_read)(instance, "sess_001")).messages
    assert [line["content"] for line in lines[-2:]] == ["Still there?", "Always."]


async def test_an_account_holds_so_many_sockets_and_gets_one_back_when_one_closes(
        alice, instance, settings):
    """1,000 sockets opened at once by one account held every other account's pages for
    seconds (red team): past PERSONALAB_SOCKETS_PER_ACCOUNT a connect is refused before its
    database check."""
    settings.PERSONALAB_SOCKETS_PER_ACCOUNT = 2
    first, _ = await tab_connect(alice, instance)
    second, _ = await tab_connect(alice, instance)
    third = WebsocketCommunicator(application, f"/ws/chat/{instance}/", headers=[
        (b"origin", ORIGIN), (b"host", HOST), (b"cookie", await session_cookie(alice))])
    connected, code = await third.connect()
    assert (connected, code) == (False, 4429)
    await first.disconnect()
    again, connected = await tab_connect(alice, instance)
    assert connected
    for tab in (second, again):
        await tab.disconnect()


async def test_an_account_reconnecting_too_fast_is_refused_before_its_database_check(
        alice, bob, instance, settings, monkeypatch):
    """A script opening and closing sockets in a loop holds none open, and each connect cost a
    database check, a file read and an index follow: past PERSONALAB_SOCKET_CONNECTS_PER_MINUTE
    an account's connect is refused before the check; another account's is not, and the
    account's window frees as time moves."""
    settings.PERSONALAB_SOCKET_CONNECTS_PER_MINUTE = 2
    now = [1000.0]
    monkeypatch.setattr(consumers, "_connects", ConnectWindows(clock=lambda: now[0]))
    checked = []
    real_check = ChatConsumer.__dict__["_may_open"]

    async def counted(self, user):
        checked.append(user.username)
        return await real_check.__get__(self, ChatConsumer)(user)

    monkeypatch.setattr(ChatConsumer, "_may_open", counted)
    for _ in range(2):
        tab, connected = await tab_connect(alice, instance)
        assert connected
        await tab.disconnect()
    third = WebsocketCommunicator(application, f"/ws/chat/{instance}/", headers=[
        (b"origin", ORIGIN), (b"host", HOST), (b"cookie", await session_cookie(alice))])
    assert await third.connect() == (False, consumers.TOO_MANY_CLOSE)
    assert checked == ["alice", "alice"]
    bobs_tab, connected = await tab_connect(bob, await own_instance(bob))
    assert connected
    now[0] += ACTION_WINDOW_SECONDS
    again, connected = await tab_connect(alice, instance)
    assert connected and checked == ["alice", "alice", "bob", "alice"]
    for tab in (bobs_tab, again):
        await tab.disconnect()
