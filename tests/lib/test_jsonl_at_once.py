"""A JSONL block parsed at once (its lines joined into one array) gives what parsing it line by
line gives: the same records, the same problems with the same line numbers, or, when the block
is not one object per line, the line-by-line parse itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from personalab.lib import jsontext
from personalab.lib.filestore import jsonl
from personalab.lib.jsontext import _json_lines_piece
from personalab.lib.lines import session_line_problem

PATH = Path("sess_001.jsonl")
GOOD = [{"type": "metadata"}, {"role": "user", "content": "hi", "turn": 1},
        {"role": "assistant", "content": "\\ud800 lone \u00e9", "turn": 1}]


def _block(*lines: bytes) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def _good(*extra: bytes) -> list[bytes]:
    return [json.dumps(record).encode() for record in GOOD] + list(extra)


BLOCKS = {
    "plain": _block(*_good()),
    "a line a check refuses": _block(*_good(b'{"role": "user", "content": 5}')),
    "crlf": _block(*(line + b"\r" for line in _good())),
    "blank line": _block(*_good(b"", b'{"role": "user", "content": "x"}')),
    "bad line": _block(*_good(b'{"role": "user", "content": "x"')),
    "two values on a line": _block(*_good(b'{"a": 1}, {"b": 2}')),
    "an object across lines": _block(*_good(b'{"role": "user", "content": [1', b'2]}')),
    "not an object": _block(*_good(b'["user"]', b'"text"')),
    "a byte-order mark": _block(b"\xef\xbb\xbf" + _good()[0], *_good()[1:]),
    "a surrogate escape": _block(*_good(b'{"role": "user", "content": "\\udc00"}')),
    "not utf-8": _block(*_good(b'{"role": "user", "content": "\xff"}')),
    "utf-16": _block(*_good('{"a": 1}'.encode("utf-16-le"))),
}


def _one_by_one(monkeypatch, data: bytes, check):
    with monkeypatch.context() as whole:
        whole.setattr(jsonl, "_lines_parse_at_once", lambda *args: None)
        return jsonl.lines_parse(data, PATH, 7, check)


@pytest.mark.parametrize("name", list(BLOCKS))
@pytest.mark.parametrize("check", [None, session_line_problem])
def test_a_block_parsed_at_once_reads_as_line_by_line(monkeypatch, name, check):
    data = BLOCKS[name]
    expected = _one_by_one(monkeypatch, data, check)
    assert jsonl.lines_parse(data, PATH, 7, check) == expected
    at_once = jsonl._lines_parse_at_once(data, PATH, 7, check, jsonl.json_loads_for(data))
    assert at_once is None or at_once == expected
    if name in ("plain", "a line a check refuses", "crlf", "a surrogate escape"):
        assert at_once is not None  # read at once


def test_a_refused_line_keeps_its_line_number():
    records, problems = jsonl.lines_parse(BLOCKS["a line a check refuses"], PATH, 7,
                                          session_line_problem)
    assert len(records) == 3 and [problem.line_number for problem in problems] == [10]


@pytest.mark.parametrize("name", list(BLOCKS))
def test_a_block_parsed_a_piece_at_a_time_reads_as_in_one_parse(monkeypatch, name):
    data = BLOCKS[name] * 3
    whole = jsontext.json_lines_at_once(data, jsonl.json_loads_for(data))
    monkeypatch.setattr(jsontext, "AT_ONCE_BYTES", 40)  # a few lines a piece
    pieces = []
    monkeypatch.setattr(jsontext, "_json_lines_piece", lambda block, loads: pieces.append(
        block) or _json_lines_piece(block, loads))
    assert jsontext.json_lines_at_once(data, jsonl.json_loads_for(data)) == whole
    if whole is not None:
        assert len(pieces) > 3 and all(piece.endswith(b"\n") for piece in pieces)
