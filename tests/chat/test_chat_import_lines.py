"""A chat file of millions of tiny lines (`{}`, 3 bytes each) was read line by line, each
skipped with a reason: a 10 MB one took 34 s and 2.3 GB before it was refused. Its lines are
now counted before any is read, and so are its values: 99,999 lines of a message and 33 `{}`
each (10 MB) were each under a line's cap and took 16 s and 260 MB more than the process to
import; an Agnai file of 333,000 messages (1,000,000 values) 16 s and 270 MB."""

from __future__ import annotations

import pytest

from chat.import_export.chat_formats import ChatFormatError, chat_import_jsonl
from personalab.lib.nesting import MAX_CHAT_LINES, json_loads_bounded

HEADER = b'{"user_name":"Ann","character_name":"Mira"}\n'


def test_a_chat_file_past_the_lines_cap_is_refused_before_a_line_is_read(monkeypatch):
    parsed = []

    def read(text, **limits):
        parsed.append(len(text))
        return json_loads_bounded(text, **limits)

    monkeypatch.setattr("chat.import_export.chat_formats.json_loads_bounded", read)
    data = HEADER + b"{}\n" * MAX_CHAT_LINES
    with pytest.raises(ChatFormatError, match="more than 100,000 lines"):
        chat_import_jsonl(data)
    assert parsed == [len(data)]  # only the try of the whole file as one JSON document


def test_a_chat_file_under_the_cap_imports():
    line = b'{"name":"Ann","is_user":true,"mes":"hi"}\n'
    _, lines = chat_import_jsonl(HEADER + line * (MAX_CHAT_LINES - 2))
    assert len(lines) == MAX_CHAT_LINES - 2


def test_a_chat_file_of_lines_under_each_lines_cap_is_refused_past_the_files(monkeypatch):
    parsed = []

    def read(text, **limits):
        parsed.append(len(text))
        return json_loads_bounded(text, **limits)

    monkeypatch.setattr("chat.import_export.chat_formats.json_loads_bounded", read)
    line = b'{"name":"Ann","is_user":true,"mes":"hi","extra":[' + b'"a",' * 32 + b'"a"]}\n'
    data = HEADER + line * 30_000  # each line 38 values, the file 1,140,000
    with pytest.raises(ChatFormatError, match="more than 1,000,000 values"):
        chat_import_jsonl(data)
    assert parsed == [len(data)]  # only the try of the whole file as one JSON document
    _, lines = chat_import_jsonl(HEADER + line * 20_000)  # 760,000 values: a chat
    assert len(lines) == 20_000


@pytest.mark.parametrize("document", [
    b'{"messages":[%s]}' % b",".join([b'{"msg":"a","userId":"u"}'] * (MAX_CHAT_LINES + 1)),
    b'{"type":"risuChat","data":{"message":[%s]}}' % b",".join(
        [b'{"role":"user","data":"a"}'] * (MAX_CHAT_LINES + 1)),
], ids=["agnai", "risuai"])
def test_an_agnai_or_risuai_chat_past_the_messages_cap_is_refused_before_one_is_read(
        monkeypatch, document):
    read = []
    for name in ("_agnai_message", "_risu_message"):
        monkeypatch.setattr(f"chat.import_export.chat_formats.{name}", lambda *a, **k: read.append(1) or {})
    with pytest.raises(ChatFormatError, match="more than 100,000 messages"):
        chat_import_jsonl(document)
    assert read == []
