"""Speakers' names in a finished reply or impersonation, as SillyTavern 1.12.6's cleanUpMessage
leaves them at its defaults (each case worked through its code: public/script.js)."""

from __future__ import annotations

import time

import pytest

from personalab.lib.instruct import InstructTemplate
from personalab.lib.instruct_presets import BUILT_IN
from personalab.lib.reply_names import reply_names_cleaned

CHATML = InstructTemplate(**BUILT_IN["chatml"])


@pytest.mark.parametrize(("said", "kept"), [
    ("Pay up.\nAnn: No way.", "Pay up."),  # stops where the model writes the player's line
    ("Ann: I pay.", ""),  # a reply that is all the player's
    ("Mira: Pay up.", "Pay up."),  # the speaker's own name taken off
    ("Hm.\nMira:  Pay.\nMira:\nNow.", "Hm.\nPay.\nNow."),  # at every line's start
    ("She says Mira: hi.", "She says Mira: hi."),  # not inside a line
    ("Pay.<|endoftext|>junk", "Pay."),
    ("Mira: Go.\nRook: Stay.", "Go."),  # a group's other member
    ("Go.\nRook's turn.", "Go.\nRook's turn."),
])
def test_a_reply_is_cleaned_as_sillytavern_cleans_it(said, kept):
    assert reply_names_cleaned(said, user_name="Ann", char_name="Mira",
                               others=["Rook", "Mira"]) == kept


@pytest.mark.parametrize(("said", "kept"), [
    ("Ann: I will pay.\nMira: No.", "I will pay."),
    ("  I will pay.  \n\nMira: No way.", "I will pay."),
    ("Mira: Pay up.", ""),  # the character's line: nothing for the box
    ("I pay.\nAnn: Here.", "I pay.\nAnn: Here."),  # the player's name only at the start
    ("I pay.\nRook: Fine.", "I pay."),
])
def test_an_impersonation_is_cleaned_as_sillytavern_cleans_it(said, kept):
    assert reply_names_cleaned(said, user_name="Ann", char_name="Mira", others=["Rook"],
                               impersonate=True) == kept


def test_names_are_text_and_a_long_reply_is_cleaned_in_linear_time():
    assert reply_names_cleaned("a.\n.*: b", user_name="Ann", char_name=".*") == "a.\nb"
    reply = "\nMira:" + " " * 200_000 + "x"
    started = time.perf_counter()
    assert reply_names_cleaned(reply * 5, user_name="Ann", char_name="Mira") == "\nx" * 5
    assert time.perf_counter() - started < 0.5


@pytest.mark.parametrize(("said", "impersonate", "kept"), [
    ("Hi.<|im_end|>\n<|im_start|>user\nmore", False, "Hi."),
    ("Hi.\n<|im_start|>assistant\nMore.", False, "Hi.\n\nMore."),
    ("I nod.\n<|im_start|>user\nAgain.", True, "I nod."),  # cut at the input sequence
    ("I nod <|im_start|>assistant", True, "I nod <|im_start|>assistant"),
])
def test_a_text_templates_markers_go_as_sillytavern_removes_them(said, impersonate, kept):
    assert reply_names_cleaned(said, user_name="Ann", char_name="Mira", markers=CHATML,
                               impersonate=impersonate) == kept


@pytest.mark.parametrize(("said", "kept"), [
    ("Hi.\n<|im_", "Hi."),  # cut short by its length mid-marker
    ("Hi.\nAn", "Hi."),
    ("Hi. An", "Hi. An"),
    ("Hi.\n", "Hi."),  # a newline is the start of every stop string here
])
def test_a_reply_loses_the_start_of_a_stop_string_it_ends_in(said, kept):
    assert reply_names_cleaned(said, user_name="Ann", char_name="Mira",
                               stops=["\n<|im_end|>", "\nAnn:"]) == kept
