"""Recall in play (issue 30 item 2): the live turn searches memory on every player line, the
way people ask, through real turns against the stub server and a real index."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from django.core.management import call_command

from chat.models import ApiToken
from chat.prompt.recall_section import CONTEXT_LINES, _section
from memory.recall.floor import FLOOR, floor_keeps, signals_read
from memory.recall.passages import Near
from memory.recall.rag import RecallResult
from memory.recall.turn import TurnRecall, asked_parts, content_words
from memory.vectors.index import Hit
from tests.memory.memory_turns import memory_turn_run, trace_recalled
from tests.memory.recall_chats import FACT_REPLY, FACT_USER, FILLER, META, recall_chat_seed

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def auth(alice):
    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}


def test_a_plain_question_recalls_the_fact_without_a_trigger_word(store, instance, memory_on,
                                                                   use_stub):
    recall_chat_seed(store, instance)
    result, _ = asyncio.run(memory_turn_run(store, instance, "When did Jolene adopt Susie?"))
    recalled = trace_recalled(store, instance, result)
    assert any("adopted a puppy named Susie" in text for text in recalled)
    system = use_stub.requests[-1]["messages"][0]["content"]
    assert "adopted a puppy named Susie" in system


def test_the_words_of_asking_never_steer_the_search(store, instance, memory_on, use_stub):
    recall_chat_seed(store, instance)
    result, _ = asyncio.run(memory_turn_run(store, instance,
                                            "Do you remember? When did Jolene adopt Susie?"))
    recalled = trace_recalled(store, instance, result)
    assert any("adopted a puppy named Susie" in text for text in recalled)
    assert META not in recalled  # the player's own earlier question about remembering


def test_small_talk_adds_no_recalled_lines(store, instance, memory_on, use_stub):
    recall_chat_seed(store, instance)
    result, _ = asyncio.run(memory_turn_run(store, instance, "Okay, how are you doing today?"))
    assert trace_recalled(store, instance, result) == []


def test_recalled_lines_are_never_duplicates_nor_the_question_itself(store, instance,
                                                                     memory_on, use_stub):
    recall_chat_seed(store, instance)
    question = "What did the letter from my cousin say about the harvest?"
    result, _ = asyncio.run(memory_turn_run(store, instance, question))
    recalled = trace_recalled(store, instance, result)
    assert len(recalled) == len(set(recalled))  # the filler lines repeat in the chat
    assert question not in recalled


def test_a_question_made_only_of_asking_has_nothing_of_its_own_to_search():
    assert asked_parts("Do you remember?") == []
    assert asked_parts("你还记得吗？") == []
    assert asked_parts("Do you remember? When did Jolene adopt Susie?") == [
        "When did Jolene adopt Susie?"]
    assert asked_parts("What did I tell you about this? My sister keeps bees.") == [
        "My sister keeps bees."]
    assert asked_parts("Did I mention it the other day? We hiked near Seattle.") == [
        "We hiked near Seattle."]
    assert asked_parts("Why?") == ["Why?"]  # a question that names nothing stays searched
    assert content_words("How are you doing today?") == set()
    assert content_words("When did Jolene adopt Susie?") == content_words("Jolene adopted Susie")


def test_an_earlier_line_asking_about_something_said_is_still_an_answer():
    """"You mentioned…?" asks to remember today, but an earlier line holding it often holds the
    answer; only an earlier asking to remember ("Do you remember…?") is never recalled."""
    from memory.recall.turn import _meta_talk
    from memory.vectors.index import Hit

    def hit(text):
        return Hit(id="turn_sess_001_3_user", collection="turns", text=text, score=1.0,
                   metadata={"role": "user"})

    assert not _meta_talk(hit("You mentioned your kids last week, are they back at school?"))
    assert not _meta_talk(hit("我上周跟你提过的那本书，你读了吗？"))
    assert _meta_talk(hit("Do you remember my sister?"))


def _sent(use_stub) -> str:
    return "\n".join(m["content"] for m in use_stub.requests[-1]["messages"])


def test_a_line_the_conversation_already_shows_is_never_recalled(store, instance, memory_on,
                                                                 use_stub):
    recall_chat_seed(store, instance, whole_chat=True)  # the whole chat fits the window
    result, _ = asyncio.run(memory_turn_run(store, instance, "When did Jolene adopt Susie?"))
    assert trace_recalled(store, instance, result) == []
    assert _sent(use_stub).count(FACT_USER) == 1  # in the conversation, not again in recall


def test_a_recalled_line_and_its_reply_are_one_passage_in_the_order_they_were_said(
        store, instance, memory_on, use_stub):
    recall_chat_seed(store, instance)
    result, _ = asyncio.run(memory_turn_run(store, instance, "When did Jolene adopt Susie?"))
    recalled = trace_recalled(store, instance, result)
    assert FACT_USER in recalled and FACT_REPLY in recalled  # both found...
    system = use_stub.requests[-1]["messages"][0]["content"]
    assert system.count(FACT_USER) == 1 and system.count(FACT_REPLY) == 1  # ...shown once
    item = next(part for part in system.split("\n- ") if FACT_USER in part)
    assert FACT_REPLY in item  # one passage
    assert item.index(FACT_USER) < item.index(FACT_REPLY)


def test_the_memory_share_of_the_window_is_a_setting_of_the_instance(
        client, auth, store, instance, memory_on, use_stub):
    recall_chat_seed(store, instance)
    bad = client.put(f"/api/v1/instances/{instance}", {"generation": {"memory_share": 2}},
                     content_type="application/json", **auth)
    assert bad.status_code == 400 and "generation.memory_share" in bad.json()["error"]["fields"]
    put = client.put(f"/api/v1/instances/{instance}",
                     {"generation": {"context_tokens": 4096, "memory_share": 0.01}},
                     content_type="application/json", **auth)
    assert put.status_code == 200
    assert put.json()["generation_effective"]["memory_share"] == 0.01

    response = client.post("/api/v1/chat", {"instance_id": instance,
                                            "query": "When did Jolene adopt Susie?"},
                           content_type="application/json", **auth)

    assert response.status_code == 200, response.content
    trace = client.get(f"/api/v1/traces/{response.json()['trace_id']}", **auth).json()
    assert trace["window"]["memory_tokens"] == 40
    # The best line with the line before it does not fit 40 tokens: it comes alone, and the
    # section never goes over its share.
    assert all(s["tokens"] <= 40 for s in trace["sections"] if s["name"] == "recalled")
    assert [hit["text"] for hit in trace["retrievals"]["hits"]] == [FACT_USER]
    assert "memory_share" not in use_stub.requests[-1]  # ours, never sent to the model


def test_an_answer_that_shares_no_word_enters_through_the_question_before_it():

    def line(text, score, turn, role):
        return Hit(id=f"turn_sess_001_{turn}_{role}", collection="turns", text=text, score=score,
                   metadata={"instance_id": "inst_001", "session_id": "sess_001", "turn": turn,
                             "role": role})

    asked = line("Guess what Jolene did with Susie?", 1.0, 3, "user")
    answer = line("She took the puppy home last spring.", 0.6, 3, "assistant")
    unrelated = line("The roof still leaks.", 0.3, 7, "user")
    near = {answer.key: Near(before=asked), asked.key: Near(after=answer),
            unrelated.key: Near()}
    signals = signals_read("When did Jolene adopt Susie?", [asked, answer, unrelated], near)
    # Without the question's first lines kept whatever they say (the next test).
    words_only = replace(FLOOR, top_asked=0)
    assert [floor_keeps(s, words_only) for s in signals] == [True, True, False]
    small = signals_read("Okay, how are you doing today?", [asked, answer], near)
    assert not any(floor_keeps(s) for s in small)


def test_a_question_about_something_told_many_times_recalls_more_than_ten_lines(
        store, instance, memory_on, use_stub):
    """A list question ("What did Mira plant?") has its answers spread over many days: the
    memory share of the window holds them, so a turn is not cut at ten lines."""
    recall_chat_seed(store, instance, turns=0)  # settings only: the newest 10 messages shown
    plants = ["tulips", "basil", "carrots", "roses", "garlic", "mint", "onions", "lilies",
              "beans", "thyme", "peas", "sage", "leeks", "poppies"]
    with store.instance_lock(instance):
        for turn, plant in enumerate(plants + ["rain"] * 6, start=1):
            user = (f"Today Mira planted {plant} in the garden bed." if plant != "rain"
                    else "The rain kept us inside all day.")
            for role, text in (("user", user), ("assistant", "Nice, tell me more.")):
                store.session_append(instance, "sess_001", {
                    "role": role, "content": text, "turn": turn,
                    "timestamp": f"2025-10-16T10:{turn:02d}:00Z"})
    call_command("reindex", "--memory")
    result, _ = asyncio.run(memory_turn_run(store, instance,
                                            "Do you remember? What did Mira plant in the garden?"))
    recalled = " ".join(trace_recalled(store, instance, result))
    assert sum(1 for plant in plants if plant in recalled) > 10


def test_a_question_keeps_its_best_lines_though_the_answer_shares_no_word():
    """"When did Fahim catch a cold?" is answered by "I stayed in bed all week, coughing": a
    question that names something keeps its first lines whatever words they share; a
    statement with the same words, and lines further down, still need a shared word."""

    def line(text, score, turn):
        return Hit(id=f"turn_sess_001_{turn}_user", collection="turns", text=text, score=score,
                   metadata={"instance_id": "inst_001", "session_id": "sess_001", "turn": turn,
                             "role": "user"})

    hits = [line("My cold is finally gone.", 1.0, 9),
            line("I stayed in bed all week, coughing.", 0.4, 4)]
    hits += [line(f"The roof still leaks, day {n}.", 0.3, 20 + n)
             for n in range(FLOOR.top_asked + 1)]
    near = {hit.key: Near() for hit in hits}
    asked = [floor_keeps(s) for s in signals_read("When did Fahim catch a cold?", hits, near)]
    assert asked[:2] == [True, True]
    assert asked[FLOOR.top_asked:] == [False, False, False]
    told = [floor_keeps(s) for s in signals_read("Fahim caught a cold.", hits, near)]
    assert told[:2] == [True, False]


def test_a_personal_fact_asked_without_a_question_mark_keeps_the_first_lines():
    """"where am i from again lol" names only "lol": the line that told it ("i was born in
    dhaka") was cut for sharing no word. Small talk typed so still needs a shared word."""
    hit = Hit(id="turn_sess_001_4_user", collection="turns", text="btw i was born in dhaka",
              score=0.5, metadata={"instance_id": "inst_001", "session_id": "sess_001",
                                   "turn": 4, "role": "user"})
    near = {hit.key: Near()}
    best = Hit(id="turn_sess_001_9_user", collection="turns", text="so tired lol", score=1.0,
               metadata={"instance_id": "inst_001", "session_id": "sess_001", "turn": 9,
                         "role": "user"})
    near[best.key] = Near()
    asked = signals_read("where am i from again lol", [best, hit], near)
    assert [floor_keeps(s) for s in asked] == [True, True]
    assert [floor_keeps(s) for s in signals_read("how was ur day lol", [best, hit], near)] == [
        True, False]
    assert [floor_keeps(s) for s in signals_read("我是哪儿人来着", [best, hit], near)][1]
    # A chat filler before the question word: it still asks.
    assert [floor_keeps(s) for s in signals_read("yo where am i from again", [best, hit],
                                                  near)] == [True, True]
    # Asked again, it asks whatever it names ("my relative" for "my cousin rafi").
    for again in ("whats that lunch spot my relative runs again lol", "那家店叫啥来着"):
        assert [floor_keeps(s) for s in signals_read(again, [best, hit], near)] == [True, True]
    assert [floor_keeps(s) for s in signals_read("whats that lunch spot my relative runs",
                                                  [best, hit], near)] == [True, False]


def test_a_turn_fills_the_memory_share_not_a_fixed_number_of_lines(store, instance, memory_on,
                                                                  use_stub):
    """Forty-five days of planting: a question takes every one that fits the memory share
    (a turn used to stop at 20 lines, 30 with a trigger word), and the section stays within
    its share."""
    recall_chat_seed(store, instance, turns=0)  # settings only: the newest 10 messages shown
    kinds = [f"seedling-{chr(97 + n // 26)}{chr(97 + n % 26)}" for n in range(45)]
    with store.instance_lock(instance):
        for turn, kind in enumerate(kinds + [None] * 6, start=1):
            user = (f"Today Mira planted {kind} in the garden bed." if kind
                    else "The rain kept us inside all day.")
            reply = f"Lovely, that makes {turn} for the season."  # not shown: the rain is
            for role, text in (("user", user), ("assistant", reply)):
                store.session_append(instance, "sess_001", {
                    "role": role, "content": text, "turn": turn,
                    "timestamp": f"2025-10-16T{10 + turn // 60}:{turn % 60:02d}:00Z"})
    call_command("reindex", "--memory")
    for asked, more_than in (("What did Mira plant in the garden?", 20),
                             ("Do you remember? What did Mira plant in the garden?", 30)):
        result, _ = asyncio.run(memory_turn_run(store, instance, asked))
        trace = store.trace_read(instance, result.trace_id)
        recalled = " ".join(hit["text"] for hit in trace["retrievals"]["hits"])
        assert sum(1 for kind in kinds if kind in recalled) > more_than
        section = next(s for s in trace["sections"] if s["name"] == "recalled")
        assert section["tokens"] <= trace["window"]["memory_tokens"] and not section["cut"]


def test_the_best_lines_come_with_the_line_before_them_the_others_alone():

    def line(turn, role, text):
        return Hit(id=f"turn_sess_001_{turn}_{role}", collection="turns", text=text, score=1.0,
                   metadata={"instance_id": "inst_001", "session_id": "sess_001", "turn": turn,
                             "role": role})

    # Replies three turns apart: no two passages touch.
    replies = [line(3 * n + 1, "assistant", f"Answer number {n}.") for n in range(CONTEXT_LINES + 5)]
    near = {hit.key: Near(before=line(3 * n + 1, "user", f"Question number {n}?"))
            for n, hit in enumerate(replies)}
    found = TurnRecall(result=RecallResult(hits=replies), near=near, triggered=True)
    passages = _section(found, set(), 4096).report["passages"]
    assert len(passages) == len(replies)
    assert [len(p["lines"]) for p in passages] == [2] * CONTEXT_LINES + [1] * 5
    small = _section(found, set(), 60).report["passages"]  # a share of 60 tokens
    assert 0 < len(small) < 3


def test_a_date_in_the_asking_left_out_of_the_search_still_prefers_its_days(
        store, instance, memory_on, use_stub):
    """"Did I mention it last week? <what>" searches <what> alone; the lines said last week
    are still preferred (they were not: the date was in the part left out)."""
    from datetime import datetime, timedelta, timezone

    today = datetime.now(timezone.utc)
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    config = store.config_read()
    config["preferences"]["conversation_load_all"] = False
    store.config_write(config)
    said = {2: ("I adopted a cat, a little cat named Miso.", today - timedelta(days=90)),
            4: ("I adopted a cat named Pepper.", today - timedelta(days=7))}
    with store.instance_lock(instance):
        for turn in range(1, 19):
            user, when = said.get(turn, (FILLER[turn % len(FILLER)][0],
                                         today - timedelta(days=1)))
            for role, text in (("user", user), ("assistant", "I see.")):
                store.session_append(instance, "sess_001", {
                    "role": role, "content": text, "turn": turn,
                    "timestamp": when.strftime("%Y-%m-%dT%H:%M:%SZ")})
    call_command("reindex", "--memory")
    result, _ = asyncio.run(memory_turn_run(store, instance,
                                            "Did I mention it last week? The cat I adopted."))
    recalled = [text for text in trace_recalled(store, instance, result) if "adopted" in text]
    assert recalled[0] == "I adopted a cat named Pepper."


ASKED_TOO = ("Hey Gina! Congrats on the new fashion piece! Remember the festival I told you "
             "about? I had that performance and so many people there praised my dance moves.")


def test_a_line_quoted_back_by_the_player_is_recalled_not_taken_for_an_echo(
        store, instance, memory_on, use_stub):
    """"What did I tell you about this? <the start of something I said>" quotes a statement:
    the statement is the answer. Only a line that asked the same before is an echo, and only a
    line that mostly asks to remember is meta-talk (bench/play_long.py's group probes missed
    such lines: dropped as an echo, or for a "Remember the festival I told you about?" inside
    a story)."""
    recall_chat_seed(store, instance)
    quoted = FACT_USER[:48]  # "Jolene adopted a puppy named Susie last spring, "
    result, _ = asyncio.run(memory_turn_run(store, instance,
                                            f"What did I tell you about this? {quoted}"))
    assert FACT_USER in trace_recalled(store, instance, result)
    # A story that also asks to remember is quoted back the same way.
    with store.instance_lock(instance):
        for turn, (role, text) in enumerate([("user", ASKED_TOO), ("assistant", "Thank you!")]
                                            + [("user", "Fine."), ("assistant", "Good.")] * 6,
                                            start=30):
            store.session_append(instance, "sess_001", {
                "role": role, "content": text, "turn": turn // 2 + 15,
                "timestamp": "2025-10-17T10:00:00Z"})
    call_command("reindex", "--memory")
    result, _ = asyncio.run(memory_turn_run(store, instance, f"So, about this: {ASKED_TOO[:60]}"))
    assert ASKED_TOO in trace_recalled(store, instance, result)
    asked_before = "What did the letter say about the harvest?"
    result, _ = asyncio.run(memory_turn_run(store, instance, asked_before))
    assert asked_before not in trace_recalled(store, instance, result)


QUESTION_TOLD = ("Sounds great! Glad the camping trip with your cousins went well. How was the "
                 "lake? Anything fun?")
# A reply saying most of the same words (its context, the line before, holds the rest).
TOLD_BACK = ("Sounds great, the camping trip with my cousins went well! The lake was fun, "
             "and the trip went great, thanks for asking how it was.")


def _told(store, instance_id, lines, *, then_small_talk=True):
    small_talk = [("user", "Fine."), ("assistant", "Good.")] * 6 if then_small_talk else []
    with store.instance_lock(instance_id):
        for turn, (role, text) in enumerate(lines + small_talk, start=30):
            store.session_append(instance_id, "sess_001", {
                "role": role, "content": text, "turn": turn // 2 + 15,
                "timestamp": "2025-10-17T10:00:00Z"})
    call_command("reindex", "--memory")


def test_a_line_of_the_player_quoted_back_comes_first_and_whole(store, instance, memory_on,
                                                                use_stub):
    """"What did I tell you about this? <a line of mine, or its first words>": the line is
    what the player points at. It comes first, though a reply sharing its words can score
    higher, and a question in it does not make it an echo (bench/play_long.py on LoCoMo
    conv-26 at a 2,048-token window, where the memory share holds one or two lines, missed 3
    of 7 probes so phrased)."""
    recall_chat_seed(store, instance)
    _told(store, instance, [("user", QUESTION_TOLD), ("assistant", TOLD_BACK)])
    for quote in (QUESTION_TOLD, QUESTION_TOLD[:62]):
        result, _ = asyncio.run(memory_turn_run(store, instance,
                                                f"What did I tell you about this? {quote}"))
        assert trace_recalled(store, instance, result)[0] == QUESTION_TOLD



NEW_FACT = "My sister Odile keeps her old violin in the blue cupboard under the stairs."
LONG_TALK = ("The storm kept on all night, and the shutters banged while we counted the "
             "candles and the bread, and the dog would not stop pacing by the door. ") * 6


def test_a_newest_line_the_small_window_left_out_is_recalled(client, auth, store, instance,
                                                             memory_on, use_stub):
    """Recall searches as if the newest messages (trim_max_messages, 10) were in the prompt;
    a small window holds fewer, and a line left out there must still be recallable."""
    put = client.put(f"/api/v1/instances/{instance}", {"generation": {"context_tokens": 2048}},
                     content_type="application/json", **auth)
    assert put.status_code == 200
    recall_chat_seed(store, instance)
    _told(store, instance, [("user", NEW_FACT), ("assistant", "Noted.")]
          + [("user", LONG_TALK), ("assistant", LONG_TALK)] * 3, then_small_talk=False)
    result, _ = asyncio.run(memory_turn_run(store, instance,
                                            "Where does Odile keep her old violin?"))
    sent = "\n".join(m["content"] for m in use_stub.requests[-1]["messages"])
    trace = store.trace_read(instance, result.trace_id)
    assert trace["window"]["dropped_messages"] > 0  # the window left the fact out of the chat
    assert NEW_FACT in sent
    assert sent.count(NEW_FACT) == 1
