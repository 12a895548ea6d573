"""A player's line that leans on the one before ("When did she get it?", "那我上司呢？", "no, I
mean the cat") is searched with that line too (memory/recall/follow_up.py)."""

from __future__ import annotations

import asyncio

import pytest

from chat.prompt.recall_section import player_before
from memory.recall.follow_up import (
    follow_up_carried,
    follow_up_resolved,
    leans_on_before,
    person_split_zh,
    question_alone,
)
from memory.recall.queries import query_extract
from memory.recall.rag import RecallResult
from memory.recall.turn import _searches_joined
from memory.vectors.index import Hit
from tests.memory.memory_turns import memory_turn_run, trace_recalled
from tests.memory.recall_chats import FACT_USER, FILLER, chat_turns_seed, recall_chat_seed


@pytest.mark.parametrize("text", [
    "Where did she live again?", "What were they most excited about?", "how long was his shift?",
    "And did you get accepted?", "no, I mean the cat you got later", "What about Tom?",
    "那她生日呢？", "那我上司呢？", "他单位叫啥？", "不对，我是说我表姐的", "我表姐的呢？",
    # "nah" corrects as "no" does; "that" stands for what the line before told.
    "nah i mean where was she flying off to", "how'd that even happen again", "when was that?",
    "how did that go",
    # "n" is chat's "and"; an "it" with no thing named before it in the line.
    "n what about juice", "did you like it?", "is that it?",
    # "when it happened" and "u guys" only point: the line names where one was headed.
    "where were u guys headed again when it happened?",
    # "that" last but for words that name nothing ("at again", "that time").
    "whose place was that at again", "what did we end up winning that time?",
    "how long did u stay there that time",
    # "the same" stands for what the line before told; "someone" names nobody.
    "didnt someone in ur fam get the same treatment?", "did the same thing happen to ur bro?",
    # "there" stands for the place the line before told.
    "what critter did we run into up there again?", "what did we eat over there lol",
    # "where to" asked of a going the line does not name.
    "where were u headed again", "wheres she headed",
    # A thing named as a part of the "it" ("the main character in it"); "the part" of nothing
    # the line names.
    "who's the main character in it again?", "what was the name of it again?",
    "whats the part i said i always sucked at again?",
    # "what happened there" points back; "oh wait" and a closing "right" name nothing.
    "oh wait u dont do bk right, what happened there again?",
    # Idioms name nothing: "in the first place", "right" before a where.
    "why'd he say he picked it up in the first place?", "what was it sitting right next to again?",
])
def test_a_line_that_leans_on_the_one_before(text):
    assert leans_on_before(text)


@pytest.mark.parametrize("text", [
    "When did Caroline go to the LGBTQ support group?", "What does Melanie do with her family?",
    "Okay, how are you doing today?", "Nothing much, you?", "Did Tom like his new phone?",
    "那个喜欢编程的人电话是多少？", "我表姐在哪上班呢？", "那天我们去的那家店叫什么？",
    # "that" naming a thing, or a line that names enough of its own.
    "what was that book called?", "is that the one with the dog", "that was crazy, what "
    "happened at the concert next",
    # The "it" is the thing the line named before it.
    "that weird breakfast u told me about a while ago, what was it again",
    "the book you were reading, did you finish it?",
    # "again" alone leans on nothing ("what concert were u going to again" after talk of the
    # gym asks on its own); nor does a "that" the line itself told of.
    "what concert were u going to again", "what's my job again?",
    "I had a dog before my allergies got bad, right? where was that again?",
    "what was that vegan place again, the one by the river",
    # "the same" comparing two things the line names; "anyone" asking on its own.
    "is my sister the same age as my cousin?", "did anyone come to my birthday party?",
    # "there" that only says something is, or a place the line names.
    "is there a bear on that trail?", "was there a dog at my party?",
    # A going the line names: where to school, for thanksgiving.
    "where did i go to school again?", "where am i going for thanksgiving",
    # The thing the line names holds the "it"; a part of a thing the line names.
    "that book, what was the ending of it?", "what's the best part of your job?",
    "what part of town do you live in?",
    # "right" and "wait" that say something.
    "did i get the right answer on the quiz?", "wait for me, where is the bakery my mom likes?",
])
def test_a_line_that_asks_on_its_own(text):
    assert not leans_on_before(text)


@pytest.mark.parametrize(("text", "alone"), [
    # Told first, asked last: the last sentence is also searched by itself.
    ("bro im so tired, work was crazy lol. how long is ur drive again?",
     "how long is ur drive again?"),
    ("昨天羽毛球打了三个小时，今天腿疼得下不了楼。我表弟在哪家医院上班来着",
     "我表弟在哪家医院上班来着"),
    ("I was thinking about the Japan trip. What was the hotel called?",
     "What was the hotel called?"),
    # Asked without a question mark, by a question word typed short.
    ("julio left dishes in the sink again. wats the grossest thing u ever ate",
     "wats the grossest thing u ever ate"),
    # Asked in a clause after the thing it names, in chat words.
    ("julio left his laundry in the washer smh. btw that cheesy line i hit my crush w, how did "
     "it go again lol", "btw that cheesy line i hit my crush w, how did it go again lol"),
    # One sentence; a question before the last; a last sentence that leans on the telling or
    # asks nothing.
    ("how long is ur drive again?", ""),
    ("What is your dog called? What is your cat called?", ""),
    ("I was looking at that necklace my grandma gave me. Where did she live again?", ""),
    ("I paid 3.5 dollars for lunch. Nice weather today.", ""),
])
def test_the_last_sentence_asks_by_itself_after_sentences_that_tell(text, alone):
    assert question_alone(text) == alone


def test_the_line_before_is_carried_as_one_question_and_only_its_end():
    carried = follow_up_carried("那她呢？", "邮票故事阅读会在哪儿办？")
    assert carried == "邮票故事阅读会在哪儿办， 那她呢？"
    assert follow_up_carried("When were they again?", "I'm still thinking about the interviews."
                             ) == "I'm still thinking about the interviews. When were they again?"
    assert follow_up_carried("When did Caroline move?", "Tell me about Sweden.") == ""
    assert follow_up_carried("When did she get it?", "") == ""
    long_before = "x " * 400 + "my grandmother's necklace."
    assert follow_up_carried("Where did she live?", long_before).startswith("x x")
    assert len(follow_up_carried("Where did she live?", long_before)) < 400


@pytest.mark.parametrize(("text", "before", "resolved"), [
    # A pronoun stands for the person the question before asked about; what that question
    # asked (哪里人) is not searched again: its answer came first.
    ("那他多大了？", "我下属是哪里人来着？", "我下属多大了？"),
    ("他单位叫啥？", "我下属在哪上班来着？", "我下属单位叫啥？"),
    ("那她多大了？", "我婶婶是做什么的？", "我婶婶多大了？"),
    # "那X呢？" and a correction name another person and ask what the question before asked.
    ("那我上司呢？", "我表弟生日是几号来着？", "我上司生日是几号来着？"),
    # 俺 is the spoken 我.
    ("那我爸呢？", "俺叔平时爱干啥来着？", "我爸平时爱干啥来着？"),
    ("不对，我是说我表姐的", "我表弟的电话是多少？", "我表姐的电话是多少？"),
    # 那个 points at the person, it names no one else.
    ("不是，我问的是我那个下属", "我表弟老家是哪儿的？", "我那个下属老家是哪儿的？"),
    ("what does she do again?", "remember my older sister Claire?",
     "what does my older sister Claire do again?"),
    ("how long was his shift?", "ur friend who works in chinatown, did he miss the party?",
     "how long was your friend who works in chinatown shift?"),
    ("what were they making?", "are your kids still baking?", "what were your kids making?"),
    # A Chinese line that only tells of someone still says who 他 / 她 is.
    ("她电话多少来着？", "我舅妈不是在青岛那家快递公司上班嘛", "我舅妈电话多少来着？"),
    ("他叫啥来着", "我的那个同事人挺好的", "我的同事叫啥来着"),
    # ...however much the line asks of its own.
    ("他平时爱捣鼓点啥来着？", "我表弟不是叫李志强嘛", "我表弟平时爱捣鼓点啥来着？"),
])
def test_a_follow_up_stands_for_the_question_about_the_person_before(text, before, resolved):
    assert follow_up_resolved(text, before) == resolved
    assert follow_up_carried(text, before) == resolved


@pytest.mark.parametrize(("text", "before"), [
    ("Where did she live again?", "I was looking at that necklace my grandma gave me."),  # tells
    ("那她呢？", "邮票故事阅读会在哪儿办？"),  # names nobody
    ("what was she like?", "is your dog still sick?"),  # not a person
    ("what were they about?", "did your sister call?"),  # one person, "they" many
    ("那个活动呢？", "我表弟生日是几号？"),  # names no person
    ("她电话多少来着？", "今天好累啊"),  # tells of nobody
    ("那个活动在哪？", "我舅妈不是在青岛上班嘛"),  # no 他 / 她
])
def test_a_follow_up_is_not_resolved_without_a_person_asked_about(text, before):
    assert follow_up_resolved(text, before) == ""


@pytest.mark.parametrize(("text", "before"), [
    ("还有其他的吗？", "我表弟不是叫李志强嘛"),  # 其他 is "other", no 他
    ("他们平时爱干啥来着？", "我表弟不是叫李志强嘛"),  # many, not the one before
    ("我表姐说他平时爱捣鼓点啥来着？", "我表弟不是叫李志强嘛"),  # the line names its own person
])
def test_a_chinese_pronoun_is_not_put_for_the_person_before_where_it_is_no_one_s(text, before):
    assert "我表弟" not in follow_up_carried(text, before).removeprefix(before)


def test_a_question_opens_with_who_it_asks_about():
    assert person_split_zh("我下属是哪里人来着？") == ("我下属", "是哪里人来着？")
    assert person_split_zh("那我表姐生日呢？") == ("我表姐", "生日呢？")
    assert person_split_zh("邮票故事阅读会在哪儿办？") == ("", "邮票故事阅读会在哪儿办？")
    assert person_split_zh("我那位上司是哪里人？") == ("我上司", "是哪里人？")
    # A clause between the pointing word and the person names which one: not split.
    assert person_split_zh("我那个爱做饭的表弟叫啥？") == ("", "我那个爱做饭的表弟叫啥？")


def _searched_as(text: str) -> RecallResult:
    return RecallResult(hits=[Hit(id=f"{text}:{n}", collection="turns", text=f"{text} {n}",
                                  score=1.0) for n in range(3)], mode="shallow", query=text)


@pytest.mark.parametrize("text, alone_searched", [
    # Alone, "you" lines took every other place.
    ("nah i mean u, who do u root for", False),
    ("and what about you?", False),
    # One word of its own, not turned to the listener: the word alone finds the answer.
    ("n what about juice", True),
    # Two words of its own are a question of its own too.
    ("nah i mean u, what did u get into back when u couldnt go hiking", True),
])
def test_a_turn_to_the_listener_naming_one_word_of_its_own_is_searched_only_with_the_line_before(
        text, alone_searched):
    before = "hows the volunteer thing at the game dev nonprofit going?"
    result, _ = _searches_joined(text, leaning=True, player_before=before, search=_searched_as)
    carried = follow_up_carried(text, before)
    assert result.hits[0].text == f"{carried} 0"
    assert any(hit.text.startswith(text) for hit in result.hits) == alone_searched


def test_a_follow_up_standing_for_a_whole_question_is_searched_as_that_question_only():
    # Alone, "不是，我问的是我上司的" drew every line about the boss.
    result, _ = _searches_joined("不是，我问的是我上司的", leaning=True,
                                 player_before="我下属电话多少来着？", search=_searched_as)
    assert {hit.text for hit in result.hits} == {f"我上司的电话多少来着？ {n}" for n in range(3)}


def test_a_chinese_correction_s_own_words_are_no_words_of_the_search():
    assert query_extract("不是，我问的是我上司的") == "上司"
    assert query_extract("不对，我是说我表姐的") == "表姐"
    assert query_extract("他是不是老师") == "是不是老师"


def test_a_pause_opening_a_follow_up_is_no_word_of_the_search():
    carried = follow_up_carried("wait what are they having u do there again",
                                "hows the volunteer thing going?")
    assert "wait" not in query_extract(carried)


def test_the_line_before_is_the_players_own_not_the_current_one():
    lines = [{"role": "user", "content": "My sister got married."},
             {"role": "assistant", "content": "Congratulations!"},
             {"role": "user", "content": "And her birthday?"}]
    assert player_before(lines, "And her birthday?") == "My sister got married."
    assert player_before(lines[:2], "And her birthday?") == "My sister got married."
    assert player_before([], "And her birthday?") == ""


@pytest.mark.django_db(transaction=True)
def test_a_follow_up_that_names_nothing_recalls_through_the_line_before(store, instance,
                                                                       memory_on, use_stub):
    recall_chat_seed(store, instance)
    asyncio.run(memory_turn_run(store, instance, "I keep thinking about Jolene's puppy."))
    result, _ = asyncio.run(memory_turn_run(store, instance, "When did she get it?"))
    assert FACT_USER in trace_recalled(store, instance, result)


@pytest.mark.django_db(transaction=True)
def test_a_question_after_a_change_of_subject_recalls_what_it_asks_not_the_talk(
        store, instance, memory_on, use_stub):
    trip = "I flew to Lisbon in March, the best trip I ever took."
    outage = "The power went out and I lost a whole evening of progress in my game."
    recall_chat_seed(store, instance, turns=0)  # the prompt shows the newest messages only
    chat_turns_seed(store, instance, [(trip, "Lisbon sounds lovely."),
                                      (outage, "Save more often!"),
                                      *[FILLER[turn % len(FILLER)] for turn in range(20)]])
    result, _ = asyncio.run(memory_turn_run(
        store, instance, "ugh the power went out again and I lost a whole evening of progress "
        "in my game. anyway, where did I travel to most recently?"))
    assert trace_recalled(store, instance, result)[:1] == [trip]
