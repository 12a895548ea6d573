"""Properties: the session file survives any mix of whole lines, streamed replies, crashes and
torn writes; the progress marker parser agrees with a plain reference on any text.

Pure modules only: runs without Django (`pytest tests/lib/test_properties.py -p no:django`)."""

from __future__ import annotations

import codecs
import json
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from personalab.lib.filestore.store import FileStore
from personalab.lib.filestore.writer import parse_partial_line
from personalab.lib.markers import MARKER_STATUSES, find_progress_marker

FAST = settings(max_examples=100, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])

INSTANCE, SESSION = "inst_001", "sess_001"

# Tokens as a model might stream them, plus everything JSON has to escape.
tokens = st.one_of(
    st.text(alphabet=st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(['"', "\\", "\n", "\r", "\t", "\x00", "\x1f", "\u2028", "长", "🙂",
                         "}", "\ufeff", "\ud7ff"])), max_size=12),
    st.sampled_from(["\\u00", '\\"', '"}', '","turn":9}\n', "\\", "我当然记得。\n"]),
)

whole_line = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant"]),
                                    "content": tokens, "turn": st.integers(0, 10_000)})
flags = st.fixed_dictionaries({}, optional={"interrupted": st.just(True),
                                            "error": st.just(True), "empty": st.just(True)})

operation = st.one_of(
    st.tuples(st.just("append"), whole_line),
    st.tuples(st.just("stream"), st.lists(tokens, max_size=8), flags),
    st.tuples(st.just("crash"), st.lists(tokens, max_size=8), st.floats(0, 1)),
    st.tuples(st.just("tear"), st.lists(tokens, min_size=1, max_size=8), st.floats(0, 1)),
)


def _prefix(streamed: str, got: str) -> bool:
    return streamed.startswith(got)


_folders: list[Path] = []


@pytest.fixture(scope="module", autouse=True)
def _folders_removed() -> Iterator[None]:
    """The stores the examples make (about 300 a run) go with the module: they were left in the
    temp folder, 46,000 of them on a developer's machine."""
    yield
    for folder in _folders:
        shutil.rmtree(folder, ignore_errors=True)
    _folders.clear()


def _fresh_store() -> FileStore:
    folder = Path(tempfile.mkdtemp(prefix="props-"))
    _folders.append(folder)
    store = FileStore(folder)
    store.session_create(INSTANCE, SESSION)
    return store


def _stream(store: FileStore, turn: int, pieces: list[str]):
    writer = store.assistant_writer(INSTANCE, SESSION, turn=turn,
                                    extra={"trace_id": f"trc_{turn}"}).open()
    for piece in pieces:
        writer.append(piece)
        partial = store.session_read(INSTANCE, SESSION).partial
        assert partial is not None and partial["content"] == writer.content  # prefix property
        assert partial["turn"] == turn and partial["trace_id"] == f"trc_{turn}"
    return writer


def _cut_inside_last_line(path: Path, where: float) -> None:
    """A torn write: the file ends somewhere inside the streaming line (never before it)."""
    data = path.read_bytes()
    start = data.rstrip(b"\n").rfind(b"\n") + 1
    keep = start + 1 + int(where * (len(data) - start - 1))
    path.write_bytes(data[: min(keep, len(data) - 1)] if keep > start else data[: start + 1])


@FAST
@given(st.lists(operation, max_size=8))
def test_any_mix_of_operations_leaves_a_loadable_file_with_every_completed_line(operations):
    store = _fresh_store()
    path = store.session_path(INSTANCE, SESSION)
    expected: list[dict] = []
    for number, op in enumerate(operations, start=1):
        kind = op[0]
        if kind == "append":
            store.session_append(INSTANCE, SESSION, op[1])
            expected.append(op[1])
        elif kind == "stream":
            record = _stream(store, number, op[1]).finish(**op[2])
            assert record["content"] == "".join(op[1])
            expected.append(record)
        else:
            writer = _stream(store, number, op[1])
            streamed = writer.content
            writer.close_quietly()
            if kind == "tear":
                _cut_inside_last_line(path, op[2])
            partial = store.session_read(INSTANCE, SESSION).partial
            # Whatever survived a torn write is a prefix of what was streamed.
            assert partial is None or _prefix(streamed, partial["content"])
            repaired = store.session_repair(INSTANCE, SESSION)
            assert repaired is not None
            if repaired.get("type") != "repaired_fragment":
                assert repaired["interrupted"] is True and repaired["turn"] == number
                assert _prefix(streamed, repaired["content"])
                if kind == "crash":
                    assert repaired["content"] == streamed
            expected.append(repaired)
        read = store.session_read(INSTANCE, SESSION)
        assert read.problems == [] and read.partial is None
        assert read.lines == expected
    assert path.read_bytes().endswith(b"\n")
    assert store.session_repair(INSTANCE, SESSION) is None  # repair is idempotent


@FAST
@given(st.lists(tokens, max_size=20), st.integers(0, 400))
def test_partial_line_cut_anywhere_decodes_to_a_prefix_of_the_stream(pieces, cut):
    store = _fresh_store()
    writer = _stream(store, 1, pieces)
    path = store.session_path(INSTANCE, SESSION)
    data = path.read_bytes()
    start = data.rfind(b"\n") + 1
    line = data[start:]
    writer.close_quietly()
    torn = codecs.getincrementaldecoder("utf-8")(errors="replace").decode(
        line[: min(cut, len(line))], final=False)
    record = parse_partial_line(torn)
    if record is not None:
        assert _prefix(writer.content, record["content"])
    path.write_bytes(data[: start + min(cut, len(line))])
    read = store.session_read(INSTANCE, SESSION)  # never raises, whatever the cut
    assert read.metadata["session_id"] == SESSION


@FAST
@given(st.lists(whole_line, max_size=6), st.binary(max_size=40))
def test_a_torn_non_streaming_line_is_the_only_problem_and_repair_keeps_it_as_text(lines, junk):
    store = _fresh_store()
    for line in lines:
        store.session_append(INSTANCE, SESSION, line)
    path = store.session_path(INSTANCE, SESSION)
    junk = junk.replace(b"\n", b"")
    with path.open("ab") as handle:
        handle.write(b'{"type":"summary","content":"' + junk)
    store.session_repair(INSTANCE, SESSION)
    read = store.session_read(INSTANCE, SESSION)
    assert read.problems == [] and read.partial is None
    assert read.lines[: len(lines)] == lines
    assert len(read.lines) == len(lines) + 1


# --- the failing examples, one by one --------------------------------------------------------


@pytest.mark.parametrize("pieces", [['"'], ["他说", '"走"'], ['"}'], ["a\\", '"']])
def test_a_reply_ending_in_a_quote_is_read_as_partial_and_repaired_as_a_reply(pieces):
    store = _fresh_store()
    writer = _stream(store, 1, pieces)
    writer.close_quietly()
    repaired = store.session_repair(INSTANCE, SESSION)
    assert repaired["role"] == "assistant" and repaired["content"] == "".join(pieces)


@pytest.mark.parametrize("flag", ["interrupted", "error", "empty"])
def test_a_whole_line_missing_only_its_newline_keeps_its_text(flag):
    store = _fresh_store()
    store.assistant_writer(INSTANCE, SESSION, turn=1).open().finish(**{flag: True})
    path = store.session_path(INSTANCE, SESSION)
    store.session_append(INSTANCE, SESSION, {"role": "user", "content": "我的话", "turn": 2})
    store.session_append(INSTANCE, SESSION, {"role": "assistant", "content": "一半",
                                             "turn": 2, flag: True})
    path.write_bytes(path.read_bytes()[:-1])  # the newline never reached the disk
    assert store.session_read(INSTANCE, SESSION).partial is None
    store.session_repair(INSTANCE, SESSION)
    assert store.session_read(INSTANCE, SESSION).lines[-1] == {
        "role": "assistant", "content": "一半", "turn": 2, flag: True}


def test_a_cut_inside_a_multibyte_character_leaves_no_replacement_character():
    store = _fresh_store()
    writer = _stream(store, 1, ["我当然记得"])
    writer.close_quietly()
    path = store.session_path(INSTANCE, SESSION)
    path.write_bytes(path.read_bytes()[:-1])  # half of "得"
    assert store.session_read(INSTANCE, SESSION).partial["content"] == "我当然记"
    assert store.session_repair(INSTANCE, SESSION)["content"] == "我当然记"


# --- progress markers ----------------------------------------------------------------------

_REFERENCE = re.compile(r"\[PROGRESS:([0-9]{1,50}):(completed|in_progress|pending)\]")


def _reference_marker(text: str, outline_length: int) -> tuple[int, str, str] | None:
    """The first exact ASCII marker with a known status and an index in 1..outline_length.
    (The parser looks at most 60 characters past "[progress", hence the 50-digit cap.)"""
    for match in _REFERENCE.finditer(text):
        index = int(match.group(1))
        if 1 <= index <= outline_length and len(match.group(0)) - len("[PROGRESS") <= 61:
            return index, match.group(2), match.group(0)
    return None


fragments = st.one_of(
    st.text(max_size=8),
    st.builds(lambda i, s: f"[PROGRESS:{i}:{s}]", st.integers(-3, 14),
              st.sampled_from([*MARKER_STATUSES, "done", "COMPLETED", "Pending", "", "in progress"])),
    st.builds(lambda i, s: f"[PROGRESS:{i}:{s}]", st.text("0123456789", min_size=1, max_size=70),
              st.sampled_from(MARKER_STATUSES)),
    st.sampled_from(["[", "]", "［", "］", "【", "】", "：", ":", "PROGRESS", "progress",
                     "[PROGRESS:", "[progress:2:completed]", "［PROGRESS:2:completed］",
                     "[PROGRESS：2：completed]", "[PROGRESS: 2:completed]", "\n", "２", "ſ", "K"]),
)


@FAST
@given(st.lists(fragments, max_size=12).map("".join), st.integers(0, 12))
def test_marker_parser_agrees_with_the_reference_on_any_text(text, outline_length):
    result = find_progress_marker(text, outline_length)
    expected = _reference_marker(text, outline_length)
    if expected is None:
        assert not result.found and result.index is None and result.status is None
    else:
        assert (result.index, result.status, result.raw) == expected
    for rejected in result.rejected:
        assert rejected["reason"] and text[rejected["position"]:].startswith(rejected["raw"])
    positions = [r["position"] for r in result.rejected]
    assert positions == sorted(positions)
    json.dumps(result.rejected)  # a trace can always store it


@FAST
@given(st.text(), st.integers(-5, 10**6))
def test_marker_parser_never_raises_on_arbitrary_text(text, outline_length):
    result = find_progress_marker(text, outline_length)
    if result.found:
        assert result.status in MARKER_STATUSES and 1 <= result.index <= outline_length
        assert result.raw in text
