"""With conversation_load_all off, a turn parses only the newest lines of a long session (through
the line index) and still builds exactly the prompt, warnings and trace a whole read gives."""

from __future__ import annotations

import dataclasses

import pytest

from chat.play.context import context_load, context_prepare
from chat.play.turn import turn_run
from chat.services.instance_settings import instance_update
from chat.services.traces import trace_rebuild
from personalab.lib.trace_refs import conversation_refer
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _long_session(store, instance, count: int = 2000) -> None:
    read = store.session_read(instance, "sess_001")
    lines = [{"type": "summary", "content": "前情：灯塔的钥匙丢了。"}]
    for n in range(count):
        lines.append({"role": "user" if n % 2 == 0 else "assistant",
                      "content": f"第{n}句，关于{'废墟' if n % 3 else '灯塔'}的事。", "turn": n // 2 + 1})
        if n == 700:
            lines.append({"type": "summary", "content": "中途：他们到了港口。"})
        if n == 900:
            lines.append({"role": "assistant", "content": "(系统错误: boom)", "error": True,
                          "turn": n // 2 + 1})
        if n == 1990:
            lines.append({"role": "user", "content": "隐藏的一句", "hidden": True,
                          "turn": n // 2 + 1})
    store.session_rewrite(instance, "sess_001", [read.metadata, *lines])
    with store.session_path(instance, "sess_001").open("ab") as handle:
        handle.write(b'{"role": "user", "content": "not closed\n')
    config = store.config_read()
    config["preferences"]["conversation_load_all"] = False
    config["limits"]["conversation_max_tokens"] = 50
    store.config_write(config)


def _prompt(prepared):
    conversation = next(s for s in prepared.prompt.sections if s.name == "conversation")
    return (prepared.prompt.messages, prepared.prompt.total_tokens,
            (conversation.omitted, conversation.tokens, conversation.note), prepared.warnings)


def test_a_turn_reads_only_the_newest_lines_and_builds_what_a_whole_read_builds(store, instance):
    _long_session(store, instance)
    with store.instance_lock(instance):
        ctx = context_load(store, instance_id=instance, user_text="灯塔怎么样了？")
    assert ctx.first_index > 1900 and len(ctx.lines) < 20  # the rest was never parsed
    assert ctx.turn == 1001 and len(ctx.problems) == 1
    whole = store.session_read(instance, "sess_001")
    assert ctx.lines == whole.lines[ctx.first_index:]
    full_ctx = dataclasses.replace(ctx, lines=list(whole.lines), first_index=0, lines_before=None,
                                   token_counts={})
    newest, everything = context_prepare(store, ctx, {}), context_prepare(store, full_ctx, {})
    assert _prompt(newest) == _prompt(everything)
    overflow = next(w for w in newest.warnings if w["category"] == "conversation_overflow")
    assert overflow["current_value"] > 20000  # every line of the session counted, none parsed
    assert conversation_refer(newest.prompt.messages, ctx.lines, session_id="sess_001",
                              first_index=ctx.first_index) == conversation_refer(
        everything.prompt.messages, full_ctx.lines, session_id="sess_001")


async def test_the_trace_of_such_a_turn_shows_exactly_what_was_sent(store, instance, use_stub):
    _long_session(store, instance)

    async def emit(event):
        return None

    use_stub.script(Reply("好的。"))
    result = await turn_run(store, instance_id=instance, user_text="然后呢？", emit=emit)
    sent = use_stub.requests[-1]["messages"]
    assert any(message["content"] == "第1999句，关于废墟的事。" for message in sent)
    assert not any("第1980句" in message["content"] for message in sent)
    trace = trace_rebuild(store, instance_id=instance, trace_id=result.trace_id)
    assert trace["messages"] == sent and trace["session_edited"] is False
    assert trace["conversation"]["first_line"] > 1900


def test_lore_that_looks_further_back_than_the_lines_read_still_sees_them(store, instance, alice):
    from library.lore.services import lorebook_save

    _long_session(store, instance)
    book = lorebook_save(store, user=alice, data={"name": "深处", "scan_depth": 100, "entries": [
        {"keys": ["第1920句"], "content": "深处的记忆被唤起。"}]}, lorebook_id=None)
    instance_update(store, user=alice, instance_id=instance, lorebook_ids=[book])
    with store.instance_lock(instance):
        ctx = context_load(store, instance_id=instance, user_text="继续")
    assert ctx.first_index > 1900 and not any("第1920句" in line["content"] for line in ctx.lines)
    prompt = context_prepare(store, ctx, {}).prompt
    assert any("深处的记忆被唤起。" in message["content"] for message in prompt.messages)
