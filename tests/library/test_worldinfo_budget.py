"""The world-info budget is spent loop by loop of the scan, as SillyTavern's checkWorldInfo
does: each loop's entries are charged, each followed by a newline, on top of the text earlier
loops fed to recursion, and an entry that reaches the budget is left out. Counted here in
characters, so the newline is one token."""

from __future__ import annotations

from library.lore.lorebook import lorebook_match, lorebook_validate


def count_chars(text: str) -> int:
    return len(text)


def book(*entries: dict) -> dict:
    return lorebook_validate({"lorebook_id": "lb_budget", "name": "Budget",
                              "entries": list(entries)})


def uids(entries: list[dict]) -> list[int]:
    return [entry["uid"] for entry in entries]


def test_an_entry_a_recursion_finds_cannot_push_out_one_the_chat_fired():
    lore = book({"uid": 1, "keys": ["gate"], "priority": 10, "content": "the keeper"},
                {"uid": 2, "keys": ["keeper"], "priority": 100, "content": "x" * 8})
    match = lorebook_match([lore], messages=["open the gate"], count_tokens=count_chars,
                           budget_tokens=15)
    assert uids(match.fired) == [1]
    assert uids(match.dropped) == [2]
    assert match.dropped[0]["reason"].startswith("over the world-info budget (11 + 9 ≥ 15 tokens)")


def test_an_entry_that_fills_the_budget_exactly_is_left_out():
    lore = book({"uid": 1, "keys": ["gate"], "content": "x" * 9})
    match = lorebook_match([lore], messages=["gate"], count_tokens=count_chars,
                           budget_tokens=10)
    assert match.fired == [] and uids(match.dropped) == [1]


def test_a_spent_budget_ends_the_scan_so_nothing_recurses_from_it():
    lore = book({"uid": 1, "keys": ["gate"], "priority": 100, "content": "abc"},
                {"uid": 2, "keys": ["gate"], "priority": 50, "content": "keeper " + "y" * 20},
                {"uid": 3, "keys": ["keeper"], "priority": 1, "content": "z"})
    match = lorebook_match([lore], messages=["gate"], count_tokens=count_chars,
                           budget_tokens=10)
    assert uids(match.fired) == [1] and uids(match.dropped) == [2]


def test_an_earlier_loop_is_charged_only_the_text_it_fed_to_recursion():
    lore = book({"uid": 1, "keys": ["gate"], "priority": 100, "content": "x" * 8,
                 "prevent_recursion": True},
                {"uid": 2, "keys": ["gate"], "priority": 50, "content": "keeper"},
                {"uid": 3, "keys": ["keeper"], "content": "y" * 5})
    match = lorebook_match([lore], messages=["gate"], count_tokens=count_chars,
                           budget_tokens=17)
    assert sorted(uids(match.fired)) == [1, 2, 3] and match.dropped == []


def test_an_entry_left_out_by_the_budget_starts_no_sticky_turns():
    lore = book({"uid": 1, "keys": ["gate"], "priority": 100, "content": "abc"},
                {"uid": 2, "keys": ["gate"], "priority": 50, "content": "y" * 20, "sticky": 3})
    match = lorebook_match([lore], messages=["gate"], count_tokens=count_chars,
                           budget_tokens=10)
    assert uids(match.dropped) == [2] and match.timed == {}
