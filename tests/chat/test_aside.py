"""The light entry (seed 003 §14 "Chat"): an aside to one character, over the WebSocket and
REST, answered from its persona, pinned prompt, recaps and a few recent lines, and never
written into the story's session file; kept in a file of its own only when the setting says so
(§15.3). Real turns and asides against the stub server."""

from __future__ import annotations

import asyncio
import hashlib
import json

import pytest
from asgiref.sync import sync_to_async

from chat.models import ApiToken
from chat.play.aside import asides_read
from tests.group_turns import turn_said
from tests.socket_tabs import tab_connect
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _session_file(store, instance_id):
    state = store.instance_state_read(instance_id)
    return store.session_path(instance_id, state["current_session_id"])


def _digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


async def _aside_events(communicator, timeout=10):
    events = []
    while True:
        event = await communicator.receive_json_from(timeout=timeout)
        events.append(event)
        if event["type"] in ("aside_done", "aside_error"):
            return events


@pytest.fixture
def story(store, group, use_stub):
    """Two rounds of the story, a recap and a pinned prompt for Brenna."""
    use_stub.script(Reply("我去找车。"), Reply("我修引擎。"), Reply("车找到了。"), Reply("引擎好了。"))
    asyncio.run(turn_said(store, group, "分头行动。"))
    asyncio.run(turn_said(store, group, "准备好了吗？"))
    store.memory_json_write(group, "recaps", {"items": [
        {"id": "rcp_1", "text": "两人在废土边缘的加油站落脚。", "created_at": "2026-11-24"}]})
    return group


async def test_an_aside_over_the_websocket_leaves_the_story_file_unchanged(
        alice, store, story, brenna, use_stub):
    session = _session_file(store, story)
    before = _digest(session)
    use_stub.script(Reply("……别告诉他，我其实怕黑。"))
    communicator, connected = await tab_connect(alice, story)
    assert connected
    await communicator.send_json_to({"type": "aside", "speaker": brenna,
                                     "content": "私下问你：你怕什么？"})
    events = await _aside_events(communicator)
    await communicator.disconnect()

    done = events[-1]
    assert done["type"] == "aside_done" and done["speaker"] == brenna and done["name"] == "Brenna"
    assert done["content"] == "……别告诉他，我其实怕黑。" and done["kept"] is False
    assert "".join(e["content"] for e in events if e["type"] == "aside_token") == done["content"]
    assert _digest(session) == before
    assert not (store.instance_dir(story) / "asides.jsonl").exists()

    prompt = use_stub.requests[-1]["messages"]
    system = prompt[0]["content"]
    assert "沉默的机械师" in system and "Brenna 从不说超过两句话" in system  # persona, pinned
    assert "加油站" in system  # the conversation's recap
    assert "废土黑帮老大" not in system  # not Alserqi's persona
    said = json.dumps(prompt[1:], ensure_ascii=False)
    assert "引擎好了。" in said and "Alserqi: 车找到了。" in said  # a few recent lines, named
    assert prompt[-1] == {"role": "user", "content": "私下问你：你怕什么？"}


def test_an_aside_in_an_english_chat_is_asked_in_english(alice_client, store, story, use_stub):
    store.module_write("prompt", {**store.module_read("prompt"), "locale": "en"})
    use_stub.script(Reply("Fine."))
    response = alice_client.post("/api/v1/chat", {"instance_id": story, "query": "All good?",
                                                  "mode": "aside"},
                                 content_type="application/json")
    assert response.status_code == 200, response.content
    system = use_stub.requests[-1]["messages"][0]["content"]
    assert "is having a few private words with you outside the story" in system
    assert "[Story so far]\n两人在废土边缘的加油站落脚。" in system
    assert "你是" not in system and "前情提要" not in system


def test_an_aside_over_rest_is_kept_apart_when_the_setting_says_so(alice_client, store, story,
                                                                   character, use_stub):
    store.module_write("history", {**store.module_read("history"), "asides_keep": True})
    session = _session_file(store, story)
    before = _digest(session)
    use_stub.script(Reply("放心，车没问题。"))
    response = alice_client.post("/api/v1/chat", {"instance_id": story, "query": "车还好吗？",
                                                  "mode": "aside"},
                                 content_type="application/json")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["mode"] == "aside" and body["speaker"] == character  # the story's character
    assert body["answer_text"] == "放心，车没问题。" and body["kept"] is True
    assert _digest(session) == before
    kept = asides_read(store, instance_id=story)
    assert [(line["role"], line["content"]) for line in kept] == [
        ("user", "车还好吗？"), ("assistant", "放心，车没问题。")]

    # the next turn of the story does not see the aside
    use_stub.script(Reply("出发。"), Reply("嗯。"))
    asyncio.run(turn_said(store, story, "走吧。"))
    assert "车没问题" not in json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)


def test_bad_asides_are_refused_by_name_and_change_nothing(alice_client, client, bob, store,
                                                           story, use_stub):
    session = _session_file(store, story)
    before = _digest(session)
    asked = len(use_stub.requests)

    def post(body, who=alice_client):
        return who.post("/api/v1/chat", {"instance_id": story, "mode": "aside", **body},
                        content_type="application/json")

    stranger = post({"query": "在吗？", "speaker": "char_nobody"})
    assert stranger.status_code == 400 and "speaker" in stranger.json()["error"]["fields"]
    empty = post({"query": "  "})
    assert empty.status_code == 400 and "query" in empty.json()["error"]["fields"]
    streamed = post({"query": "在吗？", "stream": True, "speaker": "char_nobody"})
    assert streamed.status_code == 400 and "speaker" in streamed.json()["error"]["fields"]
    wrong_mode = post({"query": "在吗？", "mode": "whisper"})
    assert wrong_mode.status_code == 400
    client.force_login(bob)
    assert post({"query": "在吗？"}, who=client).status_code == 404
    assert len(use_stub.requests) == asked and _digest(session) == before


async def test_an_aside_is_answered_while_a_story_reply_streams(alice, store, story, brenna,
                                                                use_stub):
    use_stub.script(Reply("一个很长的回答，" * 20, chunk_size=2, delay=0.02), Reply("嗯。"),
                    Reply("我在听。"))
    story_socket, _ = await tab_connect(alice, story)
    aside_socket, _ = await tab_connect(alice, story)
    await story_socket.send_json_to({"type": "send", "content": "讲讲路线。"})
    await asyncio.sleep(0.2)
    await aside_socket.send_json_to({"type": "aside", "speaker": brenna, "content": "你还好吗？"})
    events = await _aside_events(aside_socket)
    assert events[-1]["type"] == "aside_done" and events[-1]["content"]
    await story_socket.disconnect()
    await aside_socket.disconnect()


def test_the_chat_page_offers_an_aside_to_each_member_and_shows_kept_ones(alice_client, store,
                                                                          story, character,
                                                                          brenna):
    from chat.play.aside import aside_keep

    aside_keep(store, instance_id=story, lines=[
        {"role": "user", "content": "你信任他吗？", "speaker": brenna},
        {"role": "assistant", "content": "<b>还行</b>", "speaker": brenna, "name": "Brenna"}])
    html = alice_client.get(f"/instances/{story}/").content.decode()
    panel = html[html.index('data-testid="aside-card"'):]
    panel = panel[:panel.index("</details>")]
    assert f'value="{character}">Alserqi' in panel and f'value="{brenna}">Brenna' in panel
    assert "你信任他吗？" in panel and "&lt;b&gt;还行&lt;/b&gt;" in panel  # shown as text


async def test_stop_ends_an_aside_early_keeping_what_came(alice, store, story, brenna, use_stub):
    store.module_write("history", {**store.module_read("history"), "asides_keep": True})
    session = _session_file(store, story)
    before = _digest(session)
    use_stub.script(Reply("我想想……" + "很久很久以前，" * 60, chunk_size=2, delay=0.02))
    communicator, _ = await tab_connect(alice, story)
    await communicator.send_json_to({"type": "aside", "speaker": brenna, "content": "讲个故事？"})
    first = await communicator.receive_json_from(timeout=10)
    assert first["type"] == "aside_token"
    await communicator.send_json_to({"type": "aside_stop"})
    events = [first, *await _aside_events(communicator)]
    await communicator.disconnect()

    done = events[-1]
    assert done["type"] == "aside_done" and done["stopped"] is True and not done["error"]
    assert done["content"] and len(done["content"]) < len("很久很久以前，" * 60)
    kept = asides_read(store, instance_id=story)
    assert kept[-1]["content"] == done["content"] and kept[-1]["interrupted"] is True
    assert _digest(session) == before


async def test_an_aside_streams_as_server_sent_events(async_client, alice, store, story, brenna,
                                                      use_stub):
    token = await sync_to_async(ApiToken.issue)(alice)
    before = _digest(_session_file(store, story))
    use_stub.script(Reply("我一直在听。", chunk_size=2))

    response = await async_client.post(
        "/api/v1/chat", data=json.dumps({"instance_id": story, "mode": "aside", "stream": True,
                                         "speaker": brenna, "query": "你在听吗？"}),
        content_type="application/json", headers={"Authorization": f"Bearer {token}"})

    assert response["Content-Type"] == "text/event-stream"
    body = b"".join([chunk async for chunk in response.streaming_content]).decode()
    events = [(block.split("\n")[0].removeprefix("event: "),
               json.loads(block.split("\n")[1].removeprefix("data: ")))
              for block in body.strip().split("\n\n")]
    assert events[-1][0] == "aside_done" and events[-1][1]["content"] == "我一直在听。"
    assert events[-1][1]["name"] == "Brenna"
    assert "".join(data["content"] for kind, data in events if kind == "aside_token") == "我一直在听。"
    assert _digest(_session_file(store, story)) == before
