"""A regex script's find regex read as SillyTavern reads it: regexFromString takes the first
line, `/pattern/flags` up to its last slash, and hands them to JavaScript's RegExp, whose
`[^]`, `\\u{…}`, `$`, `\\k<name>` and `\\s` Python's engine reads otherwise. Each expected text is
what SillyTavern's runRegexScript gave in Node for the same script."""

from __future__ import annotations

import pytest

from library.errors import LibraryError
from library.find_replace.scripts import (
    AI_OUTPUT,
    SUBSTITUTE_ESCAPED,
    RegexRun,
    RegexScript,
    find_regex_words,
    scripts_checked,
)
from personalab.lib.js_regex import js_macro_escaped


def _run(find: str, replace: str, text: str) -> str:
    script = RegexScript(name="t", find=find, replace=replace, placement=frozenset({AI_OUTPUT}))
    return RegexRun(scripts=(script,)).text(text, AI_OUTPUT)


@pytest.mark.parametrize("find,replace,text,expected", [
    ("/<think>[^]*?<\\/think>/g", "", "a<think>x\ny</think>b", "ab"),   # [^]: any character
    ("/[]a/g", "X", "a]a", "a]a"),                                     # []: never matches
    ("/\\u{1F600}/gu", "X", "hi 😀", "hi X"),
    ("/\\uD83D\\uDE00/g", "X", "hi 😀", "hi X"),                        # a UTF-16 pair
    ("/\\p{L}/g", "X", "p{L} héllo", "X héllo"),                       # without u: the text
    ("/(?<n>a)\\k<n>/g", "X", "aa a", "X a"),
    ("/end$/g", "X", "the end\n", "the end\n"),                        # $ is the very end
    ("/^a$/gm", "X", "a\r\na", "X\r\nX"),                              # \r ends a line too
    ("/\\s/g", "X", "a\u3000b\ufeffc\u0085d", "aXbXc\u0085d"),
    ("/[\\s-]+/g", "X", "a - b", "aXb"),
    ("/[\\s-x]/g", "X", "a-x y", "aXXXy"),
    ("/\\cJ/g", "X", "a\nb", "aXb"),
    ("/a{,2}/g", "X", "a{,2} aa", "X aa"),
    ("/\\Aa/g", "X", "Aa a", "X a"),
    ("/abc/g中", "X", "abc abc", "X X"),    # flags are ASCII letters; what follows is left out
    ("/a\nb/g", "X", "a\nb a", "a\nb a"),   # the first line only: "/a" as written
    ("foo\nbar", "X", "foo\nbar foo", "X\nbar foo"),
    ("/abc/y", "X", "abc /abc/y", "abc X"),  # y is no flag there: the whole text is the pattern
    ("/abc/gg", "X", "abc /abc/gg", "abc X"),
    ("/(a)(b)?/g", "[$2|$1|$0|{{match}}]", "ab a", "[b|a|ab|ab] [|a|a|a]"),
    # Without u, JavaScript's strings are UTF-16: `.` and a class take half an emoji (the half
    # left over shows as U+FFFD), and an emoji in the pattern is two halves.
    ("/./g", "X", "😀", "XX"),
    ("/./", "X", "😀 b", "X\ufffd b"),
    ("/^.$/", "X", "😀", "😀"),
    ("/^.{2}$/", "X", "😀", "X"),
    ("/a..b/g", "X", "a😀b", "X"),
    ("/[😀]/g", "X", "😀", "XX"),
    ("/😀+/g", "X", "😀😀", "XX"),
    ("/./gu", "X", "😀", "X"),
    # JavaScript's RegExp throws on Python's inline flags, groups and possessive repeats:
    # SillyTavern skips the script.
    ("/(?i)abc/g", "X", "ABC abc", "ABC abc"),
    ("/a(?s)b/g", "X", "ab", "ab"),
    ("/(?P<n>a)/g", "X", "a", "a"),
    ("/(?>a)/g", "X", "a", "a"),
    ("/(?#c)a/g", "X", "a", "a"),
    ("/a++/g", "X", "aa", "aa"),
    ("/a{2}+/g", "X", "aa", "aa"),
    ("/[(?i)]/g", "X", "(i)", "XXX"),                                  # in a class: text
    ("/\\(?i\\)/g", "X", "(i) i)", "X X"),
    # `$N` past the groups is SillyTavern's next callback argument: the match's offset in
    # UTF-16 units (empty at 0), then the whole text, then nothing.
    ("/(a)b/g", "[$2]", "xab", "x[1]"),
    ("/(a)b/g", "[$2]", "abab", "[][2]"),
    ("/(a)b/g", "[$3]", "xab", "x[xab]"),
    ("/(a)b/g", "[$4]", "xab", "x[]"),
    ("/(a)(b)/g", "[$10]", "xab", "x[]"),
    ("/b/gu", "[$1]", "😀b", "😀[2]"),
])
def test_a_find_regex_matches_what_it_matched_in_sillytavern(find, replace, text, expected):
    assert _run(find, replace, text) == expected


def test_trim_strings_on_a_value_past_the_groups():
    # SillyTavern trims the whole text; its offset is a number and the trim throws there, so
    # the script changes nothing here (said in the run's problems).
    script = RegexScript(name="t", find="/(a)b/g", replace="[$3]", trim=("x",),
                         placement=frozenset({AI_OUTPUT}))
    assert RegexRun(scripts=(script,)).text("xab", AI_OUTPUT) == "x[ab]"
    run = RegexRun(scripts=(RegexScript(name="t", find="/(a)b/g", replace="[$2]", trim=("a",),
                                        placement=frozenset({AI_OUTPUT})),))
    assert run.text("xab", AI_OUTPUT) == "xab" and "offset" in run.problems[0]


def test_trim_strings_take_an_emoji_out_of_a_group_matched_in_halves():
    script = RegexScript(name="t", find="/(.+)/", replace="[$1]", trim=("😀",),
                         placement=frozenset({AI_OUTPUT}))
    assert RegexRun(scripts=(script,)).text("a😀b", AI_OUTPUT) == "[ab]"


@pytest.mark.parametrize("find,said", [
    ("/(?i)abc/g", "“/(?i)”: JavaScript takes no flag inside the pattern"),
    ("/ab(?P<n>c)/", "“/ab(?P” is a group JavaScript does not know"),
    ("/a++/g", "“+” has nothing before it to repeat, after “/a++”"),
])
def test_a_regex_sillytavern_skips_is_refused_with_the_reason(find, said):
    assert find_regex_words(find).startswith(said)
    with pytest.raises(LibraryError):
        scripts_checked([{"scriptName": "s", "findRegex": find, "replaceString": ""}])


def test_scoped_modifiers_of_current_browsers_are_kept():
    assert find_regex_words("/(?i:abc)d/g") is None  # Chrome 125, Firefox 132 take them
    assert _run("/(?i:abc)d/g", "X", "ABCd ABCD") == "X ABCD"


def test_a_javascript_only_pattern_is_saved_not_refused():
    find = "/<think>[^]*?<\\/think>/g"
    saved = scripts_checked([{"scriptName": "hide thinking", "findRegex": find,
                              "replaceString": "", "placement": [2]}])
    assert saved[0]["findRegex"] == find


def test_a_fault_after_a_rewritten_escape_points_where_it_was_written():
    assert find_regex_words("/\\s+(a/g") == "a “(” is never closed, after “/\\s+(”"


def test_an_escaped_macro_of_several_lines_stays_one_pattern_as_in_sillytavern():
    """SillyTavern writes a newline of the value as `\\n`: the find regex keeps one line."""
    value = "Ann (the 2nd)\nof Rhy/s"
    script = RegexScript(name="t", find="/{{user}}!/g", replace="X",
                         placement=frozenset({AI_OUTPUT}), substitute=SUBSTITUTE_ESCAPED)
    run = RegexRun(scripts=(script,), escape_macros=lambda text: text.replace(
        "{{user}}", js_macro_escaped(value)))
    assert run.text(f"hi {value}! {value}", AI_OUTPUT) == f"hi X {value}"
