"""A main reply streams cleaned (SillyTavern's onProgressStreaming runs cleanUpMessage on each
update): each `token` event carries, beside the model's text, what changed in the reply as the
player sees it (`shown_at`, `shown`), so the player's "Name:" the model runs on into and the
character's own name never show, over the WebSocket and SSE alike; the file keeps what the
model wrote until the reply ends."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async

from chat.models import ApiToken
from library.personas.services import persona_create
from personalab.lib import reply_stream
from tests.group_turns import turn_said
from tests.socket_tabs import events_until_done, tab_connect
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

RAW = "Alserqi: * nods *  I pay.  \nWe go. \nMira: and I"


@pytest.fixture
def played(store, alice, instance, use_stub):
    persona_create(store, owner=alice, data={"name": "Mira", "description": "A courier."})
    use_stub.script(Reply("货呢？"))
    asyncio.run(turn_said(store, instance, "我到了。"))
    return instance


def _shown(tokens: list[dict]) -> list[str]:
    shown, seen = "", []
    for event in tokens:
        if "shown_at" in event:
            shown = shown[:event["shown_at"]] + event["shown"]
        seen.append(shown)
    return seen


def _newest_reply(store, instance_id) -> str:
    state = store.instance_state_read(instance_id)
    lines = store.session_read(instance_id, state["current_session_id"], newest=1).lines
    return lines[-1]["content"]


async def test_a_streaming_reply_is_shown_cleaned_as_it_comes(alice, store, played, use_stub,
                                                              monkeypatch):
    # Shown once at the first piece, then at the end: what came after goes in a last token.
    monkeypatch.setattr(reply_stream, "SHOWN_PER_SECOND", 1e-6)
    use_stub.script(Reply(RAW, chunk_size=2, delay=0.005))
    communicator, _ = await tab_connect(alice, played)
    follower, _ = await tab_connect(alice, played)  # another tab, open before the reply
    await communicator.send_json_to({"type": "send", "content": "付钱吧。"})
    events = await events_until_done(communicator)
    followed = await events_until_done(follower)
    await communicator.disconnect()
    await follower.disconnect()
    tokens = [event for event in events if event["type"] == "token"]
    assert "".join(event["content"] for event in tokens) == RAW
    seen = _shown(tokens)
    # (a name's first letters may show until its colon comes, as there)
    assert not any("Alserqi:" in text or "Mira:" in text or text != text.strip()
                   for text in seen)
    if sum(1 for event in tokens if event["content"]) > 1:  # (a loaded machine reads once)
        assert tokens[-1]["content"] == "" and "shown" in tokens[-1]
    final = await sync_to_async(_newest_reply)(store, played)
    assert seen[-1] == final == "*nods*  I pay.\nWe go."
    assert _shown([event for event in followed if event["type"] == "token"])[-1] == final


async def test_a_reply_that_pauses_shows_what_came_before_the_pause(alice, store, played,
                                                                   use_stub, monkeypatch):
    # Updates at most twice a second: the pieces before the pause come within one interval, so
    # all but the first were held back, and the player read "Wa" for as long as the model paused
    # (a browser test caught it: the reply stood still at its hold).
    monkeypatch.setattr(reply_stream, "SHOWN_PER_SECOND", 2)
    text = "Wave 1 rolls in over the glass harbor."
    use_stub.script(Reply(text, chunk_size=2, delay=0.01, held_after=5))
    communicator, _ = await tab_connect(alice, played)
    await communicator.send_json_to({"type": "send", "content": "Tell it."})
    tokens: list[dict] = []
    while not _shown(tokens) or _shown(tokens)[-1] != text[:10]:
        event = await communicator.receive_json_from(timeout=10)  # the hold lasts 60 s
        if event["type"] == "token":
            tokens.append(event)
    use_stub.release()
    events = await events_until_done(communicator)
    await communicator.disconnect()
    tokens += [event for event in events if event["type"] == "token"]
    assert _shown(tokens)[-1] == text


async def test_server_sent_events_carry_the_reply_as_shown(async_client, alice, store, played,
                                                           use_stub):
    token = await sync_to_async(ApiToken.issue)(alice)
    use_stub.script(Reply(RAW, chunk_size=3))
    response = await async_client.post(
        "/api/v1/chat", data=json.dumps({"instance_id": played, "query": "付钱吧。",
                                         "stream": True}),
        content_type="application/json", headers={"Authorization": f"Bearer {token}"})
    body = b"".join([chunk async for chunk in response.streaming_content]).decode()
    tokens = [json.loads(block.split("\n")[1].removeprefix("data: "))
              for block in body.strip().split("\n\n") if block.startswith("event: token")]
    assert "".join(event["content"] for event in tokens) == RAW
    assert _shown(tokens)[-1] == "*nods*  I pay.\nWe go."
