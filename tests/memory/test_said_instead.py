"""A question names the kind of fact ("what's my job?"), the line that told it the fact ("I work
as a radiographer"): the keyword side counts what a statement says instead as the question's
word, at a lower weight (memory/keyword_index/said_instead.py)."""

from __future__ import annotations

import numpy as np
import pytest

from memory.keyword_index.bm25 import KeywordPart, bm25_scored
from memory.keyword_index.said_instead import Term, kinds_asked, query_terms


def _statement_words(query: str) -> set[tuple[str, ...]]:
    return {run for term in query_terms(query) for run in term.instead}


def test_a_question_word_brings_the_words_a_statement_says_instead():
    term = next(term for term in query_terms("what's my job?") if term.instead)
    assert term.own == ("job",) and {("work",), ("career",), ("nurs",)} <= set(term.instead)
    assert ("老家",) in _statement_words("我是哪里人来着？")
    assert ("女朋", "朋友") in _statement_words("我对象叫什么名字？")


def test_an_idiom_is_searched_by_the_statement_words_only():
    # "for a living" is not "live": "I live in Paris" holds none of it.
    term = next(term for term in query_terms("what do I do for a living?") if term.instead)
    assert term.own == () and ("work",) in term.instead


def test_what_a_thing_is_for_does_not_ask_for_every_line_about_work():
    # "干什么的" also asks what a thing is for; Chinese chat says 工作 and 上班 in most lines.
    assert ("工作",) not in _statement_words("这个是干什么的？")
    assert ("工作",) not in _statement_words("我叔叔的那个工具是干嘛的？")
    assert ("工作",) in _statement_words("我的职业是什么？")


@pytest.mark.parametrize("question", ["我是干嘛的来着？", "我是干什么的？", "你是做什么的？",
                                      "是干啥"])
def test_what_a_person_does_asks_for_their_job(question):
    # After a pronoun (or where the searched query starts: the pronoun was stripped) the
    # same words ask what someone does for a living.
    assert {("工作",), ("医院",), ("律师",)} <= _statement_words(question)


def test_a_key_inside_another_kinds_key_asks_for_nothing():
    # "老家在哪" holds "家在哪" (where one lives) across the end of "老家": not a move.
    assert ("住在",) not in _statement_words("我老家在哪？")
    assert ("出生",) in _statement_words("我老家在哪？")
    assert ("住在",) in _statement_words("我家在哪？")


@pytest.mark.parametrize("question, word", [("我是在哪儿出生的？", "出生"),
                                            ("我是做什么工作的？", "工作")])
def test_a_chinese_keys_own_word_said_alone_is_a_statement_word(question, word):
    # The key's bigrams are all needed for its own run: "我出生在成都" holds 出生 of 在哪儿出生
    # and nothing else of it, and had 0 on the keyword side.
    assert (word,) in _statement_words(question)
    lines = ["我的下属过生日是在12月14日。", "我出生在成都，上大学才来的上海。", "今天天气不错。"]
    scores, _, _ = _scores(lines if word == "出生" else
                           ["我表姐的工作是什么来着？", "我在医院工作。", "今天天气不错。"],
                           question.strip("我？的"))
    assert scores[1] > 0


def test_other_words_stay_plain_terms():
    assert query_terms("which city did Mina move to?") == [
        Term(own=("citi",)), Term(own=("mina",)), Term(own=("move",))]


def _scores(lines: list[str], query: str) -> tuple[np.ndarray, np.ndarray, float]:
    part = KeywordPart("turns")
    for turn, text in enumerate(lines, start=1):
        # A session each: a line is scored with the lines before it in its session.
        part.add(f"turn_s{turn}_1_user", text, {"session_id": f"s{turn}", "turn": 1,
                                                "role": "user"})
    scores, held, full = bm25_scored([(part, np.ones(len(lines), dtype=bool))], query)
    return scores[0], held[0], full


def test_the_line_that_told_the_fact_holds_the_question_below_a_line_saying_its_word():
    scores, held, full = _scores(["I work as a night-shift radiographer.",
                                  "My brother hates his job at the bank.",
                                  "The weather is lovely today."], "what's my job?")
    assert scores[1] > scores[0] > scores[2] == 0
    assert held[0] == held[1] == full  # a statement's word covers the question's word


def _best(lines: list[str], query: str) -> int:
    scores, _, _ = _scores(lines, query)
    return int(np.argmax(scores)) if scores.max() > 0 else -1


# (a question naming a kind of fact, the line that told it without the question's words)
KINDS = [
    ("what's my line of work again?", "Long shift. I've been a paramedic for ten years."),
    ("what did I say I do for work?", "I've been a paramedic for ten years."),
    ("where did I grow up?", "I was born and raised in Cork."),
    ("what's my hometown?", "I grew up in a fishing village."),
    ("what's my spouse called?", "My husband Teodor built our table."),
    ("do I have any siblings?", "My twin Ola calls every Sunday."),
    ("what's my pet called?", "Our kitten Miso rules the flat."),
    ("what kind of vehicle do I have?", "I ride a red scooter to the station."),
    ("is there anything I can't eat?", "I'm lactose intolerant, no cream please."),
    ("when's my birthday?", "I was born on the fourth of May."),
    ("what do I do in my spare time?", "Every weekend I go bouldering."),
    ("how old are my kids?", "My daughter just turned six."),
    ("what did I study?", "I graduated in chemistry from Leeds."),
    ("我在哪儿上班？", "我在一家银行做柜员，天天数钱。"),
    ("我的家乡是哪里？", "我小时候在哈尔滨长大，冬天特别冷。"),
    ("我是在哪儿出生的？", "我老家在遵义。"),
    ("我对象是做什么工作的？", "我老公是程序员，天天加班。"),
    ("我有兄弟姐妹吗？", "我妹妹在北京读书。"),
    ("我养的宠物叫什么？", "我们家的猫咪叫团子。"),
    ("我有什么忌口？", "我对花生过敏。"),
    ("我生日是哪天？", "我是三月十四号出生的。"),
    ("我的爱好是什么？", "每周六我都去攀岩。"),
    ("我们下次去哪儿玩？", "我们下个月去青岛，酒店都订好了。"),
    # A job told by what one does; a hometown asked as 哪儿的人.
    ("what's my job?", "Sorry I'm late, I teach chemistry at the high school."),
    ("what do I do for work?", "I'm retired now, forty years on the railway."),
    ("我是做什么工作的？", "我在一所中学教化学，天天改作业。"),
    ("我是哪儿的人？", "我是在成都出生的，后来才搬到北京。"),
]
OTHER_LINES = ["The weather is lovely today.", "Did you see the game last night?",
               "今天的天气真不错。", "我们晚上吃火锅吧。"]


def test_a_question_naming_a_kind_of_fact_finds_the_line_that_told_it():
    missed = [(question, line) for question, line in KINDS
              if _best([*OTHER_LINES, line], question) != len(OTHER_LINES)]
    assert missed == []


def test_a_question_about_a_thing_does_not_draw_every_line_about_work():
    # "这个是干什么的？" asks what a thing is for: lines saying 上班 or 工作 are not its answer.
    lines = ["我明天还要上班。", "工作好累啊。", "我在公司加班。", "这个按钮是开关。"]
    scores, _, _ = _scores(lines, "这个是干什么的？")
    assert scores[0] == scores[1] == scores[2] == 0


@pytest.mark.parametrize(("question", "lines"), [
    # R4: an age asked as 多大 / 几岁 is told as a number; the line about the same person's
    # other fact came first.
    ("表弟多大", ["我表弟在上海工作呢，我表弟很忙。", "我表弟今年31岁。", "今天天气不错。"]),
    ("上司 几岁", ["我上司在广州上班，我上司人很好。", "我的上司已经40岁了。", "今天天气不错。"]),
    # A pet asked by one word is told by another, or by its breed.
    ("remember my pup's name", ["I lost my keys again.", "Our golden retriever Biscuit ate a "
                                "leash.", "Nice weather today."]),
    ("家的狗叫啥", ["我家在北京。", "我养了一条金毛，叫旺财。", "今天天气不错。"]),
])
def test_a_question_in_one_word_finds_the_line_that_says_it_in_another(question, lines):
    scores, _, _ = _scores(lines, question)
    assert scores[1] > scores[0] and scores[1] > scores[2]


def test_how_old_asks_for_years_not_for_anything_old():
    scores, _, _ = _scores(["My old car broke down again.", "I'm 24 years old.", "Hi."],
                           "how old am i")
    assert scores[1] > 0 and scores[0] == 0


@pytest.mark.parametrize("question", ["房子多大？", "这块手表多大？", "多大的雨啊", "手表 多大"])
def test_a_size_asked_with_duobig_asks_no_age(question):
    assert ("岁",) not in _statement_words(question)


@pytest.mark.parametrize("question", ["我老婆是干什么的", "我表弟是做什么的？"])
def test_what_a_person_named_by_kin_does_asks_for_their_job(question):
    assert ("工作",) in _statement_words(question)


@pytest.mark.parametrize("question", ["表弟多大", "他多大？", "我今年多大来着？",
                                      "我舅舅多大岁数了？",
                                      # The searched query, its fillers taken out.
                                      "表姐 多大", "他 多大"])
def test_duobig_after_a_person_or_a_time_asks_an_age(question):
    assert ("岁",) in _statement_words(question)


@pytest.mark.parametrize(("question", "lines"), [
    # R6: a name is asked as "name" and told as what one calls it.
    ("what did i name my cat?", ["That kitten at the shelter was so cute.", "We adopted a "
                                 "kitten last month, she's called Pepper.", "Nice weather."]),
    # A birth in the family is asked as having a kid, told by the baby or by what one became;
    # "kid" alone is any child.
    ("who just had a kid?", ["The kids at the park were so loud today.",
                             "my older sis just had a baby boy, im an uncle now!!",
                             "Nice weather."]),
    # 打 is the spoken 从: where one comes from is told by where one was born.
    ("是打哪儿来", ["我打算明天去超市买点菜。", "我出生在成都，上大学才来的上海。",
                    "今天天气不错。"]),
    # One person by another word for them.
    ("我领导今年多大", ["我同事35岁了。", "赵国庆是我的上司，其年龄是42岁。",
                        "今天天气不错。"]),
    ("how old is my manager?", ["My coworker is 31.", "My supervisor turned 50 last week.",
                                "Nice weather."]),
    ("我老婆是干什么的来着", ["我上司在浙江杭州上班呢。", "我媳妇在杭州一家医院做麻醉师。",
                              "今天天气不错。"]),
    ("我领导叫什么名字", ["我上司他们家是北京的。", "我的上司名叫郭梦婷。", "今天天气不错。"]),
    # What one saves for is told by putting money aside.
    ("what am i saving up for again", ["I went up the hill again.", "Been putting 200 bucks "
                                       "aside every month, I really want a used Ducati.",
                                       "Nice weather."]),
    # A sport is asked by the word and told by the game; a hobby by the class one took.
    ("我表哥平时玩啥运动", ["我表哥今年42岁了。", "我表哥特别爱攀岩。", "今天天气不错。"]),
    ("what sport is my cousin into?", ["My cousin lives in Ohio.", "My cousin has been "
                                       "bouldering every weekend.", "Nice weather."]),
    ("what hobby did i try out", ["The new ramen place is open.", "i took a pottery class at "
                                  "the rec center and made the ugliest mug ever",
                                  "Nice weather."]),
    # An animal is asked by its class and told by its kind.
    ("what animal am i babysitting", ["I realized I have a lot more photos of people.",
                                      "it's just me and the neighbors iguana that we're watching",
                                      "Nice weather."]),
    ("我养的是什么小动物来着", ["我在成都。", "阳台上那两只乌龟天天晒太阳。", "今天天气不错。"]),
    # A diet by what one cuts, an instrument by its name, getting around by the ride, a fear by
    # what one cannot bring oneself to do.
    ("what diet am i on", ["I'm on the couch.", "day 20 of no carbs and i would kill for a "
                           "bagel", "Nice weather."]),
    ("what instrument have I been learning?", ["My sister bought a new lamp.",
                                               "Been practicing cello scales every night.",
                                               "Nice weather."]),
    ("how do I get around town?", ["My sister bought a new lamp.",
                                   "I take public transport mostly.", "Nice weather."]),
    ("what's my big phobia?", ["My sister bought a new lamp.", "I still can't make myself get on "
                               "a plane.", "Nice weather."]),
    ("我平时怎么上班来着", ["我姐买了一盏台灯。", "我每天挤地铁，单程一个小时。",
                            "今天天气不错。"]),
    ("我最怕什么来着", ["我姐买了一盏台灯。", "我一直不敢坐过山车。", "今天天气不错。"]),
    # A thing asked as what it is called is told by its name; a plant, a coffee order, what one
    # trains for and a landlord by their kind, drink, event and rent.
    ("whats ur friends kitten called again", ["I bought a lamp.", "Her name is mittens",
                                              "Nice weather."]),
    ("whats my plant called", ["I bought a lamp.", "my pothos finally grew a new vine",
                               "Nice weather."]),
    ("whats my usual coffee order", ["I bought a lamp.", "the barista makes my iced oat cortado",
                                     "Nice weather."]),
    ("what am i training for again", ["I bought a lamp.", "i signed up for a half marathon",
                                      "Nice weather."]),
    ("what am i studying at uni again?", ["I bought a lamp.", "Switched my major to history "
                                          "this semester", "Nice weather."]),
    ("who's my landlord", ["I bought a lamp.", "Mr. Patel came by for the rent again.",
                           "Nice weather."]),
    # A name told before who the person is to the teller.
    ("我上司叫啥来着？", ["我上司在上海上班呢。", "赵宇轩是我的上司，其教育背景是本科。",
                          "我上司的单位叫上海浦东银行支行。"]),
    ("我房东是谁来着？", ["我姐买了一盏台灯。", "楼下王阿姨每个月五号上门收房租。",
                          "今天天气不错。"]),
    ("that weird breakfast u told me about", ["I had a sandwich today.", "I think the oddest "
                                              "ive ever had is a spicy soup", "Nice weather."]),
    ("wats the grossest thing u ever ate", ["I had a sandwich today.", "The weirdest would "
                                            "have to be Bovine colostrum", "Nice weather."]),
    # A dance by its style, a university by getting in, a son by 小子, how long by the span.
    ("what kinda dancing am i learning now", ["I bought a lamp.", "i signed up for salsa "
                                              "classes tuesdays", "Nice weather."]),
    ("我最近在学啥舞来着", ["我姐买了一盏台灯。", "我报了个街舞班，每周六上课。",
                            "今天天气不错。"]),
    ("我家小子在哪儿念大学来着？", ["我姐买了一盏台灯。", "我儿子今年考上了南航。",
                                    "今天天气不错。"]),
    ("那个瑜伽之旅要搞多久来着", ["瑜伽之旅的地点是上海。", "瑜伽之旅的持续时间是四个周。",
                                  "今天天气不错。"]),
    # A wild bird by its kind, an award by what was given, how many came by the size.
    ("wats ur fav bird again", ["I bought a lamp.", "Eagles have always mesmerized me",
                                "Nice weather."]),
    ("那个去外国练瑜伽的活动叫啥", ["瑜伽阅读汇在上海。", "异域瑜伽之旅的主要内容是体验异国"
                                    "风光，开展户外教学。", "今天天气不错。"]),
    ("what was the book u switched to?", ["I bought a lamp.", "Instead of that one I started "
                                          "reading 2666", "Nice weather."]),
    ("how many people showed up to his party?", ["I bought a lamp.", "Seven friends attended "
                                                 "in the end", "Nice weather."]),
    ("what surface did I want in the studio?", ["I bought a lamp.", "I'm after Marley "
                                                "flooring, it's grippy", "Nice weather."]),
    ("what award did the shelter give her?", ["The shelter is downtown.", "they gave me a medal "
                                              "last week!", "Nice weather."]),
    ("那个音乐会有多少人参加来着", ["音乐会的地点是上海。", "音乐会的规模是五千人。",
                                    "今天天气不错。"]),
    # A day asked as 几号 / 啥时候 is told as its time.
    ("交流盛典是几号", ["交流盛典的地点是广东深圳。", "交流盛典的时间是2024-04-13 14:00。",
                        "今天天气不错。"]),
    ("我女儿读几年级了", ["我女朋友读研究生。", "我闺女今年刚上小学一年级。", "今天天气不错。"]),
    # What one likes best is told as a favourite.
    ("what kind of stuff does she like painting best", [
        "She paints a lot these days.", "Landscapes and still life are my favorite to paint!",
        "Nice weather."]),
    # Who one lives with, in another word; a colour by its name.
    ("wait where's my flatmate off to again?", [
        "My sister moved to Ohio.", "My roommate Priya just got an offer in Seattle.",
        "Nice weather."]),
    ("what did i tell u my fav color was", [
        "I bought a new lamp.", "love the vase! Blue's my fave, it makes me feel relaxed.",
        "Nice weather."]),
    ("what was that boozy thing they went to", [
        "They went to the park.", "We went to a wine tasting last weekend and loved it!",
        "Nice weather."]),
    # A relative is told by who.
    ("which relative of mine opened a food place", [
        "I opened the window, it was hot.", "my cousin rafi finally opened his halal truck",
        "Nice weather."]),
    ("我婶婶念到啥程度了", ["我婶婶今年56岁。", "我婶婶学历挺高的，她是硕士毕业的。",
                            "今天天气不错。"]),
    # The weekend is told by its day.
    ("我周末那份兼职是干啥的来着", ["我每天早上骑车上班。", "我每周六上午去少年宫教小朋友下围棋。",
                                    "今天天气不错。"]),
    ("what do i do on weekends again", ["I ride to work every day.", "every saturday morning i "
                                        "teach chess at the community center", "Nice weather."]),
    # A word chat shortens meets the line that said it short...
    ("what is my little brother training to be", [
        "My cousin is a chef.", "my lil bro just got into culinary school in chicago",
        "Nice weather."]),
    # ...and a question typed short the line that said it long.
    ("that comp i was putting on w the other schools", [
        "My studio is near the other schools.", "I'm hosting a dance competition with the "
        "schools next month.", "Nice weather."]),
    # Where a family comes from is told by a people's name.
    ("where's my wife's family from, heritage wise?", [
        "My cousin's family loves the beach.", "My wife is half Japanese but she's never been "
        "there.", "Nice weather."]),
    # A pastime asked as what one loves to tinker with.
    ("他平时爱捣鼓啥", ["我的下属今年28岁。", "我的下属喜欢编程这个兴趣爱好。", "今天天气不错。"]),
    # Where an event is held by its venue.
    ("那个会在哪个城市开来着", ["美食创新会的规模是八百人。", "美食创新会的地点是山东青岛。",
                                "今天天气不错。"]),
    # Keeping in shape by the sport.
    ("what did i start doing to stay in shape", ["I need to start saving.", "Started hitting "
                                                 "the gym last week.", "Nice weather."]),
    # Money by its sums.
    ("whats my gig for extra cash", ["The gig I went to was loud.", "walking the neighbor's "
                                     "huskies for 20 bucks a pop, another gig lol",
                                     "Nice weather."]),
    # What the stomach cannot take, by what disagrees with it.
    ("what was the food my stomach can't handle", [
        "That food place downtown is great.", "Any dairy food I have doesnt agree with me",
        "Nice weather."]),
    # A gadget by what it is; a skill learnt by the course; a pet's haircut by its grooming.
    ("what was that gadget i took to the beach", [
        "The beach was packed.", "I bought a metal detector and walk along the beach.",
        "Nice weather."]),
    ("where did i pick up how to do the pups' haircuts", [
        "Pick a day and we'll go.", "I took a dog grooming course last spring.",
        "Nice weather."]),
    # A waterfall by the falls a place is named after; wins told as achievements.
    ("what was that waterfall i hiked to", ["I climbed a hill.", "I took this photo at a "
                                            "place called Whispering Falls.", "Nice weather."]),
    ("how did i keep my wins sorted", ["My team lost again.", "I color-code achievements "
                                       "so I can track them.", "Nice weather."]),
    # How many days an event is held asked as 开几天: its span.
    ("那个研讨会要开几天来着", ["研讨会的时间是周一。", "研讨会的持续时间是九天。",
                                "今天天气不错。"]),
    # A tournament said short; time out of town told by the trip.
    ("that online tourney i was in", ["I was in the kitchen.", "I made it to the semis of the "
                                      "tournament.", "Nice weather."]),
    ("what do my neighbors do when im outta town", [
        "I like my town.", "When I go on trips they water my plants.", "Nice weather."]),
    # Shopping said as 买买买; a music box as 八音盒; handmade as 手作.
    ("那个比着买买买的挑战赛", ["篮球挑战赛的时间是周五。", "活力购物挑战赛的主要内容是比拼"
                               "消费技巧。", "今天天气不错。"]),
    ("摆一堆手工八音盒的活动", ["读书会的主要内容是分享。", "音乐盒之韵·手作音乐会的主要"
                                "内容是音乐盒展览。", "今天天气不错。"]),
    # Height by its measure; chat's names of a day and an hour; a trip told as the vacation; an
    # animal met outdoors by its kind.
    ("她个儿多高来着", ["我表姐人很好。", "我表姐身高164厘米。", "今天天气不错。"]),
    ("how tall is my brother", ["My cousin is great.", "He's six feet two now.",
                                "Nice weather."]),
    ("what sport do i play every hump day after dark", [
        "I like my dog.", "joined a bowling league, wednesday nights",
        "Nice weather."]),
    ("the trip w her fam", ["My aunt is here.", "I have a picture from a vacation in Florida.",
                            "Nice weather."]),
    ("what critter did we run into", ["We got lost.", "I saw a bear on the hike "
                                      "today.", "Nice weather."]),
    # A post asked as a rank; an event's venue asked with 搞; a racket sport as 挥拍.
    ("他在公司里是个啥级别", ["我上司人很好。", "我的上司是总监。", "今天天气不错。"]),
    ("那个会在哪个城市搞来着", ["美食创新会的规模是八百人。", "美食创新会的地点是山东青岛。",
                              "今天天气不错。"]),
    ("那个比拼挥拍的盛会", ["我很喜欢吃面。", "竞技羽毛球盛宴的规模是三百人。",
                            "今天天气不错。"]),
    # Weather by what it was; bugs as critters; what one is called (称呼) by the pet name.
    ("the kinda weather they cant stand", ["They love the park.", "One thing they hate is "
                                           "snow.", "I made pasta."]),
    ("what critters did i end up buying", ["I went to the store.", "I settled for live beetles "
                                           "and crickets.", "Nice weather."]),
    ("平时咋称呼她", ["我上司人很好。", "我闺女小名叫糖糖。", "今天天气不错。"]),
    # A wish before dying told as one's lifetime; a pet's breeder as its adopting; a shop's deals
    # as its offers; the ride to work as the commute; what one sucks at as no strong suit; what
    # one gets over as a fear; consoles by their names, a PlayStation by its number.
    ("the thing i gotta witness before i die", ["I like sushi.", "I wanna see the northern "
                                                "lights in my lifetime.", "Nice weather."]),
    ("what did i say i gotta witness i die", ["I like sushi.", "northern lights, once in my "
                                              "lifetime", "Nice weather."]),
    ("did u get him from a breeder", ["I like sushi.", "He's adopted and full of energy.",
                                      "Nice weather."]),
    ("the deals n discounts on the shop", ["I like sushi.", "customers love the new offers "
                                           "and promotions", "Nice weather."]),
    ("so the ride to work isnt wasted time", ["I like sushi.", "I dont mind commuting, I read "
                                              "on the bus", "Nice weather."]),
    ("the part i always sucked at", ["I like sushi.", "reading sheet music isnt my strong "
                                     "suit", "Nice weather."]),
    ("what would it help me get over", ["I like sushi.", "a chance to beat my fear of "
                                        "crowds", "Nice weather."]),
    ("which consoles was i missing", ["I like sushi.", "I need a psp and a gameboy to finish "
                                      "my collection", "Nice weather."]),
    ("that old ps2 game", ["I like sushi.", "started ultimate spiderman on the playstation",
                           "Nice weather."]),
    ("what gave u the most trouble", ["I like sushi.", "fitting in was a challenge during "
                                      "pre-season", "Nice weather."]),
    # What one freaked out about told as a fear; a saying as the principle one holds; out back
    # as the yard; a dream place as the ideal one; a childhood as being younger.
    ("what did i set up out back for the pups", ["I like sushi.", "a play area in the "
                                                 "backyard", "Nice weather."]),
    ("what did they throw for him back when he was a kid", ["I like sushi.", "when I was "
                                                            "younger they threw me one",
                                                            "Nice weather."]),
    # Blowing off steam told as stress relief.
    ("whats her go-to when she needs to blow off some steam", ["I like sushi.", "Dance is my "
                                                               "stress relief",
                                                               "Nice weather."]),
    ("that pic of my dream studio", ["I like sushi.", "check my ideal dance spot by the water",
                                     "Nice weather."]),
    ("what was i always so freaked out about back then", ["I like sushi.", "I used to be "
                                                          "scared of what people think",
                                                          "Nice weather."]),
    ("he's got some saying about why he takes breaks", ["I like sushi.", "I adhere to the "
                                                        "principle that rest helps",
                                                        "Nice weather."]),
])
def test_a_question_in_one_wording_finds_the_line_told_in_another(question, lines):
    scores, _, _ = _scores(lines, question)
    assert scores[1] > scores[0] and scores[1] > scores[2]


def test_a_parent_asked_by_chats_name_for_one_is_told_as_dad_or_mom():
    said = {run for term in query_terms("what was my old mans job") for run in term.instead}
    assert ("dad",) in said and ("father",) in said
    said = {run for term in query_terms("where did my old lady grow up") for run in term.instead}
    assert ("mom",) in said
    assert [key for key, _ in kinds_asked("what was my old mans job")] == ["job"]


def test_a_day_asked_is_not_told_by_how_long_it_lasts():
    # "…的持续时间是五个周" held the 时间 of "…的时间是下下周二下午两点" and drew level with it.
    scores, _, _ = _scores(["挑战之旅的持续时间是五个周。", "挑战之旅的时间是下下周二下午两点。",
                            "今天天气不错。"], "挑战之旅是哪天几点")
    assert scores[1] > scores[0]


def test_the_characters_across_the_end_of_a_key_are_no_word():
    # "老家是哪": 家是 is no word of the question; it drew "我上司他们家是北京的" above the
    # line that told the home town. Across a key's start the owner stays tied to it (司生).
    assert ("家是",) not in {term.own for term in query_terms("老家是哪")}
    assert ("司生",) in {term.own for term in query_terms("上司生日是哪天")}
    scores, _, _ = _scores(["我上司他们家是北京的。", "我是在大连出生的，高中毕业才离开。",
                            "今天天气不错。"], "老家是哪")
    assert scores[1] > scores[0]


def test_a_name_asked_is_no_kind_of_the_askers_own_fact():
    # "what's the name of the band I liked?" asks of a band, not of the asker.
    assert kinds_asked("what's the name of the band I liked?") == []
    assert [key for key, _ in kinds_asked("what did i name my cat?")] == ["cat"]


def test_a_newborn_named_asks_no_birth():
    # "friends with a newborn child" names the child talked of; as a key it drew every line
    # saying "baby" or "uncle" (a REALTALK dev question fell out of the first ten).
    assert kinds_asked("When did Akib visit his friends with their newborn child?") == []
    assert [key for key, _ in kinds_asked("who in my family just had a kid?")] == ["had a kid"]


@pytest.mark.parametrize(("question", "line"), [
    ("what's my day job again?", "Sorry I'm late, I test games for a studio downtown."),
    ("我是做什么工作的？", "我在支行管信贷业务，天天跑客户。"),
    ("where am i from?", "I'm from Leeds, so the rain never bothers me."),
    ("what's my big phobia again?", "I still can't make myself get on a plane, I'd rather "
                                    "drive twelve hours."),
    ("我最怕什么来着？", "我特别怕蛇，看到图片都发抖。"),
    ("who's my boss at work again?", "Chief Ramirez put me back on the night rotation, that "
                                     "man never sleeps."),
    ("who's my manager again", "the head pharmacist karen chewed me out again for being late"),
    ("我领导是谁来着？", "周主任又把我调到夜班了。"),
    ("我平时有啥爱好来着？", "最近特别爱学外语，天天背单词。"),
    ("我平时有啥爱好来着？", "特别喜欢登山，一走就是一天。"),
    ("what hobby am i into these days?", "I'm really into bouldering lately, three nights a "
                                         "week."),
])
def test_a_fact_told_without_a_word_of_its_kind_is_found_by_the_keyword_side(question, line):
    # The player's line that tells it carries the kind's mark; another speaker's does not.
    scores, _, _ = _scores([*OTHER_LINES, line], question)
    assert int(np.argmax(scores)) == len(OTHER_LINES) and scores.max() > 0
    part = KeywordPart("turns")
    part.add("turn_s1_1_assistant", line, {"session_id": "s1", "turn": 1, "role": "assistant"})
    assert bm25_scored([(part, np.ones(1, dtype=bool))], question)[0][0].max() == 0


def test_things_working_out_ask_no_sport():
    assert kinds_asked("how did the interview work out?") == []
    assert [key for key, _ in kinds_asked("what sport is my cousin into?")] == ["sport"]


def test_a_name_told_before_who_the_person_is_counts_only_when_a_person_is_asked():
    # "赵宇轩是我的上司" answers "我上司叫啥", not "我小名叫啥" (the asker's own nickname).
    assert [term.marks for term in query_terms("我上司叫啥来着") if term.marks] == [
        ("~stated:领导",), ("~stated:名字",)]
    assert not any(term.marks for term in query_terms("我小名叫啥来着"))
