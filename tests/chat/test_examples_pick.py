"""A {{pick}} in example dialogue chooses what SillyTavern 1.12.6 chose: its Generate fills the
whole `mes_example` (`baseChatReplace`) before `parseMesExamples` splits it at <START>, so the
pick is seeded by the whole field's hash and its place in it. Expected values are what its own
`pickReplace` (public/scripts/macros.js, with `getStringHash` and seedrandom) gave in Node."""

from __future__ import annotations

from chat.prompt.card_fields import card_fields_read
from chat.prompt.examples import examples_fill
from personalab.lib.macros import PICK_SEED, macros_replace

FIELD = """  <START>
{{user}}: Which town?
{{char}}: {{pick::Avonlea::Bree::Cair::Dale::Esgaroth::Fornost::Gondolin::Hobbiton}}.
<START>
{{char}}: I sail on the {{pick::Alba::Brig::Coracle::Dhow::Ebb::Felucca::Galley::Hulk}} today.
"""


def _fill(text: str) -> str:
    return macros_replace(text, {"user": "Ann", "char": "Pia", PICK_SEED: "1234"}).strip()


def test_a_pick_in_example_dialogue_chooses_as_sillytavern():
    card = card_fields_read({"card": {"data": {"mes_example": FIELD}}}, base_persona="")
    assert examples_fill(text=card.examples_text, blocks=card.examples, fill=_fill) == [
        "Ann: Which town?\nPia: Avonlea.", "Pia: I sail on the Hulk today."]
    # Block by block (until 2026-12-03) the second block was its own text: another choice.
    assert [_fill(block) for block in card.examples][1] == "Pia: I sail on the Galley today."


def test_a_start_line_a_macro_gives_splits_the_examples_as_there():
    blocks = examples_fill(text="{{char}}: hi\n{{random::<START>}}\n{{char}}: bye",
                           blocks=[], fill=_fill)
    assert blocks == ["Pia: hi", "Pia: bye"]
