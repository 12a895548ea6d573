"""A turn searches deeper than the bench's question (k=60, so lines it drops leave room for
others) and must still put first the lines the bare question's search puts first (issue 30):
the search's candidate pools, which set how scores are normalised, do not grow with k."""

from __future__ import annotations

import itertools

import pytest

from memory.index import MemoryIndex
from memory.rag import query_user_history

PEOPLE = ["Jolene", "Marcus", "the baker", "my aunt", "Priya", "the twins", "our neighbour",
          "Deborah", "the coach", "Tomas"]
DOINGS = ["repainted the fence", "lost a wallet", "planted tomatoes", "sold the old car",
          "learned to knit", "fixed the boiler", "went hiking", "baked rye bread",
          "adopted a kitten", "started a podcast", "moved to Lisbon", "broke a wrist",
          "won a chess game", "cleaned the attic", "wrote a poem", "visited the museum"]
WHEN = ["on Monday", "last spring", "after the storm"]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    index = MemoryIndex(chroma_path=tmp_path_factory.mktemp("chroma") / "chroma_db")
    said = [f"{who} {did} {when}." for who, did, when in itertools.product(PEOPLE, DOINGS, WHEN)]
    lines = [{"role": "user" if number % 2 == 0 else "assistant", "content": text,
              "turn": number // 2 + 1, "timestamp": "t"} for number, text in enumerate(said[:360])]
    index.add_turns(instance_id="inst_deep", session_id="sess_001", character_id="char_a",
                    background_id="bg_a", turns=lines)
    return index


@pytest.mark.parametrize("question", ["When did Jolene adopt a kitten?",
                                      "Who started a podcast after the storm?",
                                      "What did Tomas bake?"])
def test_a_deeper_search_keeps_the_best_lines_first(index, question):
    shallow = query_user_history(question, "inst_deep", index=index, force=True, k=10).hits
    deep = query_user_history(question, "inst_deep", index=index, force=True, k=60).hits
    assert len(deep) == 60
    assert [hit.text for hit in deep[:10]] == [hit.text for hit in shallow]
