"""A chat file of millions of tiny lines (`{}`, 3 bytes each) was read line by line, each
skipped with a reason: a 10 MB one took 34 s and 2.3 GB before it was refused. Its lines are
now counted before any is read."""

from __future__ import annotations

import pytest

from chat.chat_formats import ChatFormatError, chat_import_jsonl
from personalab.lib.nesting import MAX_CHAT_LINES, json_loads_bounded

HEADER = b'{"user_name":"Ann","character_name":"Mira"}\n'


def test_a_chat_file_past_the_lines_cap_is_refused_before_a_line_is_read(monkeypatch):
    parsed = []

    def read(text, **limits):
        parsed.append(len(text))
        return json_loads_bounded(text, **limits)

    monkeypatch.setattr("chat.chat_formats.json_loads_bounded", read)
    data = HEADER + b"{}\n" * MAX_CHAT_LINES
    with pytest.raises(ChatFormatError, match="more than 100,000 lines"):
        chat_import_jsonl(data)
    assert parsed == [len(data)]  # only the try of the whole file as one JSON document


def test_a_chat_file_under_the_cap_imports():
    line = b'{"name":"Ann","is_user":true,"mes":"hi"}\n'
    _, lines = chat_import_jsonl(HEADER + line * (MAX_CHAT_LINES - 2))
    assert len(lines) == MAX_CHAT_LINES - 2
