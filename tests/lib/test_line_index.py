"""The line index beside a session file: the chat page parses only the lines it shows, gives
exactly what a whole read gives, and an index that does not match the file is never believed."""

from __future__ import annotations

import json
import os

import pytest

from chat.selectors import chat_messages_window
from personalab.lib import line_index
from personalab.lib.filestore.session_read import read_session_file
from personalab.lib.filestore.session_stretch import read_session_stretch
from personalab.lib.filestore.store import FileStore
from personalab.lib.line_index import RECORD, index_path

PAGE = 40


@pytest.fixture()
def fs(tmp_path):
    return FileStore(tmp_path / "data")


@pytest.fixture()
def path(fs):
    lines = []
    for turn in range(1, 301):
        lines.append({"role": "user", "content": f"question {turn}", "turn": turn})
        lines.append({"role": "assistant", "content": f"answer {turn}", "turn": turn})
        if turn % 50 == 0:
            lines.append({"type": "note", "content": f"note {turn}"})
            lines.append({"type": "director_marker", "plot": turn})  # kept, never shown
    fs.session_create("inst_0001", "sess_0001", lines=lines)
    return fs.session_path("inst_0001", "sess_0001")


def _append_raw(path, raw: bytes) -> None:
    with path.open("ab") as handle:
        handle.write(raw)


def _window(read, before=None):
    window = chat_messages_window(read, before=before, size=PAGE)
    return ([(item.index, item.line, item.is_last_reply) for item in window.items],
            window.older_before)


def _pages_match(path) -> int:
    """Walk every page from the newest to the oldest both ways; they must agree."""
    full = read_session_file(path)
    before, pages = None, 0
    while True:
        stretch = read_session_stretch(path, shown=PAGE, before=before)
        assert _window(stretch, before) == _window(full, before)
        assert [(p.line_number, p.reason) for p in stretch.problems] == [
            (p.line_number, p.reason) for p in full.problems]
        assert (stretch.metadata, stretch.partial, stretch.last_turn) == (
            full.metadata, full.partial, full.last_turn)
        pages += 1
        before = _window(full, before)[1]
        if before is None:
            return pages


def test_the_newest_page_parses_only_its_stretch_and_pages_back_like_a_whole_read(path):
    read = read_session_stretch(path, shown=PAGE)
    shown = [line for line in read.lines if line.get("role") or line.get("type") == "note"]
    assert len(shown) == PAGE + 1  # one line more tells there is something older
    assert len(read.lines) == PAGE + 2  # and the marker line between them, kept in place
    assert read.complete is False and read.first_index > 500
    assert _pages_match(path) == 16


def test_corrupt_odd_blank_and_unfinished_lines_are_reported_as_a_whole_read_does(fs, path):
    _append_raw(path, b'{"role": "user", "content": "not closed\n'
                      b'{"role": "assistant", "content": 5, "turn": 301}\n'
                      b'[1, 2]\n\n\xff\xfe\n'
                      + json.dumps({"role": "user", "content": "after the damage",
                                    "turn": 302}).encode() + b"\n")
    writer = fs.assistant_writer("inst_0001", "sess_0001", turn=302).open()
    writer.append("cut by kill -9, still stre")
    stretch = read_session_stretch(path, shown=PAGE)
    assert stretch.partial["content"] == "cut by kill -9, still stre"
    assert [p.reason for p in stretch.problems][:2] == ["not valid JSON (Unterminated string "
                                                        "starting at)", "'content' is not text"]
    assert _pages_match(path) == 16
    writer.close_quietly()


def test_a_last_line_missing_only_its_newline_and_a_missing_metadata_line(fs, path):
    _append_raw(path, json.dumps({"role": "user", "content": "no newline", "turn": 301}).encode())
    assert read_session_stretch(path, shown=PAGE).lines[-1]["content"] == "no newline"
    assert _pages_match(path) == 16
    data = path.read_bytes()
    path.write_bytes(data[data.index(b"\n") + 1:])  # the metadata line cut away by hand
    assert "first line is not the metadata line" in [
        p.reason for p in read_session_stretch(path, shown=PAGE).problems]
    assert _pages_match(path) == 16


def test_appended_lines_extend_the_index_without_rewriting_it(fs, path):
    read_session_stretch(path, shown=PAGE)
    index = index_path(path)
    before = index.stat()
    fs.session_append("inst_0001", "sess_0001", {"role": "user", "content": "new", "turn": 301})
    fs.session_append("inst_0001", "sess_0001",
                      {"role": "assistant", "content": "newer", "turn": 301})
    read = read_session_stretch(path, shown=PAGE)
    after = index.stat()
    assert after.st_ino == before.st_ino  # appended to, not replaced
    assert after.st_size == before.st_size + 2 * RECORD.itemsize
    assert [line["content"] for line in read.lines[-2:]] == ["new", "newer"]
    assert read.last_turn == 301 and _pages_match(path) == 16


def test_a_hand_edit_of_the_same_length_in_an_unread_line_is_noticed(path):
    read_session_stretch(path, shown=PAGE)
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"question 3"', b'"QUESTION 3"').replace(
        b'{"role":"user","content":"question 4",', b'{"role":"user","content":"question 4"]'))
    full = read_session_file(path)
    assert [p.line_number for p in full.problems] == [8]  # the broken line 4 of the talk
    assert _pages_match(path) == 16
    oldest = read_session_stretch(path, shown=PAGE, before=PAGE)
    assert oldest.lines[4]["content"] == "QUESTION 3"


def test_a_rewrite_of_the_session_rebuilds_the_index(fs, path):
    read_session_stretch(path, shown=PAGE)
    full = read_session_file(path)
    fs.session_rewrite("inst_0001", "sess_0001", [full.metadata, *full.lines[:100]])
    read = read_session_stretch(path, shown=PAGE)
    assert read.lines == full.lines[100 - PAGE - 1:100]
    assert _pages_match(path) == 3


@pytest.mark.parametrize("damage", ["torn record", "garbage", "empty", "another file",
                                    "claims more than the file"])
def test_a_damaged_or_foreign_index_is_never_believed(fs, path, damage):
    read_session_stretch(path, shown=PAGE)
    index = index_path(path)
    raw = index.read_bytes()
    if damage == "torn record":  # a kill -9 in the middle of an append
        index.write_bytes(raw[:-RECORD.itemsize // 2])
    elif damage == "garbage":
        index.write_bytes(raw[:32] + os.urandom(len(raw) - 32))
    elif damage == "empty":
        index.write_bytes(b"")
    elif damage == "another file":
        fs.session_create("inst_0001", "sess_0002",
                          lines=[{"role": "user", "content": "other", "turn": 1}] * 700)
        other = fs.session_path("inst_0001", "sess_0002")
        read_session_stretch(other, shown=PAGE)
        index.write_bytes(index_path(other).read_bytes())
    else:
        _append_raw(path, b'{"type": "note", "content": "x"}\n' * 5)
        read_session_stretch(path, shown=PAGE)
        path.write_bytes(path.read_bytes()[:-5 * 33])
    assert _pages_match(path) == 16
    assert _pages_match(path) == 16  # and again with the index the first pass repaired


@pytest.mark.django_db
def test_the_chat_page_of_a_long_session_shows_the_same_with_or_without_an_index(
        alice_client, store, instance):
    read = store.session_read(instance, "sess_001")
    lines = [{"role": "user" if n % 2 == 0 else "assistant", "content": f"line {n}",
              "turn": n // 2 + 1} for n in range(3000)]
    store.session_rewrite(instance, "sess_001", [read.metadata, *lines])
    first = alice_client.get(f"/instances/{instance}/").content.decode()
    assert index_path(store.session_path(instance, "sess_001")).exists()
    again = alice_client.get(f"/instances/{instance}/").content.decode()
    assert 'data-index="2999"' in first and 'data-index="2959"' not in first
    assert first.count('data-index="') == again.count('data-index="') == PAGE
    older = alice_client.get(f"/instances/{instance}/messages?before=2960").content.decode()
    assert 'data-index="2920"' in older and 'data-index="2959"' in older
    assert 'data-before="2920"' in older



def test_an_edit_near_the_end_is_read_right_and_keeps_the_index_of_the_lines_before(fs, path):
    read_session_stretch(path, shown=PAGE)
    full = read_session_file(path)
    edited = [*full.lines[:-3], {**full.lines[-2], "content": "edited answer"}]
    fs.session_rewrite("inst_0001", "sess_0001", [full.metadata, *edited])
    read = read_session_stretch(path, shown=PAGE)
    assert read.lines[-1]["content"] == "edited answer"
    assert len(index_path(path).read_bytes()) == 32 + (len(edited) + 1) * RECORD.itemsize
    assert _pages_match(path) == 16


@pytest.mark.django_db
def test_an_imported_chat_is_indexed_as_it_is_written_so_opening_it_builds_nothing(
        store, instance):
    from chat.services.session_import import session_import

    header = {"user_name": "User", "character_name": "Ada", "create_date": "2024-05-01"}
    chat = [header] + [{"name": "User" if n % 2 == 0 else "Ada", "is_user": n % 2 == 0,
                        "mes": f"line {n}", "send_date": "2024-05-01"} for n in range(600)]
    data = "\n".join(json.dumps(line) for line in chat).encode() + b"\n"
    session_id, _ = session_import(store, instance_id=instance, data=data)
    path = store.session_path(instance, session_id)
    index = index_path(path)
    written = index.stat()
    read = read_session_stretch(path, shown=PAGE)
    assert index.stat().st_ino == written.st_ino and index.stat().st_size == written.st_size
    assert read.lines[-1]["content"] == "line 599" and _pages_match(path) == 15


def test_a_session_written_with_odd_lines_is_indexed_and_read_like_a_whole_read(fs):
    lines = [{"role": "user", "content": "fine", "turn": 1},
             {"role": "assistant", "content": 5, "turn": 1},  # valid JSON, unusable values
             {"role": "assistant", "content": "ok", "turn": 1, "trace_id": "../x"}]
    fs.session_create("inst_0001", "sess_0009", lines=lines * 100)
    path = fs.session_path("inst_0001", "sess_0009")
    written = index_path(path).stat()
    full = read_session_file(path)
    assert len(full.problems) == 200
    assert _pages_match(path) == 3
    assert index_path(path).stat().st_ino == written.st_ino  # the written index was believed


def test_a_rewrite_writes_the_index_of_the_new_file(fs, path):
    full = read_session_file(path)
    fs.session_rewrite("inst_0001", "sess_0001", [full.metadata, *full.lines[::2]])
    written = index_path(path).stat()
    assert written.st_size == 32 + (len(full.lines[::2]) + 1) * RECORD.itemsize
    assert _pages_match(path) == 8
    assert index_path(path).stat().st_ino == written.st_ino


def test_lines_json_reads_alone_but_not_joined_are_read_one_by_one(fs):
    lines = [json.dumps({"role": "user", "content": f"q{n}", "turn": n}).encode()
             for n in range(1, 200)]
    lines[100] = b"\xef\xbb\xbf" + lines[100]  # a byte-order mark some editors add
    lines[150] = lines[150] + b"\r"  # a Windows line end
    fs.session_create("inst_0001", "sess_0008", lines=[])
    path = fs.session_path("inst_0001", "sess_0008")
    _append_raw(path, b"\n".join(lines) + b"\n")
    full = read_session_file(path)
    assert [line["content"] for line in full.lines][99:102] == ["q100", "q101", "q102"]
    assert _pages_match(path) == 5
    assert read_session_stretch(path, shown=150).lines == full.lines[-151:]


@pytest.mark.parametrize("back", [1, 2, 63, 64, 65, 400, 604])
def test_a_changed_line_is_found_as_a_search_of_every_start_finds_it(path, back, monkeypatch):
    # a tail change (a regenerate, a swipe) is found by walking the last lines, not by checking
    # the whole file's start again and again (megabytes each in an old session)
    data = path.read_bytes()
    records = line_index.line_index_read(path, data).records
    start = int(records["end"][len(records) - back - 1])
    changed = data[:start] + data[start:].replace(b'"', b"'", 1)
    found = max(count for count in range(len(records) + 1)
                if line_index._matches(records, changed, count))
    hashed = []
    crc32 = line_index.zlib.crc32
    monkeypatch.setattr(line_index.zlib, "crc32", lambda data, *crc: hashed.append(len(data))
                        or crc32(data, *crc))
    assert line_index._matching_prefix(records, changed) == found == len(records) - back
    if back < line_index.TAIL_RECORDS:
        assert sum(hashed) <= 2 * len(data)
