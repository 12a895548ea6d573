"""The file store: formats, atomic writes, tolerant reading, ids, locks, streaming lines."""

from __future__ import annotations

import json
import multiprocessing
import os

import pytest

from personalab.lib.filestore.defaults import DEFAULT_CONFIG
from personalab.lib.filestore.jsonfile import write_json_atomic
from personalab.lib.filestore.store import FileStore
from personalab.lib.filestore.writer import parse_partial_line
from personalab.lib.ids import InvalidId, next_numbered_id, validate_id
from personalab.lib.store_errors import CorruptFile, InstanceBusy, MissingFile


@pytest.fixture
def fs(tmp_path):
    return FileStore(tmp_path)


def test_every_json_format_round_trips(fs):
    fs.config_write(DEFAULT_CONFIG)
    assert fs.config_read() == DEFAULT_CONFIG
    fs.character_write("char_a", {"name": "A", "base_persona": "p", "tags": ["x"]})
    assert fs.character_read("char_a")["base_persona"] == "p"
    fs.background_write("bg_a", {"name": "B", "world_setting": "w",
                                 "story_outline": [{"content": "one"}, {"content": "two"}]})
    assert fs.background_read("bg_a")["story_outline"] == [
        {"index": 1, "content": "one"}, {"index": 2, "content": "two"}]
    state = {"instance_id": "inst_001", "character_id": "char_a", "background_id": "bg_a",
             "current_session_id": "sess_001", "created_at": "2025-10-10T10:00:00Z",
             "plot_state": {"current_plot_index": 3, "current_status": "in_progress",
                            "no_update_count": 2}}
    fs.instance_state_write("inst_001", state)
    assert fs.instance_state_read("inst_001") == state
    fs.character_state_write("inst_001", {"base_persona": "b", "evolved_persona": "e"})
    assert fs.character_state_read("inst_001") == {"base_persona": "b", "evolved_persona": "e"}
    fs.module_write("director", {"enabled": False, "rag_fallback_threshold": 5})
    assert fs.module_read("director") == {"enabled": False, "rag_fallback_threshold": 5}


def test_session_lines_round_trip_in_seed_format(fs):
    fs.session_create("inst_001", "sess_002", continued_from="sess_001",
                      lines=[{"type": "summary", "content": "情报交换"}])
    fs.session_append("inst_001", "sess_002",
                      {"role": "user", "content": "你好", "turn": 1, "timestamp": "t"})
    raw = fs.session_path("inst_001", "sess_002").read_text(encoding="utf-8").splitlines()
    assert json.loads(raw[0])["type"] == "metadata"
    assert json.loads(raw[0])["continued_from"] == "sess_001"
    assert "你好" in raw[2]  # kept readable, not \u-escaped
    read = fs.session_read("inst_001", "sess_002")
    assert read.metadata["session_id"] == "sess_002"
    assert [s["content"] for s in read.summaries] == ["情报交换"]
    assert read.messages == [{"role": "user", "content": "你好", "turn": 1, "timestamp": "t"}]


def test_optional_files_fall_back_and_required_files_name_themselves(fs):
    assert fs.config_read() == DEFAULT_CONFIG
    assert fs.background_read_optional("bg_missing")["story_outline"] == []
    with pytest.raises(MissingFile, match="character_state.json of inst_x"):
        fs.character_state_read("inst_x")
    fs.config_path.write_text("{not json")
    assert fs.config_read() == DEFAULT_CONFIG


def test_atomic_write_survives_a_crash_between_write_and_rename(fs, monkeypatch):
    path = fs.root / "instances" / "inst_001" / "instance_state.json"
    write_json_atomic(path, {"version": 1})

    def crash(*args):
        raise OSError("power cut")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        write_json_atomic(path, {"version": 2})
    monkeypatch.undo()
    assert json.loads(path.read_text()) == {"version": 1}
    assert [p.name for p in path.parent.iterdir()] == ["instance_state.json"]


def test_corrupt_and_half_lines_are_reported_and_left_in_the_file(fs):
    fs.session_create("inst_001", "sess_001")
    path = fs.session_path("inst_001", "sess_001")
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"role":"user","content":"ok","turn":1}\n')
        handle.write("garbage that is not json\n")
        handle.write('[1,2]\n')
        handle.write('{"role":"assistant","content":"fine","turn":1}\n')
        handle.write('{"role":"user","cont')
    before = path.read_bytes()
    read = fs.session_read("inst_001", "sess_001")
    assert [m["content"] for m in read.messages] == ["ok", "fine"]
    assert [p.line_number for p in read.problems] == [3, 4, 6]
    assert all(str(path) in p.describe() for p in read.problems)
    assert path.read_bytes() == before


@pytest.mark.parametrize("bad", ["../x", "a/b", "", "A", "-x", "x" * 65, "a\x00", "..", "é"])
def test_id_attacks_are_refused_before_any_path_is_built(fs, bad):
    with pytest.raises(InvalidId):
        validate_id(bad)
    with pytest.raises(InvalidId):
        fs.instance_dir(bad)
    with pytest.raises(InvalidId):
        fs.session_path("inst_001", bad)


def test_numbered_ids_follow_the_seed():
    assert next_numbered_id("sess", {"sess_001", "sess_002"}) == "sess_003"
    assert next_numbered_id("inst", set()) == "inst_001"


def test_instance_lock_refuses_a_second_holder(fs):
    first = fs.instance_lock("inst_001").acquire()
    with pytest.raises(InstanceBusy):
        fs.instance_lock("inst_001").acquire()
    first.release()
    fs.instance_lock("inst_001").acquire().release()


def _append_many(root: str, tag: str, count: int) -> None:
    store = FileStore(root)
    for number in range(count):
        with store.instance_lock("inst_001").acquire(blocking=True):
            store.session_append("inst_001", "sess_001", {
                "role": "user", "content": f"{tag}-{number}-" + "长" * 2000, "turn": number})


def test_concurrent_appends_from_two_processes_stay_whole_lines(fs):
    fs.session_create("inst_001", "sess_001")
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_append_many, args=(str(fs.root), tag, 60))
               for tag in ("a", "b")]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    read = fs.session_read("inst_001", "sess_001")
    assert read.problems == []
    assert len(read.messages) == 120


def test_streaming_line_is_readable_while_written_and_final_line_is_seed_format(fs):
    fs.session_create("inst_001", "sess_001")
    writer = fs.assistant_writer("inst_001", "sess_001", turn=1).open()
    for piece in ["我当然", "记得。\n", '"引号"\\', "[PROGRESS:3:in_progress]"]:
        writer.append(piece)
        partial = fs.session_read("inst_001", "sess_001").partial
        assert partial["content"] == writer.content
    record = writer.finish()
    line = fs.session_path("inst_001", "sess_001").read_text(encoding="utf-8").splitlines()[-1]
    assert json.loads(line) == record
    assert list(record)[:4] == ["role", "content", "turn", "timestamp"]
    assert "streaming" not in record


def test_long_reply_is_not_rewritten_per_token(fs):
    fs.session_create("inst_001", "sess_001")
    writer = fs.assistant_writer("inst_001", "sess_001", turn=1).open()
    for _ in range(4000):
        writer.append("tok ")
    writer.finish()
    assert writer.bytes_written < 3 * len(writer.content.encode()) + 500


def test_crash_mid_stream_is_repaired_with_text_kept_and_marked(fs):
    fs.session_create("inst_001", "sess_001")
    writer = fs.assistant_writer("inst_001", "sess_001", turn=1).open()
    writer.append("半句话")
    writer.close_quietly()  # the process died here
    repaired = fs.session_repair("inst_001", "sess_001")
    assert repaired["content"] == "半句话" and repaired["interrupted"] is True
    read = fs.session_read("inst_001", "sess_001")
    assert read.partial is None and read.problems == []
    assert read.messages[-1]["content"] == "半句话"


def test_crash_mid_regenerate_keeps_the_reply_with_its_earlier_versions(fs):
    """A regenerate's streaming line carries the reply's earlier versions (their own "content"
    keys) before the new text: a kill -9 mid-stream gives back all of them, not a fragment."""
    fs.session_create("inst_001", "sess_001")
    earlier = [{"content": "第一版"}, {"content": "second \"content\":\" version"}]
    writer = fs.assistant_writer("inst_001", "sess_001", turn=1,
                                 extra={"alternatives": earlier}).open()
    writer.append("新的半句")
    writer.close_quietly()  # the process died here
    streaming = fs.session_read("inst_001", "sess_001")
    assert streaming.partial is not None and streaming.partial["content"] == "新的半句"
    repaired = fs.session_repair("inst_001", "sess_001")
    assert repaired["content"] == "新的半句" and repaired["interrupted"] is True
    assert repaired["alternatives"] == earlier
    read = fs.session_read("inst_001", "sess_001")
    assert read.messages[-1]["alternatives"] == earlier
    assert not any(line.get("type") == "repaired_fragment" for line in read.lines)


def test_repair_keeps_an_unreadable_half_line_as_text(fs):
    fs.session_create("inst_001", "sess_001")
    with fs.session_path("inst_001", "sess_001").open("a") as handle:
        handle.write('{"type":"summary","cont')
    fs.session_repair("inst_001", "sess_001")
    read = fs.session_read("inst_001", "sess_001")
    assert read.lines[-1]["type"] == "repaired_fragment"
    assert '"cont' in read.lines[-1]["raw"]


def test_partial_line_decoder_drops_a_cut_escape():
    assert parse_partial_line('{"role":"assistant","turn":1,"streaming":true,"content":"ab\\u12'
                              )["content"] == "ab"


def test_json_too_large_or_broken_is_a_clear_error(fs):
    path = fs.root / "characters" / "char_a" / "definition.json"
    path.parent.mkdir(parents=True)
    path.write_text("{broken")
    with pytest.raises(CorruptFile, match="not valid JSON"):
        fs.character_read("char_a")


def test_archive_moves_aside_and_never_deletes(fs):
    fs.session_create("inst_001", "sess_001")
    target = fs.session_archive("inst_001", "sess_001")
    assert target.exists() and not fs.session_path("inst_001", "sess_001").exists()
    assert fs.session_next_id("inst_001") == "sess_002"


# --- the session cache: a turn parses only what was appended ---------------------------------


def _as_read(read) -> tuple:
    return (read.metadata, read.lines, [(p.line_number, p.reason) for p in read.problems],
            read.partial, read.size_bytes, read.last_turn)


def _cached(fs):
    read = fs.session_read("inst_001", "sess_001", cached=True)
    assert _as_read(read) == _as_read(fs.session_read("inst_001", "sess_001"))
    return read


def _user(turn: int, text: str = "你好") -> dict:
    return {"role": "user", "content": text, "turn": turn, "timestamp": "t"}


def test_cached_read_sees_appended_lines_and_keeps_the_parsed_ones(fs):
    fs.session_create("inst_001", "sess_001", lines=[_user(1)])
    first = _cached(fs)
    fs.session_append("inst_001", "sess_001", _user(2, "再见"))
    second = _cached(fs)
    assert [m["content"] for m in second.messages] == ["你好", "再见"]
    assert second.lines[0] is first.lines[0]  # parsed once, not again
    assert second.last_turn == 2


def test_cached_read_notices_a_rewrite_in_place_that_keeps_size_and_mtime(fs):
    fs.session_create("inst_001", "sess_001", lines=[_user(1, "甲乙"), _user(2)])
    path = fs.session_path("inst_001", "sess_001")
    _cached(fs)
    stat = path.stat()
    data = path.read_bytes()
    path.write_bytes(data.replace("甲乙".encode(), "丙丁".encode()))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_ino == stat.st_ino
    assert [m["content"] for m in _cached(fs).messages] == ["丙丁", "你好"]


def test_cached_read_sees_history_rewrites_and_a_shorter_file(fs):
    fs.session_create("inst_001", "sess_001", lines=[_user(1), _user(2, "旧")])
    read = _cached(fs)
    fs.session_rewrite("inst_001", "sess_001", [read.metadata, _user(1), _user(2, "新的内容")])
    assert [m["content"] for m in _cached(fs).messages] == ["你好", "新的内容"]
    fs.session_rewrite("inst_001", "sess_001", [read.metadata, _user(1)])
    assert [m["content"] for m in _cached(fs).messages] == ["你好"]
    assert _cached(fs).last_turn == 1


def test_cached_read_reports_corrupt_lines_every_time_and_leaves_them_in_the_file(fs):
    fs.session_create("inst_001", "sess_001", lines=[_user(1)])
    path = fs.session_path("inst_001", "sess_001")
    _cached(fs)
    with path.open("a", encoding="utf-8") as handle:
        handle.write("not json at all\n")
    assert [p.line_number for p in _cached(fs).problems] == [3]
    fs.session_append("inst_001", "sess_001", _user(2))
    before = path.read_bytes()
    read = _cached(fs)
    assert [p.line_number for p in read.problems] == [3]
    assert [m["turn"] for m in read.messages] == [1, 2]
    assert path.read_bytes() == before


def test_cached_read_never_keeps_a_streaming_line(fs):
    fs.session_create("inst_001", "sess_001", lines=[_user(1)])
    writer = fs.assistant_writer("inst_001", "sess_001", turn=1).open()
    for piece in ["我当然", "记得"]:
        writer.append(piece)
        read = _cached(fs)
        assert read.partial["content"] == writer.content and len(read.lines) == 1
    writer.finish()
    read = _cached(fs)
    assert read.partial is None and read.messages[-1]["content"] == "我当然记得"
    writer = fs.assistant_writer("inst_001", "sess_001", turn=2).open()
    writer.append("半句")
    writer.close_quietly()  # crashed; the repair completes the line in place
    assert _cached(fs).partial["content"] == "半句"
    fs.session_repair("inst_001", "sess_001")
    read = _cached(fs)
    assert read.partial is None and read.messages[-1]["interrupted"] is True
    assert read.problems == []
