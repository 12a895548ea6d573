"""An acting frame (send, trigger, regenerate, continue, aside, impersonate) is refused for its
shape or a running reply before the socket's login is read again, and a socket starts at most
PERSONALAB_SOCKET_ACTIONS_PER_MINUTE actions: a flood of them read the session store on the
thread every page view shares (red team, 2026-12-02)."""

from __future__ import annotations

import pytest

from chat.live.consumers import ChatConsumer
from chat.live.frame_checks import ACTION_WINDOW_SECONDS, ActionWindow
from tests.socket_tabs import events_until_done, tab_connect
from tests.stub_llm import Reply


def test_an_action_window_admits_its_limit_then_one_more_as_each_leaves_it():
    window = ActionWindow(2)
    assert window.admit(now=0.0) and window.admit(now=1.0)
    assert not window.admit(now=2.0)
    assert not window.admit(now=ACTION_WINDOW_SECONDS - 0.1)
    assert window.admit(now=ACTION_WINDOW_SECONDS)
    assert not window.admit(now=ACTION_WINDOW_SECONDS + 0.5)


@pytest.mark.django_db(transaction=True)
async def test_malformed_and_busy_frames_are_refused_without_reading_the_session(
        alice, instance, use_stub, monkeypatch):
    checks = []
    real_check = ChatConsumer._still_signed_in

    async def counted(self):
        checks.append(1)
        return await real_check(self)

    monkeypatch.setattr(ChatConsumer, "_still_signed_in", counted)
    use_stub.script(Reply("w" * 200, chunk_size=1, delay=0.01))
    tab, _ = await tab_connect(alice, instance)
    for frame in ({"type": "send", "content": "hi", "speaker": 1},
                  {"type": "send", "content": 5}, {"type": "aside", "content": ""},
                  {"type": "trigger", "speaker": ["char_x"]}):
        await tab.send_json_to(frame)
        refusal = await tab.receive_json_from(timeout=5)
        assert refusal["type"] in ("error", "aside_error") and refusal["code"] == "bad_request"
    assert checks == []
    await tab.send_json_to({"type": "send", "content": "go"})
    assert (await tab.receive_json_from(timeout=5))["type"] in ("token", "speaker")
    for kind, answer in (("send", "error"), ("regenerate", "error"), ("continue", "error"),
                         ("trigger", "error"), ("impersonate", "impersonate_error")):
        await tab.send_json_to({"type": kind, "content": "again"})
        event = await tab.receive_json_from(timeout=5)
        while event["type"] == "token":
            event = await tab.receive_json_from(timeout=5)
        assert (event["type"], event["code"]) == (answer, "busy")
    assert checks == [1]
    await tab.send_json_to({"type": "stop"})
    await events_until_done(tab)
    await tab.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_socket_past_its_actions_a_minute_is_refused_in_its_language_and_kept(
        alice, instance, use_stub, settings):
    settings.PERSONALAB_SOCKET_ACTIONS_PER_MINUTE = 2
    use_stub.script(Reply("One."), Reply("Two."))
    tab, _ = await tab_connect(alice, instance, cookies="django_language=zh-hans")
    for text in ("first", "second"):
        await tab.send_json_to({"type": "send", "content": text})
        assert (await events_until_done(tab))[-1]["type"] == "done"
    await tab.send_json_to({"type": "send", "content": "third"})
    refusal = await tab.receive_json_from(timeout=5)
    assert (refusal["type"], refusal["code"]) == ("error", "throttled")
    assert "操作太多" in refusal["message"]
    await tab.send_json_to({"type": "impersonate"})
    assert (await tab.receive_json_from(timeout=5))["code"] == "throttled"
    await tab.send_json_to({"type": "ping"})
    assert (await tab.receive_json_from(timeout=5))["type"] == "pong"
    await tab.disconnect()
