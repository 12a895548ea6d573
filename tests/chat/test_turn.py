"""One turn against the real openai client and the stub server: file first, every failure
ends in a whole line."""

from __future__ import annotations

import asyncio
import json

import pytest
from django.utils import translation

from chat.play.turn import TurnRefused, turn_run
from tests.stub_llm import Empty, Fail, Garbage, Hang, Reply, refused_url

pytestmark = pytest.mark.django_db(transaction=True)


def _lines(store, instance_id):
    state = store.instance_state_read(instance_id)
    path = store.session_path(instance_id, state["current_session_id"])
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


async def _run(store, instance_id, text="你好", stop=None, events=None):
    events = [] if events is None else events

    async def emit(event):
        events.append(event)

    return await turn_run(store, instance_id=instance_id, user_text=text, emit=emit, stop=stop)


async def test_every_token_is_in_the_file_before_it_is_pushed(store, instance, use_stub):
    use_stub.script(Reply("我当然记得。我答应过你，不会冲动送死。", chunk_size=3))
    seen = []

    async def emit(event):
        if event["type"] == "token":
            seen.append(event["content"])
            partial = store.session_read(instance, "sess_001").partial
            assert partial["content"] == "".join(seen)

    result = await turn_run(store, instance_id=instance, user_text="你还记得吗", emit=emit)
    assert "".join(seen) == result.answer_text == "我当然记得。我答应过你，不会冲动送死。"
    lines = _lines(store, instance)
    assert lines[-2]["role"] == "user" and lines[-2]["turn"] == 1
    assert lines[-1]["content"] == result.answer_text and lines[-1]["turn"] == 1
    assert lines[-1]["trace_id"] == result.trace_id


async def test_the_prompt_has_head_then_conversation(store, instance, use_stub):
    await _run(store, instance, "第一句")
    sent = use_stub.requests[-1]["messages"]
    assert sent[0]["role"] == "system"
    assert "废土黑帮老大" in sent[0]["content"] and "与仇人对峙" in sent[0]["content"]
    assert sent[-1] == {"role": "user", "content": "第一句"}


async def test_stop_keeps_partial_reply(store, instance, use_stub):
    use_stub.script(Reply("a" * 400, chunk_size=1, delay=0.01))
    stop = asyncio.Event()
    events = []

    async def emit(event):
        # Characters, not events: a paced "shown" update may carry no text.
        events.append(event)
        if sum(len(e.get("content", "")) for e in events if e["type"] == "token") >= 5:
            stop.set()

    result = await turn_run(store, instance_id=instance, user_text="hi", emit=emit, stop=stop)
    last = _lines(store, instance)[-1]
    assert result.interrupted and last["interrupted"] is True
    assert 5 <= len(last["content"]) < 400
    # File first: every token shown is in the file; the reader may have written a piece more
    # before the stop cancelled it (the page reads the finished line from the file).
    shown = "".join(e["content"] for e in events if e["type"] == "token")
    assert len(shown) >= 4 and last["content"].startswith(shown)


async def test_empty_reply_is_marked(store, instance, use_stub):
    use_stub.script(Empty())
    result = await _run(store, instance)
    last = _lines(store, instance)[-1]
    assert last["content"] == "(无回复)" and last["empty"] is True and result.empty


@pytest.mark.parametrize("step, words", [(Fail(500, "boom"), "500"), (Fail(401, "bad key"), "401"),
                                         (Garbage(), "")])
async def test_llm_errors_end_in_a_whole_error_line(store, instance, use_stub, step, words):
    use_stub.script(step)
    events = []
    result = await _run(store, instance, events=events)
    last = _lines(store, instance)[-1]
    assert last["error"] is True and last["content"].startswith("(系统错误: ")
    assert words in last["content"]
    assert any(e["type"] == "error" for e in events) and result.error


async def test_a_hanging_llm_times_out_into_an_error_line(store, instance, use_stub, settings):
    settings.PERSONALAB_LLM_TIMEOUT = 0.5
    use_stub.script(Hang(10))
    await _run(store, instance)
    last = _lines(store, instance)[-1]
    assert last["error"] is True and "timed out" in last["content"]


async def test_refused_connection_is_an_error_line(store, instance, settings):
    settings.OPENAI_BASE_URL = refused_url()
    settings.OPENAI_API_KEY = "k"
    await _run(store, instance)
    last = _lines(store, instance)[-1]
    assert last["error"] is True and "cannot connect" in last["content"]


async def test_over_limit_refuses_and_sends_nothing(store, instance, use_stub):
    config = store.config_read()
    config["limits"]["max_total_tokens"] = 10000
    store.config_write(config)
    before = len(use_stub.requests)
    with pytest.raises(TurnRefused) as refused:
        await _run(store, instance, "长" * 12000)
    assert refused.value.status == 422 and refused.value.code == "prompt_too_long"
    # The newest message alone does not fit: refused before the prompt is built (tenth red-team
    # pass), in the active language, naming the limit and who may raise it.
    assert refused.value.message.startswith("Your message alone is 12,0")
    assert "the server's limit (10,000)" in refused.value.message
    assert "limits.max_total_tokens" in refused.value.message
    with translation.override("zh-hans"), pytest.raises(TurnRefused) as chinese:
        await _run(store, instance, "长" * 12000)
    assert "超过了服务器的上限（10,000）" in chinese.value.message
    assert "limits.max_total_tokens" in chinese.value.message
    # A line that fits alone: the built prompt is refused, naming what it always holds. The
    # trace keeps the prompt's language (the seed's, Chinese); the player reads the active one.
    with pytest.raises(TurnRefused) as built:
        await _run(store, instance, "长" * 9990)
    kept = store.trace_read(instance, built.value.trace_id)["refused"]
    assert "超过了服务器的上限（10,000）" in kept and "最新一条消息 10,0" in kept
    assert "the newest message 10,0" in built.value.message
    assert len(use_stub.requests) == before
    assert _lines(store, instance)[-1]["role"] == "user"


async def test_middle_section_over_threshold_warns_without_cutting(store, instance, use_stub):
    config = store.config_read()
    config["limits"]["middle_section_warning_tokens"] = 1000
    store.config_write(config)
    events = []
    long_text = "很长的消息" * 400
    await _run(store, instance, long_text, events=events)
    warnings = [e for e in events if e["type"] == "warning"]
    assert warnings and warnings[0]["category"] == "middle_section_overflow"
    assert set(warnings[0]) >= {"type", "category", "message", "current_value", "threshold",
                                "suggestion"}
    assert warnings[0]["threshold"] == 1000
    assert use_stub.requests[-1]["messages"][-1]["content"] == long_text


async def test_second_send_while_streaming_is_refused(store, instance, use_stub):
    use_stub.script(Reply("x" * 50, chunk_size=1, delay=0.02))
    first = asyncio.create_task(_run(store, instance, "one"))
    await asyncio.sleep(0.3)
    with pytest.raises(TurnRefused) as busy:
        await _run(store, instance, "two")
    assert busy.value.status == 409
    await first
    contents = [line.get("content") for line in _lines(store, instance)]
    assert "two" not in contents


async def test_empty_and_oversized_messages_are_refused(store, instance, settings):
    with pytest.raises(TurnRefused) as empty:
        await _run(store, instance, "   ")
    assert empty.value.status == 400
    settings.PERSONALAB_MAX_MESSAGE_CHARS = 100
    with pytest.raises(TurnRefused) as large:
        await _run(store, instance, "x" * 101)
    assert large.value.status == 413
    assert len(_lines(store, instance)) == 1


async def test_trace_records_sections_messages_and_reply(store, instance, use_stub):
    from chat.services.traces import trace_rebuild

    result = await _run(store, instance, "hello")
    trace = trace_rebuild(store, instance_id=instance, trace_id=result.trace_id)
    assert {s["name"] for s in trace["sections"]} >= {"base_persona", "conversation"}
    assert all(isinstance(s["tokens"], int) for s in trace["sections"])
    assert trace["messages"] == use_stub.requests[-1]["messages"]
    assert trace["reply"]["content"] == result.answer_text
    assert "total_ms" in trace["timings"]


async def test_offline_provider_answers_in_character_when_nothing_is_configured(store, instance):
    result = await _run(store, instance, "你是谁？")
    assert "Alserqi" in result.answer_text


async def test_corrupt_session_lines_warn_and_the_turn_goes_on(store, instance, use_stub):
    with store.session_path(instance, "sess_001").open("a") as handle:
        handle.write("not json at all\n")
    events = []
    result = await _run(store, instance, "still there?", events=events)
    assert any(e.get("category") == "corrupt_session_lines" for e in events)
    assert result.answer_text == "stub reply"
    assert "not json at all" in store.session_path(instance, "sess_001").read_text()
