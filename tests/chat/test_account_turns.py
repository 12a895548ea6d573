"""One account's replies at once are bounded (PERSONALAB_TURNS_PER_ACCOUNT): bob's 60 turns at
once over REST, each on a chat of his own (each chat runs one at a time, but he may own
thousands), made alice's turn take 47 s instead of 0.5 s on a live server (eighth red-team
pass). While another account plays, one more is refused at once, nothing written; the others
play on. An account alone on the server is not held to it (a load run of many players under one
account)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import Counter

import pytest
from django.utils import translation

from chat.groups.round import conversation_turn
from chat.live.refusal_words import refusal_said
from chat.play import account_turns, recap_roll, turn
from chat.play.account_turns import account_turn_held
from chat.services import memory_actions
from chat.services.instances import instance_create
from personalab.lib.store_errors import InstanceBusy

pytestmark = pytest.mark.django_db(transaction=True)  # turns write the index from threads


@pytest.fixture(autouse=True)
def _no_one_else_played(monkeypatch):
    """The worker's earlier tests played as other accounts within the last minute."""
    monkeypatch.setattr(account_turns, "_running", Counter())
    monkeypatch.setattr(account_turns, "_last_active", {})


def _lines(store, instance_id: str) -> int:
    session_id = store.instance_state_read(instance_id)["current_session_id"]
    return len(store.session_read(instance_id, session_id).messages)


def test_an_account_past_its_replies_at_once_is_refused_and_others_play_on(
        settings, store, alice, bob, character, as_alice, as_bob):
    settings.PERSONALAB_TURNS_PER_ACCOUNT = 2
    hers = [instance_create(store, owner=alice, character_id=character) for _ in range(3)]
    his = instance_create(store, owner=bob, character_id=character)
    with account_turn_held(store, his), account_turn_held(store, hers[0]), \
            account_turn_held(store, hers[1]):
        # two of her replies are being written: a third chat's turn, aside, impersonation
        before = _lines(store, hers[2])
        for body in ({"query": "还在吗？"}, {"mode": "aside", "query": "悄悄说"},
                     {"mode": "impersonate"}):
            answer = as_alice("post", "/api/v1/chat", {"instance_id": hers[2], **body})
            assert answer.status_code == 429, answer.content
            assert answer.json()["error"]["code"] == "account_turns"
        assert _lines(store, hers[2]) == before  # nothing written
        assert as_bob("post", "/api/v1/chat", {"instance_id": his,
                                                "query": "你好"}).status_code == 200
    assert as_alice("post", "/api/v1/chat", {"instance_id": hers[2],
                                              "query": "还在吗？"}).status_code == 200


def test_an_account_alone_on_the_server_is_not_held_to_the_bound(
        settings, store, alice, bob, character, as_alice, monkeypatch):
    settings.PERSONALAB_TURNS_PER_ACCOUNT = 1
    hers = [instance_create(store, owner=alice, character_id=character) for _ in range(2)]
    his = instance_create(store, owner=bob, character_id=character)
    with account_turn_held(store, hers[0]):
        assert as_alice("post", "/api/v1/chat", {"instance_id": hers[1],
                                                  "query": "你好"}).status_code == 200
    with account_turn_held(store, his):
        pass  # bob played a minute ago: the server is shared
    with account_turn_held(store, hers[0]):
        assert as_alice("post", "/api/v1/chat", {"instance_id": hers[1],
                                                  "query": "你好"}).status_code == 429
    quiet = {account: seen - account_turns.SHARED_SECONDS - 1
             for account, seen in account_turns._last_active.items()}
    monkeypatch.setattr(account_turns, "_last_active", quiet)  # bob's minute has passed
    with account_turn_held(store, hers[0]):
        assert as_alice("post", "/api/v1/chat", {"instance_id": hers[1],
                                                  "query": "你好"}).status_code == 200
    assert len(account_turns._last_active) == 1  # bob forgotten, only alice's last turn


def test_no_limit_when_set_to_none(settings, store, alice, character, as_alice):
    settings.PERSONALAB_TURNS_PER_ACCOUNT = 0
    hers = [instance_create(store, owner=alice, character_id=character) for _ in range(2)]
    with account_turn_held(store, hers[0]), account_turn_held(store, hers[0]):
        assert as_alice("post", "/api/v1/chat", {"instance_id": hers[1],
                                                  "query": "你好"}).status_code == 200


def test_the_refusal_is_said_in_the_pages_language():
    with translation.override("zh-hans"):
        assert "同时生成的回复" in refusal_said("account_turns", "your account already has …")


@pytest.mark.parametrize("action", ["summarize", "update_memory", "recaps/rebuild"])
def test_a_memory_action_counts_as_the_models_work_too(settings, store, alice, bob, character,
                                                       as_alice, action):
    settings.PERSONALAB_TURNS_PER_ACCOUNT = 1
    hers = [instance_create(store, owner=alice, character_id=character) for _ in range(2)]
    his = instance_create(store, owner=bob, character_id=character)
    with account_turn_held(store, his), account_turn_held(store, hers[0]):
        answer = as_alice("post", f"/api/v1/instances/{hers[1]}/{action}")
        assert answer.status_code == 429, answer.content
        assert answer.json()["error"]["code"] == "account_turns"
        # the chat's lock was given back: its turn is refused for the account, not as busy
        turn = as_alice("post", "/api/v1/chat", {"instance_id": hers[1], "query": "你好"})
        assert turn.json()["error"]["code"] == "account_turns"
    assert as_alice("post", "/api/v1/chat", {"instance_id": hers[1],
                                              "query": "你好"}).status_code == 200


def test_the_memory_pages_action_says_the_refusal_beside_it(settings, store, alice, bob,
                                                            character, alice_client):
    settings.PERSONALAB_TURNS_PER_ACCOUNT = 1
    hers = [instance_create(store, owner=alice, character_id=character) for _ in range(2)]
    his = instance_create(store, owner=bob, character_id=character)
    with account_turn_held(store, his), account_turn_held(store, hers[0]):
        page = alice_client.post(f"/instances/{hers[1]}/memory/summarize", HTTP_HX_REQUEST="true")
    assert page.status_code == 200
    assert "PERSONALAB_TURNS_PER_ACCOUNT" in page.content.decode()


def test_a_turn_cancelled_while_it_prepares_holds_its_chat_and_count_until_it_ends(
        settings, store, alice, bob, character, monkeypatch):
    """Django cancels a request whose client left (a REST turn without `stream`); the thread
    preparing it cannot be stopped and writes the player's line. Before the ninth red-team pass
    the chat's lock and the account's count were given back at once: bob's turns, each left
    at once, ran their preparations unbounded, and a second turn of the chat could start
    beside the first."""
    settings.PERSONALAB_TURNS_PER_ACCOUNT = 1
    hers = instance_create(store, owner=alice, character_id=character)
    his = instance_create(store, owner=bob, character_id=character)
    entered, go = threading.Event(), threading.Event()
    prepare = turn.turn_ready

    def held_up(*args, **kwargs):
        entered.set()
        go.wait(10)
        return prepare(*args, **kwargs)

    monkeypatch.setattr(turn, "turn_ready", held_up)

    async def left(event: dict) -> None:
        pass

    async def main() -> tuple[dict, bool]:
        with account_turn_held(store, his):  # bob plays: the bound holds
            task = asyncio.create_task(conversation_turn(store, instance_id=hers,
                                                         user_text="你好", emit=left))
            while not entered.is_set():
                await asyncio.sleep(0.01)
            task.cancel()  # alice's client is gone
            await asyncio.sleep(0.05)
            running = dict(account_turns._running)
            lock = store.instance_lock(hers)
            try:
                lock.acquire()
            except InstanceBusy:
                free = False
            else:
                free = True
                lock.release()
            go.set()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, 10)
        return running, free

    running, free = asyncio.run(main())
    assert running.get("alice") == 1 and not free
    assert account_turns._running["alice"] == 0  # given back once the preparation ended


def test_a_recap_roll_counts_and_is_skipped_past_the_bound(settings, store, alice, bob,
                                                          character, monkeypatch):
    """The roll calls the model after its turn gave the count back: a flood of fifth turns ran
    their rolls uncounted (ninth red-team pass)."""
    settings.PERSONALAB_TURNS_PER_ACCOUNT = 1
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": True})
    hers = [instance_create(store, owner=alice, character_id=character) for _ in range(2)]
    his = instance_create(store, owner=bob, character_id=character)
    counted: list[int] = []

    async def rolled(*args, **kwargs) -> dict:
        counted.append(account_turns._running["alice"])
        return {"action": "none"}

    monkeypatch.setattr(recap_roll, "recap_maybe_roll", rolled)
    asyncio.run(recap_roll.recaps_roll_now(store, hers[1], None))
    assert counted == [1]
    with account_turn_held(store, his), account_turn_held(store, hers[0]):
        asyncio.run(recap_roll.recaps_roll_now(store, hers[1], None))
    assert counted == [1]  # skipped: the next roll takes its turns


def test_a_memory_action_cancelled_while_it_reads_holds_its_chat_and_count_until_it_ends(
        settings, store, alice, bob, character, monkeypatch):
    """As a turn's preparation: update memory reads the whole session (1.3 s at 40,000
    messages, seventh pass) on a thread; a client that left at once gave the lock and the count
    back while it read, so bob's update memory, sent and left again and again, ran unbounded."""
    settings.PERSONALAB_TURNS_PER_ACCOUNT = 1
    hers = instance_create(store, owner=alice, character_id=character)
    entered, go = threading.Event(), threading.Event()
    shown = memory_actions.lines_for_model

    def held_up(*args, **kwargs):
        entered.set()
        go.wait(10)
        return shown(*args, **kwargs)

    monkeypatch.setattr(memory_actions, "lines_for_model", held_up)

    async def main() -> tuple[int, bool]:
        task = asyncio.create_task(memory_actions.memory_action(hers, "update_memory"))
        while not entered.is_set():
            await asyncio.sleep(0.01)
        task.cancel()
        await asyncio.sleep(0.05)
        running = account_turns._running["alice"]
        try:
            store.instance_lock(hers).acquire().release()
        except InstanceBusy:
            free = False
        else:
            free = True
        go.set()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(task, 10)
        return running, free

    assert asyncio.run(main()) == (1, False)
