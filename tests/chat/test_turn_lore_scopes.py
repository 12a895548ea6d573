"""A turn weighs lore in SillyTavern's scan order: the chat's own books (its chat lore), then
the character's (its character lore), then the background's (its global lore), each by order.
When the world-info budget overflows, that order, not one sort by order over every book,
decides what is kept (SillyTavern 1.12.6 `getSortedEntries`, default `character_first`)."""

from __future__ import annotations

import pytest

from chat.play.context import context_load
from chat.play.lore import WORLD_INFO_BUDGET_PERCENT, lore_for_turn
from chat.prompt.window import ContextWindow
from chat.services.instance_settings import instance_update
from library.background_services import background_save
from library.character_services import character_save
from library.lore.services import lorebook_save
from personalab.lib.tokens import count_tokens

pytestmark = pytest.mark.django_db(transaction=True)

LORE = "The ferry leaves at dawn."  # the same text in every book: each costs the same


def _book(store, user, name: str, order: int) -> str:
    return lorebook_save(store, user=user, data={"name": name, "entries": [
        {"uid": 1, "keys": ["ferry"], "priority": order, "content": LORE}]})


def _link(store, user, *, character: str, background: str, instance: str,
          books: dict[str, str]) -> None:
    character_save(store, data={**store.character_read(character),
                                "lorebook_ids": [books["character"]]},
                   character_id=character, user=user)
    background_save(store, user=user, background_id=background,
                    data={**store.background_read(background),
                          "lorebook_ids": [books["global"]]})
    if "chat" in books:
        instance_update(store, user=user, instance_id=instance,
                        lorebook_ids=[books["chat"]])


def _lore_within(store, instance: str, entries: int) -> dict:
    """The turn's lore under a world-info budget that holds `entries` entries and no more."""
    budget = entries * count_tokens(f"{LORE}\n") + 1
    window = ContextWindow(tokens=budget * 100 // WORLD_INFO_BUDGET_PERCENT, reply=1,
                           source="setting")
    with store.instance_lock(instance):
        ctx = context_load(store, instance_id=instance, user_text="When does the ferry go?")
    return lore_for_turn(store, ctx, window)


def _fired(lore: dict, names: dict[str, str]) -> list[str]:
    return sorted(names[entry["lorebook_id"]] for entry in lore["fired"])


def test_chat_lore_of_a_low_order_is_kept_over_global_lore_of_a_high_one(
        store, alice, character, background, instance):
    books = {"chat": _book(store, alice, "Chat", 1),
             "character": _book(store, alice, "Character", 50),
             "global": _book(store, alice, "Background", 100)}
    _link(store, alice, character=character, background=background, instance=instance,
          books=books)
    names = {lorebook_id: scope for scope, lorebook_id in books.items()}
    lore = _lore_within(store, instance, entries=2)
    assert _fired(lore, names) == ["character", "chat"]
    assert [names[entry["lorebook_id"]] for entry in lore["dropped"]] == ["global"]
    assert "over the world-info budget" in lore["dropped"][0]["reason"]


def test_character_lore_is_kept_over_the_backgrounds_of_a_higher_order(
        store, alice, character, background, instance):
    books = {"character": _book(store, alice, "Character", 1),
             "global": _book(store, alice, "Background", 100)}
    _link(store, alice, character=character, background=background, instance=instance,
          books=books)
    lore = _lore_within(store, instance, entries=1)
    assert _fired(lore, {v: k for k, v in books.items()}) == ["character"]


def test_a_copy_of_a_book_linked_in_a_second_scope_is_read_once(
        store, alice, character, background, instance):
    # SillyTavern's Seraphina card carries the Eldoria book its world file holds too; there a
    # book is known by its name, so both links are one book. Here they were two, and the
    # prompt had every entry twice. A book of the same name with other entries is still read.
    books = {"character": _book(store, alice, "Eldoria", 100),
             "global": _book(store, alice, "Eldoria", 100)}
    _link(store, alice, character=character, background=background, instance=instance,
          books=books)
    assert len(_lore_within(store, instance, 5)["fired"]) == 1
    other = lorebook_save(store, user=alice, data={"name": "Eldoria", "entries": [
        {"uid": 1, "keys": ["ferry"], "content": "Another ferry."}]})
    instance_update(store, user=alice, instance_id=instance, lorebook_ids=[other])
    assert len(_lore_within(store, instance, 5)["fired"]) == 2
