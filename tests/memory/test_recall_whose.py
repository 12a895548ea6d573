"""A question about the asker's own fact ("我老家在哪？") is not answered by a line telling
another person's ("我上司的老家是江苏苏州"): such lines are ranked as if they held only a word a
statement says instead (memory/recall/whose.py, rag.others_lower)."""

from __future__ import annotations

import pytest

from memory.recall.rag import FusedHit, others_lower, persons_lower
from memory.recall.whose import (
    asked_of_asker,
    person_asked_zh,
    told_by_asker,
    told_of_another,
    told_of_other_person_zh,
)


@pytest.mark.parametrize("question", [
    "我老家在哪？", "我是哪里人？", "我在哪上班？", "我是做什么工作的？", "what's my job?",
    "what do I do for work?", "where was I born?",
    # Named since 2026-12-03 (M1): the kind before the "I", "me" as the one it is for, 哪个城市的人.
    "what kind of work do I do again?", "where's home for me originally?", "我是哪个城市的人来着？",
])
def test_a_question_about_the_asker_names_its_kind(question):
    assert asked_of_asker(question)


@pytest.mark.parametrize("question", [
    "我上司老家是哪儿的来着？", "我表姐的老家是哪里？", "我下属在哪上班？",
    "what's my sister's job?", "what does your brother do for work?",
    "which city did Mina move to?", "what kind of work does my boss do, I wonder?",
    "where's home for your sister?", "what kind of work did Mel's dad do, do you know?",
])
def test_a_question_about_someone_else_or_no_kind_is_left_alone(question):
    assert asked_of_asker(question) == ()


@pytest.mark.parametrize("question, line, another", [
    ("我老家在哪？", "我上司的老家是江苏苏州。", True),
    ("我老家在哪？", "我的一个下属，他老家是河北石家庄的。", True),
    ("我老家在哪？", "我表弟老家在福建厦门。", True),
    ("我老家在哪？", "我出生在成都，上大学才来的上海。", False),
    ("我老家在哪？", "我老家在遵义。", False),
    ("我在哪上班？", "我舅妈在江苏南京上班呢。", True),
    ("我在哪上班？", "我在一家银行上班。", False),
    ("what's my job?", "My brother hates his job at the bank.", True),
    ("what's my job?", "my sister works at a bank", True),
    ("what's my job?", "Nice job! You really put in the work.", False),
    ("what's my job?", "my job sucks but his job is worse", False),
    ("what's my job?", "I teach chemistry at the high school.", False),
])
def test_a_line_tells_another_persons_fact_when_each_word_of_the_kind_is_theirs(
        question, line, another):
    assert told_of_another(line, asked_of_asker(question)) is another


@pytest.mark.parametrize(("line", "another"), [
    ("Because I work as a teacher, I get the summer off.", True),  # the character's own
    ("Having to balance college and a teacher job is hard.", True),  # nobody's: the speaker's
    ("Your job at the bank sounds stressful.", False),  # the player's, said to them
    ("You'd be a great teacher!", False),  # speaks to the player
    ("我在一家银行上班。", True),
    ("你在银行上班很辛苦吧。", False),
])
def test_a_line_the_character_said_tells_its_own_fact_by_i_and_the_players_by_you(line, another):
    words = asked_of_asker("what do I do for work?" if line.isascii() else "我在哪上班？")
    assert told_of_another(line, words, by_asker=False) is another


@pytest.mark.parametrize(("question", "line", "by_asker", "told"), [
    ("我上班是干什么的？", "我在社区医院当药剂师，经常值夜班。", True, True),
    ("我上班是干什么的？", "我的下属的单位叫北京卓越营销有限公司。", True, False),
    ("我上班是干什么的？", "我手下的员工在山东青岛工作呢。", True, False),
    ("我上班是干什么的？", "我叔叔是个内科专家。", True, False),
    ("whats my line of work again", "I work at a local IT company", True, True),
    ("where am I going on vacation?", "We're planning a trip to Portugal.", True, True),
    ("我去哪玩来着？", "我们打算明年去云南旅行。", True, True),
    ("我去哪玩来着？", "我们的老师去云南旅行了。", True, False),
    ("whats my line of work again", "With 5 work days, you lose a day of work.", True, False),
    ("whats my line of work again", "I work as a teacher, summers off!", False, False),
    ("whats my line of work again", "How is your work at the bank going?", False, True),
])
def test_a_line_tells_the_askers_own_fact_when_the_asker_speaks_of_themselves(
        question, line, by_asker, told):
    assert told_by_asker(line, asked_of_asker(question), by_asker=by_asker) is told


def _hit(doc_id: str, text: str, score: float, keyword: float, dense: float = 0.0,
         role: str = "user") -> FusedHit:
    return FusedHit(id=doc_id, collection="turns", text=text, score=score,
                    metadata={"instance_id": "inst", "role": role}, keyword=keyword,
                    dense=dense)


def test_the_asker_s_own_fact_comes_before_another_person_s():
    hits = [_hit("boss", "我上司的老家是江苏苏州。", 0.80, 1.0),
            _hit("own", "我出生在成都，上大学才来的上海。", 0.70, 0.4)]
    assert [hit.id for hit in others_lower("我是哪里人？", hits)] == ["own", "boss"]
    # Asked about the boss, the boss's line stays first.
    assert [hit.id for hit in others_lower("我上司是哪里人？", hits)] == ["boss", "own"]


def test_the_characters_own_job_comes_after_the_players():
    # REALTALK Chat_8: the character's teacher lines ranked above the player's "I work at a
    # local IT company" for "whats my line of work again" (14th).
    hits = [_hit("theirs", "Because I work as a teacher, I get summers off.", 0.80, 1.0,
                 dense=0.9, role="assistant"),
            _hit("own", "I work at a local IT company", 0.70, 0.8, dense=0.6)]
    assert [hit.id for hit in others_lower("what's my line of work?", hits)] == [
        "own", "theirs"]
    # Said by the player, the same words are the player's own.
    hits[0].metadata["role"] = "user"
    assert [hit.id for hit in others_lower("what's my line of work?", hits)] == [
        "theirs", "own"]


def test_the_askers_own_telling_comes_before_lines_that_only_share_the_kinds_word():
    # u46: "我上班是干什么的？" found "我在社区医院当药剂师" 8th, under lines about a park and
    # an uncle; raised as much as another person's fact is lowered, it comes first.
    hits = [_hit("park", "我去参观的公园是笔架山公园。", 0.50, 0.0, dense=0.9),
            _hit("own", "我在社区医院当药剂师，经常值夜班。", 0.40, 0.3, dense=0.6)]
    assert [hit.id for hit in others_lower("我上班是干什么的？", hits)] == ["own", "park"]
    assert [hit.id for hit in others_lower("我上司上班是干什么的？", hits)] == ["park", "own"]


def test_another_person_s_fact_close_in_meaning_comes_after_the_asker_s_own():
    # The dense side finds "我上司上班的地方在深圳" as close to "我在哪上班？" as the asker's
    # own line, which holds only a statement's word (律师).
    hits = [_hit("boss", "我上司上班的地方在深圳。", 0.85, 1.0, dense=1.0),
            _hit("own", "我现在在一家律所当律师助理。", 0.55, 0.4, dense=0.7)]
    assert [hit.id for hit in others_lower("我在哪上班？", hits)] == ["own", "boss"]
    assert [hit.id for hit in others_lower("我上司在哪上班？", hits)] == ["boss", "own"]


def test_a_line_matching_through_another_person_s_line_before_it_comes_after_the_asker_s():
    # The keyword side scores a turn with the lines before it: "我上司的身高…" held 老家 from
    # "我上司的老家…" and ranked above the asker's own line (2nd against 5th in play).
    height = _hit("height", "我上司的身高是171厘米。", 0.75, 0.9, dense=0.2)
    own = _hit("own", "我出生在成都，上大学才来的上海。", 0.60, 0.4, dense=0.6)
    context = {height.key: ["我上司的老家是江苏苏州。", "挺好的。"]}
    assert [hit.id for hit in others_lower("我老家在哪？", [height, own], context)] == [
        "own", "height"]
    # With no context, or the context the asker's own, the line stands.
    scores = {hit.id: hit.score for hit in others_lower("我老家在哪？", [height, own])}
    assert scores["height"] == 0.75
    mine = {height.key: ["我老家是江苏苏州。"]}
    scores = {hit.id: hit.score for hit in others_lower("我老家在哪？", [height, own], mine)}
    assert scores["height"] == 0.75


@pytest.mark.parametrize(("question", "asks_of_asker"), [
    ("what do I do for work?", True),
    ("do you remember what I do for work?", True),  # "you" only asks to remember
    ("can you remind me what i do for a living", True),
    ("what time do u wake up for work? no i mean after the party", False),  # the character's
    ("what kind of work do you do?", False),
])
def test_you_in_a_question_names_the_character_unless_it_asks_to_remember(question,
                                                                          asks_of_asker):
    assert bool(asked_of_asker(question)) is asks_of_asker


@pytest.mark.parametrize(("question", "line", "told"), [
    # R4: a fact told without a word of its kind (stated.STATED), by the asker only.
    ("我是干啥工作的来着？", "我在青岛一家酒店掌勺，天天忙到半夜。", True),
    ("我上班是做什么的？", "我在支行管信贷业务，天天跟客户打交道。", True),
    ("我是干啥工作的来着？", "我在家做饭，等你回来。", False),
    ("我是干啥工作的来着？", "我表哥在青岛一家酒店掌勺。", False),
    ("how old am i again?", "im 24 btw, way too young for this back pain", True),
    ("how old am i again?", "im 5 minutes away", False),
    ("我今年多大来着？", "我今年三十五了，腰开始不行了。", True),
    ("我今年多大来着？", "我表弟今年31岁。", False),
    # A home town told as where one is from, with no word of the row.
    ("你还记得我是在哪儿长大的不？", "我是盐城乡下出来的，小时候天天帮家里插秧。", True),
    ("我老家在哪？", "我是东北人，受不了南方的湿冷。", True),
    ("我老家在哪？", "我是老实人，不会说谎。", False),
    ("我老家在哪？", "我是个急性子。", False),
    ("where am i from originally?", "I'm originally from a tiny town near Leeds", True),
    ("where am i from originally?", "I'm from work, just got home", False),
])
def test_the_asker_tells_a_job_or_an_age_without_its_word(question, line, told):
    assert told_by_asker(line, asked_of_asker(question)) is told


@pytest.mark.parametrize(("question", "line"), [
    ("remember my pup's name?", "Our golden retriever Biscuit chewed through another leash."),
    ("whats my kitty called again", "We adopted a tabby last month, she's called Pepper"),
    ("我家的狗叫啥？", "我养了一条金毛，叫旺财。"),
])
def test_a_pet_asked_by_one_word_is_told_by_another_or_its_breed(question, line):
    assert told_by_asker(line, asked_of_asker(question))


def test_the_owner_may_stand_a_word_before_the_kinds_word():
    # "our golden retriever", "my dad's old Subaru": an adjective between owner and word.
    words = asked_of_asker("what's my dog called?")
    assert told_by_asker("Our golden retriever Biscuit chewed a leash.", words)
    assert told_of_another("My sister's little pug is so cute.", words)


def test_a_job_told_without_its_word_comes_before_others_jobs():
    # memdaily u41: "我在青岛一家酒店掌勺" held no word of the job row and ranked under the
    # lines about others' work (23rd for 我是干啥工作的来着？).
    hits = [_hit("aunt", "舅妈在上海一家公司上班。", 0.60, 0.6, dense=0.8),
            _hit("own", "我在青岛一家酒店掌勺，天天忙到半夜。", 0.45, 0.0, dense=0.7)]
    assert [hit.id for hit in others_lower("我是干啥工作的来着？", hits)] == ["own", "aunt"]


@pytest.mark.parametrize(("question", "line", "told"), [
    # R5: an English job told as what one does, where or for whom (stated.STATED).
    ("what do i do for work again?", "I pour coffee at a cafe by the station most mornings",
     True),
    ("whats my line of work", "i stack boxes at a warehouse overnight", True),
    ("what's my occupation?", "I paint fences for people, mostly in summer", True),
    ("what's my day job again?", "Sorry, long week, I test games for a studio downtown", True),
    ("what's my day job again?", "I cook dinner for a friend on Fridays", False),
    ("what do i do for work again?", "I met him at a party once", False),
    ("what do i do for work again?", "I stayed at a hotel near the beach", False),
    ("what do i do for work again?", "my cousin pours coffee at a cafe", False),
])
def test_the_asker_tells_an_english_job_by_what_they_do(question, line, told):
    assert told_by_asker(line, asked_of_asker(question)) is told


@pytest.mark.parametrize(("line", "told"), [
    # "work" tells a job when where, as what or for whom follows; not "go to work".
    ("I work at a local IT company", True),
    ("I work weekends at a little bookshop downtown", True),
    ("Then I'm gonna go to the office and work on some projects", False),
    ("I just finished up with work, gonna get lunch", False),
    ("I've been working from home for a while now", False),
])
def test_work_tells_the_askers_job_only_with_where_or_as_what(line, told):
    assert told_by_asker(line, asked_of_asker("whats my line of work again")) is told


@pytest.mark.parametrize(("line", "told"), [
    # A pet is told by whose it is or by having it; the bare word speaks of the kind.
    ("my cat mochi knocked my coffee over again", True),
    ("we have a parakeet named kiwi", True),
    ("We adopted a tabby kitten last month", True),
    ("I wonder what cats are thinking", False),
    ("I saw that black cat from a while ago again", False),
    ("I put out a small cat house but they don't use it", False),
])
def test_a_pet_is_the_askers_when_theirs_or_had(line, told):
    question = "whats my birds name" if "parakeet" in line else "whats my cats name"
    assert told_by_asker(line, asked_of_asker(question)) is told


def test_a_fact_told_without_its_word_counts_as_holding_a_statements_word():
    # conv-42 / u48: "I pour drinks at a bar downtown" and "我在一家面包店做烘焙" hold nothing the
    # keyword side finds, so raising them by their own (zero) keyword score left them under
    # lines that only say "work" (12th and 16th).
    for question, generic, own in [
            ("what do i do for work again?", "Work days are so long in winter.",
             "Sorry I was quiet, I pour coffee at a cafe by the station."),
            ("我是干什么工作的？", "工作日的地铁太挤了。", "我在一家面包店做烘焙，天天四点起床。")]:
        hits = [_hit("generic", generic, 0.50, 0.6, dense=0.4),
                _hit("own", own, 0.30, 0.0, dense=0.6)]
        assert [hit.id for hit in others_lower(question, hits)] == ["own", "generic"]


@pytest.mark.parametrize(("question", "person"), [
    ("我叔叔的邮箱是啥来着？", "叔叔"), ("叔叔的邮箱是啥", "叔叔"),
    ("我的下属的电话是多少", "下属"), ("你还记得我爸爸的电话吗", "爸爸"),
    ("表哥生日是哪天", "表哥"),
    # Nobody, or two people: no one person is asked of.
    ("我的邮箱是啥", ""), ("我老家在哪", ""), ("我表格里写的啥", ""), ("我表哥和我叔叔谁大", ""),
])
def test_a_chinese_question_names_the_person_it_asks_of(question, person):
    assert person_asked_zh(question) == person


@pytest.mark.parametrize(("line", "person", "other"), [
    ("我同事的邮箱是wanglin@x.com。", "叔叔", True),
    ("我的下属的邮箱地址是z@x.com。", "叔叔", True),
    ("我叔叔的邮箱地址是li@x.com。", "叔叔", False), ("我叔的电话是123。", "叔叔", False),
    # One person by another word, a line naming the person later, a line of nobody's.
    ("我父亲的电话是123。", "爸爸", False), ("我妈说我爸的电话换了。", "爸爸", False),
    ("我将要参加音乐会。", "叔叔", False), ("他叔叔的电话是123。", "表哥", False),
    # Two cousins share 表: taken for one, as a line lowered wrongly loses its answer.
    ("我表姐的生日是五月。", "表哥", False),
])
def test_a_line_opening_with_another_of_the_askers_people_tells_of_them(line, person, other):
    assert told_of_other_person_zh(line, person) is other


def test_a_line_about_the_person_asked_comes_before_one_about_another():
    hits = [_hit("colleague", "我同事的邮箱是wanglin0821@bjzyyx.com。", 1.0, 1.0, dense=0.8),
            _hit("uncle", "我叔叔的邮箱地址是liweiguo0201@hangzhouwestlakehospital.com。", 0.7,
                 0.63, dense=0.58)]
    assert [hit.id for hit in persons_lower("我叔叔的邮箱是啥？", hits)] == ["uncle", "colleague"]
    # Asked about the colleague, or about nobody, the order stays.
    assert [hit.id for hit in persons_lower("我同事的邮箱是啥？", hits)] == ["colleague", "uncle"]
    assert [hit.id for hit in persons_lower("我的邮箱是啥？", hits)] == ["colleague", "uncle"]
