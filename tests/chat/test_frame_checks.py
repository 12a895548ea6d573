"""An acting frame (send, trigger, regenerate, continue, aside, impersonate) is refused for its
shape or a running reply before the socket's login is read again, and a socket starts at most
PERSONALAB_SOCKET_ACTIONS_PER_MINUTE actions: a flood of them read the session store on the
thread every page view shares (red team, 2026-12-02)."""

from __future__ import annotations

import pytest

from chat.live import consumers, frame_checks
from chat.live.consumers import ChatConsumer
from chat.live.frame_checks import (
    ACTION_WINDOW_SECONDS,
    ActionWindow,
    ConnectWindows,
    FrameBudget,
)
from tests.socket_tabs import events_until_done, own_instance, tab_connect
from tests.stub_llm import Reply


def test_an_action_window_admits_its_limit_then_one_more_as_each_leaves_it():
    window = ActionWindow(2)
    assert window.admit(now=0.0) and window.admit(now=1.0)
    assert not window.admit(now=2.0)
    assert not window.admit(now=ACTION_WINDOW_SECONDS - 0.1)
    assert window.admit(now=ACTION_WINDOW_SECONDS)
    assert not window.admit(now=ACTION_WINDOW_SECONDS + 0.5)


def test_connects_are_counted_per_account_and_only_idle_accounts_are_forgotten():
    now = [0.0]
    connects = ConnectWindows(clock=lambda: now[0])
    assert connects.admit(1, limit=2) and connects.admit(1, limit=2)
    assert not connects.admit(1, limit=2)
    assert connects.admit(2, limit=2)
    for account in range(3, 500):  # 100 new accounts a minute: the idle ones go...
        now[0] += ACTION_WINDOW_SECONDS / 100
        assert connects.admit(account, limit=1)
    assert len(connects.windows) < 350  # 499 if none were forgotten
    for account in range(500, 900):  # ...never one that connected within the minute
        assert connects.admit(account, limit=1)
    assert not any(connects.admit(account, limit=1) for account in range(430, 900))
    assert connects.admit(1, limit=2)  # a minute on, its window is a new one


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


def test_a_frame_budget_counts_frames_and_characters_in_its_window():
    budget = FrameBudget(frames=3, chars=100, seconds=10.0)
    assert budget.admit(60, now=0.0) and budget.admit(30, now=1.0)
    assert not budget.admit(11, now=2.0)  # 101 characters
    assert budget.admit(10, now=2.0)
    assert not budget.admit(0, now=3.0)  # a fourth frame
    assert budget.admit(60, now=10.0) and not budget.idle(now=19.0) and budget.idle(now=22.0)


@pytest.mark.django_db(transaction=True)
async def test_a_flood_of_frames_closes_the_accounts_sockets_unparsed_and_others_go_on(
        alice, bob, instance, monkeypatch):
    """Pings and malformed frames were never counted: each 1 MB frame cost the shared event
    loop tens of ms (red team, twelfth pass)."""
    monkeypatch.setattr(frame_checks, "FRAMES_PER_WINDOW", 5)
    monkeypatch.setattr(frame_checks, "FRAME_CHARS_PER_WINDOW", 10_000)
    monkeypatch.setattr(consumers, "_frame_budgets", {})
    parsed = []
    real_loads = consumers.json_loads
    monkeypatch.setattr(consumers, "json_loads", lambda text: parsed.append(1) or real_loads(text))
    bobs = await own_instance(bob)
    bob_tab, connected = await tab_connect(bob, bobs)
    assert connected
    tab, _ = await tab_connect(alice, instance)
    for _ in range(4):
        await tab.send_to(text_data='{"type": "ping"}')
        assert (await tab.receive_json_from(timeout=5))["type"] == "pong"
    await tab.send_to(text_data="[" * 9_000)  # the fifth frame: still read, and refused
    assert (await tab.receive_json_from(timeout=5))["code"] == "bad_json"
    await tab.send_to(text_data='{"type": "ping"}')
    refusal = await tab.receive_json_from(timeout=5)
    assert (refusal["type"], refusal["code"]) == ("error", "throttled")
    assert (await tab.receive_output(timeout=5))["code"] == consumers.TOO_MANY_CLOSE
    assert len(parsed) == 5
    again, connected = await tab_connect(alice, instance)  # a new tab: the same budget
    assert connected
    await again.send_to(text_data='{"type": "ping"}')
    assert (await again.receive_json_from(timeout=5))["code"] == "throttled"
    await bob_tab.send_to(text_data='{"type": "ping"}')
    assert (await bob_tab.receive_json_from(timeout=5))["type"] == "pong"
    for socket in (tab, again, bob_tab):
        await socket.disconnect()


@pytest.mark.django_db(transaction=True)
async def test_a_large_frame_counts_its_characters(alice, instance, monkeypatch):
    monkeypatch.setattr(frame_checks, "FRAME_CHARS_PER_WINDOW", 300_000)
    monkeypatch.setattr(consumers, "_frame_budgets", {})
    tab, _ = await tab_connect(alice, instance)
    big = '{"type": "ping", "pad": "' + "x" * 200_000 + '"}'
    await tab.send_to(text_data=big)
    assert (await tab.receive_json_from(timeout=5))["type"] == "pong"
    await tab.send_to(text_data=big)
    assert (await tab.receive_json_from(timeout=5))["code"] == "throttled"
    await tab.disconnect()
