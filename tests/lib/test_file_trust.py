"""A session file this process knows (personalab/lib/file_trust.py) is read only past the lines
it has parsed, while only its own appends changed it; any other change is still seen."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from personalab.lib import file_trust
from personalab.lib.file_trust import TICK_NS, file_known
from personalab.lib.filestore import cache, session_stretch
from personalab.lib.filestore.session_read import read_session_file
from personalab.lib.filestore.store import FileStore

INSTANCE, SESSION = "inst_001", "sess_001"


@pytest.fixture
def fs(tmp_path):
    return FileStore(tmp_path / "data")


def _aged() -> None:
    time.sleep(TICK_NS * 1.5 / 1e9)  # the file's last write more than a timestamp tick ago


def _session(fs) -> os.PathLike:
    lines = [{"role": "user" if n % 2 == 0 else "assistant", "content": f"line {n:03d}",
              "turn": n // 2 + 1, "timestamp": "t"} for n in range(60)]
    fs.session_create(INSTANCE, SESSION, lines=lines)
    return fs.session_path(INSTANCE, SESSION)


READERS = {
    "cached": lambda fs: fs.session_read(INSTANCE, SESSION, cached=True),
    "newest by tokens": lambda fs: fs.session_read(INSTANCE, SESSION, tokens=40, overhead=4),
    "whole by tokens": lambda fs: fs.session_read(INSTANCE, SESSION, tokens=10**6),
    "page": lambda fs: fs.session_read(INSTANCE, SESSION, shown=10),
}


def _read_all(fs, path) -> None:
    """Every reader gives what a whole read of the file gives, for the lines it reads."""
    full = read_session_file(path)
    for name, reader in READERS.items():
        read = reader(fs)
        assert read.lines == full.lines[read.first_index:read.first_index + len(read.lines)], name
        assert (read.metadata, read.partial, read.last_turn, read.size_bytes) == (
            full.metadata, full.partial, full.last_turn, full.size_bytes), name
        assert [(p.line_number, p.reason) for p in read.problems] == [
            (p.line_number, p.reason) for p in full.problems], name


def _no_whole_reads(monkeypatch) -> None:
    def refused(path):
        raise AssertionError(f"{path} read whole")
    monkeypatch.setattr(cache, "file_bytes", refused)
    monkeypatch.setattr(session_stretch, "file_bytes", refused)


def test_the_apps_own_appends_keep_a_file_known_and_only_the_new_bytes_are_read(fs, monkeypatch):
    path = _session(fs)
    _aged()
    _read_all(fs, path)
    assert file_known(path) is not None
    _no_whole_reads(monkeypatch)
    fs.session_append(INSTANCE, SESSION, {"role": "user", "content": "new", "turn": 31,
                                          "timestamp": "t"}, durable=False)
    writer = fs.assistant_writer(INSTANCE, SESSION, turn=31).open()
    writer.append("streaming")
    assert READERS["cached"](fs).partial["content"] == "streaming"
    writer.finish()
    assert file_known(path) is not None
    for reader in READERS.values():
        assert [line["content"] for line in reader(fs).lines[-2:]] == ["new", "streaming"]
    # A turn's stretch: the lines parsed by the last read are kept, not parsed again.
    newest = READERS["newest by tokens"]
    assert newest(fs).lines[0] is newest(fs).lines[0]
    monkeypatch.undo()
    _read_all(fs, path)


@pytest.mark.parametrize("after_own_append", [False, True])
def test_a_hand_edit_that_keeps_size_and_mtime_is_still_seen(fs, after_own_append):
    path = _session(fs)
    _aged()
    _read_all(fs, path)
    if after_own_append:
        fs.session_append(INSTANCE, SESSION, {"role": "user", "content": "new", "turn": 31,
                                              "timestamp": "t"})
        _read_all(fs, path)
        _aged()
    assert file_known(path) is not None
    stat = path.stat()
    with path.open("r+b") as handle:  # in place: same inode, same size
        data = handle.read()
        handle.seek(0)
        handle.write(data.replace(b'"line 002"', b'"LINE 002"'))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (stat.st_size, stat.st_mtime_ns)
    assert file_known(path) is None
    assert READERS["cached"](fs).lines[2]["content"] == "LINE 002"
    _read_all(fs, path)


def test_another_writers_append_is_read_whole(fs):
    path = _session(fs)
    _aged()
    _read_all(fs, path)
    with path.open("ab") as handle:
        handle.write(b'{"type": "note", "content": "by hand"}\nnot json\n')
    assert file_known(path) is None
    assert READERS["cached"](fs).lines[-1]["content"] == "by hand"
    _read_all(fs, path)


def test_a_file_read_within_a_tick_of_its_last_write_is_not_believed(fs, monkeypatch):
    monkeypatch.setattr(file_trust, "TICK_NS", 10**15)  # every write is "just now"
    path = _session(fs)
    _read_all(fs, path)
    assert file_known(path) is None  # a write in that same tick could keep its ctime
    data = path.read_bytes()
    path.write_bytes(data.replace(b'"line 004"', b'"LINE 004"'))
    assert READERS["cached"](fs).lines[4]["content"] == "LINE 004"
    _read_all(fs, path)


def test_summary_lines_before_a_turns_stretch_are_parsed_once_and_a_hand_edit_is_seen(fs):
    summaries = [{"type": "summary", "content": f"event {n}"} for n in range(50)]
    talk = [{"role": "user" if n % 2 == 0 else "assistant", "content": f"line {n:03d}",
             "turn": n // 2 + 1, "timestamp": "t"} for n in range(40)]
    fs.session_create(INSTANCE, SESSION, lines=summaries + talk)
    path = fs.session_path(INSTANCE, SESSION)
    _aged()

    def before():
        return fs.session_read(INSTANCE, SESSION, tokens=40, overhead=4).lines_before.summaries

    first = before()
    assert [line["content"] for line in first] == [f"event {n}" for n in range(50)]
    fs.session_append(INSTANCE, SESSION, {"role": "user", "content": "new", "turn": 21,
                                          "timestamp": "t"})
    again = before()
    assert again == first and again[7] is first[7]  # not parsed again
    stat = path.stat()
    path.write_bytes(path.read_bytes().replace(b'"event 7"', b'"EVENT 7"'))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert before()[7]["content"] == "EVENT 7"


def _tail_rewrite(fs, content: str, *, then: bytes = b""):
    read = fs.session_read(INSTANCE, SESSION)
    return fs.session_tail_replace(INSTANCE, SESSION, first=len(read.lines) - 1, lines=[
        {"role": "assistant", "content": content, "turn": 30, "timestamp": "t"}], then=then)


def test_the_apps_own_tail_rewrite_keeps_a_file_known_and_it_is_not_read_whole(fs, monkeypatch):
    path = _session(fs)
    _aged()
    _read_all(fs, path)
    before = file_known(path)
    _no_whole_reads(monkeypatch)
    writer = fs.assistant_writer(INSTANCE, SESSION, turn=30, replace_from=59).open()
    writer.append("again")
    after = file_known(path)
    assert after is not None and after.generation != before.generation
    assert READERS["cached"](fs).partial["content"] == "again"
    writer.finish()
    assert file_known(path) is not None
    for reader in READERS.values():
        assert [line["content"] for line in reader(fs).lines[-2:]] == ["line 058", "again"]
    monkeypatch.undo()
    _read_all(fs, path)


OTHER_PROCESS = """
import sys
from personalab.lib.filestore.store import FileStore
store = FileStore(sys.argv[1])
read = store.session_read("inst_001", "sess_001")
store.session_tail_replace("inst_001", "sess_001", first=len(read.lines) - 1, lines=[
    {"role": "assistant", "content": sys.argv[2], "turn": 30, "timestamp": "t"}])
"""


@pytest.mark.parametrize("content", ["by another", "again 2"])  # a new size, the same size
def test_another_process_tail_rewrite_after_the_apps_own_is_seen(fs, content):
    path = _session(fs)
    _aged()
    _read_all(fs, path)
    _tail_rewrite(fs, "again 1")
    _read_all(fs, path)
    assert file_known(path) is not None
    subprocess.run([sys.executable, "-c", OTHER_PROCESS, str(fs.root), content], check=True,
                   cwd=Path(__file__).resolve().parents[2], timeout=60)
    assert file_known(path) is None
    for reader in READERS.values():
        assert reader(fs).lines[-1]["content"] == content
    _read_all(fs, path)
