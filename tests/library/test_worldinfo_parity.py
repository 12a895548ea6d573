"""SillyTavern world-info features beyond keys, through real turns: the stub server records what
the model received, the trace says why each entry fired or did not."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from chat.groups.round import conversation_turn
from chat.services.instances import instance_create
from library.character_services import character_save
from library.lore import vector_store as lore_vector_store
from library.lore.activation import delay_level, lorebook_match
from library.lore.lorebook import lorebook_validate
from library.personas.services import persona_create
from personalab.lib.embedding import embeddings
from tests.library.lore_turns import lore_fired_dropped, lore_turn_run, lorebook_link
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _sent(stub) -> str:
    return "\n".join(m["content"] for m in stub.requests[-1]["messages"])


# 1. group scoring and weights ------------------------------------------------------------------

async def test_group_scoring_keeps_the_entry_that_matched_more_keys(
        store, instance, character, use_stub):
    await sync_to_async(lorebook_link)(
        store, character,
        {"uid": 1, "keys": ["sword"], "group": "weapon", "content": "PLAIN-SWORD"},
        {"uid": 2, "keys": ["sword", "blade", "silver"], "group": "weapon",
         "content": "SILVER-BLADE"},
        use_group_scoring=True)
    result = await lore_turn_run(store, instance, "I draw my silver sword, the blade gleams")
    assert "SILVER-BLADE" in _sent(use_stub) and "PLAIN-SWORD" not in _sent(use_stub)
    fired, dropped = lore_fired_dropped(store, instance, result)
    assert "scoring: 3 key(s)" in fired[2]
    assert "scoring: 1 key(s) matched, the best matched 3" in dropped[1]


async def test_without_scoring_the_group_picks_by_weight_and_scoring_can_be_per_entry(
        store, instance, character, use_stub):
    await sync_to_async(lorebook_link)(
        store, character,
        {"uid": 1, "keys": ["sword"], "group": "weapon", "group_weight": 0, "content": "NO-WEIGHT"},
        {"uid": 2, "keys": ["sword", "blade"], "group": "weapon", "group_weight": 0,
         "content": "ALSO-NO-WEIGHT"},
        {"uid": 3, "keys": ["sword"], "group": "weapon", "group_weight": 100,
         "content": "HEAVY"},
        {"uid": 4, "keys": ["rain"], "group": "sky", "content": "DRIZZLE"},
        {"uid": 5, "keys": ["rain", "storm"], "group": "sky", "use_group_scoring": True,
         "content": "THUNDER"})
    result = await lore_turn_run(store, instance, "a sword and a blade in the rain and storm")
    sent = _sent(use_stub)
    # Book without scoring: weights decide (0 never wins against 100), key counts do not.
    assert "HEAVY" in sent and "NO-WEIGHT" not in sent
    # Only entry 5 is scored; 4 is not scored, so it stays in the weighted draw against 5.
    fired, _ = lore_fired_dropped(store, instance, result)
    assert "by weight 100 of 100" in fired[3]
    assert ("DRIZZLE" in sent) != ("THUNDER" in sent)


# 2. character filters -------------------------------------------------------------------------

@pytest.fixture
def brenna(store, alice):
    return character_save(store, user=alice, character_id=None, data={
        "name": "Brenna", "base_persona": "A silent mechanic.", "greeting": "...",
        "tags": ["mechanic"], "visibility": "private"})


async def test_character_filters_are_judged_against_the_speaker_of_a_group(
        store, alice, character, brenna, background, use_stub):
    # A chat's own book (a card's book is read only when its character speaks).
    book = await sync_to_async(lorebook_link)(
        store, character,
        {"uid": 1, "keys": ["engine"], "content": "ONLY-FOR-BRENNA",
         "character_filter": {"names": ["Brenna"], "tags": [], "isExclude": False}},
        {"uid": 2, "keys": ["engine"], "content": "NOT-FOR-MECHANICS",
         "character_filter": {"names": [], "tags": ["mechanic"], "isExclude": True}},
        {"uid": 3, "keys": ["engine"], "content": "FOR-EVERYONE"})
    group = await sync_to_async(instance_create)(
        store, owner=alice, character_ids=[character, brenna], background_id=background,
        reply_order="everyone")
    state = await sync_to_async(store.instance_state_read)(group)
    await sync_to_async(store.instance_state_write)(group, {**state, "lorebook_ids": [book]})
    use_stub.script(Reply("Alserqi speaks."), Reply("Brenna nods."))

    async def emit(event):
        pass

    results = await conversation_turn(store, instance_id=group, user_text="the engine broke",
                                      emit=emit)
    alserqi, brenna_prompt = ("\n".join(m["content"] for m in r["messages"])
                              for r in use_stub.requests[-2:])
    assert "ONLY-FOR-BRENNA" not in alserqi and "NOT-FOR-MECHANICS" in alserqi
    assert "ONLY-FOR-BRENNA" in brenna_prompt and "NOT-FOR-MECHANICS" not in brenna_prompt
    assert "FOR-EVERYONE" in alserqi and "FOR-EVERYONE" in brenna_prompt
    _, dropped = lore_fired_dropped(store, group, results[1])
    assert dropped[2].startswith("character filter: not for tags mechanic; the speaker Brenna")


# 3. recursion levels and min activations -------------------------------------------------------

async def test_delay_until_recursion_levels_fire_one_level_after_another(
        store, instance, character, use_stub):
    await sync_to_async(lorebook_link)(
        store, character,
        {"uid": 1, "keys": ["king"], "content": "The king lives in the castle."},
        {"uid": 2, "keys": ["castle"], "delay_until_recursion": 1, "content": "A moat rings it."},
        {"uid": 3, "keys": ["moat"], "delay_until_recursion": 2, "content": "EELS-IN-THE-MOAT"},
        {"uid": 4, "keys": ["king"], "delay_until_recursion": 3, "content": "LEVEL-THREE"},
        recursive=True)
    result = await lore_turn_run(store, instance, "tell me of the king")
    sent = _sent(use_stub)
    assert all(text in sent for text in ("castle.", "A moat", "EELS-IN-THE-MOAT", "LEVEL-THREE"))
    fired, _ = lore_fired_dropped(store, instance, result)
    assert "in entry lore:" in fired[3] and "recursion level 2" in fired[3]
    assert "message -1" in fired[4] and "recursion level 3" in fired[4]


async def test_min_activations_scan_deeper_but_not_past_the_books_max_depth(
        store, instance, character, use_stub):
    await sync_to_async(lorebook_link)(
        store, character,
        {"uid": 1, "keys": ["harbor"], "content": "HARBOR-LORE"},
        {"uid": 2, "keys": ["mine"], "content": "MINE-LORE"},
        {"uid": 3, "keys": ["hello"], "content": "HELLO-LORE"},
        scan_depth=1, min_activations=3, min_activations_depth_max=3)
    use_stub.script(Reply("ok."), Reply("ok."), Reply("ok."))
    await lore_turn_run(store, instance, "the harbor is quiet")
    await lore_turn_run(store, instance, "the mine collapsed")
    result = await lore_turn_run(store, instance, "hello")
    sent = _sent(use_stub)
    # depth 1 finds "hello"; one message deeper "ok."; depth 3 the mine; the harbor is 5 back.
    assert "HELLO-LORE" in sent and "MINE-LORE" in sent and "HARBOR-LORE" not in sent
    fired, _ = lore_fired_dropped(store, instance, result)
    assert "message -3" in fired[2] and "min activations: scanning 2 message(s) deeper" in fired[2]


# 4. outlets --------------------------------------------------------------------------------------

async def test_outlet_entries_are_placed_only_where_an_outlet_macro_asks(
        store, instance, character, use_stub):
    store.memory_json_write(instance, "authors_note", {
        "text": "Weather now: {{outlet::Weather}}.{{outlet::Nothing}}", "depth": 1})
    await sync_to_async(lorebook_link)(
        store, character,
        {"uid": 1, "keys": ["storm"], "position": "outlet", "outlet_name": "Weather",
         "content": "RAIN-FOR-{{user}}"},
        {"uid": 2, "keys": ["storm"], "content": "Sailors fear it. {{outlet::weather}}"})
    await lore_turn_run(store, instance, "a storm comes")
    sent = _sent(use_stub)
    assert "Weather now: RAIN-FOR-User.\n" in sent or sent.endswith("Weather now: RAIN-FOR-User.")
    assert "Sailors fear it. RAIN-FOR-User" in use_stub.requests[-1]["messages"][0]["content"]
    assert "{{outlet" not in _sent(use_stub)
    assert _sent(use_stub).count("RAIN-FOR-User") == 2  # never placed on its own


# 5. additional matching sources -----------------------------------------------------------------

async def test_entries_flagged_to_match_the_persona_or_the_card_fire_on_them(
        store, alice, instance, character, use_stub):
    persona_id = await sync_to_async(persona_create)(
        store, owner=alice, data={"name": "Ann", "description": "Ann is a knight of the rose."})
    state = store.instance_state_read(instance)
    store.instance_state_write(instance, {**state, "persona_id": persona_id})
    await sync_to_async(lorebook_link)(
        store, character,
        {"uid": 1, "keys": ["knight"], "match_persona_description": True, "content": "ORDER-LORE"},
        {"uid": 2, "keys": ["knight"], "content": "UNFLAGGED"},
        {"uid": 3, "keys": ["黑帮"], "match_character_description": True, "content": "GANG-LORE"},
        {"uid": 4, "keys": ["黑帮"], "match_scenario": True, "content": "NO-SCENARIO"})
    result = await lore_turn_run(store, instance, "good morning")
    sent = _sent(use_stub)
    assert "ORDER-LORE" in sent and "GANG-LORE" in sent
    assert "UNFLAGGED" not in sent and "NO-SCENARIO" not in sent
    fired, _ = lore_fired_dropped(store, instance, result)
    assert fired[1] == "key 'knight' in the persona description"
    assert fired[3] == "key '黑帮' in the character description"


# 6. vectorized entries --------------------------------------------------------------------------

async def test_vectorized_entries_fire_on_a_chat_close_to_their_content(
        store, instance, character, use_stub, monkeypatch):
    embedded = []
    real = embeddings.embed_passages

    def counting(texts):
        embedded.extend(texts)
        return real(texts)

    monkeypatch.setattr(embeddings, "embed_passages", counting)
    await sync_to_async(lorebook_link)(
        store, character,
        {"uid": 1, "keys": ["ossakar"], "vectorized": True,
         "content": "The red dragon Ossakar sleeps beneath the northern mountains on a hoard "
                    "of melted crowns; waking him brings fire on the valley."},
        {"uid": 2, "keys": ["kessel"], "vectorized": True,
         "content": "The night train to Kessel leaves at midnight from platform nine; its "
                    "dining car is run by a retired spy."},
        {"uid": 3, "keys": ["wyrm"],
         "content": "An entry that is not vectorized never fires without its key."})
    assert await sync_to_async(lore_vector_store.drain)(120)  # embedded when the book is saved
    first = len(embedded)
    result = await lore_turn_run(store, instance,
                                 "Is it true a beast sleeps on a pile of gold up north?")
    sent = _sent(use_stub)
    assert "red dragon Ossakar" in sent and "night train" not in sent
    assert "never fires without" not in sent
    fired, _ = lore_fired_dropped(store, instance, result)
    assert fired[1].startswith("vectorized: the recent chat is 0.")
    await lore_turn_run(store, instance, "And what about the dragon's gold?")
    assert len(embedded) == first == 2  # entries are embedded once, at save, never by a turn


# SillyTavern files carrying these fields: read, acted on, written back as they came ----------

def test_a_sillytavern_world_file_with_the_new_fields_round_trips_and_is_understood():
    from library.lore.placement import lore_outlets
    from library.lore.st_files import lorebook_file_read, lorebook_to_st_world

    world = {"name": "Parity", "entries": {"0": {
        "uid": 0, "key": ["storm"], "keysecondary": [], "comment": "", "content": "RAIN",
        "constant": False, "selective": True, "order": 100, "position": 7,
        "outletName": "Weather", "disable": False, "delayUntilRecursion": 2,
        "useGroupScoring": True, "matchPersonaDescription": True, "ignoreBudget": True,
        "characterFilter": {"isExclude": True, "names": ["Brenna"], "tags": []},
        "vectorized": False, "addMemo": True, "triggers": []}}}
    book = {**lorebook_validate(lorebook_file_read(world, fallback_name="x")),
            "lorebook_id": "lb_1"}
    entry = book["entries"][0]
    assert entry["position"] == "outlet" and delay_level(entry) == 2
    assert lorebook_to_st_world(book) == world
    book["entries"][0]["delay_until_recursion"] = False
    match = lorebook_match([book], messages=["hi"], count_tokens=len,
                           sources={"persona_description": "a storm chaser"},
                           speaker={"name": "Alserqi", "id": "c1", "tags": []})
    assert lore_outlets(match) == {"weather": "RAIN"}
    assert match.fired[0]["reason"] == ("key 'storm' in the persona description "
                                        "(ignores the budget)")
    judged_by_brenna = lorebook_match([book], messages=["storm"], count_tokens=len,
                                      speaker={"name": "Brenna", "id": "c2", "tags": []})
    assert judged_by_brenna.fired == []
    assert judged_by_brenna.dropped[0]["reason"].startswith("character filter: not for Brenna")


async def test_decorators_activate_or_hold_back_an_entry_and_never_reach_the_model(
        store, instance, character, use_stub):
    await sync_to_async(lorebook_link)(
        store, character,
        {"uid": 1, "keys": ["never-said"], "content": "@@activate\nALWAYS-HERE"},
        {"uid": 2, "keys": ["storm"], "content": "@@dont_activate\nHELD-BACK"},
        {"uid": 3, "keys": ["storm"], "content": "@@unknown_one\nPLAIN-STORM"})
    result = await lore_turn_run(store, instance, "a storm comes")
    sent = _sent(use_stub)
    assert "ALWAYS-HERE" in sent and "PLAIN-STORM" in sent and "HELD-BACK" not in sent
    assert "@@" not in sent
    fired, _ = lore_fired_dropped(store, instance, result)
    assert fired[1] == "decorator @@activate" and 2 not in fired
    # The file keeps the decorators as written.
    book_id = store.character_read(character)["lorebook_ids"][0]
    assert store.lorebook_read(book_id)["entries"][0]["content"] == "@@activate\nALWAYS-HERE"


def test_a_tag_filter_of_sillytavern_tag_ids_is_not_read_backwards():
    """SillyTavern keeps a tag filter as tag ids, whose names only its settings.json holds:
    compared with tag names, "only for fantasy" never fired and "not for fantasy" always did.
    Such a filter is left unapplied, and the trace says why; tag names still filter."""
    def entry(uid: int, tags: list[str], exclude: bool) -> dict:
        return {"uid": uid, "keys": ["kettle"], "content": f"E{uid}",
                "character_filter": {"names": [], "tags": tags, "isExclude": exclude}}

    book = {**lorebook_validate({"name": "Tags", "entries": [
        entry(1, ["1700000000123"], False), entry(2, ["1700000000123"], True),
        entry(3, ["fantasy"], False), entry(4, ["fantasy"], True),
        entry(5, ["5b1c7f2e-8d9a-4c1b-9f3e-2a6d8c4b1e07"], False)]}), "lorebook_id": "lb_t"}
    match = lorebook_match([book], messages=["the kettle whistles"], count_tokens=len,
                           speaker={"name": "Mira", "id": "c1", "tags": ["Fantasy"]})
    fired = {item["content"]: item["reason"] for item in match.fired}
    assert sorted(fired) == ["E1", "E2", "E3", "E5"]
    assert all("SillyTavern tag ids" in fired[name] for name in ("E1", "E2", "E5"))
    assert "SillyTavern tag ids" not in fired["E3"]
    assert match.dropped[0]["reason"].startswith("character filter: not for tags fantasy")
