"""Summary lines in the prompt (chat/prompt/conversation.py): a long chat's session opens with
many, and every turn renders them all to count what the session holds. A template that reads
only the line's text renders it once; one that reads more renders it each turn."""

from __future__ import annotations

import json
import os
import re

import pytest

import chat.prompt.conversation as conversation
from chat.prompt.assemble import prompt_build
from chat.prompt.templates import TemplateStore
from chat.prompt.window import ContextWindow
from personalab.lib.template_sandbox import template_reads_only
from tests.chat.prompt_inputs import make_inputs, make_lines

SUMMARIES = [{"type": "summary", "content": f"第{n}件事：Alserqi 找到了叛徒留下的第{n}个记号。"}
             for n in range(200)]


@pytest.fixture
def renders(monkeypatch) -> list[str]:
    """The sources of the templates the conversation renders, call by call."""
    called: list[str] = []
    render = conversation.render_template

    def counted(source, variables):
        called.append(source)
        return render(source, variables)

    conversation._summary_render_of_content.cache_clear()
    monkeypatch.setattr(conversation, "render_template", counted)
    return called


def summary_override(tmp_path, note: str) -> TemplateStore:
    overrides = tmp_path / "prompt_templates" / "zh.user.json"
    overrides.parent.mkdir(parents=True, exist_ok=True)
    overrides.write_text(json.dumps({"conversation": {"summary_note": note}}, ensure_ascii=False),
                         encoding="utf-8")
    os.utime(overrides, ns=(1, 10**18))
    return TemplateStore(tmp_path / "prompt_templates")


def test_summary_lines_are_rendered_once_while_their_template_reads_only_their_text(
        tmp_path, renders):
    templates = TemplateStore(tmp_path / "prompt_templates").get("zh")
    lines = [*SUMMARIES, *make_lines(3)]
    first = prompt_build(make_inputs(lines=lines), templates)
    assert len(renders) >= len(SUMMARIES)
    renders.clear()

    again = prompt_build(make_inputs(lines=[*lines, *make_lines(4)[-3:]]), templates)

    assert renders == []
    assert [m for m in again.messages if m["content"].startswith("【前情提要】")] == [
        m for m in first.messages if m["content"].startswith("【前情提要】")]
    assert again.messages[1]["content"] == "【前情提要】\n" + SUMMARIES[0]["content"]


def test_a_summary_template_reading_the_player_name_follows_it(tmp_path, renders):
    templates = summary_override(tmp_path, "{{ user }} 记得：{{ content }}").get("zh")
    lines = [*SUMMARIES[:3], *make_lines(2)]

    for name in ("Ann", "Bob"):
        result = prompt_build(make_inputs(lines=lines, user_name=name), templates)
        assert result.messages[1]["content"] == f"{name} 记得：" + SUMMARIES[0]["content"]


@pytest.mark.parametrize(("source", "content_only"), [
    ("[Story so far]\n{{ content }}", True),
    ("{% set n = 2 %}{{ content|upper }}{{ range(n)|list }}", True),
    ("{{ user }}: {{ content }}", False),
    ("{{ content }} {{ ['a', 'b']|random }}", False),
    ("{{ lipsum(1) }}{{ content }}", False),
    ("{{ content", False),
])
def test_a_template_reading_only_the_text_is_told_apart(source, content_only):
    assert template_reads_only(source, frozenset({"content"})) is content_only


def test_an_old_sessions_thousands_of_summary_lines_are_counted_not_rendered(tmp_path, renders):
    """A session seeded before the summary bound holds thousands of summary lines; a prompt
    renders only the newest it could keep, keeping what it kept before, and says how many
    the session holds."""
    templates = summary_override(tmp_path, "{{ user }} 记得：{{ content }}").get("zh")
    old = [{"type": "summary", "content": f"第{n}件事：Alserqi 找到了叛徒留下的第{n}个记号。"}
           for n in range(3000)]
    window = ContextWindow(tokens=4096, reply=1024, source="setting")

    result = prompt_build(make_inputs(lines=[*old, *make_lines(5)], window=window), templates)

    kept = [m["content"] for m in result.messages if m["content"].startswith("User 记得：")]
    assert kept == ["User 记得：" + line["content"] for line in old[-len(kept):]]
    assert len(kept) == 71  # as when every line was rendered
    assert len(renders) < 500  # as the window holds, each window twice: not all 3,000 lines
    note = next(s.note for s in result.sections if s.name == "conversation")
    walked, left_out = map(int, re.search(r"(\d+) of (\d+) summary lines kept", note).groups())
    assert len(kept) - walked + left_out == 3000  # every line told of
