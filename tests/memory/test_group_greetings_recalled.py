"""A group's greetings, indexed as one document (one per turn and role), are recalled as
their own speakers' lines: the recall section put the block in the recalling member's mouth
("Brenna: Mira: …") and filled Cato's {{char}} with Brenna (group probe)."""

from __future__ import annotations

from chat.prompt.recall_section import recalled_entries
from memory.vectors.index import turn_metadata
from memory.vectors.turn_docs import turns_indexable
from personalab.lib.line_macros import LineMacros

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
