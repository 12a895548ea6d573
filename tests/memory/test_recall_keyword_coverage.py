"""A line that holds only the question's commonest word is not a full keyword match (findings
long-chat F3): "where's the wedding going to be?" in a chat where no line says "wedding" found
every line saying "going" before "we're getting married … in Bergen"."""

from __future__ import annotations

import pytest

from memory.recall.rag import query_user_history
from memory.vectors.index import MemoryIndex
from tests.memory.recall_chats import turn_lines

FACT = "Big news: we're getting married on 21 September 2027, in Bergen, up in Norway."


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    index = MemoryIndex(chroma_path=tmp_path_factory.mktemp("chroma") / "chroma_db")
    index.add_turns(instance_id="inst_001", character_id="char_001", background_id=None,
                    session_id="sess_001", turns=turn_lines(
                        (FACT, "Congratulations to you both!"),
                        ("We're going to the harbour festival on Saturday.", "Sounds lovely."),
                        ("The concert is going to be in the old town hall.", "Nice venue."),
                        ("I'm going to the market later.", "Bring apples."),
                        ("It's going well at the bakery, thanks.", "Good to hear."),
                        ("Going out tonight was a bad idea.", "It was raining."),
                        ("Are you going anywhere for the holidays?", "Maybe the coast."),
                    ))
    return index


def test_a_line_holding_only_the_common_word_of_the_question_ranks_below_the_answer(index):
    result = query_user_history("where's the wedding going to be?", "inst_001", index=index,
                                force=True, k=5)
    assert result.hits[0].text == FACT


def test_the_keyword_side_knows_how_much_of_the_question_a_line_holds(index):
    scores = index.keyword_scores(("turns",), "wedding going", where={"instance_id": "inst_001"},
                                  k=10, also=[])
    going = next(key for key in scores if key[2] == "turn_sess_001_4_user")
    assert 0 < scores.held[going] < scores.full / 2  # "wedding" is held by no line
