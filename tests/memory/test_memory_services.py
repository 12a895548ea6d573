"""Memory actions over real files in a temp data folder, a scripted LLM and a recording index."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path

import pytest

from memory.character.biography import (
    biography_add,
    biography_from_persona,
    biography_items,
    biography_remove,
    biography_reorder,
    biography_update,
)
from memory.character.evolved_persona import (
    EVOLVED_PERSONA_MAX_CHARS,
    memory_update_persona,
    persona_restore,
    persona_set_manual,
    persona_versions,
)
from memory.character.pinned import pinned_prompt_effective, pinned_prompt_set
from memory.errors import MemoryActionError
from memory.summaries import recaps
from memory.summaries.recaps import (
    recap_items,
    recap_maybe_roll,
    recap_pending,
    recap_rebuild,
    recap_remove,
    recap_reorder,
    recap_update,
)
from memory.summaries.summarize import memory_summarize, parse_events_json
from personalab.lib.llm import LLMError
from tests.memory.memory_fakes import (
    BACKGROUND,
    CHARACTER,
    INSTANCE,
    TWO_EVENTS,
    FakeIndex,
    FakeLLM,
    config_with,
    make_instance,
    recap_llm,
    recap_settings,
    roll_through,
    snapshot,
    turns_add,
)


class BrokenIndex:
    def add_events(self, **kwargs):
        raise RuntimeError("chroma is down")


def session_file(root: Path, session_id: str) -> Path:
    return root / "instances" / INSTANCE / "sessions" / f"{session_id}.jsonl"


def file_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# --- summarize -----------------------------------------------------------------------


@pytest.mark.parametrize("order", ["summary_first", "last_n_first"])
async def test_summarize_creates_seeded_session_and_moves_current(tmp_path, order):
    store = make_instance(tmp_path, earlier_summaries=("更早的摘要。",),
                          config=config_with(2, order))
    old_bytes = session_file(tmp_path, "sess_001").read_bytes()
    llm, index, steps = FakeLLM(TWO_EVENTS), FakeIndex(), []

    result = await memory_summarize(store, instance_id=INSTANCE, llm=llm, index=index,
                                    progress=steps.append)

    assert result["old_session_id"] == "sess_001" and result["new_session_id"] == "sess_002"
    assert result["events"] == 2 and result["warnings"] == []
    assert result["summary_ids"] == ["summary_sess_001_0", "summary_sess_001_1"]
    lines = file_lines(session_file(tmp_path, "sess_002"))
    assert lines[0]["type"] == "metadata" and lines[0]["continued_from"] == "sess_001"
    assert lines[0]["session_id"] == "sess_002" and lines[0]["instance_id"] == INSTANCE
    summaries = [{"type": "summary", "content": text}
                 for text in ("更早的摘要。", "情报交换与信任建立。", "制定复仇计划。")]
    turns = [
        {"role": role, "content": f"{who}第{old}句", "turn": new,
         "timestamp": f"2025-10-16T10:0{old}:{second}Z"}
        for old, new in ((5, 1), (6, 2))
        for role, who, second in (("user", "用户", "00"), ("assistant", "角色", "05"))
    ]
    expected = summaries + turns if order == "summary_first" else turns + summaries
    assert lines[1:] == expected
    assert store.instance_state_read(INSTANCE)["current_session_id"] == "sess_002"
    assert store.instance_state_read(INSTANCE)["plot_state"]["no_update_count"] == 2
    assert session_file(tmp_path, "sess_001").read_bytes() == old_bytes
    assert len(steps) >= 5


async def test_summarize_ledger_and_index_agree_with_the_seed_ids(tmp_path):
    store = make_instance(tmp_path)
    llm, index = FakeLLM(TWO_EVENTS), FakeIndex()
    await memory_summarize(store, instance_id=INSTANCE, llm=llm, index=index)

    summaries = store.ledger_read(INSTANCE, "summaries")
    plots = store.ledger_read(INSTANCE, "plots")
    assert [r["id"] for r in summaries] == ["summary_sess_001_0", "summary_sess_001_1"]
    assert [r["related_plot_id"] for r in summaries] == ["plot_sess_001_0", "plot_sess_001_1"]
    assert [r["related_summary_id"] for r in plots] == ["summary_sess_001_0", "summary_sess_001_1"]
    assert plots[1]["text"].startswith("Alserqi 决定前往调查")
    for record in summaries + plots:
        assert (record["instance_id"], record["character_id"], record["background_id"],
                record["session_id"]) == (INSTANCE, CHARACTER, BACKGROUND, "sess_001")
    (call,) = index.calls
    assert (call["instance_id"], call["character_id"], call["background_id"],
            call["session_id"]) == (INSTANCE, CHARACTER, BACKGROUND, "sess_001")
    assert [(e["index"], e["summary"]) for e in call["events"]] == [
        (r["index"], r["text"]) for r in summaries]
    _, context = llm.calls[0]
    assert context["task"] == "summarize" and context["character_name"] == "Alserqi"
    assert [line["content"] for line in context["transcript"]][:2] == ["用户第1句", "角色第1句"]


@pytest.mark.parametrize("reply", [
    "好的，这是本次会话的总结：他们谈了很多。",
    '{"events": []}',
    '{"events": [{"summary": "只有摘要", "plot": "  "}]}',
    '{"events": [{"summary": "断开的 JSON", "plot": "…"',
    '[{"summary": "不是对象", "plot": "…"}]',
])
async def test_unusable_summary_output_changes_nothing(tmp_path, reply):
    store = make_instance(tmp_path)
    before = snapshot(tmp_path)
    index = FakeIndex()
    with pytest.raises(MemoryActionError, match="could not be read as a list of events"):
        await memory_summarize(store, instance_id=INSTANCE, llm=FakeLLM(reply),
                               index=index)
    assert snapshot(tmp_path) == before
    assert index.calls == []


async def test_llm_failure_during_summarize_changes_nothing(tmp_path):
    store = make_instance(tmp_path)
    before = snapshot(tmp_path)
    with pytest.raises(MemoryActionError, match="The model call failed; nothing was changed"):
        await memory_summarize(store, instance_id=INSTANCE,
                               llm=FakeLLM(LLMError("LLM timed out after 60s")),
                               index=FakeIndex())
    assert snapshot(tmp_path) == before


async def test_code_fenced_json_with_prose_is_accepted(tmp_path):
    store = make_instance(tmp_path)
    reply = ("好的，以下是整理结果：\n```json\n"
             '{"events": [{"summary": "对峙前夜。", "plot": "两人在据点外等待。",},]}\n'
             "```\n希望有帮助。")
    result = await memory_summarize(store, instance_id=INSTANCE, llm=FakeLLM(reply),
                                    index=FakeIndex())
    assert result["events"] == 1
    assert store.ledger_read(INSTANCE, "plots")[0]["text"] == "两人在据点外等待。"


def test_parse_events_json_strips_text_and_finds_object_in_prose():
    events = parse_events_json(
        '结果如下 {"events": [{"summary": " 摘要 ", "plot": " 素材 "}]} 完毕')
    assert events == [{"summary": "摘要", "plot": "素材"}]


@pytest.mark.parametrize("index", [BrokenIndex(), None])
async def test_index_failure_still_writes_ledger_and_session(tmp_path, index):
    store = make_instance(tmp_path)
    result = await memory_summarize(store, instance_id=INSTANCE, llm=FakeLLM(TWO_EVENTS),
                                    index=index)
    assert len(result["warnings"]) == 1
    warning = result["warnings"][0]
    assert warning["type"] == "warning" and "reindex" in warning["suggestion"]
    assert len(store.ledger_read(INSTANCE, "summaries")) == 2
    assert session_file(tmp_path, "sess_002").exists()
    assert store.instance_state_read(INSTANCE)["current_session_id"] == "sess_002"


async def test_empty_session_is_not_summarized(tmp_path):
    store = make_instance(tmp_path, turns=0)
    before = snapshot(tmp_path)
    with pytest.raises(MemoryActionError):
        await memory_summarize(store, instance_id=INSTANCE, llm=FakeLLM(TWO_EVENTS),
                               index=FakeIndex())
    assert snapshot(tmp_path) == before


# --- evolved persona ---------------------------------------------------------------


async def test_update_persona_keeps_every_version(tmp_path):
    store = make_instance(tmp_path, evolved="经历背叛后变得多疑。")
    llm = FakeLLM("开始愿意信任玩家。", "愿意为玩家冒险。")

    first = await memory_update_persona(store, instance_id=INSTANCE, llm=llm)
    second = await memory_update_persona(store, instance_id=INSTANCE, llm=llm)

    assert (first["version"], second["version"]) == (2, 3)
    versions = persona_versions(store, instance_id=INSTANCE)
    assert [(v["version"], v["evolved_persona"], v["source"]) for v in versions] == [
        (1, "经历背叛后变得多疑。", "imported"),
        (2, "开始愿意信任玩家。", "update_memory"),
        (3, "愿意为玩家冒险。", "update_memory"),
    ]
    state = store.character_state_read(INSTANCE)
    assert state["evolved_persona"] == "愿意为玩家冒险。"
    assert state["base_persona"] == "Alserqi，废土黑帮老大"
    messages, context = llm.calls[1]
    assert context["task"] == "update_memory"
    assert "开始愿意信任玩家。" in messages[-1]["content"]


async def test_first_update_of_an_empty_persona_is_version_one(tmp_path):
    store = make_instance(tmp_path)
    result = await memory_update_persona(store, instance_id=INSTANCE,
                                         llm=FakeLLM("变得谨慎。"))
    assert result == {"evolved_persona": "变得谨慎。", "version": 1, "character_id": "char_alserqi"}


async def test_a_persona_too_long_for_every_turn_is_refused_from_the_model_and_by_hand(tmp_path):
    store = make_instance(tmp_path, evolved="多疑。")
    before = snapshot(tmp_path)
    with pytest.raises(MemoryActionError, match="more than the 8000"):
        await memory_update_persona(store, instance_id=INSTANCE,
                                    llm=FakeLLM("多疑。" * (EVOLVED_PERSONA_MAX_CHARS // 3 + 1)))
    with pytest.raises(MemoryActionError) as refused:
        persona_set_manual(store, instance_id=INSTANCE, text="x" * (EVOLVED_PERSONA_MAX_CHARS + 1))
    assert "text" in refused.value.fields
    assert snapshot(tmp_path) == before
    assert persona_set_manual(store, instance_id=INSTANCE,
                              text="x" * EVOLVED_PERSONA_MAX_CHARS)["changed"]


@pytest.mark.parametrize("reply", ["", "   \n "])
async def test_empty_persona_output_changes_nothing(tmp_path, reply):
    store = make_instance(tmp_path, evolved="多疑。")
    before = snapshot(tmp_path)
    with pytest.raises(MemoryActionError):
        await memory_update_persona(store, instance_id=INSTANCE, llm=FakeLLM(reply))
    assert snapshot(tmp_path) == before


async def test_update_persona_reaches_into_the_previous_session_without_duplicates(tmp_path):
    store = make_instance(tmp_path, config=config_with(2, "summary_first"))
    await memory_summarize(store, instance_id=INSTANCE, llm=FakeLLM(TWO_EVENTS),
                           index=FakeIndex())
    turns_add(store, "sess_002", 3)
    llm = FakeLLM("新的成长人格。")

    await memory_update_persona(store, instance_id=INSTANCE, llm=llm, last_n_turns=4)

    said = [line["content"] for line in llm.calls[0][1]["transcript"]]
    assert said == ["用户第4句", "角色第4句", "用户第5句", "角色第5句",
                    "用户第6句", "角色第6句", "用户第3句", "角色第3句"]


def test_manual_persona_edits_are_versioned_and_restorable(tmp_path):
    store = make_instance(tmp_path)
    persona_set_manual(store, instance_id=INSTANCE, text="手写版本一")
    persona_set_manual(store, instance_id=INSTANCE, text="手写版本二")
    unchanged = persona_set_manual(store, instance_id=INSTANCE, text="手写版本二")
    restored = persona_restore(store, instance_id=INSTANCE, version=1)

    assert unchanged["changed"] is False
    assert restored["version"] == 3
    assert [v["evolved_persona"] for v in persona_versions(store, instance_id=INSTANCE)] \
        == ["手写版本一", "手写版本二", "手写版本一"]
    assert store.character_state_read(INSTANCE)["evolved_persona"] == "手写版本一"


# --- pinned prompts ----------------------------------------------------------------


def test_pinned_prompt_instance_override_wins(tmp_path):
    store = make_instance(tmp_path)
    effective = pinned_prompt_effective
    assert effective(store, instance_id=INSTANCE, character_id=CHARACTER) == ("", "none")

    pinned_prompt_set(store, instance_id=None, character_id=CHARACTER,
                      text="永远不要背叛玩家。")
    assert effective(store, instance_id=INSTANCE, character_id=CHARACTER) == (
        "永远不要背叛玩家。", "character")
    assert store.character_read(CHARACTER)["name"] == "Alserqi"

    pinned_prompt_set(store, instance_id=INSTANCE, character_id=None,
                      text="本局中 Victor 已死。")
    assert effective(store, instance_id=INSTANCE, character_id=CHARACTER) == (
        "本局中 Victor 已死。", "instance")

    pinned_prompt_set(store, instance_id=INSTANCE, character_id=None, text=" ")
    assert effective(store, instance_id=INSTANCE, character_id=CHARACTER)[1] == "character"


def test_pinned_prompt_for_an_unknown_character_is_refused(tmp_path):
    store = make_instance(tmp_path)
    with pytest.raises(MemoryActionError):
        pinned_prompt_set(store, instance_id=None, character_id="char_nobody", text="x")


# --- recaps ------------------------------------------------------------------------


async def test_recaps_roll_every_two_and_stack_every_four(tmp_path):
    store = make_instance(tmp_path, turns=0)
    llm = recap_llm()
    done = await roll_through(store, llm, recap_settings(0), range(1, 9))

    actions = [d and d["action"] for d in done]
    assert actions == [None, "pending", None, "stacked", None, "pending", None, "stacked"]
    items = recap_items(store, instance_id=INSTANCE)
    assert [(i["text"], i["from_turn"], i["to_turn"]) for i in items] == [
        ("回顾1-2\n回顾3-4", 1, 4), ("回顾5-6\n回顾7-8", 5, 8)]
    assert recap_pending(store, instance_id=INSTANCE) == []
    assert len(llm.calls) == 4
    again = await recap_maybe_roll(store, instance_id=INSTANCE, llm=llm,
                                   settings=recap_settings(0))
    assert again is None and len(llm.calls) == 4


async def test_recap_max_entries_one_keeps_only_the_newest(tmp_path):
    store = make_instance(tmp_path, turns=0)
    done = await roll_through(store, recap_llm(), recap_settings(1), range(1, 9))
    assert done[-1]["removed"] == [done[3]["item"]["id"]]
    assert [i["text"] for i in recap_items(store, instance_id=INSTANCE)] == [
        "回顾5-6\n回顾7-8"]


async def test_disabled_recaps_do_nothing(tmp_path):
    store = make_instance(tmp_path, turns=4)
    settings = {**recap_settings(0), "recaps_enabled": False}
    llm = recap_llm()
    assert await recap_maybe_roll(store, instance_id=INSTANCE, llm=llm,
                                  settings=settings) is None
    assert llm.calls == [] and not (tmp_path / "instances" / INSTANCE / "memory").exists()


async def test_recap_llm_failure_is_reported_and_changes_nothing(tmp_path):
    store = make_instance(tmp_path, turns=2)
    before = snapshot(tmp_path)
    result = await recap_maybe_roll(store, instance_id=INSTANCE,
                                    llm=FakeLLM(LLMError("boom")),
                                    settings=recap_settings(0))
    assert result["action"] == "failed" and "boom" in result["message"]
    assert snapshot(tmp_path) == before


async def test_recap_rebuild_recomputes_the_current_session(tmp_path):
    store = make_instance(tmp_path, turns=0)
    await roll_through(store, recap_llm(), recap_settings(0), range(1, 10))
    first_id = recap_items(store, instance_id=INSTANCE)[0]["id"]
    recap_update(store, instance_id=INSTANCE, item_id=first_id, text="手改的提要")

    llm = recap_llm()
    result = await recap_rebuild(store, instance_id=INSTANCE, llm=llm,
                                 settings=recap_settings(0))

    assert result["chunks"] == 4 and len(llm.calls) == 4
    assert [i["text"] for i in recap_items(store, instance_id=INSTANCE)] == [
        "回顾1-2\n回顾3-4", "回顾5-6\n回顾7-8"]


def test_recap_items_can_be_edited_reordered_and_removed(tmp_path):
    store = make_instance(tmp_path, turns=0)
    store.memory_json_write(INSTANCE, "recaps", {"items": [
        {"id": "recap_a", "text": "A", "created_at": "2025-10-16T10:00:00Z"},
        {"id": "recap_b", "text": "B", "created_at": "2025-10-16T10:01:00Z"},
    ], "pending_summaries": []})
    recap_update(store, instance_id=INSTANCE, item_id="recap_a", text="A2")
    recap_reorder(store, instance_id=INSTANCE, item_id="recap_b", new_index=0)
    assert [i["text"] for i in recap_items(store, instance_id=INSTANCE)] == ["B", "A2"]
    recap_remove(store, instance_id=INSTANCE, item_id="recap_b")
    assert [i["id"] for i in recap_items(store, instance_id=INSTANCE)] == ["recap_a"]
    with pytest.raises(MemoryActionError):
        recap_remove(store, instance_id=INSTANCE, item_id="recap_b")


# --- biography ---------------------------------------------------------------------


def test_biography_paragraphs_are_editable_and_reorderable(tmp_path):
    store = make_instance(tmp_path)
    first = biography_add(store, instance_id=INSTANCE, text="出生于北区。")
    second = biography_add(store, instance_id=INSTANCE, text="被 Victor 背叛。")
    third = biography_add(store, instance_id=INSTANCE, text="与玩家结盟。")

    biography_reorder(store, instance_id=INSTANCE, item_id=third["id"], new_index=0)
    biography_update(store, instance_id=INSTANCE, item_id=first["id"],
                     text="生于北区贫民窟。")
    biography_remove(store, instance_id=INSTANCE, item_id=second["id"])

    saved = json.loads((tmp_path / "instances" / INSTANCE / "memory" / "biography.json")
                       .read_text(encoding="utf-8"))
    assert [i["text"] for i in saved["items"]] == ["与玩家结盟。", "生于北区贫民窟。"]
    assert biography_items(store, instance_id=INSTANCE) == saved["items"]
    with pytest.raises(MemoryActionError):
        biography_add(store, instance_id=INSTANCE, text="  ")


def test_biography_from_persona_keeps_each_paragraph(tmp_path):
    store = make_instance(tmp_path, evolved="变得多疑。\n\n开始信任玩家。")
    added = biography_from_persona(store, instance_id=INSTANCE)
    assert [i["text"] for i in added] == ["变得多疑。", "开始信任玩家。"]
    assert all(i["source"] == "persona" for i in added)


def test_damaged_recap_file_reads_empty_but_is_never_overwritten(tmp_path):
    store = make_instance(tmp_path)
    path = tmp_path / "instances" / INSTANCE / "memory" / "recaps.json"
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    assert recap_items(store, instance_id=INSTANCE) == []
    with pytest.raises(MemoryActionError):
        recap_remove(store, instance_id=INSTANCE, item_id="recap_a")
    assert path.read_text(encoding="utf-8") == "{not json"


# --- with the built-in offline provider ------------------------------------------------


async def test_offline_provider_answers_are_usable_by_every_memory_action(tmp_path):
    from personalab.lib.llm_offline import OfflineProvider

    store = make_instance(tmp_path, turns=4)
    llm = OfflineProvider(delay=0)
    summary = await memory_summarize(store, instance_id=INSTANCE, llm=llm,
                                     index=FakeIndex())
    persona = await memory_update_persona(store, instance_id=INSTANCE, llm=llm)
    rebuilt = await recap_rebuild(store, instance_id=INSTANCE, llm=llm,
                                  settings=recap_settings(0))

    assert summary["events"] >= 1 and summary["warnings"] == []
    assert "Alserqi" in persona["evolved_persona"]
    assert rebuilt["chunks"] >= 1


async def test_the_recap_check_after_a_turn_in_a_long_chat_never_stops_other_accounts(
        tmp_path, monkeypatch):
    """Reading a 116k-message chat to find its last turn took 7 s; on the event loop, every
    other account's request and stream on the server stood still meanwhile."""
    store = make_instance(tmp_path, turns=3)
    reading, others_ran = threading.Event(), threading.Event()
    released: list[bool] = []
    real = recaps._current_turns

    def long_read(*args):
        reading.set()
        released.append(others_ran.wait(10))  # held until the loop shows it still runs
        return real(*args)

    monkeypatch.setattr(recaps, "_current_turns", long_read)
    roll = asyncio.create_task(recap_maybe_roll(
        store, instance_id=INSTANCE, llm=recap_llm(), settings=recap_settings(0)))
    while not reading.is_set():  # another account's work on the same loop
        await asyncio.sleep(0.01)
    others_ran.set()
    assert await roll is None  # turn 3 of "every 2": nothing to roll
    assert released == [True]
