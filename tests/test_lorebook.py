from __future__ import annotations

import pytest

from library.lorebook import LorebookError, lore_blocks, lorebook_match, lorebook_validate


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


def test_budget_keeps_higher_priority_and_records_the_dropped_entry():
    lore = book({"uid": 1, "keys": ["维克多"], "priority": 10, "content": "低" * 6},
                {"uid": 2, "keys": ["维克多"], "priority": 50, "content": "高" * 6},
                {"uid": 3, "keys": ["维克多"], "priority": 1, "content": "小"},
                token_budget=10)
    match = lorebook_match([lore], messages=["维克多"], count_tokens=count_chars)
    assert fired_uids(match) == [2, 3]
    assert [entry["uid"] for entry in match.dropped] == [1]
    assert match.dropped[0]["reason"].startswith("over token budget")


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
    flat = lorebook_match([book(*entries)], messages=["维克多"], count_tokens=count_chars)
    deep = lorebook_match([book(*entries, recursive=True)], messages=["维克多"],
                          count_tokens=count_chars)
    assert fired_uids(flat) == [1]
    assert sorted(fired_uids(deep)) == [1, 2]
    assert "entry lore:lb_test:1" in deep.fired[-1]["reason"]


def test_validate_names_the_entry_with_a_bad_regex():
    with pytest.raises(LorebookError) as error:
        book({"uid": 1, "keys": ["ok"], "content": "a"},
             {"uid": 2, "keys": ["(unclosed"], "use_regex": True, "comment": "坏", "content": "b"})
    assert "entries[1].keys" in error.value.field_errors
    assert "entry 1 (坏)" in error.value.field_errors["entries[1].keys"]


def test_validate_reports_field_errors_and_fills_defaults():
    with pytest.raises(LorebookError) as error:
        lorebook_validate({"name": "", "scan_depth": -1,
                           "entries": [{"keys": ["a"], "position": "middle"}]})
    assert set(error.value.field_errors) == {"name", "scan_depth", "entries[0].position"}
    clean = lorebook_validate({"name": "x", "entries": [{"keys": ["a"]}, {"keys": "b, c"}]})
    assert [entry["uid"] for entry in clean["entries"]] == [0, 1]
    assert clean["entries"][1]["keys"] == ["b", "c"]
    assert clean["token_budget"] == 800 and clean["scan_depth"] == 4


def test_match_skips_an_unvalidated_bad_regex_and_says_so():
    raw = {"lorebook_id": "lb_raw", "entries": [
        {"uid": 1, "keys": ["(bad"], "use_regex": True, "content": "a"},
        {"uid": 2, "keys": ["good"], "content": "b"}]}
    match = lorebook_match([raw], messages=["good (bad"], count_tokens=count_chars)
    assert fired_uids(match) == [2]
    assert "entry 1" in match.problems[0]
