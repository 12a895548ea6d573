"""Regex keys as SillyTavern 1.12.6 tests them: `parseRegexFromString` hands pattern and flags
to JavaScript's RegExp, and `matchKeys` tests it on the one scan buffer of
`WorldInfoBuffer.get` (each scanned message after \\x01, newest first, joined by newlines)."""

from __future__ import annotations

import pytest

from library.lore.lorebook import lorebook_match, lorebook_validate


def _match(key: str, messages: list[str], **entry):
    lore = lorebook_validate({"lorebook_id": "lb_r", "name": "r", "scan_depth": 4, "entries": [
        {"uid": 1, "keys": [key], "content": "x", **entry}]})
    return lorebook_match([lore], messages=messages, count_tokens=len)


def _fires(key: str, *messages: str) -> bool:
    return bool(_match(key, list(messages)).fired)


def test_a_regex_key_reads_the_scanned_messages_as_one_buffer():
    # Searched message by message here, a pattern spanning two messages never fired.
    assert _fires("/sword[^]*dragon/", "a dragon lands", "she draws her sword")
    assert _fires("/sword.*dragon/s", "a dragon lands", "she draws her sword")
    assert not _fires("/dragon.*sword/s", "a dragon lands", "she draws her sword")
    # `$` is the end of the buffer: the oldest message scanned, not every message's end.
    assert _fires("/harbor$/", "at the harbor", "we walk")
    assert not _fires("/harbor$/", "we walk", "at the harbor")


def test_a_look_ahead_from_the_start_reads_the_newest_message_only():
    key = r"/^\x01(?=.*ring)(?=.*gold)/i"
    assert _fires(key, "old news", "a gold ring")
    assert not _fires(key, "a gold ring", "old news")


def test_the_trace_names_the_message_a_buffer_match_starts_in():
    fired = _match("/lands\\n\\x01she/", ["she draws", "a dragon lands"]).fired
    assert fired and "in message -1" in fired[0]["reason"]
    fired = _match("/draws/", ["she draws", "a dragon lands"]).fired
    assert fired and "in message -2" in fired[0]["reason"]


@pytest.mark.parametrize("key,text,fires", [
    ("/dragon/ii", "a dragon", False),  # RegExp throws on a flag written twice: plain text
    ("/dragon/ii", "the /dragon/ii rune", True),
    (r"/\p{Lu}{3}/", "ABC", False),  # no `u` flag: \p is the letter p
    (r"/\p{Lu}{3}/", "p{Lu}}}", True),
    (r"/\p{Lu}{3}/u", "ABC", True),
    (r"/\u{1F409}/u", "here be 🐉", True),  # a code point escape needs `u`
    (r"/\uD83D\uDC09/", "here be 🐉", True),  # UTF-16 halves: one character to JavaScript
])
def test_javascripts_regexp_reads_the_pattern_and_flags(key, text, fires):
    assert _fires(key, text) is fires


def test_each_message_is_trimmed_in_the_buffer():
    assert _fires(r"/go\.$/m", "go.  \n", "older")


def test_without_u_an_emoji_is_two_characters_as_in_javascript():
    # JavaScript's strings are UTF-16: `.` takes half an emoji unless the key has the u flag.
    assert not _fires("/dragon.fire/", "a dragon🔥fire")
    assert _fires("/dragon..fire/", "a dragon🔥fire")
    assert _fires("/dragon.fire/u", "a dragon🔥fire")
    # The trace still names the message the match starts in, emoji before it or not.
    fired = _match("/f.re/", ["calm", "🐉🐉🐉🐉🐉🐉 fire"]).fired
    assert fired and "in message -1" in fired[0]["reason"]
