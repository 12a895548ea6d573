"""Inclusion groups named with commas, as SillyTavern's filterByInclusionGroups reads them: the
`group` text is split on a comma and the spaces after it, so "a,b" puts an entry in groups "a"
and "b"; but an entry that fired in an earlier loop closes only the group whose name is its
whole `group` text."""

from __future__ import annotations

from library.lore.lorebook import lorebook_match, lorebook_validate


def book(*entries: dict) -> dict:
    return lorebook_validate({"lorebook_id": "lb_groups", "name": "Groups",
                              "entries": list(entries)})


def uids(entries: list[dict]) -> list[int]:
    return sorted(entry["uid"] for entry in entries)


def test_an_entry_of_groups_a_and_b_that_fired_earlier_leaves_group_a_open():
    lore = book({"uid": 1, "keys": ["gate"], "group": "a,b", "content": "the keeper"},
                {"uid": 2, "keys": ["keeper"], "group": "a", "content": "Y"})
    match = lorebook_match([lore], messages=["open the gate"], count_tokens=len)
    assert uids(match.fired) == [1, 2] and match.dropped == []


def test_an_entry_of_group_a_that_fired_earlier_closes_it_to_one_of_groups_a_and_b():
    lore = book({"uid": 1, "keys": ["gate"], "group": "a", "content": "the keeper"},
                {"uid": 2, "keys": ["keeper"], "group": "a, b", "content": "Y"})
    match = lorebook_match([lore], messages=["open the gate"], count_tokens=len)
    assert uids(match.fired) == [1] and uids(match.dropped) == [2]
    assert "group 'a' already has an active entry" in match.dropped[0]["reason"]


def test_a_space_before_the_comma_stays_part_of_the_group_name():
    lore = book({"uid": 1, "keys": ["gate"], "group": "a ,b", "content": "X"},
                {"uid": 2, "keys": ["gate"], "group": "a", "content": "Y"})
    match = lorebook_match([lore], messages=["gate"], count_tokens=len)
    assert uids(match.fired) == [1, 2] and match.dropped == []


def test_entries_sharing_one_of_their_groups_compete_in_it():
    lore = book({"uid": 1, "keys": ["gate"], "group": "a, b", "content": "X"},
                {"uid": 2, "keys": ["gate"], "group": "c,b", "content": "Y",
                 "group_override": True, "prevent_recursion": True})
    match = lorebook_match([lore], messages=["gate"], count_tokens=len)
    assert uids(match.fired) == [2] and uids(match.dropped) == [1]
    assert "group 'b' won by entry 2 (override)" in match.dropped[0]["reason"]


def test_a_loser_of_group_b_fires_in_the_next_loop_when_the_winners_group_text_is_c_b():
    # The winner's whole `group` text "c,b" closes no group "b" for later loops, and the loser
    # is weighed again there (SillyTavern's filterByInclusionGroups): the recursion its text
    # feeds finds entry 1 alone in groups "a" and "b", so both fire.
    lore = book({"uid": 1, "keys": ["gate"], "group": "a, b", "content": "X"},
                {"uid": 2, "keys": ["gate"], "group": "c,b", "content": "Y",
                 "group_override": True})
    match = lorebook_match([lore], messages=["gate"], count_tokens=len)
    assert uids(match.fired) == [1, 2] and match.dropped == []


def test_group_scoring_counts_the_keys_as_written_as_sillytavern_getscore_does():
    # getScore matches each key untrimmed and without its macros: " sword" is not in
    # "[sword]" and "{{char}}" is not in the chat, so entry 1 scores 1 and loses to entry 2
    # (2); scored as the scan reads keys, entry 1 had 3 and entry 2 lost.
    lore = book({"uid": 1, "keys": [" sword", "{{char}}", "axe"], "group": "g", "content": "X",
                 "use_group_scoring": True},
                {"uid": 2, "keys": ["shield", "axe"], "group": "g", "content": "Y",
                 "use_group_scoring": True})
    match = lorebook_match([lore], messages=["Pia: [sword] axe shield"], count_tokens=len,
                           macros=lambda text: text.replace("{{char}}", "Pia"))
    assert uids(match.fired) == [2] and uids(match.dropped) == [1]
    assert "scoring: 1 key(s) matched, the best matched 2" in match.dropped[0]["reason"]


def test_an_empty_key_is_kept_and_scores_as_found_as_sillytavern_getscore_does():
    # matchKeys finds "" in any buffer, so getScore counts it: entry 1 scores 2 and wins;
    # dropped when the book was read, it scored 1 and the two tied.
    lore = book({"uid": 1, "keys": ["sword", ""], "group": "g", "content": "X",
                 "use_group_scoring": True},
                {"uid": 2, "keys": ["sword", "blade"], "group": "g", "content": "Y",
                 "use_group_scoring": True})
    assert lore["entries"][0]["keys"] == ["sword", ""]
    match = lorebook_match([lore], messages=["a sword"], count_tokens=len)
    assert uids(match.fired) == [1] and uids(match.dropped) == [2]


def test_an_empty_secondary_key_is_one_that_never_matches():
    # SillyTavern reads secondary keys when the list is not empty and never matches "" (its
    # substituteParams gives "", which is false): AND ANY on [""] never fires, NOT ANY always.
    def fired(logic: str) -> bool:
        lore = book({"uid": 1, "keys": ["gate"], "secondary_keys": [""],
                     "selective_logic": logic, "content": "X"})
        return bool(lorebook_match([lore], messages=["the gate"], count_tokens=len).fired)
    assert not fired("and_any") and not fired("and_all")
    assert fired("not_any") and fired("not_all")


def _recursing_group(*, winner_probability: int) -> dict:
    # Entry 1 wins group "g" by override and fires with `winner_probability`; entry 3 feeds a
    # recursion loop, in which the chat's "dragon" finds entry 2 again.
    return book({"uid": 1, "keys": ["dragon"], "group": "g", "group_override": True,
                 "probability": winner_probability, "use_probability": True, "content": "A"},
                {"uid": 2, "keys": ["dragon"], "group": "g", "content": "B"},
                {"uid": 3, "keys": ["dragon"], "content": "the dragon's lair"})


def test_a_groups_loser_is_weighed_again_in_a_later_loop_when_no_winner_fired():
    # filterByInclusionGroups only takes a loser out of that loop's list; the winner failed its
    # roll, so the recursion loop finds entry 2 again with group "g" still open, and it fires.
    # It was left out for good here once it lost.
    match = lorebook_match([_recursing_group(winner_probability=0)], messages=["a dragon"],
                           count_tokens=len)
    assert uids(match.fired) == [2, 3] and uids(match.dropped) == [1]
    assert match.dropped[0]["reason"].startswith("probability 0%")


def test_a_groups_loser_found_again_after_its_winner_fired_is_left_out_once():
    match = lorebook_match([_recursing_group(winner_probability=100)], messages=["a dragon"],
                           count_tokens=len)
    assert uids(match.fired) == [1, 3] and uids(match.dropped) == [2]
    assert match.dropped[0]["reason"].startswith("group 'g' won by entry 1 (override)")
