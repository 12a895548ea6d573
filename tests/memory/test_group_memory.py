"""Memory in conversations with several characters (issue 15 item 5), through real turns with
the stub server: group lines remembered under their speaker's name, each character's recall
and the director's references limited to the conversations it took part in (never another
account's), pinned prompts per character with a convKey override that wins, summaries that
name who spoke."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from django.core.management import call_command

from chat.play import context, turn
from chat.services.instances import instance_create
from library.character_services import character_save
from memory import runtime
from memory.character.pinned import pinned_prompt_effective
from memory.keyword_index.bm25 import turn_text
from memory.keyword_index.live import live_drain
from memory.selectors import reference_instance_ids
from memory.vectors.sync import instance_sync
from tests.group_turns import reply_order_set, turn_said
from tests.memory.memory_turns import window_newest_keep
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def scenes(store, alice, bob, character, brenna, background):
    """Alice: a scene with both, one with Alserqi alone, one with Brenna alone; Bob: his own
    scene with Alserqi. All in the same background."""
    def make(owner, members):
        return instance_create(store, owner=owner, character_ids=members,
                               background_id=background, reply_order="list")
    return {"group": make(alice, [character, brenna]), "alserqi": make(alice, [character]),
            "brenna": make(alice, [brenna]), "bob": make(bob, [character])}


def _run(*args, **kwargs):
    return asyncio.run(turn_said(*args, **kwargs))


def _recall_related(store):
    store.module_write("memory", {"recall_enabled": True, "recall_related_conversations": True})


def _hits(store, instance_id, result):
    return store.trace_read(instance_id, result.trace_id)["retrievals"]["hits"]


def _round_played(store, owner, members, background, use_stub) -> str:
    """A group of `members` answering everyone, after one round of two replies."""
    group = instance_create(store, owner=owner, character_ids=members,
                            background_id=background, reply_order="everyone")
    use_stub.script(Reply("我记得你。"), Reply("义肢是在北方矿坑丢的。"))
    _run(store, group, "你们的伤是怎么来的？")
    runtime.drain()
    return group


def _keyword_writes_only(monkeypatch) -> None:
    """Each reply's keyword write done before the next reply, and no sync: the sync may wait
    behind a fill for minutes, and the keyword store is all recall has of the newest lines."""
    monkeypatch.setattr(runtime, "schedule_sync", lambda *args, **kwargs: None)
    after_turn = context.memory_after_turn

    def followed(*args, **kwargs):
        after_turn(*args, **kwargs)
        live_drain()

    monkeypatch.setattr(context, "memory_after_turn", followed)


def _replies_stored(index) -> list[tuple[str, dict]]:
    """The replies' documents in Chroma as recall reads them (speakers named), with metadata."""
    stored = index.collection("turns").get(where={"role": "assistant"},
                                           include=["documents", "metadatas"])
    return [(turn_text(text, meta), meta)
            for text, meta in zip(stored["documents"], stored["metadatas"], strict=True)]


def test_a_group_reply_is_remembered_under_its_speakers_name(store, alice, character,
                                                                   brenna, background,
                                                                   memory_on, use_stub):
    """A round is one turn: its replies are one document of the round, each reply after its
    speaker's name (as a group's greetings are)."""
    group = _round_played(store, alice, [character, brenna], background, use_stub)
    said = [text for text, _ in _replies_stored(runtime.index_for(store))]
    assert any("Alserqi: 我记得你。\nBrenna: 义肢是在北方矿坑丢的。" in text for text in said)

    reply_order_set(store, group, "list")
    window_newest_keep(store, 1)
    use_stub.script(Reply("她说过，在矿坑。"))
    result = (_run(store, group, "你还记得矿坑的事吗？", speaker=character))[0]
    hits = _hits(store, group, result)
    mine = [hit for hit in hits if "矿坑丢的" in hit["text"]]
    assert mine and "Brenna: 义肢" in mine[0]["text"]  # the name, not the id mech_7
    assert "Brenna" in json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)


def test_a_round_is_remembered_whole_when_memory_follows_each_reply(
        store, alice, character, brenna, background, memory_on, use_stub, monkeypatch):
    """With a real model memory follows a reply before the round's next one is written: the
    next reply of the round went in as the round's document alone, and the first member's
    reply was forgotten (red team, eleventh pass)."""
    after_turn = context.memory_after_turn

    def followed(*args, **kwargs):  # each reply's keyword write and sync done before the next
        after_turn(*args, **kwargs)
        runtime.drain()

    monkeypatch.setattr(context, "memory_after_turn", followed)
    group = _round_played(store, alice, [character, brenna], background, use_stub)

    index = runtime.index_for(store)
    round_id = f"turn_{store.instance_state_read(group)['current_session_id']}_1_assistant"
    said = [text for text, meta in _replies_stored(index) if meta["turn"] == 1]
    assert said == ["Alserqi: 我记得你。\nBrenna: 义肢是在北方矿坑丢的。"]
    keywords = index.keywords.documents(group, "turns", [round_id])
    assert keywords[round_id][0] == said[0]


def test_a_rounds_next_reply_is_keyword_searchable_with_the_round_before_the_sync(
        store, alice, character, brenna, background, memory_on, use_stub, monkeypatch):
    """The sync may wait behind a fill for minutes; meanwhile the keyword store holds what each
    reply's own write gave it, which was the round's last reply alone."""
    _keyword_writes_only(monkeypatch)
    group = _round_played(store, alice, [character, brenna], background, use_stub)

    round_id = f"turn_{store.instance_state_read(group)['current_session_id']}_1_assistant"
    held = runtime.index_for(store).keywords.documents(group, "turns", [round_id])
    assert held[round_id][0] == "Alserqi: 我记得你。\nBrenna: 义肢是在北方矿坑丢的。"


def test_a_round_s_document_holds_every_reply_though_memory_caught_up_between_them(
        store, alice, character, brenna, background, memory_on, use_stub, monkeypatch):
    """A round is one document, written per reply: the second member's reply wrote it as its
    own words alone (the keyword store at once, and the sync reading on from the first's), and
    the first member's words were no longer recalled. Round 1: the sync held back while the
    second reply's keyword write runs. Round 2: that write reads the document before the
    second reply's sync writes it and deletes it after (Chroma lost the round)."""
    group = instance_create(store, owner=alice, character_ids=[character, brenna],
                            background_id=background, reply_order="everyone")
    index = runtime.index_for(store)
    reply_locked, held, replies, synced = turn.turn_locked, {}, [], threading.Event()
    words_read, sync = index.keywords.documents, runtime.instance_sync

    def words_read_before_the_sync(*args, **kwargs):
        found = words_read(*args, **kwargs)
        if held.get("late") and threading.current_thread().name == "memory-live":
            synced.wait(30)
        return found

    def sync_told(*args, **kwargs):
        try:
            return sync(*args, **kwargs)
        finally:
            if held.get("late"):
                synced.set()

    async def caught_up_between(*args, **kwargs):
        if kwargs.get("in_round") and not replies[1:]:
            release = threading.Event()
            runtime.schedule(release.wait, 30)  # round 1: the sync waits
            held["release"] = release
        held["late"] = bool(kwargs.get("in_round") and replies[1:])
        result = await reply_locked(*args, **kwargs)
        replies.append(result)
        if "release" in held:
            await asyncio.to_thread(runtime.live_drain)
            held["words"] = words_read(group, "turns", ["turn_sess_001_1_assistant"])
            held.pop("release").set()
        await asyncio.to_thread(runtime.drain)
        return result

    monkeypatch.setattr(index.keywords, "documents", words_read_before_the_sync)
    monkeypatch.setattr(runtime, "instance_sync", sync_told)
    monkeypatch.setattr(turn, "turn_locked", caught_up_between)
    use_stub.script(Reply("我记得你。"), Reply("义肢是在北方矿坑丢的。"),
                    Reply("走吧。"), Reply("往北。"))
    _run(store, group, "你们的伤是怎么来的？")
    joined = "Alserqi: 我记得你。\nBrenna: 义肢是在北方矿坑丢的。"
    assert turn_text(*held["words"]["turn_sess_001_1_assistant"]) == joined
    _run(store, group, "那就出发。")
    said = sorted(text for text, _ in _replies_stored(index))
    assert said == sorted([joined, "Alserqi: 走吧。\nBrenna: 往北。"])


def test_each_character_recalls_only_the_conversations_it_took_part_in(
        store, scenes, character, brenna, memory_on, use_stub):
    use_stub.script(Reply("记下了。"))
    _run(store, scenes["alserqi"], "金库密码是 4711，只告诉你。")
    use_stub.script(Reply("记下了。"))
    _run(store, scenes["brenna"], "暗号是蓝鸦，只告诉你。")
    use_stub.script(Reply("记下了。"))
    _run(store, scenes["bob"], "金库密码是 9999，只告诉你。")
    runtime.drain()
    _recall_related(store)

    use_stub.script(Reply("……"))
    brennas = (_run(store, scenes["group"], "你还记得金库密码和暗号吗？",
                          speaker=brenna))[0]
    seen = json.dumps(_hits(store, scenes["group"], brennas), ensure_ascii=False)
    prompt = json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)
    assert "蓝鸦" in seen and "4711" not in seen and "4711" not in prompt
    assert "9999" not in seen and "9999" not in prompt
    runtime.drain()

    use_stub.script(Reply("……"))
    alserqis = (_run(store, scenes["group"], "你还记得金库密码和暗号吗？",
                           speaker=character))[0]
    retrievals = store.trace_read(scenes["group"], alserqis.trace_id)["retrievals"]
    assert not retrievals.get("warning")
    seen = json.dumps(retrievals["hits"], ensure_ascii=False)
    assert "4711" in seen and "蓝鸦" not in seen and "9999" not in seen


def test_recall_stays_in_this_conversation_unless_the_setting_is_on(
        store, scenes, brenna, memory_on, use_stub):
    use_stub.script(Reply("记下了。"))
    _run(store, scenes["brenna"], "暗号是蓝鸦，只告诉你。")
    runtime.drain()
    use_stub.script(Reply("……"))
    result = (_run(store, scenes["group"], "你还记得暗号吗？", speaker=brenna))[0]
    assert "蓝鸦" not in json.dumps(_hits(store, scenes["group"], result), ensure_ascii=False)


def test_the_directors_references_are_the_speakers_own_conversations(store, scenes, character,
                                                                    brenna):
    group_state = store.instance_state_read(scenes["group"])
    as_brenna = reference_instance_ids(store, instance_id=scenes["group"],
                                       instance_state=group_state, character_id=brenna)
    as_alserqi = reference_instance_ids(store, instance_id=scenes["group"],
                                        instance_state=group_state, character_id=character)
    assert as_brenna == [scenes["brenna"]]
    assert sorted(as_alserqi) == [scenes["alserqi"]]
    solo_state = store.instance_state_read(scenes["brenna"])
    assert reference_instance_ids(store, instance_id=scenes["brenna"],
                                  instance_state=solo_state) == [scenes["group"]]


def _summary_remembered(store, instance_id, text):
    state = store.instance_state_read(instance_id)
    owner = {"instance_id": instance_id, "character_id": state["character_id"],
             "background_id": state["background_id"], "session_id": "sess_001", "index": 0}
    store.ledger_append(instance_id, "summaries", [
        {"id": "summary_sess_001_0", "text": text, "related_plot_id": "plot_sess_001_0", **owner}])


def _stalled(store, instance_id):
    state = store.instance_state_read(instance_id)
    state["plot_state"] = {"current_plot_index": 3, "current_status": "in_progress",
                           "no_update_count": 5}
    store.instance_state_write(instance_id, state)


def test_a_stalled_story_cites_only_what_the_speaker_witnessed(store, scenes, brenna,
                                                                     memory_on, use_stub):
    """The group's first member is Alserqi, so its documents say character Alserqi; Brenna's
    references still come from her own scene and never from Alserqi's."""
    _summary_remembered(store, scenes["alserqi"], "与仇人对峙前，Alserqi 把刀藏在了靴子里")
    _summary_remembered(store, scenes["brenna"], "与仇人对峙前，Brenna 修好了信号枪")
    call_command("reindex", "--memory")
    _stalled(store, scenes["group"])
    use_stub.script(Reply("走吧。"))
    result = (_run(store, scenes["group"], "我们接下来去哪里对峙仇人？", speaker=brenna))[0]
    director = json.dumps(store.trace_read(scenes["group"], result.trace_id)["director_context"],
                          ensure_ascii=False)
    assert "信号枪" in director and "靴子" not in director


def test_a_convkey_override_wins_for_its_member_only(alice_client, store, scenes,
                                                           character, brenna, use_stub):
    url = f"/api/v1/instances/{scenes['group']}/pinned"
    as_json = {"content_type": "application/json"}
    alice_client.put(url, {"text": "Alserqi 发誓保护玩家。"}, **as_json)
    saved = alice_client.put(url, {"text": "Brenna 今天只说暗语。", "character_id": brenna},
                             **as_json).json()
    members = {m["character_id"]: m for m in saved["members"]}
    assert members[brenna]["source"] == "conv_key"
    assert members[brenna]["text"] == "Brenna 今天只说暗语。"
    assert members[character]["source"] == "instance"
    assert saved["conv_key"] == "|".join(sorted([character, brenna, "player:alice"]))

    refused = alice_client.put(url, {"text": "x", "character_id": "nobody_here"}, **as_json)
    assert refused.status_code == 400 and "character_id" in refused.json()["error"]["fields"]

    reply_order_set(store, scenes["group"], "everyone")
    use_stub.script(Reply("好。"), Reply("……"))
    _run(store, scenes["group"], "出发吧。")
    first, second = (json.dumps(r["messages"], ensure_ascii=False)
                     for r in use_stub.requests[-2:])
    assert "Alserqi 发誓保护玩家" in first and "只说暗语" not in first
    assert "只说暗语" in second and "发誓保护玩家" not in second

    # The override belongs to this set of participants: Brenna alone gets her own again.
    use_stub.script(Reply("……"))
    _run(store, scenes["brenna"], "在吗？")
    assert "只说暗语" not in json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)


def test_a_group_summary_names_each_speaker(alice_client, store, scenes, brenna,
                                                  memory_on, use_stub):
    reply_order_set(store, scenes["group"], "everyone")
    use_stub.script(Reply("我去找车。"), Reply("我修引擎。"))
    _run(store, scenes["group"], "分头行动。")
    use_stub.script(Reply(json.dumps({"events": [{"summary": "两人分头准备出发",
                                                  "plot": "Alserqi 去找车，Brenna 修引擎。"}]},
                                     ensure_ascii=False)))
    response = alice_client.post(f"/api/v1/instances/{scenes['group']}/summarize")
    assert response.status_code == 200, response.content
    transcript = use_stub.requests[-1]["messages"][-1]["content"]
    assert "Alserqi: 我去找车。" in transcript and "Brenna: 我修引擎。" in transcript
    records = store.ledger_read(scenes["group"], "summaries")
    assert records[-1]["speakers"] == "|".join(sorted([brenna, records[-1]["character_id"]]))


def test_the_persona_page_sets_a_members_override_for_this_set_of_characters(
        alice_client, store, scenes, brenna):
    url = f"/instances/{scenes['group']}/persona/"
    page = alice_client.get(url).content.decode()
    assert page.count('data-testid="pinned-member"') == 2
    saved = alice_client.post(f"{url}pinned_member_save",
                              {"character_id": brenna, "text": "只说暗语。"})
    assert saved.status_code == 302
    text, source = pinned_prompt_effective(
        store, instance_id=scenes["group"], character_id=brenna)
    assert (text, source) == ("只说暗语。", "conv_key")
    assert "只说暗语。" in alice_client.get(url).content.decode()
    refused = alice_client.post(f"{url}pinned_member_save", {"character_id": "nobody",
                                                              "text": "x"}, HTTP_HX_REQUEST="true")
    assert refused.status_code == 400
    assert alice_client.get(f"/instances/{scenes['alserqi']}/persona/").content.decode().count(
        'data-testid="pinned-member"') == 0


def test_every_members_greeting_is_remembered_and_the_index_keeps_up(store, alice, character,
                                                                      background, memory_on,
                                                                      use_stub):
    """A group's first messages all stand at turn 0 as the assistant: one document id each
    would be the same id twice, which Chroma refuses, and the group's memory stopped there."""
    mara = character_save(store, user=alice, character_id=None, data={
        "name": "Mara", "base_persona": "机械师。", "greeting": "义肢在北方矿坑丢的。",
        "visibility": "private"})
    ivo = character_save(store, user=alice, character_id=None, data={
        "name": "Ivo", "base_persona": "跑腿的少年。", "greeting": "我替你看着金库，暗号是蓝鸦。",
        "visibility": "private"})
    group = instance_create(store, owner=alice, character_ids=[character, mara, ivo],
                            background_id=background, reply_order="list")
    use_stub.script(Reply("我记得你。"))
    _run(store, group, "你们好。")
    runtime.drain()

    index = runtime.index_for(store)
    assert instance_sync(store, index, instance_id=group)["failed"] == 0
    stored = [text for text, _meta in index.documents_stored(
        "turns", where={"instance_id": group}).values()]
    assert any("矿坑丢的" in text for text in stored)
    assert any("蓝鸦" in text for text in stored)
    assert "我记得你。" in stored and "你们好。" in stored
    window_newest_keep(store, 1)
    use_stub.script(Reply("蓝鸦。"))
    result = _run(store, group, "金库的暗号是什么？", speaker=ivo)[0]
    assert any("蓝鸦" in hit["text"] for hit in _hits(store, group, result))


def test_a_rounds_earlier_replies_are_not_recalled_beside_the_conversation_that_shows_them(
        store, alice, character, brenna, background, memory_on, use_stub, monkeypatch):
    """Before the sync embeds a round, its document is the keyword store's, which kept no
    `joined`: the round's third member recalled the two replies before its own, which its
    conversation already shows, as its own words ("- Cato: Alserqi: …\nBrenna: …", the
    SillyTavern side-by-side run of 2026-12-04)."""
    _keyword_writes_only(monkeypatch)
    cato = character_save(store, user=alice, character_id=None, data={
        "name": "Cato", "base_persona": "Runs a night market stall.", "visibility": "private"})
    group = instance_create(store, owner=alice, character_ids=[character, brenna, cato],
                            background_id=background, reply_order="everyone")
    use_stub.script(Reply("I lost the brass lantern by the northern mine."),
                    Reply("The brass lantern is at the mine."), Reply("Ask the miners."))
    replies = _run(store, group, "Where did you lose the brass lantern?")
    third = store.trace_read(group, replies[2].trace_id)["retrievals"]
    assert not any("northern mine" in line["text"] for passage in third.get("passages") or []
                   for line in passage["lines"])
    assert sum("northern mine" in str(m["content"])
               for m in use_stub.requests[-1]["messages"]) == 1

    round_id = f"turn_{store.instance_state_read(group)['current_session_id']}_1_assistant"
    hits = runtime.index_for(store).hits_get("turns", group, [round_id])
    assert hits[0].metadata.get("joined") and hits[0].metadata.get("timestamp")
