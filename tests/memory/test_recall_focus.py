"""When and whom a recall question asks about (memory/recall/focus.py), and what that does to recall
through the real index."""

from __future__ import annotations

import difflib
from datetime import date

import pytest

from memory.keyword_index.bm25 import KeywordPart
from memory.recall.focus import (
    TimeWindow,
    focus_read,
    names_strip,
    speakers_named,
    time_window,
)
from memory.recall.rag import query_user_history
from memory.recall.speaker_names import FUZZY_PAIRS_MAX
from memory.vectors.index import MemoryIndex

NOW = date(2024, 1, 20)  # a Saturday


@pytest.mark.parametrize("question, window", [
    ("What painting did Melanie show on October 13, 2023?",
     TimeWindow(date(2023, 10, 13), date(2023, 10, 20))),
    ("What happened on the 17th of January, 2024 with a stray cat?",
     TimeWindow(date(2024, 1, 17), date(2024, 1, 24))),
    ("What book did Fahim start to read on 02.01.2024?",
     TimeWindow(date(2024, 1, 2), date(2024, 1, 9))),
    ("Did Vanessa take the test before December 23rd, 2023?",
     TimeWindow(date(2023, 12, 9), date(2023, 12, 23))),
    ("What did Maria donate in December 2023?", TimeWindow(date(2023, 12, 1), date(2024, 1, 7))),
    ("When did Melanie go camping in June?", TimeWindow(month=6)),
    ("How many times has Melanie gone to the beach in 2023?",
     TimeWindow(date(2023, 1, 1), date(2024, 1, 7))),
    ("What did you cook yesterday?", TimeWindow(date(2024, 1, 19), date(2024, 1, 19))),
    ("Where did we go last week?", TimeWindow(date(2024, 1, 8), date(2024, 1, 21))),
    ("What did I buy last month?", TimeWindow(date(2023, 12, 1), date(2024, 1, 7))),
    ("你还记得我们上个月去了哪里吗？", TimeWindow(date(2023, 12, 1), date(2024, 1, 7))),
    ("我三天前跟你说了什么？", TimeWindow(date(2024, 1, 16), date(2024, 1, 18))),
    ("2023年5月我们聊过什么？", TimeWindow(date(2023, 5, 1), date(2023, 6, 7))),
    ("我5月去了哪里？", TimeWindow(month=5)),
    # The way people say it in a chat.
    ("what was that movie u told me about a couple days ago??",
     TimeWindow(date(2024, 1, 17), date(2024, 1, 19))),
    ("that thing with your sister like a couple of weeks back",  # 7 to 21 days back
     TimeWindow(date(2023, 12, 30), date(2024, 1, 13))),
    ("remember what I said the other day about my job?",
     TimeWindow(date(2024, 1, 13), date(2024, 1, 19))),
    ("What did I cook the day before yesterday?", TimeWindow(date(2024, 1, 18), date(2024, 1, 18))),
    ("大前天我们去了哪里？", TimeWindow(date(2024, 1, 17), date(2024, 1, 17))),
    ("前几天你说的那部电影叫啥来着", TimeWindow(date(2024, 1, 13), date(2024, 1, 19))),
    ("我几天前跟你讲的那个事", TimeWindow(date(2024, 1, 13), date(2024, 1, 19))),
    ("前两天说的那家店在哪儿？", TimeWindow(date(2024, 1, 17), date(2024, 1, 19))),
])
def test_a_time_expression_becomes_a_window_of_dates(question, window):
    assert time_window(question, now=NOW) == window


@pytest.mark.parametrize("question", [
    "When did Muhhamed mention reading 11/22/63 by Stephen King?",  # a title, not a date
    "Did Fahim like 2666 by Roberto Bolano?",
    "那个生日是06月05日的人，单位名称是什么？",  # a birthday, not when it was said
    "What may happen to the garden?",
])
def test_words_that_only_look_like_dates_give_no_window(question):
    assert time_window(question, now=NOW) is None


@pytest.mark.parametrize("question", [
    "Do you remember what we did 99999999999 days ago?",
    "What happened " + "9" * 5000 + " days ago?",
    "What did people eat 3000 years ago?",
    "3000年前的人吃什么？",
    "99999999999天前",
    "9" * 5000 + "天前",
])
def test_a_time_further_back_than_any_chat_gives_no_window(question):
    # Each raised OverflowError or ValueError, and the player's turn answered 500.
    assert time_window(question, now=NOW) is None


def test_a_long_run_of_number_characters_is_read_in_one_pass():
    # Each start in the run read it to its end: 20,000 of 一 held recall for 4.7 s.
    assert time_window("一" * 200_000 + "x", now=NOW) is None
    assert time_window("我" + "一" * 200_000 + "前", now=NOW) is None


def test_relative_time_needs_the_day_the_question_is_asked():
    assert time_window("What did you cook yesterday?", now=None) is None


def test_speakers_are_named_by_part_of_their_name_or_a_close_spelling():
    speakers = {"Fahim Khan", "Muhhamed"}
    assert speakers_named(("What", "Muhammad"), speakers) == {"Muhhamed"}
    assert speakers_named(("Fahim",), speakers) == {"Fahim Khan"}
    assert speakers_named(("Mel",), {"Melanie", "Caroline"}) == {"Melanie"}


def test_a_question_naming_every_speaker_or_none_prefers_nobody():
    assert speakers_named(("Caroline", "Melanie"), {"Melanie", "Caroline"}) == set()
    assert speakers_named(("What", "Paris"), {"Melanie", "Caroline"}) == set()


def _line(turn: int, role: str, speaker: str, text: str, day: str) -> dict:
    return {"role": role, "content": text, "turn": turn, "speaker": speaker,
            "timestamp": f"{day}T10:00:00Z"}


@pytest.fixture(scope="module")
def chats(tmp_path_factory):
    """Two friends' chats over a year: the same things come up in several months."""
    index = MemoryIndex(chroma_path=tmp_path_factory.mktemp("chroma"))
    sessions = {  # (speaker of the user line, its text), (speaker of the reply, its text)
        "sess_001": ("2023-03-04", [
            ("Maria", "John, I painted sunsets!"),
            ("John", "I donated a box of books to the shelter today.")]),
        "sess_002": ("2023-07-15", [
            ("Maria", "We donated food to the shelter after the picnic."),
            ("John", "That's kind. I went hiking in the hills.")]),
        "sess_003": ("2023-12-09", [
            ("Maria", "Yesterday I donated winter coats to the shelter."),
            ("John", "Nice! I painted a small horse, just a sketch.")]),
    }
    for session_id, (day, lines) in sessions.items():
        filler = [_line(n, role, speaker, f"Small talk number {n} about the weather and work.", day)
                  for n in range(1, 6) for role, speaker in (("user", "Maria"), ("assistant", "John"))]
        said = [_line(6, "user", lines[0][0], lines[0][1], day),
                _line(6, "assistant", lines[1][0], lines[1][1], day)]
        index.add_turns(instance_id="inst_f", character_id="c", background_id=None,
                        session_id=session_id, turns=filler + said)
    return index


def _first(index, question: str, instance_id: str = "inst_f") -> str:
    result = query_user_history(question, instance_id, index=index, force=True, k=3, now=NOW)
    return result.hits[0].text


def test_a_question_about_a_month_recalls_that_month_first(chats):
    assert _first(chats, "What did Maria donate to the shelter in December 2023?") == \
        "Yesterday I donated winter coats to the shelter."
    assert _first(chats, "What did Maria donate to the shelter in July?") == \
        "We donated food to the shelter after the picnic."


def test_a_question_about_last_month_counts_from_the_day_it_is_asked(chats):
    assert _first(chats, "What did Maria donate to the shelter last month?") == \
        "Yesterday I donated winter coats to the shelter."


def test_a_question_naming_a_speaker_prefers_their_lines(chats):
    assert _first(chats, "What did John paint?") == "Nice! I painted a small horse, just a sketch."


@pytest.mark.parametrize("question", [
    "what did i paint again? nah i mean u, what did u paint",
    "What did I paint? And what about you?",
])
def test_a_question_turned_to_the_listener_prefers_the_characters_lines(chats, question):
    assert _first(chats, question) == "Nice! I painted a small horse, just a sketch."


@pytest.mark.parametrize("question, listener", [
    ("no wait, I mean you, which one's yours?", True),
    ("不是，我问的是你", True),
    ("那你呢？", True),
    ("and you told me about it, what was it?", False),
    ("what about your sister?", False),
    ("我问你呢", False),
])
def test_a_turn_to_the_listener_is_read_from_the_words_that_make_it(question, listener):
    assert focus_read(question).listener is listener


def test_the_words_naming_a_speaker_are_left_out_of_the_search():
    speakers = {"Fahim Khan", "Muhhamed"}
    assert names_strip("What are Fahim's hobbies?", speakers) == "What are hobbies?"
    assert names_strip("What games do Fahim Khan and Muhammad play?", speakers) == \
        "What games do and play?"
    assert names_strip("What did Paris look like?", speakers) == "What did Paris look like?"
    assert names_strip("Muhhamed?", speakers) == "Muhhamed?"  # nothing else to search for


@pytest.fixture(scope="module")
def friends(tmp_path_factory):
    """Nebraas calls Nicolas by his name; Nicolas tells about his cats once."""
    index = MemoryIndex(chroma_path=tmp_path_factory.mktemp("chroma"))
    said = [("Nebraas", "Nicolas, how was your day at work?"),
            ("Nicolas", "Long, the printer broke again."),
            ("Nebraas", "Thanks Nicolas, you always make me laugh."),
            ("Nicolas", "I had pizza for lunch."),
            ("Nebraas", "Nicolas, did you watch the game last night?"),
            ("Nicolas", "Only the second half, it was late."),
            ("Nebraas", "Nicolas, what time does your train leave?"),
            ("Nicolas", "At seven, I need to get up early."),
            ("Nebraas", "Anything new at home?"),
            ("Nicolas", "My two cats knocked a vase off the shelf again."),
            ("Nebraas", "Good night Nicolas, sleep well."),
            ("Nicolas", "Good night!")]
    lines = [_line(n // 2 + 1, "user" if n % 2 == 0 else "assistant", speaker, text, "2024-01-10")
             for n, (speaker, text) in enumerate(said)]
    index.add_turns(instance_id="inst_n", character_id="c", background_id=None,
                    session_id="sess_001", turns=lines)
    return index


def test_a_question_naming_the_speakers_searches_for_what_it_asks_not_for_their_names(friends):
    # Searched with the names, the lines that say "Nicolas" came first and the cats fell out of
    # the top four.
    assert _first(friends, "What animals do Nicolas and Nebraas like?", "inst_n") == \
        "My two cats knocked a vase off the shelf again."
    assert _first(friends, "What pets does Nicolas have?", "inst_n") == \
        "My two cats knocked a vase off the shelf again."


def test_the_keyword_index_knows_who_spoke_after_a_snapshot(tmp_path):
    part = KeywordPart("turns")
    part.add("turn_s_1_user", "hello", {"session_id": "s", "turn": 1, "role": "user",
                                         "speaker": "char_7", "name": "Nebraas"})
    part.add("turn_s_1_assistant", "hi", {"session_id": "s", "turn": 1, "role": "assistant",
                                          "speaker": "Nicolas"})
    assert KeywordPart.from_bytes(part.to_bytes()).speakers == {"Nebraas", "Nicolas"}


def test_a_long_question_against_many_speakers_costs_a_bounded_number_of_spellings(monkeypatch):
    # Each word was spelled against each speaker's name: a 2,000-character question against an
    # imported chat's 1,000 names took 2 s of CPU per search (bench/recall_hostile.py).
    made = []

    class Counted(difflib.SequenceMatcher):
        def __init__(self, *args, **kwargs):
            made.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(difflib, "SequenceMatcher", Counted)
    speakers = {f"Speaker{chr(97 + a)}{chr(97 + b)}" for a in range(20) for b in range(20)}
    words = tuple(f"Word{chr(97 + a)}{chr(97 + b)}x" for a in range(20) for b in range(20))
    assert speakers_named(words, speakers) == set()
    assert names_strip(" ".join(words) + "?", speakers) == " ".join(words) + "?"
    assert len(made) <= 2 * FUZZY_PAIRS_MAX
    assert speakers_named(("Muhhamed", *words), speakers | {"Muhammad Ali"}) == {"Muhammad Ali"}
