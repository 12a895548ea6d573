"""A group's greetings, indexed as one document (one per turn and role), are recalled as
their own speakers' lines: the recall section put the block in the recalling member's mouth
("Brenna: Mira: …") and filled Cato's {{char}} with Brenna (group probe)."""

from __future__ import annotations

import asyncio

import pytest

from chat.prompt.recall_section import recalled_entries
from chat.services.instances import instance_create
from library.character_services import character_save
from memory import runtime
from memory.vectors.index import turn_metadata
from memory.vectors.turn_docs import turns_indexable
from personalab.lib.line_macros import LineMacros
from tests.group_turns import turn_said
from tests.stub_llm import Reply

GREETINGS = [{"role": "assistant", "turn": 0, "content": "Mira greets you.", "speaker": "c_mira",
              "name": "Mira", "greeting": True},
             {"role": "assistant", "turn": 0, "content": "I am {{char}}, {{user}}.",
              "speaker": "c_cato", "name": "Cato", "greeting": True}]


def test_a_groups_greetings_recalled_are_each_their_speakers():
    [doc] = turns_indexable(GREETINGS)
    assert doc["content"] == "Mira: Mira greets you.\nCato: I am {{char}}, {{user}}."
    metadata = turn_metadata(doc, {"instance_id": "inst_1"})
    assert metadata["joined"] is True and metadata["name"] == ""
    report = {"passages": [{"source": "turns", "date": "2026-12-02", "lines": [
        {"id": "inst_1:g", "text": doc["content"], "role": "assistant", "speaker": "",
         "joined": True}]}]}
    macros = LineMacros({"user": "Ann", "char": "Brenna"},
                        {"c_mira": {"char": "Mira"}, "c_cato": {"char": "Cato"},
                         "c_brenna": {"char": "Brenna"}})
    [entry] = recalled_entries(report, user_name="Ann", character_name="Brenna", locale="en",
                               macros=macros)
    assert entry["text"] == "Mira: Mira greets you.\nCato: I am Cato, Ann."


def test_one_line_keeps_its_speaker_from_the_recalling_side():
    report = {"passages": [{"source": "turns", "date": "2026-12-02", "lines": [
        {"id": "x", "text": "Hello {{user}}.", "role": "assistant", "speaker": ""}]}]}
    [entry] = recalled_entries(report, user_name="Ann", character_name="Mira", locale="en",
                               macros={"user": "Ann", "char": "Mira"})
    assert entry["text"] == "Mira: Hello Ann."


@pytest.mark.django_db(transaction=True)
def test_a_member_recalls_anothers_greeting_in_that_members_words(
        store, alice, character, background, memory_on, use_stub):
    """Through real turns: Cato's greeting says {{char}}; Alserqi recalls it as Cato's, and
    the director's reminder lists it so."""
    cato = character_save(store, user=alice, character_id=None, data={
        "name": "Cato", "base_persona": "A lighthouse keeper.", "visibility": "private",
        "greeting": "I am {{char}}, keeper of the amber lighthouse, and {{group}} are my guests."})
    store.module_write("history", {**store.module_read("history"), "trim_max_messages": 2})
    config = store.config_read()  # the greeting out of the prompt's window: recalled, not shown
    config["preferences"]["conversation_load_all"] = False
    store.config_write(config)
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    group = instance_create(store, owner=alice, character_ids=[character, cato],
                            background_id=background, reply_order="list")
    for said in ("The rain has stopped.", "Let us eat.", "The bread is warm."):
        use_stub.script(Reply("Yes."))
        asyncio.run(turn_said(store, group, said))
    runtime.drain()
    use_stub.script(Reply("That was Cato."))
    asyncio.run(turn_said(store, group, "Who keeps the amber lighthouse?", speaker=character))
    system = use_stub.requests[-1]["messages"][0]["content"]
    recalled = system[system.index("=== 历史事件回忆 ==="):]
    recalled = recalled[:recalled.index("===", 20)]
    assert "Cato：I am Cato, keeper of the amber lighthouse, and Alserqi, Cato are my " \
           "guests." in recalled
    assert "I am Alserqi" not in recalled
    # the director's reminder lists the story's events the same way
    events = system[system.index("【当前剧情中已发生的事件】"):]
    assert "I am Cato, keeper of the amber lighthouse, and Alserqi, Cato are my guests." in events
    assert "I am Alserqi" not in system
