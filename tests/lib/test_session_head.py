"""The first player line names an untitled chat in a list (the history page's related chats):
read from the session file's head only, on one line, cut to a label."""

from __future__ import annotations

import json
from pathlib import Path

from personalab.lib.filestore.session_head import HEAD_BYTES, LABEL_CHARS, session_first_player_line


def _session(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    return path


def test_the_first_player_line_on_one_line_and_cut_to_a_label(tmp_path: Path) -> None:
    path = _session(tmp_path / "s.jsonl", [
        {"session_id": "sess_001"}, {"role": "assistant", "content": "Who goes there?"},
        {"role": "user", "content": "   "},
        {"role": "user", "content": "A friend\nfrom the north, " + "far " * 40}])
    label = session_first_player_line(path)
    assert label.startswith("A friend from the north, far far")
    assert len(label) == LABEL_CHARS and label.endswith("…")


def test_a_file_without_a_player_line_in_its_head_gives_no_label(tmp_path: Path) -> None:
    long_greeting = {"role": "assistant", "content": "x" * HEAD_BYTES}
    path = _session(tmp_path / "s.jsonl", [long_greeting, {"role": "user", "content": "late"}])
    assert session_first_player_line(path) == ""  # never reads past the head
    assert session_first_player_line(tmp_path / "missing.jsonl") == ""
