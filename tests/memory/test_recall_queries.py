"""Recall questions: split into their parts, conditions bridged, particles stripped without
breaking words, parts merged fairly; and a synthetic conversation through the real index."""

from __future__ import annotations

import pytest

from memory.keyword_index.bm25 import text_tokenize
from memory.recall.bridge import bridge_chosen, bridge_words
from memory.recall.queries import (
    condition_split,
    query_extract,
    question_focus,
    questions_split,
    topic_change_cut,
)
from memory.recall.rag import query_user_history, rankings_interleave, recall_mode
from memory.vectors.index import Hit, MemoryIndex


@pytest.mark.parametrize("text, parts", [
    ("我的下属平时都喜欢干点啥呢？另外，我喜欢的手机是哪一款呢？",
     ["我的下属平时都喜欢干点啥呢？", "我喜欢的手机是哪一款呢？"]),
    ("What did Caroline paint? Also, where did Mel go camping?",
     ["What did Caroline paint?", "where did Mel go camping?"]),
    ("我们的约定是什么，还有钥匙放在哪里", ["我们的约定是什么", "钥匙放在哪里"]),
    ("Where did you go? Why?", ["Where did you go? Why?"]),  # "Why?" alone is no question
    ("你还记得吗？", ["你还记得吗？"]),
    ("还有呢？", ["还有呢？"]),
])
def test_questions_split_into_their_parts(text, parts):
    assert questions_split(text) == parts


@pytest.mark.parametrize("text, query", [
    ("…规模是什么？", "规模是什么"),  # 么 of 什么 is no particle
    ("这个东西怎么", "这个东西怎么"),
    ("你还记得我们之前的约定吗？", "约定"),
    ("你吃饭了么", "吃饭"),  # a real trailing particle still goes
    ("我是哪里人来着？", "是哪里人"),  # 来着 ("…again?") is no part of what is asked
    ("Do you remember the red key?", "the red key"),
    ("remind me, what do I do for a living?", "what do I do for a living"),  # asks as "tell me"
])
def test_query_extract_strips_particles_but_never_breaks_a_word(text, query):
    assert query_extract(text) == query


@pytest.mark.parametrize("text, query", [
    ("What did I tell you about my sister?", "about my sister"),
    ("Did I ever tell you about the bees?", "about the bees"),
    ("Did I mention my new job?", "my new job"),
    ("The other day you mentioned a concert, which one?", "a concert which one"),
    ("我跟你说过我妹妹的事吗？", "妹妹的事"),
    ("我提过我的工作吗？", "工作"),
    ("上周我们去哪了？", "去哪"),
    # What one said of a thing is how it is asked, not what it is.
    ("上次说的那个手工阅享会是啥时候来着？", "那个手工阅享会是啥时候"),
    ("你上次提到的那家店叫啥？", "那家店叫啥"),
])
def test_asking_what_one_said_or_naming_a_time_asks_to_remember(text, query):
    """Recall is searched for these as for "remember", and the asking words are no query."""
    assert recall_mode(text) is not None
    assert query_extract(text) == query


@pytest.mark.parametrize("text, query", [
    ("what did I do for a living before the studio?", "what did I do for a living"),
    ("what was my job before I opened the bakery?", "what was my job"),
    ("开店之前我是干嘛的？", "是干嘛"),
    # No kind of personal fact is asked: the event is what the lines are about.
    ("Which city was John in before traveling to Chicago?",
     "Which city was John in traveling to Chicago"),
    # Without the words before 以前 no kind is named: 以前 is "formerly" there.
    ("我老家以前在哪？", "老家 在哪"),
])
def test_the_event_a_personal_fact_is_asked_before_is_not_searched(text, query):
    assert query_extract(text) == query


@pytest.mark.parametrize("text, query", [
    ("wats my job again lol", "what's my job again"),
    ("yo what do i do for a living", "what do i do for a living"),
    ("whats that book u keep reading called", "what's that book you keep reading called"),
    ("did you see it yesterday, bro?", "see it"),
    ("what animal am i babysitting rn lol", "what animal am i babysitting"),
    ("ngl idk what my sister does tbh", "what my sister does"),
    ("ugh what did my sister say", "what did my sister say"),
    # "wait" opening a question is a pause; said of waiting it stays.
    ("wait what did i say the perfect temp was again lol", "the perfect temp was again"),
    ("lol wait, which piece was it again", "which piece was it again"),
    ("I cant wait what a day", "I can't wait what a day"),
    # A correction's own words name nothing: "mean" drew lines opening "I mean it's…".
    ("nah i mean u, whats ur fav", "you what's your fav"),
    ("nope, I meant the blue one", "the blue one"),
    ("what does that word mean", "what does that word mean"),
    ("which one is urs", "which one is yours"),
    ("what animal did u say ud wanna come back as", "what animal say you'd wanna come back as"),
    ("nah wait i mean u, which day did u pick", "you which day pick"),
    ("wait where's my flatmate off to again?", "where's my flatmate off to again"),
    # A negation typed without its apostrophe is a stop word, not a rare word of the question.
    ("what did u do when u couldnt go hiking", "what do when you couldn't go hiking"),
    # "bro" after whose or which is a brother; opening a line it addresses the listener.
    ("where's my lil bro been spending his saturdays lately?",
     "where's my lil brother been spending his saturdays lately"),
    ("bro what does ur big bro do", "what does your big brother do"),
])
def test_chat_fillers_go_and_question_words_typed_without_apostrophe_are_written_out(text, query):
    assert query_extract(text) == query


@pytest.mark.parametrize("text, query", [
    # A vague time says only "in the past": searched, "while", "back" and "ages" drew lines
    # saying them. What was told to the player is asked as what was said.
    ("a while back u told me about some food that made u puke",
     "about some food that made you puke"),
    ("ages ago my wallet got swiped, what was I doing?", "my wallet got swiped what was I doing"),
    ("back in the day what did i do", "what did i do"),
    ("the way back home", "the way back home"),
])
def test_a_vague_time_and_what_was_told_are_no_words_of_the_question(text, query):
    assert query_extract(text) == query


def test_small_talk_asks_nothing_to_remember():
    assert recall_mode("Where do you work now?") is None and recall_mode("今天天气不错") is None


def test_question_focus_keeps_what_follows_a_repair():
    text = "今天天气真好，适合散步。哎，我真正想问的是：那个邮箱地址是a@b.cn的人，家乡是什么？"
    assert question_focus(text) == "那个邮箱地址是a@b.cn的人，家乡是什么"
    assert question_focus("What's up? I meant: where is the key?") == "where is the key"
    assert question_focus("家乡是什么？") == "家乡是什么？"


@pytest.mark.parametrize("text, asked", [
    # Talk first, then a change of subject to ask: only the question is searched.
    ("ugh the power went out again last night and I lost my save. anyway where'd you say you "
     "traveled to most recently?", "where'd you say you traveled to most recently?"),
    ("dude im dead tired, some lady screamed at me over her drink lol anyway whats ur usual "
     "boba order", "whats ur usual boba order"),
    ("long day at work, my feet hurt. btw, what instrument do you play?",
     "what instrument do you play?"),
    ("Anyways, by the way, what did you eat?", "what did you eat?"),
    ("累死了，加班到十点。对了，你上次说的那本书叫什么？", "你上次说的那本书叫什么？"),
    ("话说你上次去哪玩了", "你上次去哪玩了"),
    # Talk after the question points at nothing it asks.
    ("so much paperwork. random but who's my boss at work again? blanked on it when they asked",
     "who's my boss at work again? blanked on it when they asked"),
    # No change of subject: a word inside a sentence, after a question, or nothing after it.
    ("what did you say anyway?", "what did you say anyway?"),
    ("What is your dog called? Also, what is your cat called?",
     "What is your dog called? Also, what is your cat called?"),
    ("I also wanted to ask what your dog is called", "I also wanted to ask what your dog is "
     "called"),
    ("你说对了，我上次说的书叫什么？", "你说对了，我上次说的书叫什么？"),
    ("I went there, anyway.", "I went there, anyway."),
    # A pronoun after it points back into the talk.
    ("My sister is visiting. Also, when is her birthday again?",
     "My sister is visiting. Also, when is her birthday again?"),
    ("我表姐昨天来了。对了，她生日是哪天？", "我表姐昨天来了。对了，她生日是哪天？"),
])
def test_what_follows_a_change_of_subject_is_the_question(text, asked):
    assert topic_change_cut(text) == asked
    assert question_focus(text) == asked


@pytest.mark.parametrize("text, split", [
    ("那个人是工程师的电话号码能告诉我吗？", ("人是工程师", "电话号码能告诉我吗？")),
    ("那个当翻译员的，他是哪里人啊？", ("当翻译员", "他是哪里人啊？")),
    ("28岁的那个人生日是哪天来着？", ("28岁", "生日是哪天来着？")),
    ("那位内科专家的身高是多少呢？", ("内科专家", "身高是多少呢？")),
    ("28岁的那位生日是哪天？", ("28岁", "生日是哪天？")),
    # A condition with a 的 of its own: the thing is the word before the comma.
    ("那个琢磨咋让坐飞机的人更满意的大典，规模多大来着？",
     ("琢磨咋让坐飞机的人更满意", "大典，规模多大来着？")),
    ("硬件创新与发展论坛的持续时间是什么？", None),
    # The asker's own clause names the thing by the answer line itself: searched whole.
    ("我住的那个小区是哪个来着？", None),
    ("俺家新添的那个小丫头，平时咋称呼她来着？", None),
    ("那个我要参加的活动是美食游泳趣味节的活动，地点是什么？", None),
    # ...unless a condition after 那个 says which of the asker's events it is.
    ("上回说俺要去的那个五百人的盛宴，主要是去干啥的来着？",
     ("五百人", "盛宴，主要是去干啥的来着？")),
    # What was said of the thing is how it is asked, no condition.
    ("上次说的那个手工阅享会是啥时候来着？", None),
    ("你提到过的那家店叫啥？", None),
    ("上回跟你夸的那个手机是哪款来着？", None),
    ("我跟你推荐的那个牌子叫啥？", None),
    # The person is named; the clause only says which one.
    ("我那个爱做饭的表弟叫啥名字来着？", None),
    # A time and what the asker did: no condition on the park.
    ("前阵子逛的那个公园，我嫌它缺啥来着？", None),
    ("之前买的那个手机是啥牌子来着？", None),
])
def test_condition_split_finds_what_is_true_and_what_is_asked(text, split):
    assert condition_split(text) == split


def test_bridge_words_are_who_or_what_the_line_opens_with():
    assert bridge_words("我表姐的电话号码是18424143177。", "电话是18424143177") == "我表姐"
    # A head of one character names nobody: the line less the condition.
    assert bridge_words("我的上司是个工程师。", "是工程师") == "我的上司是个。"
    assert bridge_words("我将要参加美食运动狂欢节。", "美食运动") == "我将要参加狂欢节。"
    assert bridge_words("我表弟今年28岁，他的生日在冬天。", "28岁") == (
        "我表弟今年，他的生日在冬天。")
    # What the speaker did is no name: the event's name stays in the bridge.
    assert bridge_words("我将要参加的美食运动狂欢节，它的规模是三千人。", "三千人") == (
        "我将要参加的美食运动狂欢节，它的规模是。")


def test_bridge_words_keep_the_name_a_shared_run_is_part_of():
    # Dropping every character the condition shares made "美食创新会" "美食会"; the rest of the
    # line, the condition told again, drew every other event's description.
    line = "美食创新会的主要内容是启动会聚焦餐饮创新，厨师长分享烹饪心得。"
    assert bridge_words(line, "大厨们凑一块儿聊餐饮创新") == "美食创新会"
    line = "建筑技艺交流盛宴的主要内容是探讨建筑行业发展趋势，分享瓦工技艺，促进同行合作。"
    assert bridge_words(line, "大伙儿凑一块儿聊盖房子手艺、交流经验") == "建筑技艺交流盛宴"


def test_the_bridge_is_of_the_kind_of_thing_the_question_names():
    # The condition's words found another event's description first; the question asks of a
    # 读书会, and of the lines found next the 阅读会 is one.
    condition, asked = condition_split(
        "上回说俺要去的那个集邮的人凑一块儿聊邮票背后故事的读书会，前后得搞多久来着？")
    lines = ["邮旅探索之旅的主要内容是探索旅行地特色邮局，交流集邮心得，体验邮票背后的文化故事。",
             "邮旅探索之旅的地点是广东深圳。",
             "邮票故事阅读会的主要内容是集邮爱好者分享邮票故事，探讨邮票与阅读的关联。"]
    assert bridge_chosen(lines, condition, asked) == "邮票故事阅读会"
    # No kind named, or none of the lines of it: the first line's bridge.
    assert bridge_chosen(lines, condition, "前后得搞多久来着？") == "邮旅探索之旅"
    assert bridge_chosen(lines[:2], condition, asked) == "邮旅探索之旅"
    assert bridge_chosen([], condition, asked) == ""


def test_bridge_words_of_a_long_reply_stay_short():
    reply = "我表姐的电话号码是18424143177。" + "后来我们又聊了很多别的事情。" * 200
    assert bridge_words(reply, "电话是18424143177") == "我表姐"
    reply = "我的上司是个工程师。" + "后来我们又聊了很多别的事情。" * 200
    assert len(bridge_words(reply, "是工程师")) <= 60
    english = "My cousin Anna is an engineer " + "and we talked about many other things " * 100
    assert bridge_words(english, "an engineer").split()[:3] == ["My", "cousin", "Anna"]
    assert len(bridge_words(english, "an engineer").split()) <= 12


def test_chinese_is_tokenized_in_bigrams_and_english_in_stemmed_words():
    assert text_tokenize("规模是什么") == ["规模", "模是", "是什", "什么"]
    assert text_tokenize("She was painting sunsets") == ["paint", "sunset"]
    assert text_tokenize("runs, running; hiked a hike") == ["run", "run", "hike", "hike"]
    # An irregular verb's forms meet at the verb ("what did u eat" / "the weirdest thing I ate");
    # forms that are other everyday words stay themselves ("a bit", "turn left").
    assert text_tokenize("ate eaten eats; bought buys; met meeting") == [
        "eat", "eat", "eat", "buy", "buy", "meet", "meet"]
    assert text_tokenize("a bit left over") == ["bit", "left"]


def _hit(doc_id: str) -> Hit:
    return Hit(id=doc_id, collection="turns", text=doc_id, score=1.0)


def test_rankings_interleave_gives_every_part_a_fair_share_once():
    first = [_hit("a1"), _hit("a2"), _hit("shared"), _hit("a3")]
    second = [_hit("shared"), _hit("b2"), _hit("b3")]
    merged = [hit.id for hit in rankings_interleave([first, second], 5)]
    assert merged == ["a1", "shared", "a2", "b2", "b3"]


def test_the_same_seed_id_in_two_conversations_is_two_documents():
    """Session ids restart per instance, so `turn_sess_001_1_user` names a line in each of a
    character's conversations; recall over several of them keeps both (it kept one, at random)."""
    group = Hit(id="turn_sess_001_1_user", collection="turns", text="你还记得吗？", score=1.0,
                metadata={"instance_id": "inst_001"})
    alone = Hit(id="turn_sess_001_1_user", collection="turns", text="密码是 4711", score=0.9,
                metadata={"instance_id": "inst_002"})
    merged = rankings_interleave([[group], [alone]], 5)
    assert [hit.text for hit in merged] == ["你还记得吗？", "密码是 4711"]


def _lines(*texts: str) -> list[dict]:
    return [{"role": "user", "content": text, "turn": number, "timestamp": "2024-04-01T08:00:00Z"}
            for number, text in enumerate(texts, start=1)]


@pytest.fixture(scope="module")
def diary(tmp_path_factory):
    """A user's statements, one per turn, as MemDaily keeps them."""
    index = MemoryIndex(chroma_path=tmp_path_factory.mktemp("chroma"))
    filler = [f"今天的天气记录第{n}条，多云转晴，有风。" for n in range(30)]
    statements = ["我的上司是个工程师。", "我下属的电话号码是15357124720。",
                  "我上司的联系电话是19845027633。", "我住在龙湖小区。",
                  "我喜欢的手机是华为Mate60。", "我的下属喜欢听音乐会。",
                  "我表姐的电话号码是18424143177。", "我舅舅的电话号码是13912345678。",
                  "我同事的电话号码是13800001111。", "龙湖小区的绿化很好，住着舒服。",
                  "小区门口新开了一家超市。", "我住的小区离公司很近。"]
    texts = [line for pair in zip(filler, statements + [""] * 30) for line in pair if line]
    index.add_turns(instance_id="inst_d", character_id="c", background_id=None,
                    session_id="sess_001", turns=_lines(*texts))
    return index


def _found(result, text: str) -> bool:
    return any(hit.text == text for hit in result.hits)


def test_a_two_part_question_recalls_both_halves(diary):
    result = query_user_history("我住在哪个小区？另外，我喜欢的手机是哪一款呢？", "inst_d",
                                index=diary, force=True, k=3)
    assert _found(result, "我住在龙湖小区。")
    assert _found(result, "我喜欢的手机是华为Mate60。")


def test_a_conditional_question_recalls_the_line_with_the_answer(diary):
    result = query_user_history("那个人是工程师的电话号码能告诉我吗？", "inst_d",
                                index=diary, force=True, k=4)
    assert _found(result, "我的上司是个工程师。")
    assert _found(result, "我上司的联系电话是19845027633。")


def test_a_question_naming_a_thing_by_what_the_asker_did_recalls_the_asker_s_line(diary):
    # "我住的那个小区" is not a condition to bridge from: the condition "住" alone found any
    # line and its words led the second search away from the neighbourhood.
    result = query_user_history("那个人是工程师的电话号码能告诉我吗？另外，我住的那个小区是哪个来着？",
                                "inst_d", index=diary, force=True, k=4)
    assert _found(result, "我住在龙湖小区。")


def test_a_conditional_question_about_that_person_recalls_the_answer(diary):
    # 那位 is 那个 said politely: the same two hops.
    result = query_user_history("那位工程师的电话号码是多少？", "inst_d", index=diary, force=True, k=4)
    assert _found(result, "我上司的联系电话是19845027633。")


def test_recalled_lines_show_speaker_date_and_the_line_before(tmp_path):
    from chat.prompt.assemble import prompt_build
    from chat.prompt.inputs import PromptInputs
    from chat.prompt.templates import TemplateStore

    recalled = [
        {"text": "好，我答应你，我会冷静行动。", "role": "assistant", "speaker": "",
         "date": "2087-03-02", "source": "sess_003 #12 assistant",
         "neighbour": {"text": "你要答应我，不要冲动送死。", "role": "user", "speaker": ""}},
        {"text": "I found a red key.", "role": "user", "speaker": "Mara", "date": "",
         "source": "sess_001 #3 user", "neighbour": None},
    ]
    inputs = PromptInputs(character_name="Alserqi", user_name="阿明", base_persona="废土黑帮老大。",
                          evolved_persona="", world_setting="", background_name="",
                          director=None, recalled=recalled)
    system = prompt_build(inputs, TemplateStore(tmp_path).get("zh")).messages[0]["content"]
    assert "- [2087-03-02] (前文) 阿明：你要答应我，不要冲动送死。\n  Alserqi：好，我答应你，我会冷静行动。" in system
    assert "- Mara：I found a red key." in system
