"""One account's replies at once are bounded (PERSONALAB_TURNS_PER_ACCOUNT): bob's 60 turns at
once over REST, each on a chat of his own (each chat runs one at a time, but he may own
thousands), made alice's turn take 47 s instead of 0.5 s on a live server (eighth red-team
pass). One more is refused at once, nothing written; other accounts play on."""

from __future__ import annotations

import pytest
from django.utils import translation

from chat.live.refusal_words import refusal_said
from chat.play.account_turns import account_turn_held
from chat.services.instances import instance_create

pytestmark = pytest.mark.django_db


def _lines(store, instance_id: str) -> int:
    session_id = store.instance_state_read(instance_id)["current_session_id"]
    return len(store.session_read(instance_id, session_id).messages)


def test_an_account_past_its_replies_at_once_is_refused_and_others_play_on(
        settings, store, alice, bob, character, as_alice, as_bob):
    settings.PERSONALAB_TURNS_PER_ACCOUNT = 2
    hers = [instance_create(store, owner=alice, character_id=character) for _ in range(3)]
    his = instance_create(store, owner=bob, character_id=character)
    with account_turn_held(store, hers[0]), account_turn_held(store, hers[1]):
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


def test_no_limit_when_set_to_none(settings, store, alice, character, as_alice):
    settings.PERSONALAB_TURNS_PER_ACCOUNT = 0
    hers = [instance_create(store, owner=alice, character_id=character) for _ in range(2)]
    with account_turn_held(store, hers[0]), account_turn_held(store, hers[0]):
        assert as_alice("post", "/api/v1/chat", {"instance_id": hers[1],
                                                  "query": "你好"}).status_code == 200


def test_the_refusal_is_said_in_the_pages_language():
    with translation.override("zh-hans"):
        assert "同时生成的回复" in refusal_said("account_turns", "your account already has …")
