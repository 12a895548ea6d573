"""The player's lines that tell a fact with no word of its kind, and the marks the keyword index
gives them (memory/keyword_index/stated.py)."""

from __future__ import annotations

from memory.keyword_index.stated import STATED, STATED_MARK, stated_marks


def test_a_lines_marks_are_what_the_patterns_read():
    # Every player's line of an import is read for marks; a cheap look for what a pattern needs
    # comes first and must never drop one.
    lines = ["Sorry I\nteach kids at a school", "I’ve been waiting tables at a diner", "I am 24",
             "turned 30 last week", "I'm originally from Leeds", "我在银行上班", "我是东北人",
             "我表弟今年31岁。", "Nice weather today.", "i\tfix bikes for people",
             "heights freak me out", "i cant bring myself to swim", "我一直怕狗",
             "she gave me a raise", "老板让我周末加班", "王芳是我表妹。", "我表哥特别爱攀岩。", "我老爸特别喜欢登山。",
             "I'm really into pottery now"]
    for line in lines:
        read = [STATED_MARK + kind for kind, pattern in STATED.items()
                if pattern.search(line.lower())]
        assert stated_marks(line) == read and (read or line == "Nice weather today.")
    # Put on the spot, on the phone: no shift a boss gave.
    assert stated_marks("she put me on the spot lol") == []
    assert stated_marks("my mom put me on the phone with grandma") == []
    # Loving to eat something, not liking to play, getting into a school: no pastime.
    assert stated_marks("我爱吃火锅") == stated_marks("我不喜欢打球") == []
    assert stated_marks("my bro got into culinary school") == []
    assert stated_marks("getting into college was hard") == []
    assert stated_marks("anything new you've been into lately?") == []
