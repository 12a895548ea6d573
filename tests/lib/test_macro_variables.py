from __future__ import annotations

import pytest

from personalab.lib.macro_variables import (
    MAX_TOTAL_CHARS,
    MAX_VALUE_CHARS,
    MacroVariables,
    variables_as_text,
)
from personalab.lib.macros import macros_replace

CASES = [
    ("{{setvar::mood::calm}}[{{getvar::mood}}]", "[calm]"),
    ("[{{getvar::never set}}]", "[]"),
    ("{{setvar::n::007}}{{getvar::n}}", "7"),
    ("{{setvar::n::1.50}}{{getvar::n}}", "1.5"),
    ("{{setvar::n::5}}{{incvar::n}} {{decvar::n}} {{decvar::n}}", "6 5 4"),
    ("{{incvar::fresh}}", "1"),
    ("{{addvar::n::2}}{{addvar::n::0.5}}{{getvar::n}}", "2.5"),
    ("{{addvar::s::ab}}{{addvar::s::cd}}{{getvar::s}}", "abcd"),
    ("{{setvar::s::x}}{{addvar::s::1}}{{getvar::s}}", "x1"),
    ("{{setvar::a::b::c}}{{getvar::a}}", "b::c"),
    ("{{SETVAR:: spaced ::v}}{{GetVar::spaced}}", "v"),
    ("{{setglobalvar::g::hi}}{{getglobalvar::g}}|{{getvar::g}}", "hi|"),
    ("{{addglobalvar::g::3}}{{incglobalvar::g}} {{decglobalvar::g}}", "4 3"),
    ("{{setvar::v::{{user}}}}", "{{setvar::v::Mira}}"),
    ("{{setvar::a:b::c}}", "{{setvar::a:b::c}}"),
    ("{{setvar::empty::}}", "{{setvar::empty::}}"),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_variable_macros_run_left_to_right(text, expected):
    assert macros_replace(text, {"user": "Mira"}) == expected


def test_a_value_is_plain_text_never_read_as_macros():
    assert macros_replace("{{setvar::x::<USER>}}{{getvar::x}}", {"user": "Mira"}) == "<USER>"
    assert macros_replace("{{getvar::x}}", {"char": "Cy"},
                          variables=MacroVariables(base={"x": "{{char}}"})) == "{{char}}"


def test_variables_carry_from_one_text_to_the_next_of_the_same_prompt():
    variables = MacroVariables(base={"seen": "3"})
    assert macros_replace("{{setvar::mood::calm}}{{incvar::seen}}", {},
                          variables=variables) == "4"
    assert macros_replace("{{getvar::mood}} {{getvar::seen}}", {},
                          variables=variables) == "calm 4"
    assert variables.base == {"seen": "3"}


def test_a_value_past_the_bound_is_not_stored():
    variables = MacroVariables(local={"big": "x" * MAX_VALUE_CHARS})
    assert macros_replace("{{addvar::big::y}}", {}, variables=variables) == "{{addvar::big::y}}"
    assert len(variables.local["big"]) == MAX_VALUE_CHARS



def _text_chars(v):
    return sum(len(k) + len(x) for k, x in v.items())


def test_a_set_of_variables_stops_growing_at_its_bound_and_keeps_what_it_held():
    # A card appending 980 characters to 1,000 variables on every turn grew a chat's file by
    # 2 MB a turn until it could no longer be read (red team, 2026-12-01).
    card = "".join("{{addvar::v%d::%s}}" % (k, "x" * 980) for k in range(1000))
    variables = MacroVariables()
    for _turn in range(3):
        variables = MacroVariables(base={**variables.base, **variables.local})
        macros_replace(card, {}, variables=variables)
    held = {**variables.base, **variables.local}
    assert MAX_TOTAL_CHARS - 1000 < _text_chars(held) <= MAX_TOTAL_CHARS
    assert macros_replace("{{getvar::v0}}", {}, variables=variables) == "x" * 980 * 2
    assert macros_replace("{{setvar::v0::short}}{{getvar::v0}}", {},
                          variables=variables) == "short"
    assert macros_replace("{{setglobalvar::g::fits}}{{getglobalvar::g}}", {},
                          variables=variables) == "fits"


def test_stored_variables_past_the_bound_are_read_up_to_it():
    found = {f"v{k}": "x" * MAX_VALUE_CHARS for k in range(20)}
    assert _text_chars(variables_as_text(found)) <= MAX_TOTAL_CHARS
    assert len(variables_as_text(found)) == MAX_TOTAL_CHARS // (MAX_VALUE_CHARS + 2)


def test_a_long_run_of_digits_and_a_letter_is_text_read_in_one_pass():
    # The number pattern split a run of digits both ways: 100,000 digits and a letter (an
    # imported chat's variable) held the interpreter for about two minutes at each {{getvar}}.
    digits = "9" * 99_990  # an imported value stays under MAX_VALUE_CHARS
    variables = MacroVariables(base={"x": digits + "x", "n": digits})
    assert macros_replace("{{getvar::x}}", {}, variables=variables) == digits + "x"
    assert macros_replace("{{getvar::n}}", {}, variables=variables) == "Infinity"
    assert macros_replace("{{addvar::x::1}}{{getvar::x}}", {}, variables=variables) == (
        digits + "x1")
