"""SillyTavern's seeded draws written again: each expected value is what its own
`getStringHash` (public/scripts/utils.js), `seedrandom.min.js` and `pickReplace`
(public/scripts/macros.js, 1.12.6) gave in Node, so a chat moved from SillyTavern keeps what
each {{pick}} chose there."""

from __future__ import annotations

import pytest

from personalab.lib.macros import MAX_EXACT_PICKS, PICK_SEED, macros_replace
from personalab.lib.st_random import st_seeded_random, st_string_hash, st_text_hash


@pytest.mark.parametrize("text,expected", [
    ("", 3338908027751811), ("a", 7929297801672961),
    ("Seraphina - 2024-9-28@01h02m36s", 4535703737383628),
    ("héllo 😀 世界", 8091964635903886), ("x" * 1000, 7451676703532859)])
def test_the_string_hash_is_sillytaverns(text, expected):
    assert st_string_hash(text) == expected


@pytest.mark.parametrize("seed,expected", [
    (0, 0.038085370776470735), (42, 0.0016341939679719736), (123456789, 0.7561153199796736),
    (9007199254740991, 0.8454316376100453), (4294967296, 0.6308349547862808)])
def test_a_seeded_draw_is_seedrandoms(seed, expected):
    assert st_seeded_random(seed) == expected


@pytest.mark.parametrize("chat,text,expected", [
    (1234, "{{pick::a::b::c::d::e::f::g}}", "b"),
    (1234, "Town: {{pick::A,B,C,D,E,F,G,H}}", "Town: H"),
    # Its place is counted after the macros before it are filled ("Ann", not "{{user}}").
    (99, "{{user}} {{pick::a,b,c,d,e,f,g,h,i}} and {{pick::a,b,c,d,e,f,g,h,i}}", "Ann i and h"),
    (4535703737383628, "{{char}} {{pick::1,2,3,4,5,6,7,8,9}}", "Pia😀 5"),  # in UTF-16 units
    (777, "{{// note }}{{pick::x,y,z,w,v}}", "z"),
    (5, "😀{{pick::q,r,s,t,u,v}}", "😀v"),
    (5, "{{pick::{{user}},b,c,d,e,f}}", "e"),
    (123456, "{{PICK: a, b, c, d}}", "b"),
    (42, "{{pick::a\\,b,c,d,e}}", "a,b"),
])
def test_a_pick_chooses_what_sillytavern_chose_in_that_chat(chat, text, expected):
    assert macros_replace(text, {"user": "Ann", "char": "Pia😀", PICK_SEED: str(chat)}) == expected


def test_a_long_texts_hash_is_kept_and_the_same():
    text = "a 😀 long card field " * 300
    assert st_text_hash(text) == st_text_hash(text) == st_string_hash(text)


def test_picks_past_the_exact_ones_still_choose_among_the_choices():
    picked = macros_replace("{{pick::a,b}} " * (MAX_EXACT_PICKS + 50), {PICK_SEED: "7"}).split()
    assert set(picked) == {"a", "b"} and len(picked) == MAX_EXACT_PICKS + 50
