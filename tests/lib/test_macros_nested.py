"""Macros inside {{random}}, {{pick}} and {{reverse}}, as SillyTavern 1.12.6 reads them:
`evaluateMacros` (public/scripts/macros.js) fills {{user}}, {{char}}, variables and the rest
before it rolls {{random}} / {{pick}} and reverses, so their choices may name them."""

from __future__ import annotations

import random
import time

from personalab.lib.macros import macros_replace

VALUES = {"user": "Ann", "char": "Pia"}


def test_random_and_pick_choose_among_filled_in_macros():
    seen = {macros_replace("{{random::{{user}} smiles::{{char}} frowns}}", VALUES,
                           rng=random.Random(n)) for n in range(40)}
    assert seen == {"Ann smiles", "Pia frowns"}
    assert {macros_replace("{{random:{{user}}, {{char}}}}", VALUES, rng=random.Random(n))
            for n in range(40)} == {"Ann", "Pia"}
    assert macros_replace("{{pick::{{user}}::{{char}}}}", VALUES, seed="chat") in {"Ann", "Pia"}


def test_variables_and_reverse_nest_too_and_a_value_is_not_read_again():
    assert macros_replace("{{setvar::mood::calm}}{{random::{{getvar::mood}}}}", VALUES) == "calm"
    assert macros_replace("{{reverse:{{char}}!}}", VALUES) == "!aiP"
    # The name is inserted as text: a persona named "{{char}}" stays that in the choice.
    assert macros_replace("{{random::{{user}}}}", {"user": "{{char}}", "char": "Pia"}) == "{{char}}"


def test_an_unclosed_nest_stays_as_written_and_costs_little():
    assert macros_replace("{{random::{{user}}", VALUES) == "{{random::Ann"
    started = time.perf_counter()
    macros_replace("{{random::{{a}}" * 20_000, VALUES)
    assert time.perf_counter() - started < 2
