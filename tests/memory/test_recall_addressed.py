"""A question addressed to a member by name ("Bram, remind me — what did I say my job was?")
is searched without the name, and the addressed member's lines are not preferred: the name
says who should answer, not what to recall (findings long-chat F3); a member is known by
name before any line of theirs is indexed."""

from __future__ import annotations

import asyncio

import pytest

from memory.recall.addressed import addressed_strip
from memory.recall.queries import query_extract
from memory.recall.rag import query_user_history
from memory.vectors.index import MemoryIndex
from tests.memory.memory_turns import memory_turn_run
from tests.memory.recall_chats import recall_chat_seed

SPEAKERS = {"Bram", "Sora Lin", "Ann", "小红"}


@pytest.mark.parametrize("question, searched", [
    ("Bram, remind me — what did I say my job was?", "remind me — what did I say my job was?"),
    ("Hey Bram, what is my job?", "what is my job?"),
    ("Bram and Sora, where did I grow up?", "where did I grow up?"),
    ("Do you remember my job, Bram?", "Do you remember my job?"),
    ("Sora你们还记得我女朋友叫什么吗？", "你们还记得我女朋友叫什么吗？"),
    ("小红，你还记得我的工作吗？", "你还记得我的工作吗？"),
    ("Sora: when is it?", "when is it?"),
])
def test_the_name_a_question_is_addressed_to_is_left_out(question, searched):
    assert addressed_strip(question, SPEAKERS) == searched


@pytest.mark.parametrize("question", [
    "What did Bram say about the boat?",  # whose line: the speaker preference's business
    "Will you remember?",  # not a speaker
    "Abram, hi",  # a name that only ends like one
    "Bram?",  # nothing else would be left
])
def test_a_name_that_is_not_an_address_stays(question):
    assert addressed_strip(question, SPEAKERS) == question


def _line(turn: int, role: str, name: str, text: str) -> dict:
    return {"role": role, "content": text, "turn": turn, "timestamp": "2026-12-01T10:00:00Z",
            "name": name}


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    index = MemoryIndex(chroma_path=tmp_path_factory.mktemp("chroma") / "chroma_db")
    replies = ["Any job pays better than none in the harbour.",
               "Nobody offered me a job today.",
               "The job board at the inn was empty.",
               "Fishing is no job for a lazy man."]
    lines = [_line(1, "user", "Ann",
                   "My job? I'm a night-shift radiographer at St. Olaf hospital."),
             _line(1, "assistant", "Bram", "That sounds tiring.")]
    for turn, reply in enumerate(replies, start=2):
        lines += [_line(turn, "user", "Ann", "The weather turned cold again."),
                  _line(turn, "assistant", "Bram", reply)]
    index.add_turns(instance_id="inst_grp", character_id="char_bram", background_id=None,
                    session_id="sess_001", turns=lines)
    return index


def test_an_addressed_member_is_neither_searched_nor_preferred(index):
    result = query_user_history("Bram, remind me — what did I say my job was?", "inst_grp",
                                index=index, force=True, k=5)
    assert "Bram" not in result.query
    assert "radiographer" in result.hits[0].text


def test_a_chinese_question_to_several_is_searched_for_what_it_asks():
    asked = addressed_strip("Sora你们还记得我女朋友叫什么吗？", SPEAKERS)
    assert query_extract(asked) == "女朋友叫什么"


def test_a_run_of_more_names_than_a_question_is_said_to_is_left_as_said():
    # Each name of a run is looked for among every speaker's: an imported chat's 10,000 names
    # chained through a 20,000-character question took a second of CPU (bench/recall_hostile.py).
    speakers = {f"Member{letter}" for letter in "ABCDEFGHIJKL"}
    said = " and ".join(sorted(speakers)) + ", where did I grow up?"
    assert addressed_strip(said, speakers) == said
    assert addressed_strip("MemberA and MemberB, where?", speakers) == "where?"


def test_a_member_with_no_line_indexed_yet_is_known_by_the_names_given(index):
    # Rook joined the group since: no line of the index is said under that name.
    asked = "Rook, remind me — what did I say my job was?"
    assert "Rook" in query_user_history(asked, "inst_grp", index=index, force=True, k=5).query
    result = query_user_history(asked, "inst_grp", index=index, force=True, k=5,
                                members=["Bram", "Rook"])
    assert "Rook" not in result.query and "radiographer" in result.hits[0].text


@pytest.mark.django_db(transaction=True)
def test_a_question_addressed_to_the_character_before_its_lines_are_indexed_is_not_about_it(
        store, instance, memory_on, use_stub):
    recall_chat_seed(store, instance)  # the player's lines and replies, under no name
    character = store.instance_state_read(instance)["character_id"]
    name = store.character_read(character)["name"]
    result, _ = asyncio.run(memory_turn_run(store, instance,
                                            f"{name}, when did Jolene get her puppy?"))
    query = store.trace_read(instance, result.trace_id)["retrievals"]["query"]
    assert name not in query and "Jolene" in query
