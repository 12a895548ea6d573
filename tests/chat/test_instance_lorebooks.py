"""Lorebooks attached to one instance (not to its character or background): picked over REST,
checked against what the player may use, and read by every turn of that instance."""

from __future__ import annotations

import asyncio
import re

import pytest

from chat.models import ApiToken
from chat.play.turn import turn_run
from library.lore.services import lorebook_save

pytestmark = pytest.mark.django_db(transaction=True)


def _book(store, user, word: str, content: str) -> str:
    return lorebook_save(store, user=user, data={"name": f"{word} book", "entries": [
        {"uid": 1, "keys": [word], "content": content}]})


def _turn(store, instance_id: str, text: str) -> None:
    async def emit(event):
        pass

    asyncio.run(turn_run(store, instance_id=instance_id, user_text=text, emit=emit))


def _sent_text(stub) -> str:
    return "\n".join(m["content"] for m in stub.requests[-1]["messages"])


def test_books_attached_to_an_instance_fire_in_its_turns(client, alice, store, instance,
                                                         use_stub):
    comet = _book(store, alice, "comet", "COMET-LORE: the comet returns every 76 years.")
    tide = _book(store, alice, "tide", "TIDE-LORE: the tide hides the causeway.")
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    url = f"/api/v1/instances/{instance}"

    _turn(store, instance, "look, a comet over the tide")
    assert "COMET-LORE" not in _sent_text(use_stub)

    response = client.put(url, {"lorebook_ids": [comet, tide]},
                          content_type="application/json", **auth)
    assert response.status_code == 200, response.content
    assert response.json()["instance_state"]["lorebook_ids"] == [comet, tide]
    _turn(store, instance, "look, a comet over the tide")
    sent = _sent_text(use_stub)
    assert "COMET-LORE" in sent and "TIDE-LORE" in sent

    client.put(url, {"lorebook_ids": None}, content_type="application/json", **auth)
    _turn(store, instance, "look, a comet over the tide")
    assert "COMET-LORE" not in _sent_text(use_stub)


@pytest.mark.parametrize("value", ["comet", [5], ["no-such-book"], "bobs"])
def test_a_bad_or_foreign_book_is_refused_naming_the_field_and_nothing_changes(
        client, alice, bob, store, instance, value):
    mine = _book(store, alice, "comet", "COMET-LORE")
    bobs = _book(store, bob, "secret", "BOB-ONLY")  # private to bob
    client.put(f"/api/v1/instances/{instance}", {"lorebook_ids": [mine]},
               content_type="application/json",
               HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    before = store.instance_state_read(instance)
    response = client.put(f"/api/v1/instances/{instance}",
                          {"lorebook_ids": [bobs] if value == "bobs" else value,
                           "name": "Renamed"},
                          content_type="application/json",
                          HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    assert response.status_code == 400, response.content
    assert "lorebook_ids" in response.json()["error"]["fields"]
    assert store.instance_state_read(instance) == before


def test_the_chat_drawer_picks_the_books_of_this_chat(alice_client, alice, bob, store, instance):
    comet = _book(store, alice, "comet", "COMET-LORE")
    hidden = _book(store, bob, "secret", "BOB-ONLY")
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert 'id="lorebooks-card"' in page and comet in page and hidden not in page
    # The card's heading names it; its ticks' legend says it again only to a screen reader.
    assert '<legend class="visually-hidden">Lorebooks of this chat</legend>' in page

    response = alice_client.post(f"/instances/{instance}/lorebooks", {"lorebook_ids": [comet]})
    assert response.status_code == 302 and response.url == f"/instances/{instance}/"
    assert store.instance_state_read(instance)["lorebook_ids"] == [comet]
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    ticked = re.findall(r'value="([^"]+)" checked> <bdi data-testid="lorebook-name">([^<]*)<',
                        page)
    assert ticked == [(comet, "comet book")]  # the book ticked, by its name, and no other

    alice_client.post(f"/instances/{instance}/lorebooks", {"lorebook_ids": [hidden]})
    assert store.instance_state_read(instance)["lorebook_ids"] == [comet]
    alice_client.post(f"/instances/{instance}/lorebooks", {})
    assert store.instance_state_read(instance)["lorebook_ids"] == []
