"""The library's Import buttons are 44 px tall on a touch screen, as the other controls there:
they were 60 x 37 px on a phone (390 x 844)."""

from __future__ import annotations

import re
from pathlib import Path

CSS = Path(__file__).resolve().parents[2] / "static" / "library.css"


def _touch_rules(css: str) -> str:
    """The text of every `@media (pointer: coarse)` block (the blocks hold no nested braces
    but their rules')."""
    blocks = []
    for start in (m.end() for m in re.finditer(r"@media \(pointer: coarse\) \{", css)):
        depth, at = 1, start
        while depth:
            depth += {"{": 1, "}": -1}.get(css[at], 0)
            at += 1
        blocks.append(css[start:at - 1])
    return "\n".join(blocks)


def test_the_import_buttons_are_a_thumbs_size_on_a_touch_screen():
    rule = re.search(r"\.import-forms button \{([^}]*)\}", _touch_rules(CSS.read_text()))
    assert rule and "min-height:44px" in rule.group(1).replace(" ", "")
