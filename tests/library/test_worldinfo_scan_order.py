"""Entries are weighed in SillyTavern's scan order (`getSortedEntries`, default
`character_first`): the chat's lore, then the character's, then the global lore, each by order
(higher first, ties in book and entry order); each loop takes what it found sticky first, then
in that order. The budget and the inclusion groups follow it; the prompt still places fired
entries by order. Counted in characters, so the newline is one token."""

from __future__ import annotations

import copy

from library.lore.lorebook import lore_blocks, lorebook_match, lorebook_validate
from library.lore.st_files import lorebook_file_read


def book(lorebook_id: str, *entries: dict) -> dict:
    return lorebook_validate({"lorebook_id": lorebook_id, "name": lorebook_id,
                              "entries": list(entries)})


def entry(uid: int, order: int, content: str = "xxxx", **settings) -> dict:
    return {"uid": uid, "keys": ["gate"], "priority": order, "content": content, **settings}


def fired(match) -> list[tuple[str, int]]:
    return sorted((e["lorebook_id"], e["uid"]) for e in match.fired)


SCOPES = {"lb_chat": "chat", "lb_char": "character", "lb_world": "global"}


def test_an_overflowing_budget_keeps_chat_then_character_lore_over_a_higher_order():
    books = [book("lb_world", entry(1, 900)), book("lb_char", entry(1, 500)),
             book("lb_chat", entry(1, 1))]
    match = lorebook_match(books, messages=["the gate"], count_tokens=len, budget_tokens=11,
                           scopes=SCOPES)
    assert fired(match) == [("lb_char", 1), ("lb_chat", 1)]
    assert [(e["lorebook_id"], e["uid"]) for e in match.dropped] == [("lb_world", 1)]


def test_within_a_scope_higher_order_first_and_ties_in_book_then_entry_order():
    books = [book("lb_a", entry(1, 10), entry(2, 20)), book("lb_b", entry(1, 20)),
             book("lb_c", entry(1, 20))]
    match = lorebook_match(books, messages=["the gate"], count_tokens=len, budget_tokens=11,
                           scopes={"lb_a": "chat", "lb_b": "chat", "lb_c": "chat"})
    assert fired(match) == [("lb_a", 2), ("lb_b", 1)]


def test_sticky_entries_come_first_whatever_their_scope():
    books = [book("lb_world", entry(1, 1, sticky=5)), book("lb_chat", entry(1, 100))]
    timed = {"lb_world:1": {"start": 1, "sticky_end": 9, "cooldown_end": 9}}
    match = lorebook_match(books, messages=["the gate"], count_tokens=len, budget_tokens=6,
                           timed=timed, chat_length=3, scopes=SCOPES)
    assert fired(match) == [("lb_world", 1)]


def test_an_inclusion_group_without_weights_goes_to_the_first_in_scan_order():
    grouped = {"group": "weather", "group_weight": 0}
    books = [book("lb_world", entry(1, 900, "storm", **grouped)),
             book("lb_chat", entry(1, 1, "calm", **grouped))]
    match = lorebook_match(books, messages=["the gate"], count_tokens=len, scopes=SCOPES)
    assert fired(match) == [("lb_chat", 1)]


def test_the_books_passed_in_are_left_as_they_were_and_placement_stays_by_order():
    books = [book("lb_world", entry(1, 900, "late")),
             book("lb_chat", entry(1, 1, "early"), entry(2, 50, "middle"))]
    before = copy.deepcopy(books)
    match = lorebook_match(books, messages=["the gate"], count_tokens=len, scopes=SCOPES)
    assert books == before
    assert [b["content"] for b in lore_blocks(match)] == ["early", "middle", "late"]


def test_a_world_files_entries_are_read_in_javascripts_key_order():
    # SillyTavern lists an object's whole-number keys in numeric order, whatever order the file
    # wrote them in (tools other than SillyTavern do write "10" before "2"); ties of equal
    # order are weighed and placed in that order. Read in file order, the two swapped places.
    world = {"entries": {
        "10": {"uid": 10, "key": ["gate"], "content": "ten", "order": 100, "position": 0},
        "2": {"uid": 2, "key": ["gate"], "content": "two", "order": 100, "position": 0}}}
    lore = {**lorebook_file_read(world, fallback_name="w"), "lorebook_id": "lb_w"}
    match = lorebook_match([lorebook_validate(lore)], messages=["the gate"], count_tokens=len)
    assert [e["uid"] for e in match.fired] == [10, 2]  # fired 2 then 10; placed last-fired first
