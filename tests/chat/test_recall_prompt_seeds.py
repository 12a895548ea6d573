"""Recall reads a session line's rolls with the seed the prompt fills it with (its turn and
time): a line a summarize copied into the new session, its turn renumbered, is found by its
time and text (chat/play/memory.py `prompt_seeds`)."""

from __future__ import annotations

from chat.play.memory import prompt_seeds

ROLLED = "The code is {{roll:d100000}}."


def test_a_copied_line_is_read_with_the_seed_its_copy_is_sent_with():
    copy = {"role": "assistant", "content": ROLLED, "turn": 3, "timestamp": "2025-10-16T10:01Z"}
    recalled = {**copy, "turn": 12}  # the original, in the summarized session

    seed = prompt_seeds([{"role": "user", "content": "Hi", "turn": 3}, copy]).of(recalled)

    assert seed == "3:2025-10-16T10:01Z"


def test_a_line_known_only_by_its_text_still_gets_its_seed():
    line = {"role": "user", "content": ROLLED, "turn": 2, "timestamp": None}
    assert prompt_seeds([line]).of({"role": "user", "content": ROLLED}) == "2:None"
    assert prompt_seeds([line]).of({"role": "assistant", "content": ROLLED}) == ""
