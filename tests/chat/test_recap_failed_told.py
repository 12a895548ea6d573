"""A recap the model failed (an error, a timeout) never stops the chat: the reply is kept and
the player is told in plain words, in the page's language, that nothing is lost."""

from __future__ import annotations

import asyncio

import pytest

from tests.socket_tabs import events_until_done, tab_connect
from tests.stub_llm import Fail, HangBeforeHeaders, Reply

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(("cookie", "told"), [
    ("en", "The recap of turn 1 could not be written"),
    ("zh-hans", "第 1 轮的回顾没能写成"),
])
async def test_a_failed_recap_is_told_and_the_reply_kept(alice, instance, use_stub, store,
                                                         cookie, told):
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": True,
                                  "recap_every_n_rounds": 1})
    use_stub.script(Reply("我在。"), Fail(503, "the server is overloaded"))
    communicator, connected = await tab_connect(alice, instance,
                                             cookies=f"django_language={cookie}")
    assert connected
    await communicator.send_json_to({"type": "send", "content": "你还在吗？"})
    events = await events_until_done(communicator)
    await communicator.disconnect()
    assert events[-1]["type"] == "done"
    warning = next(e for e in events if e.get("category") == "recap_failed")
    assert told in warning["message"] and "overloaded" in warning["message"]
    assert store.session_read(instance, "sess_001").messages[-1]["content"] == "我在。"


async def test_a_hanging_recap_does_not_hold_the_reply_or_the_next_message(
        alice, instance, use_stub, store, settings):
    """The recap's model hanging held every fifth reply's `done`, and so the player's next
    message, up to the model's timeout (60 s by default)."""
    settings.PERSONALAB_LLM_TIMEOUT = 30.0
    settings.PERSONALAB_RECAP_WAIT_SECONDS = 0.2
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": True,
                                  "recap_every_n_rounds": 1})
    use_stub.script(Reply("我在。"), HangBeforeHeaders(30), Reply("又来了。"))
    communicator, connected = await tab_connect(alice, instance)
    assert connected
    await communicator.send_json_to({"type": "send", "content": "你还在吗？"})
    assert (await events_until_done(communicator))[-1]["type"] == "done"
    while len(use_stub.taken) < 2:  # the recap's request is in, and hangs
        await asyncio.sleep(0.05)
    await communicator.send_json_to({"type": "send", "content": "再说一次。"})
    events = await events_until_done(communicator)
    assert events[-1]["type"] == "done"
    assert "".join(e["content"] for e in events if e["type"] == "token") == "又来了。"
    asked = len(use_stub.taken)  # the second turn's roll waited for the first, not beside it
    use_stub.reset()  # the hang ends: the recap fails and the player is told, after the reply
    told = await communicator.receive_json_from(timeout=5)
    await communicator.disconnect()
    assert told["category"] == "recap_failed"
    assert [m["content"] for m in store.session_read(instance, "sess_001").messages[-4:]] == [
        "你还在吗？", "我在。", "再说一次。", "又来了。"]
    assert asked == 3
