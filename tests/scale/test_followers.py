"""Live following: a second tab (any worker) follows a reply over its WebSocket through the
channel layer; one that joins mid-reply gets the file's text, then live tokens, no gap, no repeat."""

from __future__ import annotations

import asyncio
import threading

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from chat.live import consumers
from chat.live.followers import FollowCursor
from personalab.asgi import application
from personalab.settings import redis_channel_layer
from tests.redis_server import redis_server, redis_url  # noqa: F401 — fixtures
from tests.scale.followed_replies import IDLE_READ_TIMEOUT, IDLE_SECONDS, followed_text
from tests.socket_tabs import events_until_reply_done, tab_open
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


async def test_a_second_tab_follows_the_reply_live(alice, instance, use_stub, store):
    reply = "她把灯笼举高了一点，照见了门后的影子。" * 5
    use_stub.script(Reply(reply, chunk_size=3, delay=0.01))
    sender, follower = await tab_open(alice, instance), await tab_open(alice, instance)
    await sender.send_json_to({"type": "send", "content": "门后是谁？"})
    sent, followed = await events_until_reply_done(sender), await events_until_reply_done(follower)
    await sender.disconnect()
    await follower.disconnect()
    assert followed_text(followed) == reply == followed_text(sent)
    assert sum(e["type"] == "token" for e in followed) > 1  # live, not one reload at the end
    assert followed[-1]["turn"] == 1
    assert store.session_read(instance, "sess_001").messages[-1]["content"] == reply


async def test_a_tab_whose_index_is_slow_to_follow_the_files_still_follows_live(
        alice, instance, use_stub, monkeypatch):
    # CI: a follower's worker still opening its index held the socket's `connect`, and every
    # relayed token waited behind it: the whole reply came in one burst after it ended.
    released, calls = threading.Event(), []

    def slow_for_the_second_tab(store, *, instance_id):
        calls.append(instance_id)
        if len(calls) == 2:
            released.wait(timeout=30)

    monkeypatch.setattr(consumers, "files_follow", slow_for_the_second_tab)
    reply = "她把灯笼举高了一点。" * 5
    use_stub.script(Reply(reply, chunk_size=3, delay=0.01))
    sender, follower = await tab_open(alice, instance), await tab_open(alice, instance)
    try:
        await sender.send_json_to({"type": "send", "content": "门后是谁？"})
        sent = await events_until_reply_done(sender)
        followed = await events_until_reply_done(follower, timeout=5)
    finally:
        released.set()
    await sender.disconnect()
    await follower.disconnect()
    assert followed_text(followed) == reply == followed_text(sent)
    assert len(calls) == 2


async def test_a_question_waits_until_the_opened_chat_s_files_are_queued_for_the_index(
        alice, instance, use_stub, monkeypatch):
    released, started_after_release = threading.Event(), []
    turn = consumers.conversation_turn

    def held(store, *, instance_id):
        released.wait(timeout=30)

    async def watched_turn(*args, **kwargs):
        started_after_release.append(released.is_set())
        return await turn(*args, **kwargs)

    monkeypatch.setattr(consumers, "files_follow", held)
    monkeypatch.setattr(consumers, "conversation_turn", watched_turn)
    use_stub.script(Reply("here.", chunk_size=5))
    tab = await tab_open(alice, instance)
    try:
        await tab.send_json_to({"type": "send", "content": "anyone?"})
        await asyncio.sleep(0.3)
    finally:
        released.set()
    assert followed_text(await events_until_reply_done(tab)) == "here."
    await tab.disconnect()
    assert started_after_release == [True]


async def test_a_lone_tab_s_reply_does_not_go_round_the_layer_and_a_second_tab_s_does(
        alice, instance, use_stub, monkeypatch):
    from channels.layers import InMemoryChannelLayer, get_channel_layer

    assert isinstance(get_channel_layer(), InMemoryChannelLayer)
    published: list[str] = []
    group_send = InMemoryChannelLayer.group_send

    async def counted(layer, group, message):
        published.append(message["event"]["type"])
        await group_send(layer, group, message)

    monkeypatch.setattr(InMemoryChannelLayer, "group_send", counted)
    use_stub.script(Reply("alone " * 20, chunk_size=3, delay=0.005),
                    Reply("watched " * 20, chunk_size=3, delay=0.005))
    sender = await tab_open(alice, instance)
    await sender.send_json_to({"type": "send", "content": "anyone?"})
    assert followed_text(await events_until_reply_done(sender)) == "alone " * 20
    assert published == []
    follower = await tab_open(alice, instance)
    await sender.send_json_to({"type": "send", "content": "now?"})
    await events_until_reply_done(sender)
    assert followed_text(await events_until_reply_done(follower)) == "watched " * 20
    await sender.disconnect()
    await follower.disconnect()
    assert "token" in published and published[-1] == "done"


async def test_a_tab_joining_mid_reply_gets_the_file_then_live_tokens_without_gap_or_repeat(
        alice, instance, use_stub):
    reply = "".join(chr(0x4E00 + i) for i in range(120))
    use_stub.script(Reply(reply, chunk_size=1, delay=0.01))
    sender = await tab_open(alice, instance)
    await sender.send_json_to({"type": "send", "content": "讲下去"})
    sent = ""
    while len(sent) < 20:  # (a token event may carry only a shown update, no new text)
        event = await sender.receive_json_from(timeout=5)
        assert event["type"] == "token"
        sent += event["content"]
    follower = await tab_open(alice, instance)
    followed = await events_until_reply_done(follower)
    await events_until_reply_done(sender)
    await sender.disconnect()
    await follower.disconnect()
    assert followed[0]["type"] == "stream" and len(followed[0]["content"]) >= len(sent)
    assert followed_text(followed) == reply
    assert any(e["type"] == "token" for e in followed)


async def test_another_players_tabs_hear_nothing(alice, bob, instance, use_stub):
    use_stub.script(Reply("只有你听得见。"))
    sender = await tab_open(alice, instance)
    await sender.send_json_to({"type": "send", "content": "说吧"})
    await events_until_reply_done(sender)
    await sender.disconnect()
    client = Client()
    await sync_to_async(client.force_login)(bob)
    headers = [(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1:8000"),
               (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]
    stranger = WebsocketCommunicator(application, f"/ws/chat/{instance}/", headers=headers)
    connected, code = await stranger.connect()
    assert not connected and code == 4404


def test_a_missed_token_asks_for_the_file_again():
    cursor = FollowCursor(5)
    assert cursor.take(3, "abcd") == "cd"  # the first two were in the file already
    assert cursor.take(7, "ef") == "ef"
    assert cursor.take(20, "zz") is None  # 9..19 never arrived: resend from the file
    assert FollowCursor().take(4, "late") is None


async def test_on_redis_an_idle_socket_lives_a_while_then_follows_a_reply(
        alice, instance, use_stub, settings, redis_url):  # noqa: F811
    settings.CHANNEL_LAYERS = {"default": redis_channel_layer(redis_url,
                                                              read_timeout=IDLE_READ_TIMEOUT)}
    reply = "安静了一阵之后，她终于开口。"
    use_stub.script(Reply(reply, chunk_size=2))
    sender, follower = await tab_open(alice, instance), await tab_open(alice, instance)
    # redis-py 8's default 5 s read timeout closed sockets here (1011)
    await asyncio.sleep(IDLE_SECONDS)
    await sender.send_json_to({"type": "ping"})
    assert (await sender.receive_json_from(timeout=5))["type"] == "pong"
    await sender.send_json_to({"type": "send", "content": "你还在吗？"})
    sent, followed = await events_until_reply_done(sender), await events_until_reply_done(follower)
    await sender.disconnect()
    await follower.disconnect()
    assert followed_text(sent) == reply == followed_text(followed)


async def test_a_tab_joining_mid_reply_gets_the_reasoning_streamed_so_far(
        alice, instance, use_stub):
    deltas = (("content", "她点头。"), ("reasoning", "他可信吗?"),
              *(("content", "嗯") for _ in range(60)))
    use_stub.script(Reply("", deltas=deltas, delay=0.01))
    sender = await tab_open(alice, instance)
    await sender.send_json_to({"type": "send", "content": "讲下去"})
    kinds = []
    while kinds.count("token") < 5 or "reasoning" not in kinds:
        kinds.append((await sender.receive_json_from(timeout=5))["type"])
    follower = await tab_open(alice, instance)
    followed = await events_until_reply_done(follower)
    await events_until_reply_done(sender)
    await sender.disconnect()
    await follower.disconnect()
    assert followed[0]["type"] == "stream" and followed[0]["reasoning"] == "他可信吗?"
    assert followed[0]["content"].startswith("她点头。")


def _reply_left_unfinished(store, instance_id: str, text: str) -> None:
    """What a server stopped or killed mid-reply leaves: the line's head and its text so far."""
    store.assistant_writer(instance_id, "sess_001", turn=1).open(content=text)


async def test_a_tab_opened_after_a_server_stopped_mid_reply_gets_the_kept_line_not_a_stream(
        alice, instance, store):
    await sync_to_async(_reply_left_unfinished)(store, instance, "Lamp 1 is lit along t")
    tab = await tab_open(alice, instance)
    # No turn writes that line any more: following it would leave the tab waiting forever.
    assert await tab.receive_nothing(timeout=0.5)
    await tab.disconnect()
    last = store.session_read(instance, "sess_001").messages[-1]
    assert last["content"] == "Lamp 1 is lit along t" and last["interrupted"] is True


def test_a_page_read_waits_out_another_readers_repair_but_not_a_streaming_turn(
        instance, store):
    from chat.services.sessions import session_read_repaired

    _reply_left_unfinished(store, instance, "half a line")
    lock = store.instance_lock(instance).acquire()
    try:
        # a turn holds the lock for the whole reply: the page shows the line as still being written
        assert session_read_repaired(store, instance, "sess_001").partial is not None
        # another reader's repair holds it for a moment: the page waits and shows the kept line
        releaser = threading.Timer(0.03, lock.release)
        releaser.start()
        read = session_read_repaired(store, instance, "sess_001")
        releaser.join()
    finally:
        lock.release()
    assert read.partial is None
    assert read.messages[-1]["content"] == "half a line" and read.messages[-1]["interrupted"]
