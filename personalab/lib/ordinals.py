"""English ordinals said in words a reader knows ("the 3rd message"): which of the four
English endings a number takes; each ending is its own sentence to translate, so another
language words the number its own way (zh_Hans: 第 3 条)."""

from __future__ import annotations


def ordinal_ending(number: int) -> str:
    """"st", "nd", "rd" or "th": 1st, 22nd, 103rd, 11th."""
    if 10 <= number % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
