"""A hostile model endpoint (the stub server playing one, through the real openai client):
a line that never ends, a stream that sends nothing useful, a reply that never stops. Each
ends the turn with a whole line in the session file, keeping what arrived in time."""

from __future__ import annotations

import json

import pytest

from chat.play.turn import turn_run
from personalab.lib.sse import LineTooLong, SSELines
from tests.stub_llm import LongLine, Reply, Useless

pytestmark = pytest.mark.django_db(transaction=True)


def _lines(store, instance_id):
    state = store.instance_state_read(instance_id)
    path = store.session_path(instance_id, state["current_session_id"])
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def _run(store, instance_id, events):
    async def emit(event):
        events.append(event)

    return await turn_run(store, instance_id=instance_id, user_text="你好", emit=emit)


async def test_a_30_mb_line_without_newline_ends_in_an_error_line_keeping_the_reply_before(
        store, instance, use_stub):
    use_stub.script(LongLine(30_000_000, before="我先说一句。"))
    events = []
    result = await _run(store, instance, events)
    last = _lines(store, instance)[-1]
    assert last["error"] is True and last["content"].startswith("我先说一句。")
    assert "without an end" in last["content"] and "PERSONALAB_LLM_MAX_LINE_BYTES" in result.error
    assert any(event["type"] == "error" for event in events)


@pytest.mark.parametrize("every", [0.0, 0.05], ids=["flood", "keep-alive"])
async def test_a_stream_of_empty_deltas_ends_in_an_error_line_after_the_idle_time(
        store, instance, use_stub, settings, every):
    settings.PERSONALAB_LLM_IDLE_SECONDS = 0.5
    use_stub.script(Useless(seconds=30, before="好的，", every=every))
    events = []
    result = await _run(store, instance, events)
    last = _lines(store, instance)[-1]
    assert last["error"] is True and last["content"].startswith("好的，")
    assert "nothing to show for 0.5s" in result.error


async def test_the_reply_cap_ends_a_reply_that_never_stops(store, instance, use_stub, settings):
    settings.PERSONALAB_MAX_REPLY_CHARS = 500
    use_stub.script(Useless(seconds=30, content=True))
    result = await _run(store, instance, [])
    last = _lines(store, instance)[-1]
    assert result.truncated and last["truncated"] is True and last["content"] == "x" * 500


def test_a_line_is_refused_once_it_passes_the_cap_not_when_it_ends():
    lines = SSELines(max_line_bytes=1_000_000)
    read = b"a" * 65536
    with pytest.raises(LineTooLong):
        for _ in range(30_000_000 // len(read)):
            lines.feed(read)


def test_lines_cut_anywhere_between_reads_come_out_whole():
    stream = b"data: one\n\n: keep-alive\ndata: two\r\ndata: three\n"
    for cut in range(len(stream)):
        for second in range(cut, len(stream)):
            lines = SSELines(max_line_bytes=64)
            got = b"".join(lines.feed(part) for part in
                           (stream[:cut], stream[cut:second], stream[second:]))
            assert got == stream


def test_a_long_line_inside_one_read_is_refused():
    lines = SSELines(max_line_bytes=10)
    with pytest.raises(LineTooLong):
        lines.feed(b"short\n" + b"x" * 50 + b"\nend\n")


async def test_a_slow_reply_that_keeps_sending_text_is_not_cut_by_the_idle_time(
        store, instance, use_stub, settings):
    settings.PERSONALAB_LLM_IDLE_SECONDS = 0.6
    use_stub.script(Reply("一二三四五六七八", chunk_size=1, delay=0.15))  # 1.2 s in all
    result = await _run(store, instance, [])
    last = _lines(store, instance)[-1]
    assert result.error is None and last["content"] == "一二三四五六七八"
