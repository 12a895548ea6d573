"""Lore entries at a depth and the author's note put into the chat as SillyTavern 1.12's
populationInjectionPrompts / doChatInject put them: everything at one depth in one role is ONE
message (the preset's in-chat prompts, then the extension prompts by their key: the author's
note `2_floating_prompt`, the card's `DEPTH_PROMPT`, the world info `customDepthWI-…`, joined
with "\\n"); at one depth the roles go assistant, user, system; and when the chat is shorter
than a depth, the deeper message still comes first. The first two through real turns against
the stub, the rest through prompt_build."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.utils import translation

from chat.inspector.names import note_named
from chat.prompt.assemble import prompt_build
from chat.prompt.depth_weave import history_weave
from chat.prompt.inputs import Block
from chat.prompt.sections import section_report
from chat.prompt.story import StoryChoice
from chat.prompt.templates import TemplateStore
from personalab.lib.story_string import ContextTemplate
from personalab.lib.tokens import count_tokens
from tests.chat.prompt_inputs import make_inputs, make_lines
from tests.library.lore_turns import lore_turn_run, lorebook_link

pytestmark = pytest.mark.django_db(transaction=True)


def _at_depth(uid: int, content: str, *, depth: int, role: str, order: int = 100) -> dict:
    return {"uid": uid, "keys": [], "constant": True, "position": "depth", "depth": depth,
            "role": role, "priority": order, "content": content}


@pytest.fixture
def templates(tmp_path) -> TemplateStore:
    return TemplateStore(tmp_path / "prompt_templates")


def _sent(stub) -> list[tuple[str, str]]:
    return [(m["role"], m["content"]) for m in stub.requests[-1]["messages"]]


async def test_one_depth_and_role_is_one_message_with_the_note_before_the_lore(
        store, instance, character, use_stub):
    store.memory_json_write(instance, "authors_note",
                            {"text": "AN_TEXT", "depth": 1, "role": "system"})
    await sync_to_async(lorebook_link)(
        store, character,
        _at_depth(1, "D_SYS2", depth=1, role="system", order=200),
        _at_depth(2, "D_SYS", depth=1, role="system", order=100),
        _at_depth(3, "D_USER", depth=1, role="user"),
        _at_depth(4, "D_ASSIST", depth=1, role="assistant"))
    result = await lore_turn_run(store, instance, "Hello there.")
    sent = _sent(use_stub)
    assert sent[-4:] == [("assistant", "D_ASSIST"), ("user", "D_USER"),
                         ("system", "AN_TEXT\nD_SYS\nD_SYS2"), ("user", "Hello there.")]
    # The inspector still lists each block, and says which ones share a message.
    notes = {s["name"]: s["note"] for s in store.trace_read(instance, result.trace_id)["sections"]}
    assert notes["block:authors_note"] == "depth 1, role system; one message, part 1 of 3"
    lore = sorted(note for name, note in notes.items() if name.startswith("block:lore:"))
    assert lore == ["depth 1, role assistant", "depth 1, role system; one message, part 2 of 3",
                    "depth 1, role system; one message, part 3 of 3", "depth 1, role user"]


async def test_a_note_deeper_than_the_chat_comes_before_shallower_lore_on_the_first_turn(
        store, instance, character, use_stub):
    store.memory_json_write(instance, "authors_note",
                            {"text": "NOTE_D4", "depth": 4, "role": "system"})
    await sync_to_async(lorebook_link)(
        store, character,
        _at_depth(1, "LORE_D2", depth=2, role="system"),
        _at_depth(2, "LORE_D3_USER", depth=3, role="user"))
    await lore_turn_run(store, instance, "Hello there.")
    contents = [content for _, content in _sent(use_stub)]
    assert contents.index("NOTE_D4") < contents.index("LORE_D3_USER") < contents.index(
        "LORE_D2")


def test_preset_prompts_then_note_then_card_note_then_lore_in_one_message(templates):
    blocks = [
        {"name": "lore:b:1", "content": "LORE ", "position": "depth", "depth": 0},
        {"name": "depth_prompt", "content": "CARD_NOTE", "position": "depth", "depth": 0},
        {"name": "authors_note", "content": "\nNOTE", "position": "depth", "depth": 0},
        {"name": "lore:b:2", "content": "USER_LORE", "position": "depth", "depth": 0,
         "role": "user"},
    ]
    preset = [{"name": "in_chat", "content": "PRESET", "enabled": True, "place": "depth",
               "role": "system", "depth": 0}]
    result = prompt_build(make_inputs(lines=make_lines(1), floating_blocks=blocks,
                                      prompt_blocks=preset), templates.get("zh"))
    assert [(m["role"], m["content"]) for m in result.messages[-2:]] == [
        ("user", "USER_LORE"), ("system", "PRESET\nNOTE\nCARD_NOTE\nLORE")]


def test_the_inspector_lists_the_depth_blocks_in_the_order_they_are_sent(templates):
    blocks = [
        {"name": "lore:b:1", "content": "LORE_D0", "position": "depth", "depth": 0},
        {"name": "authors_note", "content": "NOTE_D0", "position": "depth", "depth": 0},
        {"name": "lore:b:2", "content": "USER_D0", "position": "depth", "depth": 0,
         "role": "user"},
        {"name": "lore:b:3", "content": "LORE_D2", "position": "depth", "depth": 2},
    ]
    result = prompt_build(make_inputs(lines=make_lines(3), floating_blocks=blocks),
                          templates.get("zh"))
    sent = "\n".join(m["content"] for m in result.messages)
    assert [sent.index(text) for text in ("LORE_D2", "USER_D0", "NOTE_D0", "LORE_D0")] == sorted(
        sent.index(text) for text in ("LORE_D2", "USER_D0", "NOTE_D0", "LORE_D0"))
    listed = [(s.name, s.note) for s in result.sections if s.note.startswith("depth")]
    assert listed == [("block:lore:b:3", "depth 2, role system"),
                      ("block:lore:b:2", "depth 0, role user"),
                      ("block:authors_note", "depth 0, role system; one message, part 1 of 2"),
                      ("block:lore:b:1", "depth 0, role system; one message, part 2 of 2")]


def test_total_counts_one_overhead_for_blocks_sharing_a_message(templates):
    blocks = [{"name": f"lore:b:{n}", "content": f"LORE {n}", "position": "depth", "depth": 1}
              for n in range(3)]
    result = prompt_build(make_inputs(lines=make_lines(1), floating_blocks=blocks),
                          templates.get("zh"))
    assert [m["content"] for m in result.messages].count("LORE 0\nLORE 1\nLORE 2") == 1
    expected = sum(count_tokens(m["content"]) + 4 for m in result.messages) + 3
    assert result.total_tokens == expected


def _block(index: int, text: str, *, depth: int, role: str = "system") -> Block:
    return Block(index, f"lore:b:{index}", "depth", depth, role, 100,
                 section_report(f"block:lore:b:{index}", "middle", text))


def test_a_continue_puts_depth_0_after_depth_1_before_the_reply_being_continued():
    history = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Half a"}]
    blocks = [_block(0, "ZERO", depth=0), _block(1, "ONE", depth=1), _block(2, "ONE-B", depth=1)]
    woven = history_weave(history, blocks, StoryChoice(ContextTemplate(), continuing=True))
    assert [m["content"] for m in woven] == ["hi", "ONE\nONE-B", "ZERO", "Half a"]


def test_the_inspector_says_in_chinese_which_part_of_a_message_a_block_is():
    with translation.override("zh-hans"):
        named = note_named("depth 1, role system; one message, part 2 of 3")
    assert named == ("深度 1，角色 系统; "
                     "与同深度、同角色的其他块合为一条消息发送，第 2 段，共 3 段")
