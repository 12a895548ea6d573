"""A line that asks holds no fact to recall (memory.keyword_index.bm25.ask_share, memory.recall.rag.asking_lower)."""

from __future__ import annotations

from datetime import date

import pytest

from memory.keyword_index.bm25 import ask_share
from memory.recall import rag
from memory.recall.rag import query_user_history
from memory.vectors.index import MemoryIndex


@pytest.mark.parametrize("text, share", [
    ("Oh what game are you playing?", 1.0),
    ("Did you go? How was it?", 1.0),
    ("I went to the park and saw ducks.", 0.0),
    ("Wow! That sounds great. What did you buy?", 18 / 41),
    ("你呢？我昨天去了公园。", 3 / 11),
    ("", 0.0),
])
def test_the_share_of_a_line_that_asks(text, share):
    assert ask_share(text) == pytest.approx(share)


def test_a_long_reply_ending_in_a_short_question_is_mostly_telling():
    reply = ("*She sets the cup down.* I grew up by the sea, in a town of fishermen; my father "
             "mended nets every winter. And you?")
    assert ask_share(reply) < 0.1


@pytest.fixture(scope="module")
def talk(tmp_path_factory):
    index = MemoryIndex(chroma_path=tmp_path_factory.mktemp("chroma"))
    said = [("Nebraas", "Hey, how was your weekend?"),
            ("Nicolas", "Pretty chill, I stayed home mostly."),
            ("Nebraas", "Do you play any video games?"),
            ("Nicolas", "Mostly Lethal Company with my friends."),
            ("Nebraas", "What video games are popular at your school?"),
            ("Nicolas", "No idea honestly, I don't ask around."),
            ("Nebraas", "I watched a movie about sharks yesterday."),
            ("Nicolas", "Sharks are scary."),
            ("Nebraas", "Which video games do your friends like?"),
            ("Nicolas", "They like whatever is free.")]
    lines = [{"role": "user" if n % 2 == 0 else "assistant", "content": text,
              "turn": n // 2 + 1, "speaker": speaker, "timestamp": "2024-01-10T10:00:00Z"}
             for n, (speaker, text) in enumerate(said)]
    index.add_turns(instance_id="inst_ask", character_id="c", background_id=None,
                    session_id="sess_001", turns=lines)
    return index


def _top(index, question: str) -> list[str]:
    result = query_user_history(question, "inst_ask", index=index, force=True, k=3,
                                now=date(2024, 1, 20))
    return [hit.text for hit in result.hits]


def test_the_answers_come_before_the_questions_that_share_the_words(talk, monkeypatch):
    top = _top(talk, "Which video games do they talk about?")
    assert "Mostly Lethal Company with my friends." in top
    assert not any(text.endswith("?") for text in top)
    monkeypatch.setattr(rag, "ASKING_DISCOUNT", 0.0)  # as before: the three questions first
    assert all(text.endswith("?") for text in _top(talk, "Which video games do they talk about?"))
