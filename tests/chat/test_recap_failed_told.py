"""A recap the model failed (an error, a timeout) never stops the chat: the reply is kept and
the player is told in plain words, in the page's language, that nothing is lost."""

from __future__ import annotations

import pytest

from tests.socket_tabs import events_until_done, tab_connect
from tests.stub_llm import Fail, Reply

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
