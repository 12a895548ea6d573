"""Whole-word keys as SillyTavern 1.12.6 matches them (`WorldInfoBuffer.matchKeys`): a key
that `split(/\\s+/)` cuts in several words is looked for as a phrase anywhere, one word with
non-word characters (JavaScript's ASCII `\\W`) on both sides."""

from __future__ import annotations

import pytest

from library.lore.lorebook import lorebook_match, lorebook_validate
from library.lore.st_files import lorebook_file_read


def _fires(key: str, text: str) -> bool:
    lore = lorebook_validate({"lorebook_id": "lb_k", "name": "k", "entries": [
        {"uid": 1, "keys": [key], "content": "x", "match_whole_words": True}]})
    return bool(lorebook_match([lore], messages=[text], count_tokens=len).fired)


@pytest.mark.parametrize("space", ["\u3000", "\u00a0", "\t"])
def test_a_key_with_an_ideographic_no_break_or_tab_space_is_a_phrase(space):
    # "red dragon" is two words to SillyTavern whatever the space, so "red dragons" fires it;
    # read as one word it needed a non-word character after "dragon".
    assert _fires(f"red{space}dragon", f"the red{space}dragons came")


def test_case_is_ignored_as_javascripts_to_lower_case_ignores_it():
    # SillyTavern lowers key and chat with toLowerCase; Python's casefold also folds "ß" to
    # "ss" and the "ﬁ" ligature to "fi", so these fired here and never there.
    assert not _fires("STRASSE", "die Straße")
    assert not _fires("film", "ein ﬁlm")
    assert _fires("ΟΔΥΣΣΕΥΣ", "Οδυσσευς")


def test_one_word_still_needs_its_boundaries():
    assert not _fires("dragon", "the dragons came")
    assert _fires("dragon", "the dragon, again")
    assert _fires("龙", "一条龙飞过")  # no ASCII word character around it: a whole word


@pytest.mark.parametrize("key,text", [("/and/or/", "this and/or that"),
                                      ("/a/b/i", "xa/b"), ("/dragon/v", "a dragon"),
                                      ("/(?i)dragon/", "a DRAGON"), ("/dr(?P<x>a)gon/", "dragon")])
def test_a_slashed_key_sillytavern_cannot_read_as_a_regex_is_plain_text(key, text):
    # parseRegexFromString: an unescaped "/" inside, a flag or a group (Python's `(?i)`) its
    # RegExp did not take, and the key is text; read as a regex here it fired on text
    # SillyTavern's never matched.
    assert not _fires(key, text)
    assert _fires(key, f"see {key} here")


def test_an_escaped_slash_keeps_the_key_a_regex():
    assert _fires(r"/and\/or/i", "this AND/OR that")


def test_a_key_is_trimmed_after_its_macros_are_filled_in():
    # SillyTavern matches `substituteParams(key).trim()`: "{{noop}} sword" is "sword".
    lore = lorebook_validate({"lorebook_id": "lb_k", "name": "k", "entries": [
        {"uid": 1, "keys": ["{{noop}} sword"], "content": "x"}]})
    fired = lorebook_match([lore], messages=["Sword drawn."], count_tokens=len,
                           macros=lambda text: text.replace("{{noop}}", ""))
    assert fired.fired


def test_a_regex_keys_word_escapes_are_javascripts_ascii_ones():
    # \b between a space and a Cyrillic letter is no boundary in JavaScript: SillyTavern never
    # fires this key, and here it fired on every mention.
    assert not _fires(r"/\bдракон\b/i", "большой дракон")
    assert _fires(r"/\bdragon\b/i", "a big Dragon!")


@pytest.mark.parametrize("content,fires", [
    ("@@@activate\nx", False),               # "@@@" stands in only for an unknown line above
    ("@@future_thing\n@@@activate\nx", True),
    ("@@activate \nx", False),               # known by its start, acted on only when exact
])
def test_decorator_lines_read_as_sillytavern_parses_them(content, fires):
    lore = lorebook_validate({"lorebook_id": "lb_d", "name": "d", "entries": [
        {"uid": 1, "keys": ["never-said"], "content": content}]})
    match = lorebook_match([lore], messages=["hello"], count_tokens=len)
    assert bool(match.fired) is fires
    assert all(entry["content"] == "x" for entry in match.fired)


def test_an_entry_of_decorator_lines_alone_keeps_its_text_as_sillytavern_sends_it():
    # parseDecorators cuts the text at the first line that is no decorator; with none, it
    # returns the content whole, so "@@activate" fires and sends "@@activate" (here: nothing).
    lore = lorebook_validate({"lorebook_id": "lb_d", "name": "d", "entries": [
        {"uid": 1, "keys": ["never-said"], "content": "@@activate"},
        {"uid": 2, "keys": ["never-said"], "content": "@@activate\n"}]})
    match = lorebook_match([lore], messages=["hello"], count_tokens=len)
    assert sorted((e["uid"], e["content"]) for e in match.fired) == [(1, "@@activate"), (2, "")]


def test_min_activations_last_step_looks_one_message_past_the_max_depth():
    # SillyTavern 1.12.6 stops when the depth it scanned is past the max, so with scan depth
    # 1 and max depth 2 it scans depths 1, 2 and 3: "harbor", 3 messages back, fires there.
    lore = lorebook_validate({"lorebook_id": "lb_m", "name": "m", "scan_depth": 1,
                              "min_activations": 2, "min_activations_depth_max": 2,
                              "entries": [{"uid": 1, "keys": ["harbor"], "content": "x"},
                                          {"uid": 2, "keys": ["mine"], "content": "y"}]})
    messages = ["the mine", "the harbor", "ok", "hello"]
    fired = lorebook_match([lore], messages=messages, count_tokens=len).fired
    assert [entry["uid"] for entry in fired] == [1]


def test_a_sticky_regex_key_matches_only_at_the_start_of_the_newest_message():
    # JavaScript's `y` flag: RegExp.test looks only at lastIndex 0 of SillyTavern's one scan
    # buffer, the \x01 before the newest message; searched anywhere here it fired on any.
    assert not _fires("/hello/y", "hello there")
    lore = lorebook_validate({"lorebook_id": "lb_k", "name": "k", "entries": [
        {"uid": 1, "keys": [r"/\x01hello/yi"], "content": "x"}]})
    def fired(messages: list[str]) -> bool:
        return bool(lorebook_match([lore], messages=messages, count_tokens=len).fired)
    assert fired(["bye", "Hello again"])
    assert not fired(["hello first", "bye"])


def test_a_key_of_spaces_alone_fires_on_any_chat_as_sillytavern_trims_it_to_nothing():
    # substituteParams(" ") is not empty, its trim is, and matchKeys finds "" anywhere; the
    # import dropped such a key, so the entry never fired here.
    assert _fires(" ", "anything at all")
    lore = lorebook_validate({"lorebook_id": "lb_k", "name": "k", "entries": [
        {"uid": 1, "keys": ["gate"], "secondary_keys": ["\t"], "selective_logic": "not_any",
         "content": "x"}]})
    assert lore["entries"][0]["secondary_keys"] == ["\t"]
    assert not lorebook_match([lore], messages=["the gate"], count_tokens=len).fired


def test_a_world_files_unset_case_sensitive_follows_the_books_setting():
    # A world file's `caseSensitive: null` is read through the card format, where the import
    # wrote false: a case-sensitive book did not make "Sword" miss "sword" for that entry.
    world = {"entries": {"0": {"uid": 0, "key": ["Sword"], "content": "UNSET",
                               "caseSensitive": None, "matchWholeWords": None},
                         "1": {"uid": 1, "key": ["Shield"], "content": "OFF",
                               "caseSensitive": False, "matchWholeWords": None}}}
    book = {**lorebook_file_read(world, fallback_name="World"), "lorebook_id": "lb_w",
            "case_sensitive": True}
    assert [entry["case_sensitive"] for entry in book["entries"]] == [None, False]
    match = lorebook_match([book], messages=["a sword, a shield"], count_tokens=len)
    assert [entry["content"] for entry in match.fired] == ["OFF"]
