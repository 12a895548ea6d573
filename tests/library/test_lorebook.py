from __future__ import annotations

from types import SimpleNamespace

import pytest
import regex

from library.lore import keys
from library.lore.lorebook import LorebookError, lore_blocks, lorebook_match, lorebook_validate
from personalab.lib.macros import macros_replace


def count_chars(text: str) -> int:
    return len(text)


def book(*entries: dict, **settings) -> dict:
    return lorebook_validate({"lorebook_id": "lb_test", "name": "测试", **settings,
                              "entries": list(entries)})


def fired_uids(match) -> list[int]:
    return [entry["uid"] for entry in match.fired]


def test_chinese_key_fires_inside_a_sentence():
    lore = book({"uid": 1, "keys": ["维克多"], "content": "维克多是北区的叛徒。"})
    match = lorebook_match([lore], messages=["我见到了维克多"], count_tokens=count_chars)
    assert fired_uids(match) == [1]
    assert match.fired[0]["reason"] == "key '维克多' in message -1"
    assert match.fired[0]["lorebook_id"] == "lb_test"


def test_key_absent_does_not_fire():
    lore = book({"uid": 1, "keys": ["维克多"], "content": "x"})
    match = lorebook_match([lore], messages=["我见到了艾琳"], count_tokens=count_chars)
    assert match.fired == [] and match.dropped == []


def test_plain_keys_ignore_case_unless_case_sensitive():
    loose = {"uid": 1, "keys": ["Victor"], "content": "a"}
    strict = {"uid": 2, "keys": ["Victor"], "content": "b", "case_sensitive": True}
    match = lorebook_match([book(loose, strict)], messages=["i saw VICTOR"],
                           count_tokens=count_chars)
    assert fired_uids(match) == [1]


@pytest.mark.parametrize("logic, text, fires", [
    ("and_any", "维克多拿着剑", True),
    ("and_any", "维克多空着手", False),
    ("and_all", "维克多拿着剑和盾", True),
    ("and_all", "维克多拿着剑", False),
    ("not_any", "维克多空着手", True),
    ("not_any", "维克多拿着盾", False),
    ("not_all", "维克多拿着剑", True),
    ("not_all", "维克多拿着剑和盾", False),
])
def test_secondary_keys_follow_their_logic(logic, text, fires):
    lore = book({"uid": 7, "keys": ["维克多"], "secondary_keys": ["剑", "盾"],
                 "selective_logic": logic, "content": "x"})
    match = lorebook_match([lore], messages=[text], count_tokens=count_chars)
    assert fired_uids(match) == ([7] if fires else [])
    if fires:
        assert logic in match.fired[0]["reason"]


def test_scan_depth_limits_how_far_back_keys_are_found():
    lore_near = book({"uid": 1, "keys": ["维克多"], "content": "x"}, scan_depth=2)
    lore_far = book({"uid": 1, "keys": ["维克多"], "content": "x"}, scan_depth=3)
    messages = ["维克多来了", "你好", "再见"]
    assert lorebook_match([lore_near], messages=messages, count_tokens=count_chars).fired == []
    match = lorebook_match([lore_far], messages=messages, count_tokens=count_chars)
    assert match.fired[0]["reason"] == "key '维克多' in message -3"


def test_constant_entry_fires_without_keys_and_disabled_never_fires():
    lore = book({"uid": 1, "constant": True, "content": "世界观"},
                {"uid": 2, "keys": ["维克多"], "enabled": False, "content": "x"},
                scan_depth=0)
    match = lorebook_match([lore], messages=["维克多"], count_tokens=count_chars)
    assert fired_uids(match) == [1]
    assert match.fired[0]["reason"] == "constant"


def test_regex_keys_and_slash_regex_keys():
    lore = book({"uid": 1, "keys": [r"北区\d+号"], "use_regex": True, "content": "a"},
                {"uid": 2, "keys": ["/vic+tor/i"], "content": "b"},
                {"uid": 3, "keys": [r"南区\d+号"], "use_regex": True, "content": "c"})
    match = lorebook_match([lore], messages=["去北区12号找VICCTOR"], count_tokens=count_chars)
    assert sorted(fired_uids(match)) == [1, 2]


def test_budget_is_spent_higher_order_first_and_stops_when_full_as_sillytavern_does():
    lore = book({"uid": 1, "keys": ["维克多"], "priority": 10, "content": "低" * 6},
                {"uid": 2, "keys": ["维克多"], "priority": 50, "content": "高" * 6},
                {"uid": 3, "keys": ["维克多"], "priority": 1, "content": "小"})
    match = lorebook_match([lore], messages=["维克多"], count_tokens=count_chars,
                           budget_tokens=10)
    assert fired_uids(match) == [2]
    assert [entry["uid"] for entry in match.dropped] == [1, 3]
    assert match.dropped[0]["reason"].startswith("over the world-info budget")
    assert match.dropped[1]["reason"].startswith(
        "the world-info budget of 10 tokens was already spent")


def test_an_entry_costs_its_text_as_sent_macros_filled_and_comments_gone():
    lore = book({"uid": 1, "keys": ["ping"], "priority": 50,
                 "content": "{{setvar::q::1}}" * 50 + "{{// " + "x" * 500 + " }}ok"},
                {"uid": 2, "keys": ["ping"], "priority": 10, "content": "small"})
    match = lorebook_match([lore], messages=["ping pong"], count_tokens=count_chars,
                           budget_tokens=10, macros=lambda text: macros_replace(text, {}))
    assert sorted(fired_uids(match)) == [1, 2] and match.dropped == []


def test_a_book_with_its_own_token_budget_is_capped_by_it():
    lore = book({"uid": 1, "keys": ["a"], "priority": 10, "content": "x" * 6},
                {"uid": 2, "keys": ["a"], "priority": 50, "content": "y" * 6}, token_budget=8)
    match = lorebook_match([lore], messages=["a"], count_tokens=count_chars)
    assert fired_uids(match) == [2]
    assert "token_budget of 8" in match.dropped[0]["reason"]


def test_each_lorebook_scans_its_own_depth_and_blocks_are_named():
    first = book({"uid": 1, "keys": ["维克多"], "content": "A", "position": "depth", "depth": 2},
                 scan_depth=1)
    second = {**book({"uid": 1, "keys": ["维克多"], "content": "B"}, scan_depth=5),
              "lorebook_id": "lb_two"}
    match = lorebook_match([first, second], messages=["维克多", "嗯"], count_tokens=count_chars)
    blocks = lore_blocks(match)
    assert [block["name"] for block in blocks] == ["lore:lb_two:1"]
    only_first = lorebook_match([first], messages=["嗯", "维克多"], count_tokens=count_chars)
    assert lore_blocks(only_first) == [{"name": "lore:lb_test:1", "content": "A",
                                        "position": "depth", "depth": 2, "role": "system",
                                        "priority": 100}]


def test_recursive_lorebook_lets_fired_content_trigger_entries():
    entries = ({"uid": 1, "keys": ["维克多"], "content": "维克多效忠于黑鸦帮。"},
               {"uid": 2, "keys": ["黑鸦帮"], "content": "黑鸦帮控制北区。"})
    flat = lorebook_match([book(*entries, recursive=False)], messages=["维克多"],
                          count_tokens=count_chars)
    deep = lorebook_match([book(*entries)], messages=["维克多"],  # on unless set (SillyTavern)
                          count_tokens=count_chars)
    assert fired_uids(flat) == [1]
    assert sorted(fired_uids(deep)) == [1, 2]
    chained = next(e for e in deep.fired if e["uid"] == 2)
    assert "entry lore:lb_test:1" in chained["reason"]


def test_a_key_that_is_not_a_valid_regex_is_plain_text_and_never_rejects_the_book():
    lore = book({"uid": 1, "keys": ["*hug*"], "use_regex": True, "content": "a"},
                {"uid": 2, "keys": ["(unclosed"], "use_regex": True, "content": "b"},
                {"uid": 3, "keys": ["/[broken/i"], "content": "c"})
    match = lorebook_match([lore], messages=["she gives a *HUG* (unclosed /[broken/i"],
                           count_tokens=count_chars)
    assert sorted(fired_uids(match)) == [1, 2, 3]


def test_validate_reports_field_errors_and_fills_defaults():
    with pytest.raises(LorebookError) as error:
        lorebook_validate({"name": "", "scan_depth": -1,
                           "entries": [{"keys": ["a"], "position": "middle"}]})
    assert set(error.value.field_errors) == {"name", "scan_depth", "entries[0].position"}
    clean = lorebook_validate({"name": "x", "entries": [{"keys": ["a"]}, {"keys": "b, c"}]})
    assert [entry["uid"] for entry in clean["entries"]] == [0, 1]
    assert clean["entries"][1]["keys"] == ["b", "c"]
    # Unset stays unset: SillyTavern's defaults apply when matching, an export writes nothing.
    assert clean["token_budget"] is None and clean["scan_depth"] is None
    assert clean["recursive"] is None


def test_an_unvalidated_book_with_a_bad_regex_still_matches_it_as_text():
    raw = {"lorebook_id": "lb_raw", "entries": [
        {"uid": 1, "keys": ["(bad"], "use_regex": True, "content": "a"},
        {"uid": 2, "keys": ["good"], "content": "b"}]}
    match = lorebook_match([raw], messages=["good (bad"], count_tokens=count_chars)
    assert sorted(fired_uids(match)) == [1, 2]


# --- SillyTavern's world-info semantics --------------------------------------------------------

def test_whole_words_per_entry_and_book_default():
    whole = {"uid": 1, "keys": ["cat"], "match_whole_words": True, "content": "a"}
    loose = {"uid": 2, "keys": ["cat"], "content": "b"}
    default = lorebook_match([book(loose)], messages=["concatenate"], count_tokens=count_chars)
    assert default.fired == []  # whole words unless set (SillyTavern)
    match = lorebook_match([book(whole, loose, match_whole_words=False)],
                           messages=["concatenate"], count_tokens=count_chars)
    assert fired_uids(match) == [2]
    match = lorebook_match([book(whole, loose, match_whole_words=False)], messages=["the cat."],
                           count_tokens=count_chars)
    assert sorted(fired_uids(match)) == [1, 2]
    by_book = book(loose, match_whole_words=True)
    assert lorebook_match([by_book], messages=["concat"], count_tokens=count_chars).fired == []
    # As in SillyTavern (JavaScript's \b), a Chinese key inside Chinese text is a whole word.
    chinese = book({"uid": 3, "keys": ["维克多"], "match_whole_words": True, "content": "c"})
    assert fired_uids(lorebook_match([chinese], messages=["我见到了维克多"],
                                     count_tokens=count_chars)) == [3]


def test_case_sensitivity_comes_from_the_card_extensions_when_the_entry_has_none():
    entry = {"uid": 1, "keys": ["Victor"], "case_sensitive": None,
             "extensions": {"case_sensitive": True}, "content": "a"}
    assert lorebook_match([book(entry)], messages=["victor"], count_tokens=count_chars).fired == []
    assert fired_uids(lorebook_match([book(entry)], messages=["Victor"],
                                     count_tokens=count_chars)) == [1]


def test_scan_depth_per_entry_overrides_the_book():
    deep = {"uid": 1, "keys": ["维克多"], "scan_depth": 3, "content": "a"}
    shallow = {"uid": 2, "keys": ["维克多"], "content": "b"}
    match = lorebook_match([book(deep, shallow, scan_depth=1)], messages=["维克多", "嗯", "好"],
                           count_tokens=count_chars)
    assert fired_uids(match) == [1]


def test_entries_are_placed_in_ascending_order():
    lore = book({"uid": 1, "keys": ["a"], "priority": 200, "content": "late"},
                {"uid": 2, "keys": ["a"], "priority": 5, "content": "early"})
    blocks = lore_blocks(lorebook_match([lore], messages=["a"], count_tokens=count_chars))
    assert [block["content"] for block in blocks] == ["early", "late"]


def test_probability_zero_never_fires_and_the_roll_is_recorded():
    import random

    never = {"uid": 1, "keys": ["a"], "probability": 0, "content": "x"}
    half = {"uid": 2, "keys": ["a"], "probability": 50, "content": "y"}
    rng = random.Random(5)
    outcomes = [lorebook_match([book(never, half)], messages=["a"], count_tokens=count_chars,
                               rng=rng) for _ in range(40)]
    assert all(1 not in fired_uids(m) for m in outcomes)
    assert {2 in fired_uids(m) for m in outcomes} == {True, False}
    dropped = outcomes[0].dropped[0]
    assert dropped["uid"] == 1 and "probability 0%: rolled" in dropped["reason"]
    fired = next(m for m in outcomes if fired_uids(m) == [2]).fired[0]
    assert "rolled" in fired["reason"] and fired["roll"] < 50


def test_an_inclusion_group_fires_one_entry_by_weight_or_override():
    import random

    a = {"uid": 1, "keys": ["x"], "group": "weather", "group_weight": 100, "content": "rain"}
    b = {"uid": 2, "keys": ["x"], "group": "weather", "group_weight": 100, "content": "sun"}
    rng = random.Random(1)
    winners = set()
    for _ in range(30):
        match = lorebook_match([book(a, b)], messages=["x"], count_tokens=count_chars, rng=rng)
        assert len(match.fired) == 1 and "group 'weather'" in match.dropped[0]["reason"]
        winners.add(match.fired[0]["uid"])
    assert winners == {1, 2}
    forced = {**b, "group_override": True, "priority": 1}
    for _ in range(10):
        match = lorebook_match([book(a, forced)], messages=["x"], count_tokens=count_chars)
        assert fired_uids(match) == [2]


def test_sticky_keeps_an_entry_and_cooldown_then_blocks_it_counted_in_messages():
    # SillyTavern's clock is the chat's length: a turn adds two messages (the player's and the
    # reply), so sticky 3 keeps the entry one turn more and cooldown 2 blocks it one turn.
    lore = book({"uid": 1, "keys": ["dragon"], "sticky": 3, "cooldown": 2, "content": "D"})
    timed: dict = {}
    fired_on, blocked_on = [], []
    for length, text in zip((2, 2, 4, 6, 8, 10, 12),
                            ["dragon", "calm", "calm", "dragon", "calm", "dragon", "dragon"]):
        match = lorebook_match([lore], messages=[text], count_tokens=count_chars,
                               chat_length=length, timed=timed)
        timed = match.timed
        fired_on += [(length, match.fired[0]["reason"].split(" ")[0])] if match.fired else []
        blocked_on += [length for d in match.dropped if d["reason"].startswith("on cooldown")]
    # 2 keys; 2 again (a regenerate: the chat did not grow) judges it afresh, and "calm" fires
    # nothing, nor does 4; 6 keys, 8 sticky, 10 on cooldown though the key is there, 12 keys.
    assert fired_on == [(2, "key"), (6, "key"), (8, "sticky"), (12, "key")]
    assert blocked_on == [10]


def test_delay_waits_for_enough_messages():
    lore = book({"uid": 1, "keys": ["a"], "delay": 3, "content": "x"})
    assert lorebook_match([lore], messages=["a", "a"], count_tokens=count_chars).fired == []
    assert fired_uids(lorebook_match([lore], messages=["a", "b", "a"],
                                     count_tokens=count_chars)) == [1]


def test_recursion_flags_exclude_prevent_and_delay():
    entries = (
        {"uid": 1, "keys": ["king"], "content": "The king rules the castle."},
        {"uid": 2, "keys": ["castle"], "exclude_recursion": True, "content": "stone"},
        {"uid": 3, "keys": ["rules"], "delay_until_recursion": True, "content": "law"},
        {"uid": 4, "keys": ["king"], "prevent_recursion": True, "content": "a secret hoard"},
        {"uid": 5, "keys": ["hoard"], "content": "gold"},
    )
    match = lorebook_match([book(*entries, recursive=True)], messages=["the king rules"],
                           count_tokens=count_chars)
    # 2 only by chat text (excluded from recursion); 3 waits for recursion though "rules" is in
    # the chat; 4's content cannot trigger 5.
    assert sorted(fired_uids(match)) == [1, 3, 4]


def test_catastrophic_regexes_never_stall_a_turn():
    # Python's re needs minutes for these against 40 a's; the regex engine finishes or is
    # stopped by its timeout, and the trace says so.
    lore = book({"uid": 1, "keys": ["/(a+)+$/"], "content": "x"},
                {"uid": 3, "keys": ["/(a|aa)+$/"], "content": "z"},
                {"uid": 2, "keys": ["a"], "match_whole_words": False, "content": "y"})
    other = {**book({"uid": 5, "keys": ["/(a|aa)+$/"], "content": "w"}), "lorebook_id": "lb_2"}
    match = lorebook_match([lore, other], messages=["a" * 40 + "!"] * 4,
                           count_tokens=count_chars)
    assert fired_uids(match) == [2]
    # Stopped once, the pattern is not tried again this turn (other messages, other books).
    assert [p for p in match.problems if "(a|aa)+$" in p and "took longer than" in p] == [
        match.problems[0]]


def test_entry_settings_of_another_type_in_a_files_extensions_are_read_as_their_defaults():
    odd = {"probability": float("inf"), "scan_depth": float("inf"), "sticky": float("inf"),
           "cooldown": float("nan"), "delay": float("inf"), "group": ["g"],
           "delay_until_recursion": float("inf"),
           "character_filter": {"names": 5, "tags": float("inf"), "isExclude": True}}
    lore = book({"uid": 1, "keys": ["tower"], "content": "Tall.", "extensions": odd})
    match = lorebook_match([lore], messages=["the tower"], count_tokens=count_chars,
                           speaker={"name": "Ann", "tags": ["x"]})
    assert fired_uids(match) == [1]


def test_a_regex_key_anchored_at_the_start_never_fires_as_in_sillytavern():
    # SillyTavern starts every scanned message with \x01: `^` never matches, `\x01` does.
    lore = book({"uid": 1, "keys": ["/^hello/i"], "content": "anchored"},
                {"uid": 2, "keys": ["/\\x01hello/i"], "content": "message start"},
                {"uid": 3, "keys": ["/hello$/i"], "content": "end"})
    match = lorebook_match([lore], messages=["Hello there, hello"], count_tokens=count_chars)
    assert sorted(fired_uids(match)) == [2, 3]


def test_compiling_regex_keys_counts_in_the_turns_regex_time(monkeypatch):
    """Many linked books of costly regex keys were all compiled every turn, outside the 1 s a
    turn's regexes may take (red team: 100 books made each turn 6 s and slowed every account);
    compiling now counts, and the keys past the budget are not tried, said once."""
    compiled: list[str] = []
    clock = SimpleNamespace(now=0.0)  # the turn's time: 1/16 s a compile, searches free

    def slow_compile(pattern, flags):
        compiled.append(pattern)
        clock.now += 0.0625
        return regex.compile(pattern, flags)

    monkeypatch.setattr(keys, "pattern_compile", slow_compile)
    monkeypatch.setattr(keys, "time", SimpleNamespace(perf_counter=lambda: clock.now))
    lore = book(*({"uid": n, "keys": [f"/never{n}/"], "content": "x"} for n in range(60)))
    match = lorebook_match([lore], messages=["nothing here"], count_tokens=len)
    assert len(compiled) == 17  # the 17th takes the time past 1 s
    assert sum("the rest were not tried" in text for text in match.problems) == 1
