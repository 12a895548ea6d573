from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from chat.prompt.assemble import prompt_build
from chat.prompt.templates import TemplateStore
from personalab.lib.template_sandbox import TemplateError, render_template
from personalab.lib.tokens import count_tokens
from tests.chat.prompt_inputs import (
    make_config,
    make_director,
    make_inputs,
    make_lines,
    system_text,
)

SEED_REFUSAL = "Prompt总长度超过限制（{actual} > {limit}），请执行汇总或调整配置"


@pytest.fixture
def store(tmp_path) -> TemplateStore:
    return TemplateStore(tmp_path / "prompt_templates")


def test_head_then_middle_sections_in_seed_order_with_labels(store):
    result = prompt_build(
        make_inputs(
            pinned="永远不要背叛{{ user }}", biography=["第一段", "第二段"], recaps=["回顾一"]
        ),
        store.get("zh"),
    )
    labels = [
        "=== 角色初始人格 ===",
        "=== 角色成长人格 ===",
        "=== 背景设定 ===",
        "=== 故事大纲 ===",
        "=== 进度引导指令 ===",
        "=== 永不遗忘 ===",
        "=== 人物传记 ===",
        "=== 历史事件回忆 ===",
        "=== 前情提要 ===",
        "=== 当前会话完整对话 ===",
    ]
    text = system_text(result)
    positions = [text.index(label) for label in labels]
    assert positions == sorted(positions)
    assert "Alserqi，废土黑帮老大" in text  # author text rendered late: {{ char }}
    assert "永远不要背叛User" in text
    assert "3. 与仇人对峙（进行中，in_progress）" in text
    names = [(s.name, s.region) for s in result.sections]
    assert names == [
        ("base_persona", "head"),
        ("evolved_persona", "head"),
        ("world_setting", "head"),
        ("outline", "head"),
        ("instruction", "head"),
        ("pinned", "head"),
        ("biography", "head"),
        ("recalled", "middle"),
        ("recaps", "middle"),
        ("conversation", "middle"),
    ]
    assert all(
        s.tokens == count_tokens(s.text) for s in result.sections if s.name != "conversation"
    )


def test_english_templates_use_english_labels(store):
    result = prompt_build(make_inputs(locale="en"), store.get("en"))
    text = system_text(result)
    assert text.startswith("=== Character: base persona ===")
    assert "=== Recalled events ===" in text and "角色初始人格" not in text


def test_conversation_is_real_chat_messages_with_summary_as_system_note(store):
    lines = [{"type": "summary", "content": "Alserqi 发现了叛徒。"}] + make_lines(2)
    result = prompt_build(make_inputs(lines=lines), store.get("zh"))
    assert result.messages[1] == {"role": "system", "content": "【前情提要】\nAlserqi 发现了叛徒。"}
    assert [m["role"] for m in result.messages[2:]] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert result.messages[-1] == {"role": "user", "content": "你还记得我们之前的约定吗？"}


def test_user_text_is_never_rendered_as_a_template(store):
    result = prompt_build(
        make_inputs(lines=make_lines(1, current="{{ char }} {{ 7*7 }} {% if %}")), store.get("zh")
    )
    # Macros are substituted (as SillyTavern does); nothing else in the text is a template.
    assert result.messages[-1]["content"] == "Alserqi {{ 7*7 }} {% if %}"
    assert result.warnings == []


def test_director_reminder_lists_current_and_reference_events(store):
    reminder = {
        "text": "你现在应该推进到故事大纲第3点：与仇人对峙",
        "current_events": ["Alserqi发现Victor的藏身地", "Alserqi和玩家潜入敌人据点"],
        "reference_events": ["在其他剧情线中，对峙时Victor试图解释背叛原因"],
    }
    result = prompt_build(make_inputs(director=make_director(reminder)), store.get("zh"))
    section = next(s for s in result.sections if s.name == "director_reminder")
    assert section.region == "middle"
    assert section.text == (
        "=== 导演提醒 ===\n"
        "你现在应该推进到故事大纲第3点：与仇人对峙\n\n"
        "【当前剧情中已发生的事件】\n"
        "- Alserqi发现Victor的藏身地\n"
        "- Alserqi和玩家潜入敌人据点\n\n"
        "【剧情经验参考】（其他剧情线的类似情节，仅供参考）\n"
        "- 在其他剧情线中，对峙时Victor试图解释背叛原因"
    )
    text = system_text(result)
    assert (
        text.index("=== 进度引导指令 ===")
        < text.index("=== 导演提醒 ===")
        < text.index("=== 历史事件回忆 ===")
    )


def test_director_off_leaves_out_outline_instruction_and_reminder(store):
    result = prompt_build(make_inputs(director=None), store.get("zh"))
    names = {s.name for s in result.sections}
    assert not names & {"outline", "instruction", "director_reminder"}
    assert "故事大纲" not in system_text(result)


def test_empty_recall_and_empty_evolved_persona_are_left_out(store):
    result = prompt_build(make_inputs(recalled=[], evolved_persona=""), store.get("zh"))
    text = system_text(result)
    assert "历史事件回忆" not in text and "角色成长人格" not in text
    assert "recalled" not in {s.name for s in result.sections}


def test_over_the_limit_is_refused_with_the_seed_message_and_keeps_the_user_message(store):
    result = prompt_build(make_inputs(config=make_config(max_total=50)), store.get("zh"))
    assert result.total_tokens > 50
    assert result.refused == SEED_REFUSAL.format(actual=result.total_tokens, limit=50)
    assert result.messages[-1] == {"role": "user", "content": "你还记得我们之前的约定吗？"}


def test_middle_region_over_threshold_warns_without_cutting(store):
    lines = make_lines(40)
    result = prompt_build(make_inputs(lines=lines, config=make_config(middle=100)), store.get("zh"))
    warning = next(w for w in result.warnings if w["category"] == "middle_section_overflow")
    assert warning == {
        "type": "warning",
        "category": "middle_section_overflow",
        "message": "当前对话历史过长",
        "current_value": result.middle_tokens,
        "threshold": 100,
        "suggestion": "建议执行汇总功能",
    }
    middle = {"director_reminder", "recalled", "recaps", "conversation"}
    assert result.middle_tokens == sum(s.tokens for s in result.sections if s.name in middle)
    assert len(result.messages) == 1 + len(lines)
    assert result.refused is None


def test_total_near_the_limit_warns(store):
    total = prompt_build(make_inputs(), store.get("zh")).total_tokens
    result = prompt_build(make_inputs(config=make_config(max_total=total + 5)), store.get("zh"))
    assert result.refused is None
    categories = [w["category"] for w in result.warnings]
    assert categories == ["total_near_limit"]
    assert result.warnings[0]["current_value"] == total


def test_total_counts_every_message_with_chat_overhead(store):
    result = prompt_build(make_inputs(), store.get("zh"))
    expected = sum(count_tokens(m["content"]) + 4 for m in result.messages) + 3
    assert result.total_tokens == expected


def test_trimming_keeps_newest_messages_when_load_all_is_off(store):
    long_current = "现在" * 3000  # longer than max_chars on its own: still kept
    inputs = make_inputs(
        lines=make_lines(20, current=long_current),
        config=make_config(load_all=False),
        trimming={"max_messages": 4, "max_chars": 100000},
    )
    result = prompt_build(inputs, store.get("zh"))
    history = result.messages[1:]
    assert [m["content"] for m in history] == ["回答19", "问题20", "回答20", long_current]
    conversation = next(s for s in result.sections if s.name == "conversation")
    assert conversation.cut and conversation.omitted == 41 - 4

    by_chars = make_inputs(
        lines=make_lines(20, current=long_current),
        config=make_config(load_all=False),
        trimming={"max_messages": 10, "max_chars": 10},
    )
    assert prompt_build(by_chars, store.get("zh")).messages[1:] == [
        {"role": "user", "content": long_current}
    ]


def test_load_all_sends_the_whole_session(store):
    result = prompt_build(make_inputs(lines=make_lines(30)), store.get("zh"))
    conversation = next(s for s in result.sections if s.name == "conversation")
    assert len(result.messages) == 1 + 61 and not conversation.cut and conversation.omitted == 0


def test_a_list_section_over_budget_keeps_its_newest_items_and_is_marked_cut(store):
    recaps = [f"第{i}段前情提要：" + "废土上的故事继续。" * 20 for i in range(1, 11)]
    result = prompt_build(
        make_inputs(recaps=recaps, section_budgets={"recaps": 400}), store.get("zh")
    )
    section = next(s for s in result.sections if s.name == "recaps")
    assert section.cut and section.tokens <= 400 and section.omitted > 0
    assert "第10段前情提要" in section.text and "第1段前情提要" not in section.text
    assert section.omitted == sum(1 for r in recaps if r not in section.text)


def test_a_text_section_over_budget_is_cut_at_the_end(store):
    pinned = "开头必须保留。" + "细节" * 2000
    result = prompt_build(
        make_inputs(pinned=pinned, section_budgets={"pinned": 50}), store.get("zh")
    )
    section = next(s for s in result.sections if s.name == "pinned")
    assert section.cut and section.tokens <= 50
    assert section.text.startswith("=== 永不遗忘 ===\n开头必须保留。") and section.text.endswith(
        "…"
    )
    assert section.text in system_text(result)
    untouched = next(s for s in result.sections if s.name == "base_persona")
    assert not untouched.cut


def test_depth_blocks_are_woven_into_the_history(store):
    blocks = [
        {
            "name": "d0",
            "content": "D0",
            "position": "depth",
            "depth": 0,
            "role": "system",
            "priority": 1,
        },
        {
            "name": "d1",
            "content": "D1",
            "position": "depth",
            "depth": 1,
            "role": "system",
            "priority": 1,
        },
        {
            "name": "far",
            "content": "D99",
            "position": "depth",
            "depth": 99,
            "role": "system",
            "priority": 1,
        },
        {
            "name": "before",
            "content": "BEFORE {{ char }}",
            "position": "before_char",
            "priority": 1,
        },
        {"name": "after", "content": "AFTER", "position": "after_char", "priority": 1},
    ]
    result = prompt_build(make_inputs(lines=make_lines(1), floating_blocks=blocks), store.get("zh"))
    assert [m["content"] for m in result.messages[1:]] == [
        "D99",
        "问题1",
        "回答1",
        "D1",
        "你还记得我们之前的约定吗？",
        "D0",
    ]
    text = system_text(result)
    assert text.startswith("BEFORE Alserqi\n\n=== 角色初始人格 ===")
    assert text.index("=== 背景设定 ===") < text.index("AFTER") < text.index("=== 故事大纲 ===")
    reports = {s.name: s for s in result.sections}
    assert reports["block:d0"].region == "middle" and reports["block:before"].region == "head"


def test_over_the_limit_drops_floating_blocks_lowest_priority_first(store):
    filler = "世界书条目的内容很长。" * 40
    blocks = [
        {"name": "high", "content": "H" + filler, "position": "depth", "depth": 2, "priority": 5},
        {"name": "low", "content": "L" + filler, "position": "depth", "depth": 2, "priority": 1},
        {"name": "mid", "content": "M" + filler, "position": "before_char", "priority": 3},
    ]
    base = prompt_build(make_inputs(), store.get("zh")).total_tokens
    one_block = count_tokens("H" + filler) + 4
    result = prompt_build(
        make_inputs(floating_blocks=blocks, config=make_config(max_total=base + one_block + 10)),
        store.get("zh"),
    )
    assert [d["name"] for d in result.dropped_blocks] == ["low", "mid"]
    assert all("max_total_tokens" in d["reason"] for d in result.dropped_blocks)
    assert result.refused is None
    contents = [m["content"] for m in result.messages]
    assert "H" + filler in contents and "L" + filler not in contents
    assert "block:low" not in {s.name for s in result.sections}
    assert any(w["category"] == "prompt_blocks_dropped" for w in result.warnings)


def test_refusal_comes_only_after_every_block_is_dropped(store):
    blocks = [{"name": "note", "content": "作者注", "position": "depth", "depth": 1, "priority": 9}]
    result = prompt_build(
        make_inputs(floating_blocks=blocks, config=make_config(max_total=20)), store.get("zh")
    )
    assert [d["name"] for d in result.dropped_blocks] == ["note"]
    assert result.refused == SEED_REFUSAL.format(actual=result.total_tokens, limit=20)
    assert result.messages[-1]["content"] == "你还记得我们之前的约定吗？"


@pytest.mark.parametrize(
    "source",
    [
        "{{ ''.__class__.__mro__ }}",
        "{{ cycler.__init__.__globals__ }}",
        "{{ [].append(1) }}",
        "{{ 'x' * 10000000 }}",
    ],
)
def test_sandbox_refuses_escapes_and_side_effects(source):
    with pytest.raises(TemplateError):
        render_template(source, {})


def test_render_template_leaves_undefined_names_empty_and_does_not_escape():
    assert render_template("[{{ missing }}][{{ missing.deeper }}]", {}) == "[][]"
    assert render_template("{{ text }}", {"text": "<b>&</b>"}) == "<b>&</b>"
    with pytest.raises(TemplateError, match="syntax"):
        render_template("{% if %}", {})


def test_author_text_is_never_rendered_as_a_template(store):
    attacks = ["{{ ''.__class__ }} 原文", "{{ (['x'*100000]*20000)|join }}",
               "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
               "{{ '%300000000d' % 1 }}"]
    for attack in attacks:
        result = prompt_build(make_inputs(base_persona=attack, pinned=attack), store.get("zh"))
        assert system_text(result).count(attack) == 2
        assert result.warnings == []


def test_author_text_macros_are_substituted(store):
    inputs = make_inputs(base_persona="{{char}} guards <USER>. {{persona}}|{{roll:d1}}",
                         user_name="Mira", macros={"persona": "a scout"})
    text = system_text(prompt_build(inputs, store.get("zh")))
    assert "Alserqi guards Mira. a scout|1" in text


def write_json(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def bump_mtime(path: Path) -> None:
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))


def test_user_override_wins_key_by_key_and_reloads_after_a_change(tmp_path):
    folder = tmp_path / "prompt_templates"
    store = TemplateStore(folder)
    write_json(
        folder / "zh.json",
        {"labels": {"base_persona": "=== 数据副本人格 ===", "world_setting": "=== 世界 ==="}},
    )
    override = folder / "zh.user.json"
    write_json(override, {"labels": {"base_persona": "=== 我的人格 ==="}})
    text = system_text(prompt_build(make_inputs(), store.get("zh")))
    assert "=== 我的人格 ===" in text and "=== 世界 ===" in text and "=== 角色成长人格 ===" in text

    write_json(
        override,
        {
            "labels": {"base_persona": "=== 改过的 ==="},
            "sections": {"base_persona": "人格：{{ base_persona }}"},
        },
    )
    bump_mtime(override)
    text = system_text(prompt_build(make_inputs(), store.get("zh")))
    assert text.startswith("=== 改过的 ===\n人格：Alserqi，废土黑帮老大")

    override.unlink()
    assert store.get("zh").label("base_persona") == "=== 数据副本人格 ==="


def test_a_broken_override_is_ignored_with_a_warning(tmp_path):
    folder = tmp_path / "prompt_templates"
    store = TemplateStore(folder)
    folder.mkdir()
    (folder / "zh.user.json").write_text("{not json", encoding="utf-8")
    write_json(folder / "zh.json", {"sections": {"pinned": "{% if %}"}})
    result = prompt_build(make_inputs(pinned="固定"), store.get("zh"))
    assert "=== 永不遗忘 ===\n固定" in system_text(result)  # the master template took over
    warning = next(w for w in result.warnings if w["category"] == "template_error")
    assert "zh.user.json" in warning["detail"] and "pinned" in warning["detail"]


def test_locale_is_validated_before_it_reaches_a_path(store):
    with pytest.raises(TemplateError):
        store.get("../../etc/passwd")


def _session_tokens(lines: list[dict], summary_note: str = "【前情提要】\n") -> int:
    usable = [line for line in lines if not line.get("error")]
    return sum(count_tokens(summary_note + line["content"] if line.get("type") == "summary"
                            else line["content"]) + 4 for line in usable)


def _overflow(lines: list[dict], store) -> tuple[dict, object]:
    config = make_config(load_all=False)
    config["limits"]["conversation_max_tokens"] = 50
    result = prompt_build(make_inputs(lines=lines, config=config), store.get("zh"))
    warning = next(w for w in result.warnings if w["category"] == "conversation_overflow")
    return warning, next(s for s in result.sections if s.name == "conversation")


def test_session_tokens_count_the_lines_left_out_as_the_session_grows_and_is_edited(store):
    lines = [{"type": "summary", "content": "Alserqi 发现了叛徒。"}, *make_lines(30)]
    lines.insert(5, {"role": "assistant", "content": "(系统错误: boom)", "error": True})
    warning, conversation = _overflow(lines, store)
    assert warning["current_value"] == _session_tokens(lines) and warning["threshold"] == 50
    # The error line is never a message; the summary line is kept before the last 10.
    assert conversation.omitted == len(lines) - 1 - 10 - 1

    for turn in range(31, 34):  # later turns: the same line objects and two more each turn
        lines = [*lines, {"role": "assistant", "content": f"回答{turn}" * 3, "turn": turn},
                 {"role": "user", "content": f"问题{turn + 1}", "turn": turn + 1}]
        warning, conversation = _overflow(lines, store)
        assert warning["current_value"] == _session_tokens(lines)
        assert conversation.omitted == len(lines) - 1 - 10 - 1

    edited = [dict(line) for line in lines]  # a history edit: the file parsed again
    edited[3] = {**edited[3], "content": "改过的一句很长很长的话" * 10}
    warning, _ = _overflow(edited, store)
    assert warning["current_value"] == _session_tokens(edited)
    warning, _ = _overflow(edited[:1] + edited[4:], store)  # lines deleted
    assert warning["current_value"] == _session_tokens(edited[:1] + edited[4:])


def test_a_summary_left_out_of_the_prompt_is_counted_as_rendered_this_turn(tmp_path):
    store = TemplateStore(tmp_path / "prompt_templates")
    lines = [{"type": "summary", "content": "前情"}, *make_lines(20)]
    before, _ = _overflow(lines, store)
    overrides = tmp_path / "prompt_templates" / "zh.user.json"
    overrides.parent.mkdir(parents=True, exist_ok=True)
    note = "很长的前情提要标题，" * 20 + "\n"
    overrides.write_text(json.dumps({"conversation": {"summary_note": note + "{{ content }}"}},
                                    ensure_ascii=False), encoding="utf-8")
    os.utime(overrides, ns=(1, 10**18))  # the template store reloads on a newer mtime
    after, _ = _overflow(lines, store)
    assert after["current_value"] == _session_tokens(lines, summary_note=note)
    assert after["current_value"] > before["current_value"]
