"""With the whole session in the prompt (the default), a turn parses only the newest lines the
prompt can hold (back to its token limit, through the line index) and still builds exactly the
prompt, refusal, warnings and figures a whole read of the session gives."""

from __future__ import annotations

import dataclasses

import pytest

from chat.play.context import context_load, context_prepare
from chat.play.turn import turn_run
from chat.prompt.assemble import REPLY_PRIMING_TOKENS
from chat.prompt.tally import MESSAGE_OVERHEAD_TOKENS
from personalab.lib.tokens import count_tokens
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _session(store, instance, count: int, *, old_text: str = "") -> None:
    """A session of `count` messages; `old_text` is put into the 50 oldest ones."""
    read = store.session_read(instance, "sess_001")
    lines = [{"type": "summary", "content": "前情：灯塔的钥匙丢了，{{user}}在找。"}]
    for n in range(count):
        content = f"第{n}句，关于{'废墟' if n % 3 else '灯塔'}的事。"
        lines.append({"role": "user" if n % 2 == 0 else "assistant",
                      "content": (old_text + content) if n < 50 else content,
                      "turn": n // 2 + 1, "timestamp": "2026-01-02T03:04:05Z"})
        if n == 30:
            lines.append({"type": "summary", "content": "中途：他们到了港口。"})
            lines.append({"role": "assistant", "content": "(系统错误: boom)", "error": True,
                          "turn": n // 2 + 1})
            lines.append({"role": "user", "content": "隐藏的一句", "hidden": True,
                          "turn": n // 2 + 1})
        if n in (20, 160):  # a narrator line SillyTavern sends, and a comment it does not
            lines.append({"type": "note", "name": "Narrator", "is_system": False,
                          "content": f"钟声在第{n}句后响起。"})
            lines.append({"type": "note", "name": "Note", "content": "只给玩家看的批注。"})
    store.session_rewrite(instance, "sess_001", [read.metadata, *lines])
    with store.session_path(instance, "sess_001").open("ab") as handle:
        handle.write(b'{"role": "user" broken}\n')


def _limits(store, *, max_total: int | None = None, budget: int | None = None) -> None:
    config = store.config_read()
    assert config["preferences"]["conversation_load_all"] is True  # the default mode
    if max_total is not None:
        config["limits"]["max_total_tokens"] = max_total
        config["limits"]["middle_section_warning_tokens"] = max_total // 2
    store.config_write(config)
    if budget is not None:
        store.module_write("prompt", {**store.module_read("prompt"),
                                      "section_budgets": {"conversation": budget}})


def _figures(prepared):
    prompt = prepared.prompt
    conversation = next(s for s in prompt.sections if s.name == "conversation")
    return (prompt.total_tokens, prompt.middle_tokens, prompt.refused, conversation.tokens,
            conversation.omitted, prepared.warnings, prompt.dropped_blocks)


def _both(store, instance, text: str = "灯塔怎么样了？"):
    """The turn as it loaded (before preparing it, which may read more), its preparation, and
    the same turn prepared from every line of the session."""
    with store.instance_lock(instance):
        ctx = context_load(store, instance_id=instance, user_text=text)
    whole = store.session_read(instance, "sess_001")
    full_ctx = dataclasses.replace(ctx, lines=list(whole.lines), first_index=0, lines_before=None,
                                   token_counts={})
    as_loaded = dataclasses.replace(ctx, lines=list(ctx.lines))
    return as_loaded, context_prepare(store, ctx, {}), context_prepare(store, full_ctx, {})


def test_a_session_that_fits_gives_the_prompt_of_a_whole_read_byte_for_byte(store, instance):
    _session(store, instance, 300, old_text="{{user}}说：")
    ctx, now, whole = _both(store, instance)
    assert ctx.first_index == 0 and ctx.lines_before is None and len(ctx.lines) > 300
    assert now.prompt.messages == whole.prompt.messages
    assert now.prompt.refused is None and _figures(now) == _figures(whole)
    assert any("Alice说：第0句" in m["content"] or "说：第0句" in m["content"]
               for m in now.prompt.messages)  # the oldest line, macro filled in, is sent


def test_a_conversation_budget_reads_only_the_lines_it_keeps(store, instance):
    _session(store, instance, 3000)
    _limits(store, budget=600)
    ctx, now, whole = _both(store, instance)
    assert ctx.first_index > 2900 and len(ctx.lines) < 100  # the rest was never parsed
    assert now.prompt.messages == whole.prompt.messages
    assert _figures(now) == _figures(whole)
    assert not any("第2900句" in m["content"] for m in now.prompt.messages)


def test_a_session_over_the_limit_sends_its_newest_lines_without_reading_it_all(
        store, instance):
    _session(store, instance, 3000, old_text="{{char}}和{{user}}<USER>：")
    _limits(store, max_total=4000)
    ctx, now, whole = _both(store, instance)
    assert ctx.first_index > 2000 and len(ctx.problems) == 1
    assert now.prompt.refused is None and whole.prompt.refused is None
    assert now.prompt.messages == whole.prompt.messages
    assert now.prompt.total_tokens <= 4000
    assert any("第2999句" in m["content"] for m in now.prompt.messages)
    assert not any("第0句" in m["content"] for m in now.prompt.messages)


def test_macros_that_shrink_old_lines_still_get_every_line_into_the_prompt(store, instance):
    comment = "{{// " + "很长的作者注释，" * 40 + "}}"
    _session(store, instance, 120, old_text=comment)
    _limits(store, max_total=3000)
    ctx, now, whole = _both(store, instance)
    assert ctx.first_index > 0  # by their stored size the oldest lines did not fit
    assert now.prompt.refused is None and whole.prompt.refused is None
    assert now.prompt.messages == whole.prompt.messages
    assert _figures(now) == _figures(whole)
    assert any(m["content"].startswith("第0句") for m in now.prompt.messages)


async def test_a_turn_over_the_limit_is_answered_and_the_trace_says_what_was_left_out(
        store, instance, use_stub):
    _session(store, instance, 3000)
    _limits(store, max_total=4000)

    async def emit(event):
        return None

    use_stub.script(Reply("接着说。"))
    await turn_run(store, instance_id=instance, user_text="然后呢？", emit=emit)
    assert len(use_stub.requests) == 1 and use_stub.requests[0]["max_tokens"] == 1024
    trace_id = store.session_read(instance, "sess_001").lines[-1]["trace_id"]
    trace = store.trace_read(instance, trace_id)
    assert trace["window"]["dropped_messages"] > 2000
    conversation = next(s for s in trace["sections"] if s["name"] == "conversation")
    assert "omitted" in conversation["note"]


def test_a_message_saying_what_a_summary_line_says_costs_its_tokens(store, instance):
    """A summarize's events can repeat a player's line word for word; the summary line's count
    (none: it is rendered each turn) was taken for the player's new message saying the same,
    which then cost 4 tokens instead of its words (play_long: a 2,048-token request 19 over its
    window)."""
    read = store.session_read(instance, "sess_001")
    said = "我的下属叫李志宏，他在山东青岛工作，喜欢听音乐会。"
    lines = [{"type": "summary", "content": said}]
    for n in range(40):
        lines.append({"role": "user" if n % 2 == 0 else "assistant",
                      "content": f"第{n}句，关于灯塔的事。", "turn": n // 2 + 1,
                      "timestamp": "2026-01-02T03:04:05Z"})
    store.session_rewrite(instance, "sess_001", [read.metadata, *lines])
    _ctx, now, whole = _both(store, instance, said)
    assert _figures(now) == _figures(whole)
    sent = sum(count_tokens(m["content"]) + MESSAGE_OVERHEAD_TOKENS
               for m in now.prompt.messages) + REPLY_PRIMING_TOKENS
    assert now.prompt.total_tokens == sent
