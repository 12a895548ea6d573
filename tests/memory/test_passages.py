"""The lines around a recalled line are the lines next to it in the chat, also where a speaker
said two lines in a row (each opens a turn of its own, so its neighbour sits two places away)."""

from __future__ import annotations

from memory.recall.passages import lines_near
from memory.vectors.index import MemoryIndex

OWNER = {"instance_id": "inst_near", "character_id": "char_x", "background_id": None}


def _line(role: str, turn: int, content: str) -> dict:
    return {"role": role, "turn": turn, "content": content, "timestamp": "t"}


def test_the_line_before_and_after_are_found_across_a_speakers_second_line(tmp_path):
    index = MemoryIndex(chroma_path=tmp_path / "chroma_db")
    # As an imported chat numbers them: a speaker's second line in a row opens a new turn
    # (turn 3 for the player's, turn 4 for the character's), leaving a place empty before it.
    lines = [_line("user", 1, "What did you buy at the bakery?"),
             _line("assistant", 1, "Guess!"),
             _line("user", 2, "A croissant?"),
             _line("user", 3, "No wait, tell me."),
             _line("assistant", 3, "It's a cheese tart."),
             _line("assistant", 4, "Super heavy and pricey, but worth it."),
             _line("user", 5, "Sounds great.")]
    index.add_turns(**OWNER, session_id="sess_001", turns=lines, before=None, keywords_only=True)
    hits = index.hits_get("turns", "inst_near", ["turn_sess_001_4_assistant",
                                                 "turn_sess_001_3_user"])
    near = lines_near(index, hits)
    pricey, asked = near[hits[0].key], near[hits[1].key]
    assert pricey.before.text == "It's a cheese tart." and pricey.after.text == "Sounds great."
    assert asked.before.text == "A croissant?" and asked.after.text == "It's a cheese tart."
