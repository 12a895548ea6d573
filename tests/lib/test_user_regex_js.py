"""Users' regexes (lore keys, regex scripts) come from SillyTavern, where JavaScript reads
them: its \\w, \\d and \\b know ASCII letters, digits and _ only, with or without the u flag.
Python's know every script, so the same pattern matched other text here."""

from __future__ import annotations

import pytest
import regex

from personalab.lib.regex_faults import pattern_fault
from personalab.lib.user_regex import pattern_compile


@pytest.mark.parametrize("source,text,found", [
    (r"\*(\w+)\*", "*微笑*", None),            # a Chinese action is not a \w word in JavaScript
    (r"\*(\w+)\*", "*smile*", "*smile*"),
    (r"\bcafé\b", "café au lait", None),        # é is not a word character: no boundary after it
    (r"\bcafe\b", "cafe au lait", "cafe"),
    (r"(\d+) gold", "٣ gold", None),             # Arabic-Indic digits are not JavaScript's \d
    (r"[\w-]+", "пароль-x", "-x"),               # inside a class too
    (r"[\w-.]+@", "a-b.c@ x", "a-b.c@"),         # "-" after \w is a character, not a range
    (r"\W+", "é", "é"),
])
def test_word_digit_and_boundary_escapes_are_ascii_as_in_javascript(source, text, found):
    match = pattern_compile(source, regex.V0).search(text)
    assert (match.group(0) if match else None) == found


def test_case_folding_still_covers_every_script():
    found = pattern_compile(r"\w+ été", regex.V0 | regex.IGNORECASE).search("UN ÉTÉ chaud")
    assert found and found.group(0) == "UN ÉTÉ"


def test_a_fault_is_still_placed_in_the_pattern_as_written():
    assert pattern_fault(r"\w\w(", regex.V0).at == 4
