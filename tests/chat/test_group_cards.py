"""A group's generation mode, as SillyTavern's group-chats.js getGroupCharacterCards /
getGroupDepthPrompts build it (1.12.6): swap sends the speaker's card only; the join modes send
every member's description, personality, scenario and example messages, each member's part
wrapped in the join prefix / suffix with <FIELDNAME> and {{char}} filled in for that member.
Pure joins, then real group turns against the stub (what the model got, the trace), the REST
and drawer settings, and the reply-order labels an ST user reads."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from chat.groups.cards import CardJoin, MemberCard, cards_joined, depth_prompts_joined
from chat.groups.round import conversation_turn
from chat.services.instances import instance_create
from personalab.lib.macros import PICK_SEED
from tests.chat.mira_cards import DEPTH_NOTE, NOTE_CARD
from tests.library.lore_turns import lorebook_link
from tests.text_turns import card_import, english

pytestmark = pytest.mark.django_db(transaction=True)


def _card(character_id, name, *, muted=False, note=True, **fields):
    return MemberCard(character_id=character_id, name=name, muted=muted, fields={
        "description": "", "personality": "", "scenario": "", "mes_example": "", **fields},
        depth_prompt={"name": "depth_prompt", "content": DEPTH_NOTE["prompt"],
                      "position": "depth", "depth": 2, "role": "system",
                      "priority": 900} if note else None)


MIRA = _card("mira", "Mira", description="{{char}} is a medic.", personality="Calm.",
             mes_example="<START>\n{{char}}: Hold still.")
ROOK = _card("rook", "Rook", description="  {{char}} runs the docks. ", scenario="Dusk.")
SABLE = _card("sable", "Sable", muted=True, description="{{char}} keeps quiet.")


def _join(mode, *, speaker="mira", prefix="", suffix="", separator="\n", left_out=()):
    return CardJoin(mode=mode, prefix=prefix, suffix=suffix, speaker_id=speaker,
                    cards=(MIRA, ROOK, SABLE), separator=separator, left_out=left_out)


def test_append_joins_each_unmuted_members_fields_in_list_order_with_its_own_name():
    joined = cards_joined(_join("append", prefix="[<fieldname> of {{char}}]", suffix="[end]"))
    assert joined["description"] == ("[Description of Mira]\nMira is a medic.\n[end]\n"
                                     "[Description of Rook]\nRook runs the docks.\n[end]")
    # an empty field sends no part, prefix and suffix neither
    assert joined["personality"] == "[Personality of Mira]\nCalm.\n[end]"
    assert joined["scenario"] == "[Scenario of Rook]\nDusk.\n[end]"
    assert joined["mes_example"] == "[Example Messages of Mira]\n<START>\nMira: Hold still.\n[end]"


def test_without_a_prefix_the_parts_are_joined_by_one_newline_and_no_wrap_means_no_newline():
    assert cards_joined(_join("append"))["description"] == (
        "Mira is a medic.\nRook runs the docks.")
    assert cards_joined(_join("append", prefix="<", separator=""))["description"] == (
        "<Mira is a medic.\n<Rook runs the docks.")


def test_the_storys_scenario_override_is_the_joined_scenario_whole():
    """getGroupCharacterCards: `chat_metadata.scenario` (trimmed) wins over the members'
    joined scenarios, with no prefix / suffix around it; the other fields join as before."""
    join = dataclasses.replace(_join("append", prefix="[<fieldname> of {{char}}]"),
                               scenario_override="A storm shuts the harbour.")
    joined = cards_joined(join)
    assert joined["scenario"] == "A storm shuts the harbour."
    assert joined["description"].startswith("[Description of Mira]\n")


def test_muted_members_join_only_in_append_muted_or_when_they_speak():
    assert "Sable" not in cards_joined(_join("append"))["description"]
    assert "Sable keeps quiet." in cards_joined(_join("append_muted"))["description"]
    assert "Sable keeps quiet." in cards_joined(_join("append", speaker="sable"))["description"]


def test_a_members_pick_is_the_chats_and_chooses_as_sillytavern():
    # SillyTavern fills each member's field whole (customBaseChatReplace): its {{pick}} is
    # seeded by the chat and that field (its Node gave Alba in chat 1234, Brig in 98765);
    # until 2026-12-03 it was drawn here without the chat, alike in every chat.
    rook = dataclasses.replace(ROOK, fields={**ROOK.fields, "description": (
        "{{user}} hires {{char}}, who sails the "
        "{{pick::Alba::Brig::Coracle::Dhow::Ebb::Felucca::Galley::Hulk}}.")})
    picked = [cards_joined(dataclasses.replace(
        _join("append"), cards=(rook,), values=(("user", "Ann"), (PICK_SEED, chat))))
        ["description"] for chat in ("1234", "98765")]
    assert picked == ["Ann hires Rook, who sails the Alba.", "Ann hires Rook, who sails the Brig."]


def test_every_members_note_is_woven_but_a_muted_ones_only_when_it_speaks():
    """getGroupDepthPrompts skips a muted member other than the speaker in either join mode."""
    for mode in ("append", "append_muted"):
        blocks = depth_prompts_joined(_join(mode))
        assert [(b["name"], b["content"]) for b in blocks] == [
            ("depth_prompt", "Mira whispers."), ("depth_prompt:Rook", "Rook whispers.")]
    assert "Sable whispers." in [b["content"] for b in
                                 depth_prompts_joined(_join("append", speaker="sable"))]
    assert [b["content"] for b in depth_prompts_joined(_join("append", left_out=("rook",)))] == [
        "Mira whispers."]


# --- real turns -------------------------------------------------------------------------------

@pytest.fixture
def scene(store, alice):
    english(store)
    mira = card_import(store, NOTE_CARD)
    rook = card_import(store, NOTE_CARD, name="Rook", description="{{char}} runs the docks.",
                       personality="", mes_example="<START>\n{{char}}: Ropes, now.")
    instance_id = instance_create(store, owner=alice, character_ids=[mira, rook],
                                  reply_order="everyone")
    return instance_id, mira, rook


async def _ignore(event):
    pass


def _mira_answers(store, instance_id, mira):
    return asyncio.run(conversation_turn(store, instance_id=instance_id, user_text="Hello.",
                                         emit=_ignore, speaker=mira))


def _set(store, instance_id, **values):
    state = store.instance_state_read(instance_id)
    store.instance_state_write(instance_id, {**state, **values})


def test_swap_sends_the_speakers_card_only_as_before(store, scene, use_stub):
    instance_id, mira, _ = scene
    results = _mira_answers(store, instance_id, mira)
    sent = str(use_stub.requests[-1]["messages"])
    assert "Mira is a field medic." in sent and "Ropes, now." not in sent
    assert "Rook whispers." not in sent
    assert "card_join" not in store.trace_read(instance_id, results[0].trace_id)


def test_append_sends_every_members_card_and_notes_in_the_speakers_prompt(store, scene,
                                                                          use_stub):
    instance_id, mira, _ = scene
    _set(store, instance_id, generation_mode="append",
         generation_mode_join_prefix="### {{char}}'s <FIELDNAME>")
    results = _mira_answers(store, instance_id, mira)
    messages = use_stub.requests[-1]["messages"]
    system = messages[0]["content"]
    assert ("### Mira's Description\nMira is a field medic.\n"
            "### Rook's Description\nRook runs the docks.") in system
    # the personality is the speaker's wording of the joined text (only Mira has one)
    assert "[Mira's personality: ### Mira's Personality\nCalm.]" in system
    sent = str(messages)
    # both members' examples are joined; in Mira's Chat Completion prompt a block with only
    # Rook's line sends no message (SillyTavern's parseExampleIntoIndividual knows only
    # {{user}} and {{char}}), the prefix before it stays in Mira's block
    assert {"role": "system", "content": "Mira: Hold still.\n### Rook's Example Messages",
            "name": "example_assistant"} in messages
    assert "Mira whispers." in sent and "Rook whispers." in sent  # both notes
    # the members block names Rook without repeating the description the card holds
    assert "\n- Rook\n" in system and system.count("Rook runs the docks.") == 1
    trace = store.trace_read(instance_id, results[0].trace_id)
    assert trace["card_join"] == {"generation_mode": "append", "members": ["Mira", "Rook"],
                                  "left_out": []}
    base = next(s for s in trace["sections"] if s["name"] == "base_persona")
    assert "Rook runs the docks." in base["text"]  # the inspector shows it as sent


def test_a_joined_prompt_reads_the_storys_scenario_override_not_the_members(store, alice,
                                                                            use_stub):
    english(store)
    mira = card_import(store, NOTE_CARD, scenario="Mira waits in the clinic.")
    rook = card_import(store, NOTE_CARD, name="Rook", scenario="{{char}} waits at the docks.")
    instance_id = instance_create(store, owner=alice, character_ids=[mira, rook],
                                  reply_order="everyone")
    _set(store, instance_id, generation_mode="append", scenario_override=" A storm shuts the "
         "harbour. ", generation_mode_join_prefix="### <FIELDNAME> of {{char}}")
    _mira_answers(store, instance_id, mira)
    sent = str(use_stub.requests[-1]["messages"])
    assert "A storm shuts the harbour." in sent
    assert "waits in the clinic" not in sent and "waits at the docks" not in sent
    assert "### Scenario" not in sent and "### Description of Rook" in sent
    _set(store, instance_id, scenario_override="")  # none: the members' scenarios joined
    _mira_answers(store, instance_id, mira)
    sent = str(use_stub.requests[-1]["messages"])
    assert "Mira waits in the clinic." in sent and "Rook waits at the docks." in sent


def test_a_muted_member_joins_only_with_append_muted(store, scene, use_stub):
    instance_id, mira, rook = scene
    state = store.instance_state_read(instance_id)
    state["participants"][1]["muted"] = True
    _set(store, instance_id, participants=state["participants"], generation_mode="append")
    _mira_answers(store, instance_id, mira)
    assert "Rook runs the docks." not in str(use_stub.requests[-1]["messages"][0])
    _set(store, instance_id, generation_mode="append_muted")
    _mira_answers(store, instance_id, mira)
    sent = str(use_stub.requests[-1]["messages"])
    assert "Rook runs the docks." in sent and "Rook whispers." not in sent


def test_lore_matching_the_character_description_reads_the_joined_cards_in_a_join_mode(
        store, scene, use_stub):
    """SillyTavern's getCharacterCardFields gives the world-info scan getGroupCharacterCards'
    joined description / personality / scenario: an entry flagged to match the character
    description fires on another member's part of it; in swap mode only the speaker's is read."""
    instance_id, mira, rook = scene
    lorebook_link(store, mira, {"uid": 1, "keys": ["docks"], "match_character_description": True,
                                "content": "HARBOUR-LORE"},
                  {"uid": 2, "keys": ["storm"], "match_scenario": True, "content": "STORM-LORE"})
    _mira_answers(store, instance_id, mira)
    assert "HARBOUR-LORE" not in str(use_stub.requests[-1]["messages"])
    _set(store, instance_id, generation_mode="append", scenario_override="A storm rises.")
    results = _mira_answers(store, instance_id, mira)
    sent = str(use_stub.requests[-1]["messages"])
    assert "HARBOUR-LORE" in sent and "STORM-LORE" in sent
    fired = {e["uid"]: e["reason"]
             for e in store.trace_read(instance_id, results[0].trace_id)["lore"]["fired"]}
    assert fired == {1: "key 'docks' in the character description",
                     2: "key 'storm' in the scenario"}


def test_a_joined_card_too_big_for_the_prompt_gives_way_and_says_so(alice_client, store, scene,
                                                                    use_stub):
    """Rook's huge card cannot fit beside Mira's prompt: Mira's turn still goes, without Rook's
    part, and the trace and warnings say who was left out (never a silent refusal)."""
    instance_id, mira, rook = scene
    own = store.instance_dir(instance_id) / "character_states" / f"{rook}.json"
    own.write_text('{"base_persona": "%s", "evolved_persona": ""}' % ("The docks are loud. "
                                                                       * 3000))
    config = store.config_read()
    config["limits"]["max_total_tokens"] = 4000
    store.config_write(config)
    _set(store, instance_id, generation_mode="append")
    results = _mira_answers(store, instance_id, mira)
    assert results and results[0].speaker == mira
    sent = str(use_stub.requests[-1]["messages"])
    assert "The docks are loud." not in sent and "Mira is a field medic." in sent
    trace = store.trace_read(instance_id, results[0].trace_id)
    assert trace["card_join"]["left_out"] == ["Rook"]
    left = [w for w in trace["warnings"] if w["category"] == "group_cards_left_out"]
    assert left and left[0]["detail"] == "Rook" and "left out" in left[0]["message"]
    page = alice_client.get(f"/traces/{results[0].trace_id}/").content.decode()
    shown = page.split('id="card-join"', 1)[1].split("</p>", 1)[0]
    assert "Mira" in shown and "left out to fit the prompt:" in shown and "Rook" in shown


# --- settings ------------------------------------------------------------------------------

def test_rest_sets_the_generation_mode_and_names_a_bad_one(alice_client, store, scene):
    instance_id = scene[0]
    url = f"/api/v1/instances/{instance_id}"
    response = alice_client.put(url, {"generation_mode": "append_muted",
                                      "generation_mode_join_prefix": "<FIELDNAME>:",
                                      "generation_mode_join_suffix": ""},
                                content_type="application/json")
    assert response.status_code == 200, response.json()
    state = store.instance_state_read(instance_id)
    assert (state["generation_mode"], state["generation_mode_join_prefix"],
            state["generation_mode_join_suffix"]) == ("append_muted", "<FIELDNAME>:", "")
    assert response.json()["instance_state"]["generation_mode"] == "append_muted"
    # SillyTavern's numbers are read too
    alice_client.put(url, {"generation_mode": 1}, content_type="application/json")
    assert store.instance_state_read(instance_id)["generation_mode"] == "append"
    for body, field in (({"generation_mode": "join"}, "generation_mode"),
                        ({"generation_mode_join_suffix": "x" * 2001},
                         "generation_mode_join_suffix")):
        response = alice_client.put(url, body, content_type="application/json")
        assert response.status_code == 400 and field in response.json()["error"]["fields"]
    assert store.instance_state_read(instance_id)["generation_mode"] == "append"


def test_the_drawer_sets_the_generation_mode_and_labels_the_orders_as_sillytavern(
        alice_client, store, scene):
    instance_id = scene[0]
    page = alice_client.get(f"/instances/{instance_id}/").content.decode()
    assert 'data-testid="generation-mode"' in page
    assert "Join character cards (exclude muted)" in page
    # SillyTavern's "List order" (everyone once) is our `everyone`; `list` is not called so
    assert '<option value="everyone" selected>List order (everyone answers once' in page
    assert '<option value="list">Take turns (one reply per round' in page
    response = alice_client.post(f"/instances/{instance_id}/members", {
        "action": "order", "reply_order": "natural", "generation_mode": "append",
        "generation_mode_join_prefix": "[{{char}}]\r\n", "generation_mode_join_suffix": ""})
    assert response.status_code == 200
    state = store.instance_state_read(instance_id)
    assert (state["reply_order"], state["generation_mode"],
            state["generation_mode_join_prefix"]) == ("natural", "append", "[{{char}}]\n")
    assert '<option value="append" selected>' in response.content.decode()


def test_the_drawer_saves_the_storys_scenario_override_and_keeps_a_refused_one_typed(
        alice_client, store, scene):
    """SillyTavern sets a group's scenario override from the group's settings; here the
    members card, through instance_update as REST's PUT."""
    instance_id = scene[0]
    page = alice_client.get(f"/instances/{instance_id}/").content.decode()
    assert 'data-testid="scenario-override"' in page
    url = f"/instances/{instance_id}/members"
    response = alice_client.post(url, {"action": "order", "reply_order": "everyone",
                                       "scenario_override": " A storm shuts the harbour.\r\n"})
    assert response.status_code == 200
    assert store.instance_state_read(instance_id)["scenario_override"] == (
        "A storm shuts the harbour.")
    assert ">A storm shuts the harbour.</textarea>" in response.content.decode()
    response = alice_client.post(url, {"action": "order", "reply_order": "everyone",
                                       "scenario_override": "x" * 20_001})
    assert response.status_code == 400 and 'data-field="scenario_override"' in (
        response.content.decode())
    assert "x" * 20_001 in response.content.decode()
    assert store.instance_state_read(instance_id)["scenario_override"] == (
        "A storm shuts the harbour.")
    assert alice_client.post(url, {"action": "order", "reply_order": "everyone",
                                   "scenario_override": ""}).status_code == 200
    assert store.instance_state_read(instance_id)["scenario_override"] == ""
