"""A lore key's regex that cannot be used is refused in its author's words and language,
pointing at the spot in the key as written, never the engine's "missing ) at position 7"."""

from __future__ import annotations

import pytest
import regex
from django.utils import translation

from library.find_replace.scripts import scripts_checked
from library.lore.regex_keys import regex_keys_check
from personalab.lib.regex_faults import pattern_fault

pytestmark = pytest.mark.django_db


def _words(key: str, language: str = "en") -> str:
    errors: dict[str, str] = {}
    with translation.override(language):
        regex_keys_check([{"keys": [key]}], errors, strict=True)
    return errors["entries[0].keys"]


@pytest.mark.parametrize(("key", "sentence"), [
    ("/([a-z]+/i", "“/([a-z]+/i”: a “(” is never closed, after “/(”"),
    ("/(a)(b/", "a “(” is never closed, after “/(a)(”"),
    ("/[abc/", "a “[” is never closed, after “/[”"),
    ("/a)/", "a “)” closes no “(”, after “/a)”"),
    ("/*a/", "“*” has nothing before it to repeat, after “/*”"),
    ("/a**/", "“*” has nothing before it to repeat, after “/a**”"),
    ("/\\q/", "“\\q” is not an escape a regex knows"),
    ("/a\\/", "a “\\” at the end escapes nothing"),
    ("/(?z)/", "“/(?z” is not a flag or group a regex knows"),
    ("/(?:a{200}){200}/", "the repeats multiply to 40,200 steps"),
    ("/a{5000}/", "the repeat count {5000} is above 1,000"),
    ("/a{5,2}/", ("this is not a regex that can run: check its brackets and backslashes, "
                  "after “/a{5”")),
])
def test_each_common_fault_is_said_in_words_at_its_place(key, sentence):
    words = _words(key)
    assert sentence in words
    assert "position" not in words and "missing" not in words


def test_a_key_without_slashes_of_a_regex_entry_quotes_from_its_first_letter():
    errors: dict[str, str] = {}
    regex_keys_check([{"keys": ["ab(c"], "use_regex": True}], errors, strict=True)
    assert errors["entries[0].keys"] == "“ab(c”: a “(” is never closed, after “ab(”"


def test_a_long_key_is_quoted_near_the_fault_only():
    words = _words("/" + "x" * 40 + "(y/")
    assert "after “…xxxxxxxxxx(y”" not in words and "after “…xxxxxxxxxxx(”" in words


def test_the_words_are_chinese_in_chinese():
    assert _words("/([a-z]+/i", "zh-hans") == "“/([a-z]+/i”：“/(” 处的 “(” 没有闭合"
    assert "重复次数相乘后达到 40,200 步" in _words("/(?:a{200}){200}/", "zh-hans")


def test_the_fault_finder_points_at_the_unclosed_opener_not_the_end():
    assert pattern_fault("a(b[c", regex.V0).at == 3
    assert pattern_fault("(a)(b", regex.V0).at == 3
    assert pattern_fault("[(]x(", regex.V0).at == 4
    assert pattern_fault("ok", regex.V0) is None


@pytest.mark.parametrize(("find", "sentence"), [
    ("/([a-z]+/gi", "“/([a-z]+/gi”: a “(” is never closed, after “/(”"),
    ("/abc/x", "“/abc/x”: “x” is not a flag a JavaScript regex knows (use g, i, m, s, u)"),
    ("abc(", "“abc(”: a “(” is never closed, after “abc(”"),
])
def test_a_regex_scripts_find_regex_is_refused_in_the_same_words(find, sentence):

    with pytest.raises(Exception) as refused:
        scripts_checked([{"scriptName": "s", "findRegex": find, "replaceString": ""}])
    assert sentence in refused.value.field_errors.values()
