"""Attack: a model (or hostile endpoint) that never stops writes megabytes into the session, and
every later turn is refused. Replies stop at PERSONALAB_MAX_REPLY_CHARS, marked and announced."""

from __future__ import annotations

import json

import pytest

from chat.play.turn import turn_run
from tests.socket_tabs import events_until_done, tab_connect
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _last_line(store, instance_id):
    session_id = store.instance_state_read(instance_id)["current_session_id"]
    path = store.session_path(instance_id, session_id)
    return json.loads(path.read_text(encoding="utf-8").splitlines()[-1])


async def _run(store, instance_id, text, events, **kwargs):
    async def emit(event):
        events.append(event)

    return await turn_run(store, instance_id=instance_id, user_text=text, emit=emit, **kwargs)


async def test_runaway_reply_stops_at_the_cap_and_the_player_is_told(store, instance, use_stub,
                                                                     settings):
    settings.PERSONALAB_MAX_REPLY_CHARS = 500
    use_stub.script(Reply("无" * 20_000, chunk_size=7), Reply("下一轮。"))
    events: list[dict] = []
    result = await _run(store, instance, "说吧", events)
    line = _last_line(store, instance)
    assert line["content"] == "无" * 500 and line["truncated"] is True
    assert "interrupted" not in line
    assert "".join(e["content"] for e in events if e["type"] == "token") == "无" * 500
    warnings = [e for e in events if e["type"] == "warning"]
    assert warnings[-1]["category"] == "reply_truncated"
    assert result.truncated and result.done_event()["truncated"] is True
    assert any(w["category"] == "reply_truncated" for w in result.warnings)

    following = await _run(store, instance, "然后呢？", [])
    assert following.answer_text == "下一轮。"


async def test_reply_under_the_cap_is_not_marked(store, instance, use_stub, settings):
    settings.PERSONALAB_MAX_REPLY_CHARS = 500
    use_stub.script(Reply("好" * 500))
    events: list[dict] = []
    await _run(store, instance, "说吧", events)
    line = _last_line(store, instance)
    assert line["content"] == "好" * 500 and "truncated" not in line
    assert not [e for e in events if e.get("category") == "reply_truncated"]


async def test_continue_counts_the_text_already_there(store, instance, use_stub, settings):
    settings.PERSONALAB_MAX_REPLY_CHARS = 300
    use_stub.script(Reply("a" * 200), Reply("b" * 1000))
    await _run(store, instance, "go", [])
    await _run(store, instance, "", [], continue_reply=True)
    line = _last_line(store, instance)
    # the space SillyTavern's continue_postfix puts before the continuation counts too
    assert line["content"] == "a" * 200 + " " + "b" * 99 and line["truncated"] is True


def test_default_cap_is_in_the_settings(settings):
    assert settings.PERSONALAB_MAX_REPLY_CHARS == 100_000


async def test_chat_socket_tells_the_player_the_reply_was_cut(alice, instance, use_stub, settings):
    settings.PERSONALAB_MAX_REPLY_CHARS = 50
    use_stub.script(Reply("y" * 5000, chunk_size=10))
    communicator, connected = await tab_connect(alice, instance)
    assert connected
    try:
        await communicator.send_json_to({"type": "send", "content": "go on"})
        events = await events_until_done(communicator)
    finally:
        await communicator.disconnect()
    assert "".join(e["content"] for e in events if e["type"] == "token") == "y" * 50
    assert any(e.get("category") == "reply_truncated" for e in events)
    assert events[-1]["type"] == "done" and events[-1]["truncated"] is True
