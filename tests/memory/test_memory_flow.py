"""Memory inside the app: recall in real turns, summarize, update memory, reindex, Chroma down."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from chat.models import ApiToken
from memory import runtime
from tests.memory.memory_turns import memory_turn_run, window_newest_keep
from tests.memory.recall_chats import chat_turns_seed
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

PROMISE_USER = "答应我，不管发生什么，你都不要冲动去送死。"
PROMISE_REPLY = "……好，我答应你。我不会冲动送死。"
SMALL_TALK = [("外面的风沙越来越大了。", "风沙能掩护我们的脚步。"),
              ("我们还剩多少水？", "两壶，省着点喝。"),
              ("巡逻队刚刚过去了。", "记住换岗的时间。"),
              ("你的伤口还好吗？", "死不了。"),
              ("前面的围墙有个缺口。", "先看看有没有陷阱。")]


def _seed_long_chat(store, instance_id, turns=30, promise_at=12):
    window_newest_keep(store, 10)
    chat_turns_seed(store, instance_id, [
        (PROMISE_USER, PROMISE_REPLY) if turn == promise_at else SMALL_TALK[turn % len(SMALL_TALK)]
        for turn in range(1, turns + 1)])


def test_do_you_remember_our_promise_brings_back_the_promise(store, instance, memory_on,
                                                             use_stub):
    _seed_long_chat(store, instance)
    result, _ = asyncio.run(memory_turn_run(store, instance, "你还记得我们之前的约定吗？"))
    trace = store.trace_read(instance, result.trace_id)
    assert trace["retrievals"]["mode"] == "shallow"
    recalled = [hit["text"] for hit in trace["retrievals"]["hits"][:5]]
    assert any("不会冲动送死" in text or "不要冲动去送死" in text for text in recalled)
    system = use_stub.requests[-1]["messages"][0]["content"]
    assert "历史事件回忆" in system and "冲动" in system.split("历史事件回忆")[1]


def test_a_recalled_line_is_stored_twice_in_its_trace_not_four_times(store, instance, memory_on,
                                                                     use_stub):
    _seed_long_chat(store, instance)
    result, _ = asyncio.run(memory_turn_run(store, instance, "你还记得我们之前的约定吗？"))
    stored = store.trace_path(instance, result.trace_id).read_text(encoding="utf-8")
    assert json.dumps(PROMISE_REPLY, ensure_ascii=False) in stored
    # once in the passage, once in the recalled section (not in the hit, nor the system message)
    assert stored.count(json.dumps(PROMISE_REPLY, ensure_ascii=False)[1:-1]) == 2
    trace = store.trace_read(instance, result.trace_id)
    assert PROMISE_REPLY in [hit["text"] for hit in trace["retrievals"]["hits"]]
    assert trace["messages"][0]["content"] == use_stub.requests[-1]["messages"][0]["content"]


def test_a_plain_statement_recalls_little(store, instance, memory_on, use_stub):
    """Without a trigger word a statement that names nothing said before brings at most two
    lines (issue 30: small talk adds a median of 2 or fewer). Not none: a line scoring 0.8 of
    the best passes on its score alone (recall_floor.FLOOR), and in a 12-line chat the promise
    scores 0.80 of the best on one machine and 0.79 on another."""
    _seed_long_chat(store, instance, turns=6, promise_at=2)
    result, _ = asyncio.run(memory_turn_run(store, instance, "我们往北走吧"))
    assert len(store.trace_read(instance, result.trace_id)["retrievals"]["hits"]) <= 2


def test_small_talk_that_names_nothing_has_no_recall_section(store, instance, memory_on,
                                                              use_stub):
    _seed_long_chat(store, instance, turns=6, promise_at=2)
    asyncio.run(memory_turn_run(store, instance, "好的，走吧。"))
    assert "历史事件回忆" not in use_stub.requests[-1]["messages"][0]["content"]


def test_finished_turns_are_indexed_for_recall(store, instance, memory_on, use_stub):
    use_stub.script(Reply("我把钥匙藏在了旧水塔下面。"))
    asyncio.run(memory_turn_run(store, instance, "钥匙你放哪了？"))
    runtime.drain()
    index = runtime.index_for(store)
    hits = index.search("turns", "钥匙 旧水塔", where={"instance_id": instance}, n_results=5)
    assert any("旧水塔" in hit.text for hit in hits)


def test_chroma_down_warns_and_the_turn_completes(store, instance, memory_on, use_stub,
                                                  monkeypatch):
    def broken(store):
        raise RuntimeError("chroma is gone")

    monkeypatch.setattr(runtime, "index_for", broken)
    result, events = asyncio.run(memory_turn_run(store, instance, "你还记得吗？"))
    assert result.answer_text == "stub reply"
    assert any(e.get("category") == "recall_unavailable" for e in events)


def test_summarize_starts_a_new_session_seeded_as_the_seed_shows(client, alice, store,
                                                                 instance, memory_on):
    _seed_long_chat(store, instance, turns=8, promise_at=3)
    before = store.session_path(instance, "sess_001").read_bytes()
    token = ApiToken.issue(alice)
    response = client.post(f"/api/v1/instances/{instance}/summarize",
                           HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["old_session_id"] == "sess_001" and body["new_session_id"] == "sess_002"
    read = store.session_read(instance, "sess_002")
    assert read.metadata["continued_from"] == "sess_001"
    assert read.lines[0]["type"] == "summary"
    assert [m["turn"] for m in read.messages][-1] == 5  # last 5 turns, renumbered from 1
    assert store.instance_state_read(instance)["current_session_id"] == "sess_002"
    assert store.session_path(instance, "sess_001").read_bytes() == before
    index = runtime.index_for(store)
    hits = index.search("summaries", "约定", where={"instance_id": instance}, n_results=3)
    assert hits and hits[0].id.startswith("summary_sess_001_")
    assert hits[0].metadata["related_plot_id"].startswith("plot_sess_001_")


def test_a_summary_with_recall_off_is_indexed_once_recall_is_on(client, alice, store, instance):
    """Recall off embeds nothing, a summary's events as a turn's lines: the ledger keeps them,
    and the sync that follows recall turned on indexes them."""
    with store.instance_lock(instance):
        for turn, (user, reply) in enumerate(SMALL_TALK, start=1):
            for role, text in (("user", user), ("assistant", reply)):
                store.session_append(instance, "sess_001", {"role": role, "content": text,
                                                            "turn": turn})
    token = ApiToken.issue(alice)
    response = client.post(f"/api/v1/instances/{instance}/summarize",
                           HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200, response.content
    events = response.json()["events"]
    assert events >= 1 and len(store.ledger_read(instance, "summaries")) == events
    index = runtime.index_for(store)
    assert index.count("summaries") == 0 and index.count("plots") == 0
    store.module_write("memory", {"recall_enabled": True})
    runtime.schedule_sync(store, instance_id=instance)
    runtime.drain()
    assert index.count("summaries") == events and index.count("plots") == events
    runtime.forget_indexes()


def test_unusable_llm_output_leaves_everything_as_it_was(client, alice, store, instance,
                                                         use_stub):
    with store.instance_lock(instance):
        store.session_append(instance, "sess_001", {"role": "user", "content": "hi", "turn": 1})
    snapshot = {p: p.read_bytes() for p in store.instance_dir(instance).rglob("*")
                if p.is_file() and p.name != ".lock"}
    use_stub.script(Reply("I'd rather not summarize."))
    token = ApiToken.issue(alice)
    response = client.post(f"/api/v1/instances/{instance}/summarize",
                           HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 422
    after = {p: p.read_bytes() for p in store.instance_dir(instance).rglob("*")
             if p.is_file() and p.name != ".lock"}
    assert after == snapshot


def test_update_memory_changes_what_the_next_prompt_says(client, alice, store, instance,
                                                         use_stub):
    with store.instance_lock(instance):
        store.session_append(instance, "sess_001", {"role": "user", "content": "hi", "turn": 1})
    use_stub.script(Reply("他开始信任玩家，但仍然警惕。"))
    token = ApiToken.issue(alice)
    response = client.post(f"/api/v1/instances/{instance}/update_memory",
                           HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200
    assert store.character_state_read(instance)["evolved_persona"] == "他开始信任玩家，但仍然警惕。"
    asyncio.run(memory_turn_run(store, instance, "继续"))
    assert "他开始信任玩家" in use_stub.requests[-1]["messages"][0]["content"]


def test_reindex_memory_restores_chroma_from_the_ledgers(store, instance, memory_on):
    _seed_long_chat(store, instance, turns=4, promise_at=2)
    store.ledger_append(instance, "summaries", [{
        "id": "summary_sess_001_0", "session_id": "sess_001", "index": 0,
        "text": "玩家让Alserqi承诺不冲动送死", "related_plot_id": "plot_sess_001_0",
        "instance_id": instance, "character_id": "char_alserqi", "background_id": "bg_x"}])
    store.ledger_append(instance, "plots", [{
        "id": "plot_sess_001_0", "session_id": "sess_001", "index": 0,
        "text": "第12轮，玩家要求Alserqi承诺不会冲动送死，他答应了。",
        "related_summary_id": "summary_sess_001_0", "instance_id": instance,
        "character_id": "char_alserqi", "background_id": "bg_x"}])
    index = runtime.index_for(store)
    index.reset()
    assert index.count("summaries") == 0
    call_command("reindex", "--memory")
    assert index.count("summaries") == 1 and index.count("plots") == 1
    assert index.count("turns") == 8


def test_reindex_memory_rebuilds_an_embedded_store_that_cannot_be_read(store, instance,
                                                                       memory_on):
    """A corrupt chroma.sqlite3 left every turn without recall, and `reindex --memory` failed
    on it the same way: the store is moved aside, kept, and built anew from the files."""
    for turn, role in ((1, "user"), (1, "assistant"), (2, "user"), (2, "assistant")):
        store.session_append(instance, "sess_001", {"role": role, "content": f"{role} {turn}",
                                                    "turn": turn, "timestamp": "t"})
    chroma = Path(store.chroma_dir)  # not opened yet by this process, as after a restart
    chroma.mkdir(parents=True, exist_ok=True)
    (chroma / "chroma.sqlite3").write_bytes(b"not a database " * 1000)
    said = io.StringIO()
    call_command("reindex", "--memory", stdout=said)
    assert "could not be opened" in said.getvalue()
    assert runtime.index_for(store).count("turns") == 4
    [aside] = chroma.parent.glob(f"{chroma.name}.unreadable-*")
    assert (aside / "chroma.sqlite3").read_bytes().startswith(b"not a database")
