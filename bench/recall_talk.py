"""Memory in play, asked the way people talk (issue 30): follow-ups that lean on the turn before
("And her birthday?", "那我上司呢？"), "that"/那个 references, vague times ("a while back"),
corrections ("no, I mean the cat"), a question inside a longer message, in a group a question
to one character about what another said, and the player's own facts asked in other words
("what's my job?" for "I teach chemistry", 我是哪里人？ for 我出生在成都). Dev conversations of
../shared/bench/ are imported as SillyTavern chats whose sessions end yesterday (as
bench/recall_spoken.py does); each probe's lead-in turns are played first, then its last turn is
measured through the real turn path.
Facts the dev data lacks are planted in it (PLANTED: a line of the player's in the middle of an
earlier session) or told in a lead-in turn ("said:N", the N-th turn, with five turns after it so
that it has left the newest messages).

    .venv/bin/python bench/recall_talk.py [--data ../shared/bench] [--keep-messages 10]
        [--only KIND] [--misses] [--match TEXT …]

A probe is found when a line holding its answer (any of its `evidence` ids: MemDaily says most
facts twice) reaches the model's request; @5 / @10 count it among the first 5 / 10 lines of
the recall section (the trace's recalled lines, best first). The prompt keeps the newest
--keep-messages messages, so older lines come from recall. Reported per kind and in all; ends
with `talk[all] found=… at5=… at10=… probes=…`. The probes were written before the app was
changed for them (PROBES below); the app knows nothing of them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h
import turn_overhead as t
from recall_in_play import settings_for_play
from recall_spoken import chat_records, session_days

# Five turns after a fact told in a lead-in turn: it leaves the newest --keep-messages (10).
SMALL_TALK = ["haha ok", "what are you up to today?", "nice, sounds fun", "same here lol",
              "anyway"]
SMALL_TALK_ZH = ["哈哈好的", "你今天忙什么呢？", "挺好的", "我也是", "嗯嗯"]
# Own facts in phrasings kept apart (2026-12-03): written before the mends of 我是干嘛的, of
# "before the studio" and of other people's facts on the dense side, and never looked at while
# making them (docs/memory.md, "The player's own facts asked in other words").
HELD = "own fact held out"
# A second such set (2026-12-03, M1): written before the mends of 我老家在哪？ against other
# people's lines and of the phrasings of job / home town still missed, never looked at meanwhile.
HELD2 = "own fact held out 2"
# file -> [(kind, turns as typed (the last one measured), evidence dia_ids (any one))], played
# in order (a fact told in a lead-in turn comes after the probes it would also answer);
# the player is speaker A. "group:" files are played with speaker B and GROUP_OTHER as members.
PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-26.json": [
        ("follow-up", ["I was looking at that necklace my grandma gave me today.",
                       "Where did she live again?"], ["D4:3"]),
        ("follow-up", ["Your kids must have loved the museum trip.",
                       "What were they most excited about?"], ["D6:6"]),
        ("follow-up", ["How's your daughter? Still talking about her birthday concert?",
                       "Who was the singer again?"], ["D11:3"]),
        ("follow-up", ["I'm still thinking about the adoption interviews.",
                       "when were they again?"], ["D19:1"]),
        ("reference", ["what was that book I told you to read called again?"], ["D7:11"]),
        ("reference", ["that bowl of mine with the pattern, who made it for me?"], ["D4:5"]),
        ("correction", ["What's the name of your dog?", "no, I mean the cat you got later"],
         ["D13:4"]),
        ("long", ["ugh, long day at the center, my feet hurt and I still have to cook dinner. "
                  "btw what instrument did you say you started playing when you were young?"],
         ["D15:26"]),
        ("vague time", ["that thing I told you a while back about a bad experience on a hike, "
                        "what happened?"], ["D12:1", "D14:1"]),
        ("vague time", ["remember ages ago I went to some group? which one was it?"], ["D1:3"]),
        ("own fact", ["what's my job?"], ["P1"]),
        ("own fact", ["what do I do for work?"], ["P1"]),
        ("own fact", ["where am I from originally?"], ["P2", "D4:3"]),
        ("own fact", ["where was I born?"], ["P2"]),
        (HELD, ["what kind of work do I do again?"], ["P1"]),
        (HELD, ["what city am I originally from?"], ["P2"]),
        (HELD, ["where did I grow up, do you remember?"], ["P2"]),
        (HELD, ["where did I live before we moved?"], ["P2"]),
        (HELD2, ["remind me, what do I do for a living?"], ["P1"]),
        (HELD2, ["where do I come from, do you remember?"], ["P2"]),
        ("own fact", ["By the way, I teach art at a primary school now, finally a steady job.",
                      *SMALL_TALK, "what's my profession again?"], ["said:0"]),
    ],
    "locomo/conv-30.json": [
        ("follow-up", ["Your tattoo is so cool.", "what does it stand for again?"], ["D5:15"]),
        ("reference", ["what was that piece your team won regionals with?"], ["D1:19"]),
        ("long", ["man, the studio's leaking again and the landlord isn't answering. anyway, "
                  "where did you say you lost your job?"], ["D1:3", "D6:4"]),
        ("correction", ["which city did I go to last week to clear my head?",
                        "no, not that trip, the city where I was hunting for a studio spot"],
         ["D2:4", "D2:5"]),
        ("vague time", ["what was that book I said I was reading a while back for the business?"],
         ["D12:6"]),
        ("follow-up", ["How did the interview go for that internship?",
                       "and did you get accepted?"], ["D12:1"]),
        ("own fact", ["what did I do for a living before the studio?"], ["D1:2"]),
        ("own fact", ["what's my hometown?"], ["P1"]),
        ("own fact", ["is there any food I can't eat?"], ["P2"]),
        (HELD, ["what was my job before I opened the dance studio?"], ["D1:2"]),
        (HELD, ["before I started my business, what did I work as?"], ["D1:2"]),
        (HELD, ["where's home for me originally?"], ["P1"]),
        (HELD2, ["what town did I grow up in?"], ["P1"]),
    ],
    "realtalk-dev/Chat_8_Akib_Muhhamed.json": [
        ("follow-up", ["is ur sister still baking?", "what was she making that time?"],
         ["D13:2"]),
        ("reference", ["whats that book u keep reading called"], ["D9:1"]),
        ("long", ["bro im so tired, work was crazy and my car is making that noise again lol. "
                  "how long is ur drive again?"], ["D2:44"]),
        ("vague time", ["that podcast u told me about a while back, what was it about"],
         ["D2:49"]),
        ("correction", ["what time do u wake up for work?", "no i mean after the new years party"],
         ["D5:18"]),
        ("follow-up", ["ur friend who works in chinatown, did he miss the party?",
                       "how long was his shift?"], ["D5:17"]),
        ("own fact", ["what do i do for work again"], ["D1:17"]),
        ("own fact", ["whats my job lol"], ["D1:17"]),
        ("own fact", ["where was i born again"], ["P1"]),
        (HELD, ["which city was i born in"], ["P1"]),
        (HELD, ["whats my line of work again"], ["D1:17"]),
        (HELD2, ["wait what do i do for a living"], ["D1:17"]),
        (HELD2, ["where am i from again lol"], ["P1"]),
    ],
    "memdaily-zh-dev/memdaily-u40.json": [
        ("follow-up", ["我表姐是做什么工作的来着？", "那她生日呢？"], ["D7:4"]),
        ("follow-up", ["我表弟生日是几号来着？", "那我上司呢？"], ["D7:7"]),
        ("reference", ["我住的那个小区叫啥来着？"], ["D4:9"]),
        ("correction", ["我表弟的电话是多少？", "不对，我是说我表姐的"], ["D4:7", "D7:5"]),
        ("long", ["今天加班到九点，累死了，地铁上还站了一路。对了，我上司老家是哪儿的来着？"],
         ["D8:1"]),
        ("vague time", ["之前跟你说过我要去的那个论坛，在哪儿办来着？"], ["D2:2"]),
        ("own fact", ["我是哪里人？"], ["P1"]),
        ("own fact", ["我老家在哪？"], ["P1"]),
        ("own fact", ["我是做什么工作的？"], ["P2"]),
        ("own fact", ["我是干嘛的来着？"], ["P2"]),
        (HELD, ["我是哪个城市的人来着？"], ["P1"]),
        (HELD, ["我是做什么的来着？"], ["P2"]),
        (HELD, ["我来上海之前在哪儿？"], ["P1"]),
        (HELD2, ["我是在哪儿出生的？"], ["P1"]),
        (HELD2, ["我是干哪行的？"], ["P2"]),
    ],
    "memdaily-zh-dev/memdaily-u43.json": [
        ("follow-up", ["我下属是哪里人来着？", "那他多大了？"], ["D5:1"]),
        ("follow-up", ["我表姐生日是哪天？", "那我舅妈呢？"], ["D5:7"]),
        ("reference", ["那双我特别喜欢的跑鞋是什么型号来着？"], ["D6:1"]),
        ("long", ["今天下大雨，鞋全湿了，烦死了。话说回来，我上司的邮箱是多少来着？"],
         ["D2:3", "D3:10"]),
        ("correction", ["邮票故事阅读会在哪儿办？", "不是这个，我说的是邮旅探索之旅"],
         ["D5:10", "D6:9", "D8:4"]),
        ("own fact", ["我家乡是哪儿？"], ["P1"]),
        ("own fact", ["我是在哪儿长大的？"], ["P1"]),
        ("own fact", ["我在哪上班？"], ["P2"]),
        ("own fact", ["我的宠物叫什么？"], ["P3"]),
        (HELD, ["我小时候在哪个城市？"], ["P1"]),
        (HELD, ["我干的是哪一行？"], ["P2"]),
        (HELD, ["我是干啥的？"], ["P2"]),
        (HELD2, ["我的老家在哪个城市？"], ["P1"]),
        (HELD2, ["我现在做什么工作？"], ["P2"]),
    ],
    "memdaily-zh-dev/memdaily-u46.json": [
        ("follow-up", ["我叔叔是干什么的来着？", "那他在哪个单位？"], ["D6:2", "D8:4"]),
        ("follow-up", ["我表哥多大了？", "那我同事呢？"], ["D4:7", "D10:1"]),
        ("reference", ["我上次去逛的那个公园叫什么来着？"], ["D3:9", "D5:3"]),
        ("long", ["最近天天开会，脑子都转不动了，晚上还得做PPT。"
                  "顺便问一下，我表哥叫什么名字来着？"],
         ["D4:3"]),
        ("vague time", ["前阵子跟你提过我用的手机，是哪款来着？"], ["D5:1"]),
        ("follow-up", ["我下属在哪上班来着？", "他单位叫啥？"], ["D3:5"]),
        ("own fact", ["我老家是哪里的？"], ["P1"]),
        ("own fact", ["我的工作是什么？"], ["P2"]),
        (HELD, ["我是打哪儿来的？"], ["P1"]),
        (HELD, ["我老家是哪个城市？"], ["P1"]),
        (HELD, ["我的职业是啥来着？"], ["P2"]),
        (HELD2, ["我是哪儿人来着？"], ["P1"]),
        (HELD2, ["我上班是干什么的？"], ["P2"]),
        ("own fact", ["对了，我出生在哈尔滨，冬天冷得要命。", *SMALL_TALK_ZH, "我是哪儿的人来着？"],
         ["said:0"]),
    ],
    "group:locomo/conv-26.json": [
        ("group", ["Rook, what did Melanie say her kids were stoked about at the museum?"],
         ["D6:6"]),
        ("group", ["Rook, do you know what Melanie's pets are called?"], ["D7:18"]),
        ("group", ["Rook, what did Mel say she plays besides violin?"], ["D15:26"]),
        ("group", ["Rook, who did Melanie say performed at her daughter's birthday?"],
         ["D11:3"]),
        ("group", ["Melanie told us about a roadtrip, right Rook?",
                   "what happened to her son there?"], ["D18:1"]),
    ],
}
GROUP_OTHER = "Rook"

# A third such set (2026-12-03, R2): on conversations none of the mends looked at, facts planted
# and questions written together, before the mends they measure (job, birthplace, home town, pets,
# family, plans; typos and slang). Played alone with --only "own fact held out 3".
HELD3 = "own fact held out 3"
PROBES.update({
    "locomo/conv-41.json": [
        (HELD3, ["what do i do for work, remind me?"], ["P1"]),
        (HELD3, ["wats my job again lol"], ["P1"]),
        (HELD3, ["which city did I grow up in again?"], ["P2"]),
        (HELD3, ["whats my hometown"], ["P2"]),
        (HELD3, ["what's my dog called?"], ["P3"]),
        (HELD3, ["remember my pup's name?"], ["P3"]),
        (HELD3, ["what's my brother studying these days?"], ["P4"]),
        (HELD3, ["where is my kid brother going to school?"], ["P4"]),
        (HELD3, ["where did I say we're going on vacation?"], ["P5"]),
        (HELD3, ["what trip was I planning for next year?"], ["P5"]),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        (HELD3, ["yo what do i do for a living again"], ["P1"]),
        (HELD3, ["wat was my job"], ["P1"]),
        (HELD3, ["where was i born again bro"], ["P2"]),
        (HELD3, ["whats my cats name"], ["P3"]),
        (HELD3, ["who in my family just had a kid?"], ["P4"]),
    ],
    "memdaily-zh-dev/memdaily-u44.json": [
        (HELD3, ["我是哪儿出生的来着？"], ["P1"]),
        (HELD3, ["我老家是哪的？"], ["P1"]),
        (HELD3, ["我是做啥工作的？"], ["P2"]),
        (HELD3, ["我家狗叫啥名字？"], ["P3"]),
        (HELD3, ["我明年打算去哪玩来着？"], ["P4"]),
    ],
    "memdaily-zh-dev/memdaily-u47.json": [
        (HELD3, ["我妹在哪儿上学来着？"], ["P1"]),
        (HELD3, ["我上班干啥的？"], ["P2"]),
        (HELD3, ["我家乡在哪儿？"], ["P3"]),
    ],
})

# file -> [(dia_id, session, the player's line)]: facts about the player the dev chats lack,
# told in the middle of that session. Written with the "own fact" probes, before the app was
# changed for them.
PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-26.json": [
        ("P1", 5, "Sorry I'm late, I teach chemistry at the high school and the kids kept me "
                  "after class."),
        ("P2", 9, "I was born in Gothenburg, we only moved when I was a teenager."),
    ],
    "locomo/conv-30.json": [
        ("P1", 6, "I'm a Tulsa native, so the big city still feels a bit much for me."),
        ("P2", 8, "Also I'm allergic to shellfish, found out the hard way at a wedding."),
    ],
    "realtalk-dev/Chat_8_Akib_Muhhamed.json": [
        ("P1", 6, "btw i was born in dhaka, we moved here when i was 7"),
    ],
    "memdaily-zh-dev/memdaily-u40.json": [
        ("P1", 3, "我出生在成都，上大学才来的上海。"),
        ("P2", 6, "我在一所中学教化学，天天改作业。"),
    ],
    "memdaily-zh-dev/memdaily-u43.json": [
        ("P1", 3, "我是在西安长大的，小时候天天吃泡馍。"),
        ("P2", 5, "我现在在一家律所当律师助理。"),
        ("P3", 6, "我养了一只橘猫，叫团子。"),
    ],
    "memdaily-zh-dev/memdaily-u46.json": [
        ("P1", 4, "我是青岛人，从小在海边玩。"),
        ("P2", 7, "我在社区医院当药剂师，经常值夜班。"),
    ],
}


PLANTED.update({
    "locomo/conv-41.json": [
        ("P1", 4, "Work's been nuts, I've been a firefighter for six years now and the station is "
                  "short-staffed."),
        ("P2", 8, "My parents still live in Savannah, that's where I was born and raised."),
        ("P3", 12, "Our golden retriever Biscuit chewed through another leash this morning."),
        ("P4", 16, "My little brother Danny just started med school in Ohio."),
        ("P5", 20, "We're planning a trip to Portugal next spring, Lisbon and then the coast."),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        ("P1", 3, "i drive for ups now, 10 hr shifts smh"),
        ("P2", 7, "fun fact i was born in karachi, moved to houston when i was 5"),
        ("P3", 11, "my cat mochi knocked my coffee over again lmao"),
        ("P4", 15, "my older sis just had a baby boy, im an uncle now!!"),
    ],
    "memdaily-zh-dev/memdaily-u44.json": [
        ("P1", 2, "我是在大连出生的，高中毕业才离开。"),
        ("P2", 4, "我在一家物流公司做调度，天天盯着车队。"),
        ("P3", 6, "我家狗狗叫豆豆，是只柯基。"),
        ("P4", 8, "我打算明年春天去云南自驾。"),
    ],
    "memdaily-zh-dev/memdaily-u47.json": [
        ("P1", 3, "我妹妹在北京读研究生，学的是心理学。"),
        ("P2", 5, "我现在在医院当护士，三班倒。"),
        ("P3", 7, "我从小在桂林长大。"),
    ],
})


# A fourth such set (2026-12-03, R3): written before the work it measures, on conversations no
# earlier set or mend used (LoCoMo conv-43, REALTALK Chat_10, MemDaily u41 and u45), asked as
# people ask (short, slang, typos, pronoun follow-ups, colloquial Chinese). The planted facts
# fit their chats: conv-43's Tim is a student with no job named, Chat_10's Fahim works at a job
# never named, u41's and u45's players have a 下属 and a 上司 in Qingdao / at a bank branch.
# Some ask in words the said-instead table lacks ("for cash", "vet", 掌勺, 信贷). Played alone
# with --only "own fact held out 4". On 1f8c069 (main's recall, before R3's changes; 2026-12-03
# 10:14-10:32, load 11): found 20/20, @5 12/20, @10 14/20.
HELD4 = "own fact held out 4"
PROBES.update({
    "locomo/conv-43.json": [
        (HELD4, ["wait whats my job again"], ["P1"]),
        (HELD4, ["what do i do for cash these days?"], ["P1"]),
        (HELD4, ["whered i grow up again"], ["P2"]),
        (HELD4, ["whats my sister do for work?"], ["P3"]),
        (HELD4, ["remember my sister Claire?", "what does she do again?"], ["P3"]),
        (HELD4, ["what car do i drive lol"], ["P4"]),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        (HELD4, ["yo whats my job again"], ["P1"]),
        (HELD4, ["where do i work again lol"], ["P1"]),
        (HELD4, ["wher was i born"], ["P2"]),
        (HELD4, ["whats my birds name"], ["P3"]),
    ],
    "memdaily-zh-dev/memdaily-u41.json": [
        (HELD4, ["我是干啥工作的来着？"], ["P1"]),
        (HELD4, ["我上班是做什么的？"], ["P1"]),
        (HELD4, ["我老家哪的？"], ["P2"]),
        (HELD4, ["我同事是干嘛的来着？", "那她老家是哪儿的？"], ["D4:4"]),
        (HELD4, ["我下属叫啥？", "他多高？"], ["D5:1"]),
    ],
    "memdaily-zh-dev/memdaily-u45.json": [
        (HELD4, ["我是搞什么的来着？"], ["P1"]),
        (HELD4, ["我干啥工作的"], ["P1"]),
        (HELD4, ["我婶婶是做什么的？", "那她多大了？"], ["D4:1"]),
        (HELD4, ["我上司电话多少来着？", "那他邮箱呢？"], ["D5:8"]),
        (HELD4, ["我打小在哪儿长大的来着"], ["P2"]),
    ],
})
PLANTED.update({
    "locomo/conv-43.json": [
        ("P1", 3, "Sorry for the slow replies, I work weekends at a little bookshop downtown to "
                  "pay for school."),
        ("P2", 6, "I grew up in a small town in Vermont, snow half the year."),
        ("P3", 9, "My older sister Claire is a vet now, she just opened her own clinic."),
        ("P4", 12, "Still driving my dad's old Subaru, it makes a weird noise every morning."),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        ("P1", 4, "i work at the pharmacy on main st, mostly filling prescriptions lol"),
        ("P2", 8, "i was born in lahore but my family came over when i was like 3"),
        ("P3", 12, "we have a parakeet named kiwi, she screams every morning"),
    ],
    "memdaily-zh-dev/memdaily-u41.json": [
        ("P1", 3, "我在青岛一家酒店掌勺，天天忙到半夜。"),
        ("P2", 6, "我老家在山东烟台，小时候常去海边。"),
    ],
    "memdaily-zh-dev/memdaily-u45.json": [
        ("P1", 4, "我在支行管信贷业务，天天跟客户打交道。"),
        ("P2", 7, "我是在湖南长沙长大的，特别能吃辣。"),
    ],
})

# A fifth such set (2026-12-03, R4): written before the work it measures, on conversations no
# earlier set or mend used (LoCoMo conv-42, REALTALK Chat_5 and Chat_7, MemDaily u48 and u49):
# age asked as 多大 / 几岁 / "how old", pets asked by another word than the line's (pup, kitty,
# 狗 for a breed), jobs told without a job word. MemDaily's age probes ask the chats' own lines
# about relatives. Played alone with --only "own fact held out 5".
HELD5 = "own fact held out 5"
PROBES.update({
    "locomo/conv-42.json": [
        (HELD5, ["what do i do for work again?"], ["P1"]),
        (HELD5, ["whats my line of work"], ["P1"]),
        (HELD5, ["how old am i again?"], ["P2"]),
        (HELD5, ["wait what age did I just turn?"], ["P2"]),
    ],
    "realtalk-dev/Chat_5_Nicolas_Nebraas.json": [
        (HELD5, ["whats my doggos name"], ["P1"]),
        (HELD5, ["remember my pups name lol"], ["P1"]),
        (HELD5, ["how old am i lol"], ["P2"]),
        (HELD5, ["what kind of work do i do"], ["P3"]),
    ],
    "realtalk-dev/Chat_7_Nebraas_Vanessa.json": [
        (HELD5, ["whats my kitty called again"], ["P1"]),
        (HELD5, ["what did i name my cat?"], ["P1"]),
        (HELD5, ["what's my occupation?"], ["P2"]),
    ],
    "memdaily-zh-dev/memdaily-u48.json": [
        (HELD5, ["我表弟多大了来着？"], ["D4:7"]),
        (HELD5, ["我上司今年几岁？"], ["D5:4", "D6:3"]),
        (HELD5, ["我婶婶年纪多大？"], ["D7:3"]),
        (HELD5, ["我是干什么工作的？"], ["P1"]),
        (HELD5, ["我的猫叫什么来着？"], ["P2"]),
    ],
    "memdaily-zh-dev/memdaily-u49.json": [
        (HELD5, ["我舅舅多大岁数了？"], ["D3:1", "D9:2"]),
        (HELD5, ["我表妹几岁了？"], ["D9:3"]),
        (HELD5, ["我是做什么的来着？"], ["P1"]),
        (HELD5, ["我今年多大来着？"], ["P2"]),
        (HELD5, ["我家的狗叫啥？"], ["P3"]),
    ],
})
PLANTED.update({
    "locomo/conv-42.json": [
        ("P1", 4, "Sorry I vanished, I pour drinks at a bar downtown three nights a week and "
                  "Saturday was packed."),
        ("P2", 8, "I turned 29 on Sunday and honestly I feel ancient already."),
    ],
    "realtalk-dev/Chat_5_Nicolas_Nebraas.json": [
        ("P1", 3, "my little pug waffles ate my sock again smh"),
        ("P2", 6, "im 24 btw, way too young for this back pain"),
        ("P3", 9, "i stock shelves at a grocery store overnight so my sleep is all messed up"),
    ],
    "realtalk-dev/Chat_7_Nebraas_Vanessa.json": [
        ("P1", 4, "We adopted a tabby kitten last month, she's called Pepper and she's a menace"),
        ("P2", 8, "I fix up old houses for people, mostly roofs and decks"),
    ],
    "memdaily-zh-dev/memdaily-u48.json": [
        ("P1", 2, "我在一家面包店做烘焙，天天四点就得起床。"),
        ("P2", 5, "我家那只布偶叫奶糖，特别黏人。"),
    ],
    "memdaily-zh-dev/memdaily-u49.json": [
        ("P1", 2, "我在县城中学门口开了个小卖部。"),
        ("P2", 5, "我今年三十五了，腰开始不行了。"),
        ("P3", 8, "我养了一条金毛，叫旺财。"),
    ],
})

# A sixth held-out set (2026-12-04): written before any change it measures, on conversations no
# earlier set of this file used (LoCoMo conv-44, also played as a group, and conv-47, REALTALK
# Chat_6, MemDaily u42; Chat_6 and u42 are bench/recall_spoken.py's, its questions not reused),
# by a writer who did not read the app's recall. A mix of the ways people talk, as the first
# probes: follow-ups, "that" / 那个, vague times, corrections, a question inside a chatty message,
# the player's own facts (planted without the question's words, or told in a lead-in turn),
# typos and slang, colloquial Chinese, and in a group a question to Rook about what Andrew said.
# Played alone with --only "held out 6".
HELD6 = "held out 6"
PROBES.update({
    "locomo/conv-44.json": [
        (HELD6, ["how's Toby doing these days?", "remind me what kind of dog he is?"],
         ["D14:19", "D23:13", "D14:24"]),
        (HELD6, ["what was that trail you said is good for a weekend hike?"], ["D1:20"]),
        (HELD6, ["do you remember what mix Pepper and Panda are?",
                 "sorry no, I meant Precious and Pixie"], ["D26:13", "D10:7", "D19:12"]),
        (HELD6, ["ugh, still in this cast and typing one-handed is a nightmare, the pups think my "
                 "arm is a chew toy lol. anyway what was that new job you started way back when "
                 "we first started chatting?"], ["D1:2"]),
        (HELD6, ["a while back you told me about some class where you made it all the way to the "
                 "top, what kind of class was it?"], ["D8:1", "D8:3", "D8:7"]),
        (HELD6, ["wat did u n ur gf end up calling the pup u got after buddy"], ["D28:8"]),
        (HELD6, ["where does my sister live now?"], ["P1"]),
    ],
    "group:locomo/conv-44.json": [
        (HELD6, ["Rook, what food did Andrew say he tried for the first time?"],
         ["D25:3", "D25:5"]),
        (HELD6, ["Andrew was bragging about making it up that rock wall, right Rook?",
                 "what did he say he wants to try next?"], ["D8:7"]),
        (HELD6, ["Rook, where are Andrew and his girlfriend taking Toby next month?"], ["D20:1"]),
        (HELD6, ["Rook, where did Andrew say he and his gf volunteered?"], ["D13:1", "D13:13"]),
    ],
    "locomo/conv-47.json": [
        (HELD6, ["so how's the new gig going since you quit IT?",
                 "what games did you want to host comps for again?"], ["D18:7", "D18:9"]),
        (HELD6, ["that fantasy book u told me to check out, whats it called"], ["D8:14"]),
        (HELD6, ["which football club do I support?", "no wait, I mean you, which one's yours?"],
         ["D13:15"]),
        (HELD6, ["ugh the power went out again last night and I lost a whole evening of progress, "
                 "Samantha just laughed at me. anyway where'd you say you traveled to most "
                 "recently?"], ["D6:15"]),
        (HELD6, ["what's my day job again?"], ["P1"]),
        (HELD6, ["what am i saving up for again lol"], ["P2"]),
        (HELD6, ["oh btw my little brother Tom is gonna stay with us for a couple months till he "
                 "finds a place", *SMALL_TALK, "who's crashing at our place again?"], ["said:0"]),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        (HELD6, ["u still at the clinic rn?", "wait what kinda clinic is it again"],
         ["D6:14", "D6:21"]),
        (HELD6, ["who did i have to drive to the airport that one time",
                 "nah i mean where was she flying off to"], ["D10:14"]),
        (HELD6, ["a while ago u had that creepy guy following u around, what did u end up filing"],
         ["D19:15"]),
        (HELD6, ["dude im dead tired, covered another shift at my friends starbucks and some lady "
                 "screamed at me over her drink. anyway whats ur usual boba order"],
         ["D18:38", "D18:40"]),
        (HELD6, ["who'd i party with on nye last year"], ["D4:33"]),
        (HELD6, ["wats my hammys name"], ["P1"]),
        (HELD6, ["hows ur hand doing", "how'd that even happen again"],
         ["D9:4", "D9:5", "D9:6"]),
    ],
    "memdaily-zh-dev/memdaily-u42.json": [
        (HELD6, ["我舅舅今年多大了啊？", "那同事呢？"], ["D2:1", "D9:2"]),
        (HELD6, ["我同事叫啥来着？", "她生日是哪天啊"], ["D5:5"]),
        (HELD6, ["我老用的那个护发的东西是啥牌子的来着"], ["D2:9", "D2:10", "D4:1", "D4:2"]),
        (HELD6, ["农业升级合作大会在哪儿开？", "不是，我是问它啥时候开"], ["D8:5"]),
        (HELD6, ["今天在地里忙了一整天，腰都直不起来了，回家还得做饭。"
                 "哎对了，我表妹在哪家公司上班来着？"], ["D6:6"]),
        (HELD6, ["上回跟你说的那个书法探秘的活动，大概多少人参加啊？"], ["D1:7"]),
        (HELD6, ["我领导今年多大"], ["D9:4"]),
        (HELD6, ["你还记得我是在哪儿长大的不？"], ["P1"]),
        (HELD6, ["我表妹是啥学历来着？", "那我弟呢，学的啥？"], ["P2"]),
    ],
})
PLANTED.update({
    "locomo/conv-44.json": [
        ("P1", 11, "Megan, my big sis, packed up for a nursing job out in Denver, so it's just me "
                   "and the pups around here now."),
    ],
    "locomo/conv-47.json": [
        ("P1", 3, "Sorry, long week, I test games for a studio downtown and we're crunching "
                  "before a release."),
        ("P2", 20, "Been putting 200 bucks aside every month, I really want a used Ducati by "
                   "summer."),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        ("P1", 12, "btw i got a hamster last week, named him nugget, he runs on his wheel all "
                   "night lol"),
    ],
    "memdaily-zh-dev/memdaily-u42.json": [
        ("P1", 3, "我是盐城乡下出来的，小时候天天帮家里插秧。"),
        ("P2", 6, "我弟在南京读大专，念的是汽修专业。"),
    ],
})


# A seventh held-out set (2026-12-04): written before any change it measures, by a writer who did
# not read the app's recall. On conversations earlier sets used, so it is added after their
# probes (and planted lines) of the same file; new facts, new phrasings: chatty messages with the
# question at the end ("anyway", "btw", 对了, 话说, 顺便问下, no pivot), follow-ups and corrections,
# the player's own facts planted in words the question does not use (wife, boss, major, savings,
# brother, 鹦鹉 / 鸟, 媳妇 / 老婆, 存 / 攒钱), colloquial Chinese about relatives and colleagues
# (领导 / 老板 / 婶子 / 手下), typos and slang, and in a group a question to Rook about what Nate
# said. Played alone with --only "held out 7".
HELD7 = "held out 7"
HELD7_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-41.json": [
        (HELD7, ["ugh just spent two hours at the dmv and they sent me home for the wrong form. "
                 "btw what was the name of the puppy you got first, before the shelter one?"],
         ["D30:1", "D30:2"]),
        (HELD7, ["how's Shadow settling in?", "and where did you find her again?"], ["D31:2"]),
        (HELD7, ["what's my little guy's name again?", "nah I mean my daughter"], ["D22:7"]),
        (HELD7, ["been cleaning out the garage all weekend and found a box of old postcards. "
                 "anyway, you told me ages ago about some solo trip you took, where was that?"],
         ["D13:24"]),
        (HELD7, ["how long have me and my wife been together now?"], ["P6"]),
        (HELD7, ["spent the whole morning at the bank on mortgage stuff, so much paperwork. random "
                 "but who's my boss at work again? blanked on it when they asked for a reference"],
         ["P7"]),
    ],
    "locomo/conv-43.json": [
        (HELD7, ["finally finished my essay at 2am and my roommate's alarm went off at 6 so i'm a "
                 "zombie today. oh and which team did you end up signing with?"], ["D1:5"]),
        (HELD7, ["you still cooking to unwind?",
                 "whats that slow cooker dish you make all the time"], ["D15:32"]),
        (HELD7, ["where did you guys have the wedding ceremony?",
                 "no wait, where was the first dance"], ["D12:10", "D12:11"]),
        (HELD7, ["wat position do u play agian"], ["D1:7"]),
        (HELD7, ["what am i studying at uni again?"], ["P5"]),
        (HELD7, ["ok so my roommate just blew his rent money on a new tv and now he's broke till "
                 "friday lol. remind me what i'm putting money aside for?"], ["P6"]),
    ],
    "group:locomo/conv-42.json": [
        (HELD7, ["Rook, what's the game Nate said he's hooked on right now?"], ["D27:23"]),
        (HELD7, ["Rook, what flavor was the ice cream Nate made for his friend?"], ["D4:3"]),
        (HELD7, ["Nate was telling us about his tournament wins, right Rook?",
                 "what game did he say the second one was in?"], ["D10:6"]),
        (HELD7, ["Rook, how many people did Nate say showed up to his gaming party?"], ["D16:6"]),
    ],
    "realtalk-dev/Chat_7_Nebraas_Vanessa.json": [
        (HELD7, ["hows ur puppy doing", "wait what did u end up naming him"], ["D13:9", "D16:36"]),
        (HELD7, ["gym was brutal today my trainer made me do 5 sets of squats and i can barely "
                 "walk lol. what concert were u going to again"], ["D10:5", "D10:14"]),
        (HELD7, ["wait what is my little brother training to be again"], ["P3"]),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        (HELD7, ["whats that yt channel u were watching, the nerdy explainer one"],
         ["D7:2", "D9:3", "D9:5"]),
        (HELD7, ["work was dead today like 4 customers the whole shift. by the way who's my "
                 "manager again lol"], ["P4"]),
    ],
    "memdaily-zh-dev/memdaily-u44.json": [
        (HELD7, ["今天一口气翻了两万字，手都酸了，晚上还得陪孩子写作业。"
                 "对了，我领导叫什么名字来着？"], ["D3:3"]),
        (HELD7, ["今天开会开到一点，饭都没吃上。话说我老板是哪里人啊"], ["D3:6", "D5:8"]),
        (HELD7, ["我叔叔是搞啥的？", "那我爸呢"], ["D9:1", "D9:4"]),
    ],
    "memdaily-zh-dev/memdaily-u45.json": [
        (HELD7, ["我下属邮箱多少来着？", "不是，我说的是我舅妈的"], ["D3:6", "D5:6"]),
        (HELD7, ["下班路上堵了一个小时，烦死了。顺便问下，我婶子哪天过生日"], ["D5:5"]),
        (HELD7, ["我养的那只鸟叫啥来着？"], ["P3"]),
    ],
    "memdaily-zh-dev/memdaily-u47.json": [
        (HELD7, ["我老板多大岁数来着"], ["D3:5"]),
        (HELD7, ["我叔叔叫啥来着？", "他是干啥的"], ["D8:5", "D9:2"]),
        (HELD7, ["我老婆是干什么的来着"], ["P4"]),
    ],
    "memdaily-zh-dev/memdaily-u48.json": [
        (HELD7, ["昨天羽毛球打了三个小时，今天腿疼得下不了楼。我表弟在哪家医院上班来着"], ["D8:4"]),
        (HELD7, ["我婶婶生日是几号来着？", "不是，我问的是我上司"], ["D5:5", "D6:1"]),
        (HELD7, ["我攒钱是打算买啥来着？"], ["P3"]),
    ],
    "memdaily-zh-dev/memdaily-u49.json": [
        (HELD7, ["我表妹干啥工作的"], ["D2:3"]),
        (HELD7, ["我舅舅是干嘛的？", "那我下属呢"], ["D7:3"]),
    ],
}
HELD7_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-41.json": [
        ("P6", 10, "Lena and I hit ten years married on Saturday, and she still laughs at my "
                   "terrible jokes."),
        ("P7", 24, "Chief Ramirez put me back on the night rotation, that man never sleeps."),
    ],
    "locomo/conv-43.json": [
        ("P5", 15, "Switched my major to history this semester, the lit seminars were burning me "
                   "out."),
        ("P6", 18, "Every bookshop paycheck goes straight into a jar now, I really want to see "
                   "Kyoto before I graduate."),
    ],
    "realtalk-dev/Chat_7_Nebraas_Vanessa.json": [
        ("P3", 14, "my lil bro just got into culinary school in chicago hes so hyped"),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        ("P4", 16, "the head pharmacist karen chewed me out again for being 2 min late smh"),
    ],
    "memdaily-zh-dev/memdaily-u45.json": [
        ("P3", 9, "我家那只鹦鹉叫阿福，天天学我说话。"),
    ],
    "memdaily-zh-dev/memdaily-u47.json": [
        ("P4", 9, "我媳妇在杭州一家医院做麻醉师，经常半夜被叫走。"),
    ],
    "memdaily-zh-dev/memdaily-u48.json": [
        ("P3", 7, "我每个月存两千块，想明年换辆新能源车。"),
    ],
}


def held_out_add(probes: dict[str, list[tuple[str, list[str], list[str]]]],
                 planted: dict[str, list[tuple[str, int, str]]]) -> None:
    """A held-out set's probes and planted lines, played after those before it (appended, not
    replaced: its files already have earlier sets' probes and planted lines)."""
    for name, more in probes.items():
        PROBES[name] = [*PROBES.get(name, []), *more]
    for name, lines in planted.items():
        PLANTED[name] = [*PLANTED.get(name, []), *lines]


held_out_add(HELD7_PROBES, HELD7_PLANTED)


# An eighth held-out set (2026-12-04): written before any change it measures, by a writer who did
# not read the app's recall, on LoCoMo conv-30 and conv-42, conv-47 played as a group (a question
# to Rook about what John said), REALTALK Chat_5 and Chat_8, MemDaily u40, u43 and u46; facts no
# earlier set asked. Follow-ups leaning on the line before, "that" / 那个 / 上次, vague times,
# corrections (no I mean…, 不是…), a question at the end of a chatty message (with and without
# btw / anyway / 对了), typos and slang, colloquial Chinese (来着, 啥), the player's own facts
# planted or told in words the question does not use (accounting for "keeps the books", hobby for
# a pottery class, 运动 for 羽毛球, 坏毛病 for smoking, 女儿 for 闺女), a category for a specific
# thing (light fixture for chandelier, critters, gadget, sport). Played alone with
# --only "held out 8".
# On 8b46ba8d (main's recall, before any change it measures; 2026-12-04, load 5-6): found 36/38,
# @5 24/38, @10 25/38; by file: conv-30 5/5, 3/5, 3/5; Chat_8 4/5, 4/5, 4/5; u40 5/5, 2/5, 2/5;
# u43 5/5, 4/5, 4/5; u46 5/5, 3/5, 4/5; conv-42 5/5, 3/5, 3/5; Chat_5 3/4, 1/4, 1/4;
# group conv-47 4/4, 4/4, 4/4 (found, @5, @10).
HELD8 = "held out 8"
HELD8_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-30.json": [
        (HELD8, ["you told me ages ago about how you decorated the store",
                 "what was that light fixture you said gives it a glam feel?"], ["D3:6"]),
        (HELD8, ["my back is killing me from moving mirrors around the studio all day and the "
                 "plumber flaked again. btw who was that 'just do it' quote from?"], ["D19:4"]),
        (HELD8, ["what surface did I say I wanted to put down in the studio?"], ["D2:8"]),
        (HELD8, ["what was that internship you got accepted for?",
                 "no I mean the one you interviewed for before that"], ["D11:14"]),
        (HELD8, ["who's doing my accounting these days?"], ["P3"]),
    ],
    "locomo/conv-42.json": [
        (HELD8, ["remind me, what critters do I have to stay away from?"], ["D2:23", "D5:11"]),
        (HELD8, ["how are your little shelled buddies doing?",
                 "what did you get them the other week?"], ["D19:3"]),
        (HELD8, ["what was the first tournament game you ever won?",
                 "no wait, I mean the board game you played at that convention"], ["D23:7"]),
        (HELD8, ["my laptop's acting up again, i swear if it crashes like last time it's going out "
                 "the window. anyway what did you say to use instead of butter for dairy-free "
                 "baking?"], ["D20:15"]),
        (HELD8, ["ok big news, I adopted a hairless sphynx cat, zero sneezing so far! her name is "
                 "Olive", *SMALL_TALK, "what did I call my new kitty again?"], ["said:0"]),
    ],
    "group:locomo/conv-47.json": [
        (HELD8, ["Rook, what's that gadget John said he takes down to the beach?"], ["D2:10"]),
        (HELD8, ["Rook, what kind of pizza is John's favorite?"], ["D9:19"]),
        (HELD8, ["John put on some charity tournament with his friends, right Rook?",
                 "who was the money for?"], ["D10:10"]),
        (HELD8, ["Rook, which book series did John say he loves most?"], ["D14:10"]),
    ],
    "realtalk-dev/Chat_5_Nicolas_Nebraas.json": [
        (HELD8, ["ugh woke up with my nose all stuffed again and julio left dishes in the sink for "
                 "like the 4th day straight. wats the grossest thing u ever ate"], ["D4:22"]),
        (HELD8, ["remember that girl at ur bfs work who was flirting w him",
                 "wat happened w her in the end"], ["D9:14"]),
        (HELD8, ["what country did i say i wanna go to for beer n sausages"], ["D4:97"]),
        (HELD8, ["what hobby did i try out last month lol"], ["P4"]),
    ],
    "realtalk-dev/Chat_8_Akib_Muhhamed.json": [
        (HELD8, ["what animal am i babysitting rn lol"], ["D4:1"]),
        (HELD8, ["u still teaching?", "what grade are ur kids again"], ["D7:23"]),
        (HELD8, ["whats my fav marvel movie", "nah i mean urs"], ["D3:62"]),
        (HELD8, ["servers went down again at work and i was on the phone w the vendor for like 3 "
                 "hrs smh. btw what happened to ur microwave that time"], ["D1:19"]),
        (HELD8, ["where does my wife wanna go on vacay"], ["D4:2"]),
    ],
    "memdaily-zh-dev/memdaily-u40.json": [
        (HELD8, ["我那个爱做饭的表弟叫啥名字来着？"], ["D5:1"]),
        (HELD8, ["我上司是哪个部门的来着？", "那他公司叫啥？"], ["D8:5"]),
        (HELD8, ["我表弟老家是哪儿的？", "不是，我问的是我那个下属"], ["D8:8"]),
        (HELD8, ["今天陪我妈逛了一下午菜市场，腿都走断了。"
                 "对了，我要去的那个论坛有多少人参加来着？"], ["D1:4", "D2:4"]),
        (HELD8, ["我周末一般玩啥运动来着？"], ["P3"]),
    ],
    "memdaily-zh-dev/memdaily-u43.json": [
        (HELD8, ["我表姐是干啥的来着？", "那她老家呢？"], ["D4:2"]),
        (HELD8, ["今天排队办签证排了俩小时，差点没赶上午饭。航空服务创新交流盛典是几号来着"],
         ["D2:10", "D8:5"]),
        (HELD8, ["航空服务创新交流盛典在哪儿办？", "不是，我说的是那个乘务管理交流会"], ["D6:7"]),
        (HELD8, ["我上个月改掉的是啥坏毛病来着？"], ["P4"]),
        (HELD8, ["跟你说，我下个月要去成都出差一周，回来给你带火锅底料。", *SMALL_TALK_ZH,
                 "我下个月要去哪儿来着？"], ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u46.json": [
        (HELD8, ["我表哥平时玩啥运动来着？"], ["D4:1"]),
        (HELD8, ["我叔叔是哪科的医生？", "那他今年多大岁数了"], ["D4:6", "D10:2"]),
        (HELD8, ["上次说的那个手工阅享会是啥时候来着？"], ["D2:7"]),
        (HELD8, ["销售创新研讨会是哪天？", "不对，我问的是新品发布盛会"], ["D2:5", "D4:11"]),
        (HELD8, ["我女儿现在读几年级了？"], ["P3"]),
    ],
}
HELD8_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-30.json": [
        ("P3", 10, "My sister Tasha keeps the books for the studio for free, she's a CPA so at "
                   "least somebody here knows what they're doing."),
    ],
    "realtalk-dev/Chat_5_Nicolas_Nebraas.json": [
        ("P4", 8, "i took a pottery class at the rec center last month and made the ugliest mug "
                  "ever lol"),
    ],
    "memdaily-zh-dev/memdaily-u40.json": [
        ("P3", 5, "周末我基本都泡在羽毛球馆，一打就是一下午。"),
    ],
    "memdaily-zh-dev/memdaily-u43.json": [
        ("P4", 7, "我上个月总算把抽了十年的烟戒了，现在兜里老揣着薄荷糖。"),
    ],
    "memdaily-zh-dev/memdaily-u46.json": [
        ("P3", 6, "我闺女今年刚上小学一年级，天天吵着不想写作业。"),
    ],
}
held_out_add(HELD8_PROBES, HELD8_PLANTED)


# A ninth held-out set (2026-12-04): written before any change it measures, by a writer who did
# not read the app's recall, on LoCoMo conv-26 and conv-44, conv-41 played as a group (a question
# to Rook about what Maria said), REALTALK Chat_6 and Chat_9, MemDaily u41 and u42; facts no
# earlier set asked. Follow-ups leaning on the line before ("n what about juice", 那我妈呢),
# corrections (no, not the arm…, nah not that one…, 不是 / 不对…), "that" / 那个 / 前阵子 and
# vague times, a question at the end of a chatty message (btw, 对了, or no pivot at all), typos
# and slang, colloquial Chinese (来着, 啥), a category or a role for a specific thing or person
# (ride for a car, dessert for peach cobbler, what she takes before dairy, the thing thrown into
# every dish, who rode horses with me, the YouTube lady, 在单位当啥 for 监事), the player's own
# facts in the chats asked in other words (public transport, health-care benefits work), planted
# in words the question does not use (phobia for not flying, instrument for cello, language for
# Japanese, diet for no carbs, 车 for 比亚迪, 毛病 for 血压) or told in a lead-in turn. Played
# alone with --only "held out 9".
# On bb6d21d7 (main's recall, before any change it measures; 2026-12-04, load 2-3): found 40/40,
# @5 31/40, @10 33/40 (34/40 on a second run, the Japan correction at rank 8 instead of 15); by
# file: conv-26 6/6, 5/6, 5/6; conv-44 6/6, 4/6, 4/6; Chat_6 6/6, 4/6, 4/6; Chat_9 6/6, 2/6, 4/6
# (5/6); u41 6/6, 6/6, 6/6; u42 6/6, 6/6, 6/6; group conv-41 4/4, 4/4, 4/4 (found, @5, @10).
HELD9 = "held out 9"
HELD9_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-26.json": [
        (HELD9, ["that wedding dress pic you showed me ages ago was gorgeous",
                 "how long have you two been married now?"], ["D3:16"]),
        (HELD9, ["what was that book I told you to read?",
                 "no, I mean the one you loved when you were little"], ["D6:10"]),
        (HELD9, ["a while back I told you about a song that means a lot to me, which one was it?"],
         ["D15:23"]),
        (HELD9, ["finally got the spare room painted, took me all weekend and I still have blue on "
                 "my elbows lol. btw what was the band called at that show you went to, the one "
                 "that got everyone dancing?"], ["D15:16"]),
        (HELD9, ["who did I use to go horseback riding with when I was little?"], ["D13:7"]),
        (HELD9, ["what's my big phobia again?"], ["P3"]),
    ],
    "locomo/conv-44.json": [
        (HELD9, ["how do I usually get around town again?"], ["D20:34"]),
        (HELD9, ["what injury kept me from walking the pups that time?",
                 "no, not the arm, the one before that"], ["D22:1"]),
        (HELD9, ["what's the one thing I throw into basically everything I cook?"], ["D10:21"]),
        (HELD9, ["the pups tracked mud all over the new rug and Pixie ate half a cushion, so that "
                 "was my morning. btw what did you and your gf do at the lake that one weekend?"],
         ["D17:1"]),
        (HELD9, ["what instrument have I been learning?"], ["P2"]),
        (HELD9, ["ok news: I'm finally moving to a place by Riverside Park next month, the pups "
                 "are gonna have so much room", *SMALL_TALK,
                 "which neighborhood am I headed to next month?"], ["said:0"]),
    ],
    "group:locomo/conv-41.json": [
        (HELD9, ["Rook, Maria got rid of her old ride a while back, right? who did she give it "
                 "to?"], ["D2:1"]),
        (HELD9, ["Rook, what's that workout class Maria said she just started?"], ["D1:3"]),
        (HELD9, ["Maria was telling us about her trip to England, right Rook?",
                 "which city did she say inspired all her castle stuff?"], ["D8:17"]),
        (HELD9, ["Rook, what dessert did Maria say she made, the fruity one?"], ["D2:25"]),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        (HELD9, ["what did i used to do for work before all this job hunting lol"], ["D6:12"]),
        (HELD9, ["ur all time fav drink is that lychee milk tea right", "n what about juice"],
         ["D1:85"]),
        (HELD9, ["what do u take before eating dairy so ur stomach doesnt hate u"], ["D8:19"]),
        (HELD9, ["that weird breakfast u told me about a while ago, what was it again"],
         ["D14:7"]),
        (HELD9, ["ugh my aunt texted asking for another airport ride at 5am, like no maam never "
                 "again lol. who was that youtube lady i learned my jello salad from"],
         ["D12:22"]),
        (HELD9, ["what language am i learning rn"], ["P2"]),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        (HELD9, ["where was my buddy gonna pay for everything when we visit",
                 "nah not that one, the trip w my wife"], ["D4:8", "D4:12"]),
        (HELD9, ["that massive weird book u picked up a while back, whats it called again"],
         ["D5:26", "D5:34"]),
        (HELD9, ["bro the dmv line was insane today, 2 hrs just to renew my license and the guy "
                 "behind me wouldnt stop coughing. whats my go to sandwich order again i wanna "
                 "treat myself"], ["D1:63"]),
        (HELD9, ["wat was that space show place u went to as a kid"], ["D7:33"]),
        (HELD9, ["what diet am i on rn lol"], ["P5"]),
        (HELD9, ["yo just booked flights, my cousin's getting married in toronto in march!!",
                 *SMALL_TALK, "where am i headed in march again"], ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u41.json": [
        (HELD9, ["我舅妈平时爱玩啥？", "那我妈呢？"], ["D5:7"]),
        (HELD9, ["我同事爱干啥来着？", "不是，我问的是我下属"], ["D5:2"]),
        (HELD9, ["前阵子跟你说我逛的那个商场，叫啥来着？"], ["D3:1", "D3:2"]),
        (HELD9, ["今天后厨忙疯了，连着出了两百多份菜，手腕都抬不起来。"
                 "对了，那个美食运动狂欢节在哪儿办来着？"], ["D2:2"]),
        (HELD9, ["我开的是啥车来着？"], ["P3"]),
        (HELD9, ["跟你说，我报了个日语夜校，每周二周四晚上去上课。", *SMALL_TALK_ZH,
                 "我晚上去上的那个课是学啥的来着？"], ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u42.json": [
        (HELD9, ["我舅舅在哪儿上班来着？", "他那个单位叫啥？"], ["D6:2"]),
        (HELD9, ["我上司叫啥来着？", "不对，我说的是我表妹"], ["D9:3"]),
        (HELD9, ["前两天跟你说路过的那个商场，叫啥来着？"], ["D3:1", "D3:2"]),
        (HELD9, ["今天在地里插了一天秧，晚上回来还要喂猪，累得腰都直不起来。"
                 "农业创新启动会是几号开来着"], ["D8:6"]),
        (HELD9, ["我同事在单位当啥来着？"], ["D5:4"]),
        (HELD9, ["我身体有啥毛病来着？"], ["P3"]),
    ],
}
HELD9_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-26.json": [
        ("P3", 16, "I still can't make myself get on a plane, I'd honestly rather drive twelve "
                   "hours than fly."),
    ],
    "locomo/conv-44.json": [
        ("P2", 17, "Been practicing cello scales every night after dinner, and the pups howl along "
                   "like it's a concert lol."),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        ("P2", 18, "duolingo owl is bullying me again lol, 40 day streak of japanese and i still "
                   "cant order ramen"),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        ("P5", 19, "day 20 of no carbs, i literally dreamt about rice last night lmao"),
    ],
    "memdaily-zh-dev/memdaily-u41.json": [
        ("P3", 8, "我那辆二手比亚迪最近老打不着火，都修了两回了。"),
    ],
    "memdaily-zh-dev/memdaily-u42.json": [
        ("P3", 8, "前阵子体检查出来血压偏高，现在每天早上得吃一片降压药。"),
    ],
}
held_out_add(HELD9_PROBES, HELD9_PLANTED)


# A tenth held-out set (2026-12-04): written before any change it measures, by a writer who did
# not read the app's recall, on LoCoMo conv-43 and conv-47, conv-30 played as a group (a question
# to Rook about what Gina said), REALTALK Chat_7 and Chat_10, MemDaily u44 and u45; facts no
# earlier set asked. Follow-ups leaning on the line before ("which town am I gonna be living in
# again?", "wait which piece was it again lol", 那他平时有啥爱好？), corrections (no not that,
# the sci-fi one…, no i mean the chess one…, 不是，我问的是…), "that" / 上次 / 前阵子 and vague
# times (a while back, ages ago), a question at the end of a chatty message (btw, 对了, or no
# pivot at all), typos and slang, colloquial Chinese (来着, 啥), a category or a role for a
# specific thing or person (herb for sage, what I put in my latte for lavender syrup, the manga
# my brother keeps pushing, your cousin's pup, ur friend's kitten, 型号 for OPPOReno7, 看啥的 for
# 口腔), the player's own facts planted in words the question does not use (tattoo for "inked",
# chore for folding laundry, plant for a pothos, coffee order for an oat cortado, 房东 for who
# comes to collect the rent, 小名 for what my mum still calls me) or told in a lead-in turn.
# Played alone with --only "held out 10".
# On bc80da04 (main's recall, before any change it measures; 2026-12-04 23:33-23:46, load 1-4),
# played among the others: found 36/40, @5 31/40, @10 34/40; by file: conv-43 6/6, 6/6, 6/6;
# conv-47 6/6, 6/6, 6/6; Chat_7 4/6, 2/6, 4/6; Chat_10 4/6, 3/6, 3/6; u44 6/6, 5/6, 5/6;
# u45 6/6, 5/6, 6/6; group conv-30 4/4, 4/4, 4/4 (found, @5, @10); talk[all] 339/346, 308/346,
# 326/346.
HELD10 = "held out 10"
HELD10_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-43.json": [
        (HELD10, ["still can't believe I actually got into the study abroad program!!",
                  "which town am I gonna be living in again?"], ["D28:3", "D28:4"]),
        (HELD10, ["what herb did you throw in that soup you made up on the spot?"], ["D10:8"]),
        (HELD10, ["what's that book you've been reading, the alchemist?",
                  "no not that one, the sci-fi one about religion and ecology"], ["D22:12"]),
        (HELD10, ["ugh my flashcard app wiped my whole german streak and I've got a paper due "
                  "friday, kill me. btw what was that new fantasy show I was so hyped about?"],
         ["D26:36"]),
        (HELD10, ["that city you told me a while back I just had to visit, which one was it?"],
         ["D29:12", "D29:13"]),
        (HELD10, ["what tattoo did I get again?"], ["P7"]),
    ],
    "locomo/conv-47.json": [
        (HELD10, ["sam says hi btw, we're still drowning in boxes lol",
                  "wait what's our new apartment near again?"], ["D29:10"]),
        (HELD10, ["what place did you get at that local tournament?",
                  "no i mean the chess one, how'd that go?"], ["D30:4"]),
        (HELD10, ["what's your cousin's pup called again?"], ["D31:22", "D31:23"]),
        (HELD10, ["bro the dogs knocked my bookshelf over and Ned chewed up a controller, vet says "
                  "he's fine tho. btw what was that extra country I snuck in on my canada trip?"],
         ["D17:22"]),
        (HELD10, ["ages ago my wallet got swiped, what was I doing when it happened?"], ["D1:30"]),
        (HELD10, ["what's the chore I hate most?"], ["P3"]),
    ],
    "group:locomo/conv-30.json": [
        (HELD10, ["Rook, what did Gina say she made to teach people how to style her clothes?"],
         ["D13:4"]),
        (HELD10, ["Gina landed that fashion internship, right Rook?",
                  "what kind of company is it with?"], ["D12:3"]),
        (HELD10, ["Rook, where'd Gina get the idea for the designs she did with that local "
                  "artist?"], ["D5:7"]),
        (HELD10, ["Rook, what did Gina say she built for her store last week?"], ["D18:1"]),
    ],
    "realtalk-dev/Chat_7_Nebraas_Vanessa.json": [
        (HELD10, ["my old lady soufflé has been so clingy lately lol",
                  "how old is she turning again"], ["D23:28"]),
        (HELD10, ["whats ur friends kitten called again"], ["D23:54", "D23:55"]),
        (HELD10, ["ugh the strays outside my building still wont let me near them and my trainer "
                  "added another set of deadlifts, im dead lol. what did u say u hurt when u "
                  "slipped on that ice"], ["D24:4", "D24:8"]),
        (HELD10, ["a while back u said u didnt wanna take over the bakery, what did u wanna do "
                  "instead"], ["D8:13"]),
        (HELD10, ["what was that weird thing i put in my latte that one time"], ["D5:12", "D5:14"]),
        (HELD10, ["whats my plant called again lol"], ["P4"]),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        (HELD10, ["finally nailed the middle part of the piano piece im working on",
                  "wait which piece was it again lol"], ["D8:22"]),
        (HELD10, ["what manga has my brother been telling me to read forever"], ["D4:13"]),
        (HELD10, ["bus was 25 min late n it was freezing, then my roommate spilled juice all over "
                  "the couch smh. btw where's ur office again"], ["D1:15"]),
        (HELD10, ["a while back someone got u some calendar thing, what was in it"], ["D1:30"]),
        (HELD10, ["whats my usual coffee order"], ["P5"]),
        (HELD10, ["ok so i signed up for a half marathon in april, already regretting it lol",
                  *SMALL_TALK, "what am i training for again"], ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u44.json": [
        (HELD10, ["我同事叫啥来着？", "那他平时有啥爱好？"], ["D6:8"]),
        (HELD10, ["我叔叔在哪儿上班来着？", "不是，我问的是我爸"], ["D9:2", "D9:5"]),
        (HELD10, ["上次跟你说我去的那家医院，是看啥的来着？"], ["D3:1", "D3:2"]),
        (HELD10, ["今天改稿改到眼睛都花了，晚上还得赶一份合同译稿，头都大了。"
                  "对了，我上司平时喜欢捣鼓啥来着？"], ["D6:7"]),
        (HELD10, ["我房东是谁来着？"], ["P5"]),
        (HELD10, ["跟你说，我们组下个月要搬到珠江新城那边的新办公楼了，通勤能省半小时。",
                  *SMALL_TALK_ZH, "我们下个月搬去哪儿来着？"], ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u45.json": [
        (HELD10, ["我婶婶叫啥来着？", "那她平时有啥爱好？"], ["D4:4"]),
        (HELD10, ["我下属叫啥来着？", "不是，我问的是我上司"], ["D8:4"]),
        (HELD10, ["前阵子跟你说下班常去溜达的那个公园，叫啥来着？"], ["D3:1", "D3:2"]),
        (HELD10, ["今天柜台的队排到了门口，客户一个接一个，午饭三点才吃上。"
                  "我那手机是啥型号来着，想去换块电池"], ["D7:1", "D7:2"]),
        (HELD10, ["我小名叫啥来着？"], ["P4"]),
        (HELD10, ["跟你说，我儿子下个月要去杭州参加夏令营，整整两周。", *SMALL_TALK_ZH,
                  "孩子下个月去的那个营在哪个城市来着？"], ["said:0"]),
    ],
}
HELD10_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-43.json": [
        ("P7", 22, "Finally got a tiny lightning bolt inked behind my ear after finals, my mom "
                   "still hasn't noticed lol."),
    ],
    "locomo/conv-47.json": [
        ("P3", 24, "Honestly I'd rather fight a raid boss naked than fold laundry, the pile on my "
                   "chair is taller than Ned lol."),
    ],
    "realtalk-dev/Chat_7_Nebraas_Vanessa.json": [
        ("P4", 20, "my pothos finally grew a new vine!! i named her gloria and i literally say "
                   "good morning to her every day lol"),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        ("P5", 18, "the barista at the corner spot starts making my iced oat cortado w an extra "
                   "shot the second i walk in lol"),
    ],
    "memdaily-zh-dev/memdaily-u44.json": [
        ("P5", 7, "楼下王阿姨每个月五号准时上门收房租，每次还顺手给我带一兜自己包的饺子。"),
    ],
    "memdaily-zh-dev/memdaily-u45.json": [
        ("P4", 5, "我妈到现在还管我叫“石头”，说我小时候又黑又结实。"),
    ],
}
held_out_add(HELD10_PROBES, HELD10_PLANTED)


# An eleventh held-out set (2026-12-05): written before any change it measures, by a writer who
# did not read the app's recall, on the conversations the earlier sets used least: LoCoMo conv-42,
# conv-43 played as a group (a question to Rook about what John said), REALTALK Chat_8 and
# Chat_5, MemDaily u49, u40 and u43; facts no earlier set asked. Follow-ups leaning on the line
# before ("what did I end up calling her?", "and what did i tell u to read after", 那她平时爱干啥？,
# 那我下属呢？), corrections (no i mean urs…, nah not that…, 不是 / 不对，我问的是…), "that" /
# 上次 / 上回 / 前阵子 and vague times (a while back, way back), a question at the end of a chatty
# message (btw, 对了, 话说, or no pivot at all), typos and slang, colloquial Chinese (来着, 啥),
# a category or a paraphrase the chat never uses (vehicle for an F150, ride for a truck, computer
# for a laptop, trippy movie with the dream stuff for Inception, stretchy workout for yoga, 煮饭用的
# 锅 for 电饭煲, 又能吃又能游泳的节 for 美食游泳趣味节, 去外国练瑜伽的活动 for 异域瑜伽之旅,
# 跑各地特色邮局的活动 for 邮旅探索之旅), the player's own facts planted in words the question
# does not use (exercise in the mornings for hot yoga, 忌口 for a peanut allergy, 孪生兄弟 for
# 双胞胎弟弟, 家里小子念大学 for 儿子考上南航) or told in a lead-in turn (a work conference,
# salsa, 象棋比赛, 苏州, a 海尔 fridge asked as 电器). Played alone with --only "held out 11".
# On d502b605 (main's recall, before any change it measures; 2026-12-05 01:48-01:54, load 2-4),
# played alone (--only "held out 11"), the same on two runs: found 38/40, @5 32/40, @10 36/40; by
# file: conv-42 6/6, 6/6, 6/6; Chat_8 5/6, 3/6, 4/6; Chat_5 5/6, 5/6, 5/6; u49 6/6, 5/6, 5/6;
# u40 6/6, 4/6, 6/6; u43 6/6, 5/6, 6/6; group conv-43 4/4, 4/4, 4/4 (found, @5, @10). No probe
# was changed after the run.
HELD11 = "held out 11"
HELD11_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-42.json": [
        (HELD11, ["remember that stuffed pup you gave me ages ago?",
                  "what did I end up calling her?"], ["D24:4"]),
        (HELD11, ["who's my favorite superhero again?", "no i mean urs lol"], ["D15:4"]),
        (HELD11, ["ugh my phone died in the middle of a call with a producer and I had to redo "
                  "half a scene from memory, tech hates me. btw what did I get after my computer "
                  "crashed so I'd never lose my stuff again?"], ["D21:3"]),
        (HELD11, ["a while back I took a road trip to dig up ideas for a script, what was that "
                  "town called again?"], ["D17:4"]),
        (HELD11, ["wat was that trippy movie u saw w all the dream stuff"], ["D23:17"]),
        (HELD11, ["what kind of exercise have I been doing in the mornings?"], ["P3"]),
    ],
    "group:locomo/conv-43.json": [
        (HELD11, ["Rook, what's that stretchy workout John said he picked up for flexibility?"],
         ["D20:2", "D20:4"]),
        (HELD11, ["John got hurt pretty bad last season, didn't he Rook?",
                  "what did he hurt again?"], ["D19:6"]),
        (HELD11, ["Rook, a while back John told us about some camp he ran for kids, where was "
                  "that?"], ["D26:23"]),
        (HELD11, ["Rook, which city did John say is one of his favorites to explore?"], ["D3:19"]),
    ],
    "realtalk-dev/Chat_8_Akib_Muhhamed.json": [
        (HELD11, ["bro its so cold my car doors froze shut this morning",
                  "wait what did i say the perfect temp was again lol"], ["D10:15", "D10:30"]),
        (HELD11, ["who'd i wanna swap lives with, that food critic thing right?",
                  "nah i mean u, who'd u trade places with"], ["D17:21", "D17:22"]),
        (HELD11, ["ugh my ear is acting up again and my boss stuck me w another group project full "
                  "of freeloaders smh. btw what movie did i end up watching on my mlk day off"],
         ["D21:9"]),
        (HELD11, ["that freezing day at the beach w the work guys, what happened to my friend's "
                  "ride"], ["D20:14"]),
        (HELD11, ["what was that game i started over cuz i never beat it the first time"],
         ["D12:12", "D12:13"]),
        (HELD11, ["oh btw my company's sending me to a cybersecurity conference in denver next "
                  "month", *SMALL_TALK, "where's that work thing they're sending me to again"],
         ["said:0"]),
    ],
    "realtalk-dev/Chat_5_Nicolas_Nebraas.json": [
        (HELD11, ["what vehicle do i drive again lol"], ["D1:101"]),
        (HELD11, ["that book series u were rereading way back, the one w the dragon",
                  "and what did i tell u to read after"], ["D2:28"]),
        (HELD11, ["what did ur bf wanna name the cat",
                  "nah not that, what name did i want for my snake"], ["D16:8"]),
        (HELD11, ["ugh julio left the stove on again n the whole place smells like burnt rice, and "
                  "my nose wont stop bleeding smh. where did i say id wanna live if money wasnt a "
                  "thing"], ["D3:61"]),
        (HELD11, ["a while back u told me wat ur in school for, what kinda doctor was it"],
         ["D15:9"]),
        (HELD11, ["ok dont laugh but i signed up for salsa classes tuesdays at the community "
                  "center", *SMALL_TALK, "what kinda dancing am i learning now"], ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u49.json": [
        (HELD11, ["我表妹是干啥的来着？", "那她平时爱干啥？"], ["D2:5"]),
        (HELD11, ["我上司有啥爱好来着？", "不是，我说的是我舅舅"], ["D2:8"]),
        (HELD11, ["今天小卖部进货，搬了一下午饮料，腰都快断了。"
                  "对了，上次说的那个又能吃又能游泳的节在哪儿办来着？"], ["D5:4"]),
        (HELD11, ["我家煮饭用的那个锅是啥牌子的来着？"], ["D6:9", "D6:10"]),
        (HELD11, ["我吃东西有啥忌口来着？"], ["P4"]),
        (HELD11, ["跟你说，我儿子下周六要去县里参加象棋比赛，我得陪着去。", *SMALL_TALK_ZH,
                  "孩子下周六去比的是啥来着？"], ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u40.json": [
        (HELD11, ["我表姐平时爱干啥来着？", "那我下属呢？"], ["D3:2"]),
        (HELD11, ["我表姐是啥学历来着？", "不对，我问的是我上司"], ["D4:2"]),
        (HELD11, ["今天调了一下午板子，示波器盯得眼都花了。"
                  "话说那个去外国练瑜伽的活动要搞多久来着？"], ["D1:6"]),
        (HELD11, ["上回跟你夸的那个手机是哪款来着？"], ["D3:9", "D3:10"]),
        (HELD11, ["我那孪生兄弟在哪个城市上班来着？"], ["P4"]),
        (HELD11, ["跟你说，我下周末要带孩子回苏州看外婆，得开三个小时车。", *SMALL_TALK_ZH,
                  "我下周末要带娃去哪儿来着？"], ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u43.json": [
        (HELD11, ["我表姐在哪儿上班来着？", "那她平时爱玩啥？"], ["D4:4"]),
        (HELD11, ["我下属多高来着？", "不是，我是问他在哪个单位"], ["D3:6", "D5:3"]),
        (HELD11, ["今天航班延误了三个小时，乘客骂了一路，我嗓子都哑了。"
                  "对了，我舅妈在哪个城市上班来着？"], ["D4:6"]),
        (HELD11, ["前阵子说的那个跑各地特色邮局的活动，要搞多久来着？"], ["D5:12"]),
        (HELD11, ["我家小子在哪儿念大学来着？"], ["P5"]),
        (HELD11, ["跟你说，我上周把家里那台老冰箱换成了海尔的双开门，总算不嗡嗡响了。",
                  *SMALL_TALK_ZH, "我新买的那个电器是啥牌子来着？"], ["said:0"]),
    ],
}
HELD11_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-42.json": [
        ("P3", 12, "Been doing hot yoga at 6am three days a week, it's the only thing that clears "
                   "my head between drafts."),
    ],
    "memdaily-zh-dev/memdaily-u49.json": [
        ("P4", 4, "我一吃花生就过敏，嘴巴肿得跟香肠似的。"),
    ],
    "memdaily-zh-dev/memdaily-u40.json": [
        ("P4", 7, "我有个双胞胎弟弟，在深圳做程序员，一年就回来一趟。"),
    ],
    "memdaily-zh-dev/memdaily-u43.json": [
        ("P5", 2, "我儿子今年考上了南航，学的是飞机维修。"),
    ],
}
held_out_add(HELD11_PROBES, HELD11_PLANTED)


# A twelfth held-out set (2026-12-05): written before any change it measures, by a writer who
# did not read the app's recall, on LoCoMo conv-26 and conv-44, conv-41 played as a group (a
# question to Rook about what Maria said), REALTALK Chat_6 and Chat_9, MemDaily u41, u46, u47 and
# u48; facts no earlier set asked. Follow-ups leaning on the line before ("how long have u been at
# it again", "what was the one u switched to after the duck one", 那我妈呢？, 那她生日是哪天？,
# 那她平时有啥爱好？), corrections that switch whose fact is asked (nah I mean you / urs / u, 不是，
# 我问的是我同事 / 我表哥的 / 我叔叔), vague times (a while back, ages ago, way back, 前阵子, 上回),
# a question at the end of a chatty message (anyway, btw, 话说, or no pivot at all), typos and
# slang (u, ur, wat, fav, lol, smh), colloquial Chinese (来着, 啥, 咋, 俺), a category or a
# paraphrase the chat never uses (sporty fundraiser for a charity race, space thing for a meteor
# shower, milestone for first steps, necklaces for jewelry, the food that made u puke for ginger,
# what ur parents trained u to do for competitive eating, that creepy youtuber for Nexpo, 运动 for
# 瑜伽, 脚上天天穿的那双 for 斯凯奇GoWalk5, 跟八音盒有关的音乐会 for 音乐盒之韵·手作音乐会,
# 逛运动品牌店、试新款的活动 for 运动品牌体验购), the player's own facts in the chats asked in other
# words (what I make those necklaces from, the trick for my brisket), planted in words the question
# does not use (sport for a bouldering gym, trade for HVAC night classes, 结婚那会儿去哪儿玩 for
# 蜜月) or told in a lead-in turn (a dock diving club asked as a water thing, LASIK as an eye thing,
# 西式面点师证, 大理, 千岛湖环湖骑行, 腾冲). Played alone with --only "held out 12".
# On 4cb3d954 (main's recall, before any change it measures; 2026-12-05 02:26-02:29, load 3-4),
# played alone (--only "held out 12"): found 38/40, @5 30/40, @10 35/40; by file: conv-26 5/5,
# 5/5, 5/5; conv-44 4/5, 1/5, 3/5; Chat_6 4/5, 4/5, 4/5; Chat_9 5/5, 3/5, 5/5; u41 4/4, 4/4, 4/4;
# u46 4/4, 3/4, 4/4; u47 4/4, 4/4, 4/4; u48 4/4, 4/4, 4/4; group conv-41 4/4, 2/4, 2/4 (found,
# @5, @10). No probe was changed after the run.
HELD12 = "held out 12"
HELD12_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-26.json": [
        (HELD12, ["that sporty fundraiser thing you did ages ago, what cause was it for?"],
         ["D2:1", "D2:2"]),
        (HELD12, ["what was that space thing you and the kids saw on a camping trip?"],
         ["D10:14"]),
        (HELD12, ["how long have I been making art again?",
                  "nah I mean you, how long have you been into it?"], ["D16:8"]),
        (HELD12, ["ugh, spent all afternoon on adoption paperwork and the printer jammed twice, so "
                  "that was fun. anyway, what was that milestone of your youngest you said you'll "
                  "never forget?"], ["D10:20"]),
        (HELD12, ["what's that sport I've been doing after work lately?"], ["P4"]),
    ],
    "locomo/conv-44.json": [
        (HELD12, ["you and your gf still hunting down new cafes?",
                  "what'd you two eat at that one you found ages ago, the one that smelled so "
                  "good?"], ["D3:17"]),
        (HELD12, ["what's that class I take the pups to twice a week?",
                  "nah i mean u, what did u get into back when u couldnt go hiking"], ["D10:12"]),
        (HELD12, ["the pups dug up half the garden again and Pixie rolled in something gross, so "
                  "it's bath time for everyone lol. btw what do I make those necklaces of mine "
                  "from again? someone at the park asked and I blanked"], ["D22:4", "D22:5"]),
        (HELD12, ["wats ur fav bird again, u told me like way back"], ["D1:16"]),
        (HELD12, ["ok so I signed the pups up for a dock diving club, first session is Saturday!",
                  *SMALL_TALK, "what's that water thing I got the dogs into?"], ["said:0"]),
    ],
    "group:locomo/conv-41.json": [
        (HELD12, ["Rook, what did Maria say the shelter gave her a while back? some kind of "
                  "award?"], ["D29:1"]),
        (HELD12, ["Maria was planning some game thing for the shelter fundraiser, right Rook?",
                  "what kind of tournament was it again?"], ["D15:18"]),
        (HELD12, ["Rook, who was that woman Maria met at the shelter, the one who lost her job and "
                  "went through a divorce?"], ["D7:5"]),
        (HELD12, ["Rook, where did Maria say her family road-tripped to when she was a kid?"],
         ["D18:3"]),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        (HELD12, ["u still doing ur night skincare thing?", "how long have u been at it again"],
         ["D14:34"]),
        (HELD12, ["whats my fav fruit again", "nah i mean urs"], ["D18:33"]),
        (HELD12, ["bro my roommate left the bathroom light on for like 3 days straight and the "
                  "electric bill came today smh. what was that thing ur parents trained u to do as "
                  "a kid"], ["D4:73", "D4:74", "D4:77"]),
        (HELD12, ["a while back u told me about some food that made u puke at a sushi place as a "
                  "kid, wat was it again"], ["D21:43"]),
        (HELD12, ["what trade did i say im going to school for"], ["P3"]),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        (HELD12, ["u still doing ur big books year thing?",
                  "what was the one u switched to after the duck one"], ["D13:5"]),
        (HELD12, ["who'd i wanna have over for lunch again, musk right?",
                  "nah i mean u, who'd u pick"], ["D6:13", "D6:84"]),
        (HELD12, ["bro the raccoons got into my trash again and i was picking chicken bones off "
                  "the driveway at 7am smh. btw whats the trick i told u for my brisket"],
         ["D4:54"]),
        (HELD12, ["that creepy youtuber u recommended a while back, whats his name"], ["D18:7"]),
        (HELD12, ["oh btw im finally getting lasik next friday, no more glasses lol",
                  *SMALL_TALK, "whats that eye thing im getting done again"], ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u41.json": [
        (HELD12, ["我舅妈在哪儿上班来着？", "那我妈呢？"], ["D6:7"]),
        (HELD12, ["我下属今年多大了？", "不是，我问的是我同事"], ["D4:1"]),
        (HELD12, ["今天进了一百斤海鲜，杀鱼杀到手都泡白了，晚上还得盯着备料。"
                  "话说前阵子说的那个逛运动品牌店、试新款的活动，要搞多久来着？"], ["D4:14"]),
        (HELD12, ["跟你说，我下个月要去考西式面点师证，这阵子天天晚上练裱花。", *SMALL_TALK_ZH,
                  "我下个月要考的那个证是啥来着？"], ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u46.json": [
        (HELD12, ["我表哥个子多高来着？", "那我同事呢？"], ["D8:7"]),
        (HELD12, ["我下属邮箱是多少来着？", "不是，我问的是我表哥的"], ["D6:6"]),
        (HELD12, ["今天药房排队的人一直排到门口，一站就是八个小时，腿都肿了。"
                  "话说那个跟八音盒有关的音乐会，有多少人参加来着？"], ["D1:6", "D7:3"]),
        (HELD12, ["跟你说，我下个月要去大理休年假，在洱海边上住一礼拜。", *SMALL_TALK_ZH,
                  "我休假要去哪儿来着？"], ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u47.json": [
        (HELD12, ["我下属叫啥来着？", "那她生日是哪天？"], ["D4:5"]),
        (HELD12, ["我舅妈在哪儿上班来着？", "不是，我问的是我叔叔"], ["D9:5"]),
        (HELD12, ["今天跑了三个客户，嘴皮子都磨破了，回来路上还堵了一个钟头。"
                  "俺叔平时爱搞啥运动来着？"], ["D8:1", "D9:4"]),
        (HELD12, ["跟你说，我报名了下个月的千岛湖环湖骑行，一百二十公里呢。", *SMALL_TALK_ZH,
                  "我下个月要去骑的那圈是在哪儿来着？"], ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u48.json": [
        (HELD12, ["上回跟你说我脚上天天穿的那双，是啥牌子来着？"], ["D5:9", "D5:10"]),
        (HELD12, ["我婶婶是干啥的来着？", "那她平时有啥爱好？"], ["D6:7"]),
        (HELD12, ["我跟我老伴儿结婚那会儿是去哪儿玩的来着？"], ["P4"]),
        (HELD12, ["跟你说，我下个月要去云南腾冲泡温泉，请了五天假。", *SMALL_TALK_ZH,
                  "咋又忘了，我下个月请假是要去哪儿来着？"], ["said:0"]),
    ],
}
HELD12_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-26.json": [
        ("P4", 13, "I signed up at a bouldering gym near my place, three evenings a week now and "
                   "my forearms are wrecked."),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        ("P3", 15, "signed up for hvac night classes at the community college, tues n thurs, "
                   "maybe ill finally stop job hunting lol"),
    ],
    "memdaily-zh-dev/memdaily-u48.json": [
        ("P4", 4, "我跟我爱人当年蜜月是去的厦门鼓浪屿，在岛上住了一个礼拜。"),
    ],
}
held_out_add(HELD12_PROBES, HELD12_PLANTED)


# A thirteenth held-out set (2026-12-05): written before any change it measures, by a writer who
# did not read the app's recall, on LoCoMo conv-30, conv-42, conv-43 and conv-47, conv-26 played
# as a group (a question to Rook about what Melanie said), REALTALK Chat_5, Chat_7 and Chat_10,
# MemDaily u44 and u49; facts no earlier set asked. Follow-ups leaning on the line before ("wait is
# it something you're selling?", "how long did u stay there that time", 那我爸呢？, 那我上司呢？),
# corrections that turn the question to the other person (nah i mean you / u / urs, 不是，我问的是
# 我同事 / 我下属), vague times (a while back, ages ago, way back, 前阵子), a question at the
# end of a chatty message (anyway, btw, 话说, or no pivot at all), typos and slang (u, ur, wat, fav,
# lol, rn, tbh, smh), colloquial Chinese (来着, 啥, 咋, 俺), a category or a paraphrase the chat
# never uses (apps for Instagram and TikTok, sneaker brand for Nike, the timer thing for 25 minutes
# on and 5 off, the old games I played as a kid for Super Mario and Zelda, helping people out for a
# homeless shelter, pop singer for Ed Sheeran, the rappers for Playboi Carti and Lil Wayne, junk in
# orbit for space garbage men, 在水里看艺术装置的展 for 泳动艺术盛宴),
# the player's own facts in the chats asked in other words (the instrument I picked up, the study
# trick I use, where I adopted Ned, my goal for the comp), planted in words the question does not
# use (the doc and my leg for a physio and a torn meniscus, what my sister is studying to be for
# nursing school, a secondhand bike for one off marketplace, 周末那份兼职 for teaching 围棋 at the
# 少年宫) or told in a lead-in turn (a Thursday cake decorating class, a Lisbon dev meetup, CATTI,
# turning the 小卖部 into a 超市). Played alone with --only "held out 13".
# On fc74698c (main's recall, before any change it measures; 2026-12-05 03:17-03:27, load 1-3),
# played alone (--only "held out 13"): found 40/40, @5 33/40, @10 38/40; by file: conv-30 4/4,
# 4/4, 4/4; conv-42 4/4, 3/4, 4/4; conv-43 4/4, 4/4, 4/4; conv-47 4/4, 4/4, 4/4; Chat_5 4/4, 2/4,
# 3/4; Chat_7 4/4, 3/4, 4/4; Chat_10 4/4, 4/4, 4/4; u44 4/4, 2/4, 3/4; u49 4/4, 4/4, 4/4; group
# conv-26 4/4, 3/4, 4/4 (found, @5, @10). One expected id was fixed after the first run: conv-43's
# "a while back i picked up some instrument" listed only D8:12 (the piano), but Tim later took up
# the violin too (D21:11), which the writer had missed; on the first run, without D21:11, it was
# at rank 8 (@5 32/40, every other figure the same). No other probe was changed after the run.
HELD13 = "held out 13"
HELD13_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-30.json": [
        (HELD13, ["that camo hoodie pic you sent me was sick",
                  "wait is it something you're selling?"], ["D16:3"]),
        (HELD13, ["ugh posted a new routine vid last night and got like 12 views, my nephew says "
                  "nobody my age knows how to do socials lol. anyway which apps did u say i should "
                  "be posting on?"], ["D18:13"]),
        (HELD13, ["what's my fav style to dance again?", "nah i mean you, what's yours?"],
         ["D1:9"]),
        (HELD13, ["what did the doc say i did to my leg a while back?"], ["P4"]),
    ],
    "locomo/conv-42.json": [
        (HELD13, ["ur turtles still loving the sun?",
                  "where'd u take them to the beach that time?"], ["D29:6"]),
        (HELD13, ["what kinda movies am i into again?", "nah i mean u, what do u like watching?"],
         ["D1:13", "D9:10"]),
        (HELD13, ["my sister dragged me to her wedding cake tasting and I couldn't eat a single "
                  "thing bc of the dairy, just sat there sipping water for two hours. who'd you "
                  "share that vegan ice cream with last time?"], ["D16:8"]),
        (HELD13, ["ages ago I was working on a script with my writers group, what was it called "
                  "again?"], ["D9:3"]),
    ],
    "locomo/conv-43.json": [
        (HELD13, ["a while back i picked up some instrument, which one was it again lol"],
         ["D8:12", "D21:11"]),
        (HELD13, ["who's my fav character in lord of the rings again?",
                  "nah i mean urs, the one u have the painting of"], ["D27:24", "D27:27"]),
        (HELD13, ["what sneaker brand did you sign that deal with way back?"],
         ["D3:13", "D3:14", "D3:15"]),
        (HELD13, ["exam week is killing me, three finals in two days and my roommate keeps "
                  "practicing trumpet at midnight. btw what was that study trick i told u i use, "
                  "the timer thing?"], ["D18:7"]),
    ],
    "locomo/conv-47.json": [
        (HELD13, ["what instrument am i learning again?", "nah i mean u, what do u play?"],
         ["D3:3"]),
        (HELD13, ["ugh, the landlord finally fixed the heating but only after we spent three "
                  "nights in hoodies lol. anyway where did i adopt ned from again?"], ["D5:1"]),
        (HELD13, ["ages ago i told u about the old games i used to play for hours as a kid, which "
                  "ones were they?"], ["D28:25"]),
        (HELD13, ["ok news, I'm flying to Lisbon in december for a game dev meetup, first time in "
                  "Portugal!", *SMALL_TALK, "where's that dev thing i'm going to again?"],
         ["said:0"]),
    ],
    "group:locomo/conv-26.json": [
        (HELD13, ["Melanie's been painting a ton lately, right Rook?",
                  "what kind of stuff did she say she likes painting best?"], ["D14:30"]),
        (HELD13, ["Rook, Melanie told us her whole family spent a day helping people out "
                  "somewhere, where was it?"], ["D14:10"]),
        (HELD13, ["Rook, which pop singer did Mel say she's into, besides the classical stuff?"],
         ["D15:28"]),
        (HELD13, ["Rook, a while back Mel got hurt and had to give something up for a bit, what "
                  "was it?"], ["D17:8"]),
    ],
    "realtalk-dev/Chat_5_Nicolas_Nebraas.json": [
        (HELD13, ["what sport did i play in my hs club again?", "nah i mean u, whats ur fav"],
         ["D1:92"]),
        (HELD13, ["ur bfs family still got that place in turkey?",
                  "how long did u stay there that time"], ["D3:75"]),
        (HELD13, ["ugh julio ate my leftover soup AND left the pot in the sink smh, and my neck is "
                  "still messed up from sleeping weird. what was that movie i dragged my crush to "
                  "a while back"], ["D17:20"]),
        (HELD13, ["wait whats my sister studying to be rn"], ["P5"]),
    ],
    "realtalk-dev/Chat_7_Nebraas_Vanessa.json": [
        (HELD13, ["who's my team again, the one on the losing streak?",
                  "nah i mean u, who do u root for"], ["D9:14"]),
        (HELD13, ["whats my goal for the bodybuilding comp again, like wat spot am i going for"],
         ["D7:44"]),
        (HELD13, ["ugh work was nonstop today, 14 appointments back to back and my protein shake "
                  "exploded in my bag lol. anyway what color did u say u absolutely hate?"],
         ["D3:18"]),
        (HELD13, ["guess what, i got a spot in a cake decorating class on thursdays at the "
                  "community college!!", *SMALL_TALK, "what am i learning on thursdays now lol"],
         ["said:0"]),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        (HELD13, ["who do i usually blast in the car?", "nah i mean u, which rappers were u into"],
         ["D2:19"]),
        (HELD13, ["a while back i told u about a manga about cleaning up junk in orbit, whats it "
                  "called again"], ["D10:11"]),
        (HELD13, ["trains were a mess this morning, flooding again n i had to wade thru like 2 "
                  "inches of water to get to the platform smh. btw what course did u say u just "
                  "started taking"], ["D12:14"]),
        (HELD13, ["what brand was that secondhand bike i picked up tbh i forgot"], ["P6"]),
    ],
    "memdaily-zh-dev/memdaily-u44.json": [
        (HELD13, ["俺叔平时爱干啥来着？", "那我爸呢？"], ["D6:6"]),
        (HELD13, ["我上司老家是哪儿的来着？", "不是，我问的是我同事"], ["D5:1"]),
        (HELD13, ["今天交了一份三万字的标书译稿，改到凌晨两点，眼睛酸得不行。"
                  "话说我周末那份兼职是干啥的来着？"], ["P6"]),
        (HELD13, ["跟你说，我下礼拜要去考CATTI二级笔译，紧张死了。", *SMALL_TALK_ZH,
                  "咋又忘了，我下礼拜要考的那个是啥来着？"], ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u49.json": [
        (HELD13, ["我下属生日是哪天来着？", "那我上司呢？"], ["D6:8"]),
        (HELD13, ["我表妹多高来着？", "不是，我问的是我下属"], ["D7:2"]),
        (HELD13, ["前阵子说的那个在水里看艺术装置的展，要办多久来着？"], ["D10:3", "D8:3"]),
        (HELD13, ["跟你说，我下个月要把小卖部扩成超市，隔壁那间门面已经租下来了。", *SMALL_TALK_ZH,
                  "我下个月打算把店弄成啥来着？"], ["said:0"]),
    ],
}
HELD13_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-30.json": [
        ("P4", 14, "Physio says I tore the meniscus in my left knee at the comp, so no jumps or "
                   "spins for six weeks."),
    ],
    "realtalk-dev/Chat_5_Nicolas_Nebraas.json": [
        ("P5", 13, "my little sis maria just got into nursing school in phoenix, proudest big bro "
                   "ever"),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        ("P6", 14, "finally got a used road bike off fb marketplace, a blue trek, been riding it "
                   "to work when it isnt pouring lol"),
    ],
    "memdaily-zh-dev/memdaily-u44.json": [
        ("P6", 6, "我每周六上午去少年宫教小朋友下围棋，都教了三年了。"),
    ],
}
held_out_add(HELD13_PROBES, HELD13_PLANTED)


# A fourteenth held-out set (2026-12-05): written before any change it measures, by a writer who did
# not read the app's recall, on LoCoMo conv-41, conv-44 and conv-47, conv-30 played as a group (a
# question to Rook about what Gina said), REALTALK Chat_6, Chat_9 and Chat_10, MemDaily u42, u45 and
# u48; facts no earlier set asked. Follow-ups leaning on the line before ("who was the resident that
# wrote u that thank you letter again", "wait whats his name again", "who was it that noticed her
# stuff again?", 那他个子多高？, 那她个儿多高？, 那他老家是哪儿的？), corrections that turn the
# question to the other person or to another fact (nah i mean u / urs, 不是，我问的是我上司…,
# 不对，我问的是她叫啥名儿 / 她念到啥程度了), vague times (way back, a while back, that time,
# 前阵子, 上回), a question at the end of a chatty message (anyway, btw, 对了, 话说, or no pivot at
# all), typos and slang (u, ur, wat, fav, rn, tbh, lol, smh, bro), colloquial Chinese (来着, 啥,
# 个儿, 丫头), a category or a paraphrase the chat never uses (that fuzzy guy I had as a kid for a
# childhood dog, sweet treat for a banana split sundae, the dream with the condiments for ketchup
# and mustard, a fantasy roleplay game for Pathfinder, the big gentle one for a Bernese mountain
# dog, the chef guy for Gordon Ramsay, the startup for portable smokers, 跟写毛笔字、读书有关的活动
# for 书法阅美盛宴, 银行那个峰会 for 银行业交流峰会, 全世界的景点都搬过来的地方 for 世界之窗), the
# player's own facts in the chats asked in other words (my title after the promotion, the flowers in
# my garden, the sushi rolls I told you to start with, what beer Sam likes, what the cooking class
# costs, my new idol, what I named the stray, my neighbours' lizard, my dream, my home country's
# national flower), planted in words the question does not use (an old ride fixed up on weekends for
# a '67 Mustang restored every Sunday, a present from the missus for a pottery wheel for my bday,
# what I hurt playing ball for a wrist sprained going up for a rebound, 我家丫头要去哪个国家念书 for
# 闺女去英国读研) or told in a lead-in turn (老伴儿's 书法班 at the 老年大学). Played alone with
# --only "held out 14".
# On 994c7c04 (main's recall, before any change it measures; 2026-12-05 04:45-04:55, load 2-4),
# played alone (--only "held out 14"), the same on two runs: found 37/40, @5 35/40, @10 36/40; by
# file: conv-41 4/4, 4/4, 4/4; conv-44 4/4, 4/4, 4/4; conv-47 4/4, 3/4, 3/4; Chat_6 3/4, 3/4, 3/4;
# Chat_9 3/4, 2/4, 3/4; Chat_10 3/4, 3/4, 3/4; u42 4/4, 4/4, 4/4; u45 4/4, 4/4, 4/4; u48 4/4, 4/4,
# 4/4; group conv-30 4/4, 4/4, 4/4 (found, @5, @10). Two expected ids were added after the first
# run, lines the writer had missed that also hold the answer: Chat_9's new intern also D19:75 ("The
# name Monet may have propelled her…") and Chat_10's favourite Harry Potter book also D20:36 ("Why
# do you like Azkaban?"); the second run, with them, gave the same figures as the first (the intern
# at rank 8, the book not found). No turn of any probe was changed after the run.
HELD14 = "held out 14"
HELD14_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-41.json": [
        (HELD14, ["ur still volunteering at the shelter right?",
                  "who was the resident that wrote u that thank you letter again"],
         ["D21:19", "D27:8"]),
        (HELD14, ["ugh the kids tracked sand all through the house after the beach and Kyle's "
                  "teething so nobody slept lol. anyway what did i say my title was after that "
                  "promotion way back?"], ["D19:8"]),
        (HELD14, ["that sweet treat u always have after a day at the shelter, wat was it again"],
         ["D13:18"]),
        (HELD14, ["what's that old ride i've been fixing up on weekends again?"], ["P8"]),
    ],
    "locomo/conv-44.json": [
        (HELD14, ["the pups r all curled up on their new beds rn, so cute",
                  "omg that reminds me, what was the name of that fuzzy guy i had when i was "
                  "little?"], ["D13:8", "D13:9", "D13:10"]),
        (HELD14, ["my garden's finally blooming again!!",
                  "what were those bright flowers i told u about called, i never wrote it down"],
         ["D19:20"]),
        (HELD14, ["how do i usually unwind again?",
                  "nah i mean u, what little stuff did u start doing to recharge when work got "
                  "crazy"], ["D18:5"]),
        (HELD14, ["ugh the cast is finally off and Panda knocked me over at the park within like "
                  "five minutes lol, my wrist is still so weak. anyway what rolls did i tell u to "
                  "start with when u were new to sushi?"], ["D25:8", "D25:9"]),
    ],
    "locomo/conv-47.json": [
        (HELD14, ["sam n i are hitting mcgee's tonight lol",
                  "wait what kinda beer does she like again, i wanna order for her"], ["D23:3"]),
        (HELD14, ["ugh Ned got into the trash again and Daisy helped him lol, two hours of "
                  "cleanup. anyway how much did i say that cooking class costs? thinking of "
                  "dragging Sam along"], ["D23:15"]),
        (HELD14, ["that startup u kicked off way back, wat were u building again"], ["D25:3"]),
        (HELD14, ["hows the volunteer thing at that game dev nonprofit going?",
                  "wait what are they having u do there again"], ["D26:3", "D26:4"]),
    ],
    "group:locomo/conv-30.json": [
        (HELD14, ["Rook, how old was Gina when her dance team took first at regionals?"],
         ["D1:17"]),
        (HELD14, ["Gina's been getting a ton of attention for her clothes lately, huh Rook?",
                  "who was it that noticed her stuff again?"], ["D17:1", "D17:2"]),
        (HELD14, ["Rook, a while back Gina told us what the hardest part of getting her store "
                  "going was, what was it?"], ["D18:5"]),
        (HELD14, ["Rook, has Gina ever been over to Europe? which city did she say she went to?"],
         ["D2:5"]),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        (HELD14, ["ugh my roommate still wont talk to me about the bug thing and now the fridge "
                  "smells like old soup lol. btw who did i say my new idol was after the chef guy "
                  "blocked me"], ["D24:51", "D24:57"]),
        (HELD14, ["that kitty that followed me home, wat did i end up naming her lol"], ["D23:5"]),
        (HELD14, ["how many hot dogs did i eat at that dino fight thing",
                  "nah i mean u, how many grilled cheeses did u scarf down back in ur eating days"],
         ["D6:108"]),
        (HELD14, ["way back u told me what dog u'd get if u could, the big gentle one, wat breed "
                  "was it"], ["D2:66"]),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        (HELD14, ["my neighbors' lizard is sunbathing in my yard again lol",
                  "wait whats his name again"], ["D19:17"]),
        (HELD14, ["who's the new intern at my job again?",
                  "nah i mean urs, the one u said is an artist too"], ["D19:72", "D19:75"]),
        (HELD14, ["bro my ear is still messed up and the raccoons hit the trash again smh. what "
                  "was that weird dream i told u about tbh, the one w the condiments lol"],
         ["D2:9"]),
        (HELD14, ["what present did the missus get me again lol"], ["P6"]),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        (HELD14, ["whats my fav harry potter book again", "nah i mean urs, which one was it"],
         ["D20:34", "D20:36"]),
        (HELD14, ["way back i told u about a podcast ive been listening to forever, the funny one "
                  "where they play some fantasy roleplay game, whats it called"], ["D1:46"]),
        (HELD14, ["my niece asked me about our home country today and i totally blanked lol. "
                  "what did i say its national flower is?"], ["D20:80"]),
        (HELD14, ["what did i hurt playing ball that time"], ["P7"]),
    ],
    "memdaily-zh-dev/memdaily-u42.json": [
        (HELD14, ["我舅舅在哪个城市上班来着？", "那他个子多高？"], ["D6:5"]),
        (HELD14, ["我表妹在哪儿上班来着？", "不是，我问的是我上司，他是啥文凭？"], ["D2:8"]),
        (HELD14, ["前阵子说的那个跟写毛笔字、读书有关的活动，要办多久来着？"], ["D3:5"]),
        (HELD14, ["今天下了一天雨，地里的菜苗全泡了，心疼死了。对了，那个农业创新启动会要开几天"
                  "来着？"], ["D3:8"]),
    ],
    "memdaily-zh-dev/memdaily-u45.json": [
        (HELD14, ["我婶婶叫啥来着？", "那她个儿多高？"], ["D5:3", "D7:6"]),
        (HELD14, ["我下属电话多少来着？", "不对，我问的是她叫啥名儿"], ["D8:1"]),
        (HELD14, ["今天柜台又忙了一整天，嗓子都冒烟了。话说上回说的银行那个峰会是哪天开来着？"],
         ["D2:5", "D9:4"]),
        (HELD14, ["我家丫头要去哪个国家念书来着？"], ["P5"]),
    ],
    "memdaily-zh-dev/memdaily-u48.json": [
        (HELD14, ["我上司叫啥来着？", "那他老家是哪儿的？"], ["D5:1", "D6:4"]),
        (HELD14, ["我婶婶在哪儿上班来着？", "不对，我问的是她念到啥程度了"], ["D5:7"]),
        (HELD14, ["上回跟你说我去逛的那个，全世界的景点都搬过来的地方，叫啥来着？"],
         ["D4:1", "D4:2"]),
        (HELD14, ["跟你说，我老伴儿上礼拜报了老年大学的书法班，天天在家练字。", *SMALL_TALK_ZH,
                  "我老伴儿最近在学啥来着？"], ["said:0"]),
    ],
}
HELD14_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-41.json": [
        ("P8", 18, "Been restoring my grandpa's old '67 Mustang in the garage every Sunday, and "
                   "the engine finally turned over yesterday."),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        ("P6", 13, "my wife got me a pottery wheel for my bday, first bowl came out looking like "
                   "a hat lmao"),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        ("P7", 10, "sprained my left wrist going up for a rebound at the y last night, piano is on "
                   "hold for like 3 weeks smh"),
    ],
    "memdaily-zh-dev/memdaily-u45.json": [
        ("P5", 6, "我闺女下个月就要去英国读研了，学的是会计。"),
    ],
}
held_out_add(HELD14_PROBES, HELD14_PLANTED)


# A fifteenth held-out set (2026-12-05): written before any change it measures, by a writer who did
# not read the app's recall, on LoCoMo conv-26, conv-42 and conv-43, conv-44 played as a group (a
# question to Rook about what Andrew said), REALTALK Chat_5, Chat_7 and Chat_8, MemDaily u40, u41
# and u47; facts no earlier set asked. Follow-ups leaning on the line before ("where were u guys
# headed again when it happened?", "how many ppl showed up to the first one again?", "what was that
# boozy thing they went to…", "wait is he still a kitten or older?", 那她今年多大了？, 那俺妈呢？,
# 那她叫啥名儿？), corrections that turn the question to the other person or to another fact (nah i
# mean u / urs, nah wait i mean u, 不是，我问的是我上司的 / 她在哪家店上班), vague times (way back,
# a while back, that time, 上回, 前阵子), a question at the end of a chatty message (anyway, btw,
# 对了, 话说, or no pivot at all), typos and slang (u, ur, urs, ppl, fav, rn, tbh, lol, smh, bro,
# gonna), colloquial Chinese (来着, 啥, 咋, 俺, 名儿), a category or a paraphrase the chat never
# uses (that crew of activists for 'Connected LGBTQ Activists', a local tourney that wasn't cs for
# Street Fighter, the wizard party for a Harry Potter party, the yoga move for Warrior II, the boozy
# thing for a wine tasting, the place where dogs hang out inside all day for a doggy daycare, my
# evil alter ego for Victor, the junk food I miss for fried foods, my fav retro console for an N64
# from a flea market, that monster flick for Shin Godzilla, 一块儿读瑜伽老书、聊心得的活动 for
# 瑜伽经典阅读汇, 练厨艺、聊后厨咋管的会 for 烹饪技艺提升盛宴, 骑车比谁快的比赛 for 自行车速度挑战,
# 小区有啥毛病 for the dim lights on evening walks), the player's own facts in the chats asked in
# other words (my fav color, what happened at my first play, where I had a dog before the allergies,
# what I wore to the wizard party, what I paid for the big tomatoes, the junk food I miss, how I
# like my bagels, 骑车拍风景用的那台手机), planted in words the question does not use (where my
# flatmate is off to for a roommate's offer in Seattle, the board game my grandad got me hooked on
# for chess with grandpa, the weekly thing my better half roped me into for the ballroom lessons my
# wife signed us up for, 俺家那条老狗 for 金毛豆豆) or told in a lead-in turn (济南的厨师长培训
# asked as 去哪个城市学习). Every expected id was checked against its line and the whole
# conversation searched for other lines holding the answer (e.g. Chat_5's tomatoes also D6:49 and
# D6:51, who raised Nebraas also D21:152, Chat_7's Moon's age also D23:22 and D23:24); Chat_8's
# D8:41 ("if I just had Wednesday off…", Akib's reply) was left out of the 4-day week probe, as it
# does not say which day Muhhamed picked. Played alone with --only "held out 15".
# On 92e9eb90 (main's recall, before any change it measures; 2026-12-05 05:03-05:13, load 3-4),
# played alone (--only "held out 15"): found 36/40, @5 28/40, @10 30/40; by file: conv-26 2/4, 1/4,
# 1/4; conv-42 4/4, 4/4, 4/4; conv-43 4/4, 4/4, 4/4; Chat_5 4/4, 3/4, 3/4; Chat_7 3/4, 3/4, 3/4;
# Chat_8 3/4, 3/4, 3/4; u40 4/4, 2/4, 2/4; u41 4/4, 3/4, 4/4; u47 4/4, 2/4, 3/4; group conv-44 4/4,
# 3/4, 3/4 (found, @5, @10). A second run gave the same but @10 29/40 (u41 3/4: the player's
# mother's age at rank 11, not 9). No expected id and no turn of any probe was changed after the
# runs.
HELD15 = "held out 15"
HELD15_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-26.json": [
        (HELD15, ["ur fam's road trip sounded so scary, so glad ur son's ok",
                  "where were u guys headed again when it happened?"], ["D18:5"]),
        (HELD15, ["my sister wants to repaint my room for my bday and asked what color i'd want "
                  "and i totally blanked lol. what did i tell u my fav was?"], ["D8:11"]),
        (HELD15, ["that crew of activists I joined way back, what's it called again?"],
         ["D10:5"]),
        (HELD15, ["wait where's my flatmate off to again? i keep forgetting lol"], ["P5"]),
    ],
    "locomo/conv-42.json": [
        (HELD15, ["u still throwing those gaming parties?",
                  "how many ppl showed up to the first one again?"], ["D16:6"]),
        (HELD15, ["u won some local tourney way back that wasnt cs, what game was it again"],
         ["D10:6"]),
        (HELD15, ["my landlord finally fixed the sink but now the bathroom door won't close, this "
                  "apartment is cursed lol. btw what happened at my very first play again? was "
                  "telling a friend and forgot how the story goes"], ["D9:5"]),
        (HELD15, ["I had a dog before my allergies got bad, right? where was that again?"],
         ["D24:6"]),
    ],
    "locomo/conv-43.json": [
        (HELD15, ["that wizard party i went to a while back, what did i end up wearing lol"],
         ["D22:3"]),
        (HELD15, ["how long have i been playing violin now?",
                  "nah i mean u, how long have u been playing pro?"], ["D21:4"]),
        (HELD15, ["ugh the dorm wifi died in the middle of my essay and i lost like two pages, so "
                  "that was fun. anyway what was that yoga move u said makes u feel strong?"],
         ["D20:6"]),
        (HELD15, ["what board game did my grandad get me hooked on again?"], ["P8"]),
    ],
    "group:locomo/conv-44.json": [
        (HELD15, ["Rook, remember when Andrew's pup went nuts at the dog park? what was he "
                  "chasing?"], ["D23:11"]),
        (HELD15, ["Andrew and his gf are always trying new stuff, huh Rook?",
                  "what was that boozy thing they went to that he ended up loving?"],
         ["D25:1", "D25:2"]),
        (HELD15, ["Rook, where'd Andrew say he and his gf went to grab fresh veggies for dinner "
                  "that time?"], ["D15:2"]),
        (HELD15, ["Rook, what was that place near Andrew's where dogs hang out inside all day?"],
         ["D9:8"]),
    ],
    "realtalk-dev/Chat_5_Nicolas_Nebraas.json": [
        (HELD15, ["who'd i see in concert last, u remember?",
                  "nah i mean u, who'd u drag ur bf to see even tho hes not into him"], ["D9:7"]),
        (HELD15, ["ugh grocery prices r insane, paid like 6 bucks for grapes today smh. how much "
                  "did i say i blew on those big tomatoes that time"],
         ["D6:46", "D6:49", "D6:51"]),
        (HELD15, ["way back u told me who raised u since ur folks werent around, who was it "
                  "again"], ["D5:31", "D5:33", "D21:152"]),
        (HELD15, ["whats the name of my evil alter ego again lol"], ["D19:9", "D19:12"]),
    ],
    "realtalk-dev/Chat_7_Nebraas_Vanessa.json": [
        (HELD15, ["whats my mbti again lol", "nah i mean urs"], ["D5:76"]),
        (HELD15, ["meal prep sunday, 14 containers of chicken n broccoli lined up on my counter rn "
                  "lol. whats the junk food i said i miss the most tbh"], ["D12:22", "D12:24"]),
        (HELD15, ["where'd i score my fav retro console again?"], ["D6:78", "D6:79"]),
        (HELD15, ["hows moon settling in w steve?",
                  "wait is he still a kitten or older? how old did the rescue say"],
         ["D16:33", "D23:22", "D23:24"]),
    ],
    "realtalk-dev/Chat_8_Akib_Muhhamed.json": [
        (HELD15, ["what day did i say should be off if we had a 4 day week?",
                  "nah wait i mean u, which day did u pick"], ["D8:37"]),
        (HELD15, ["bro the wind is howling and my power flickered twice already, if my pc dies im "
                  "gonna lose it. anyway im ordering breakfast, how do i like my bagels again lol"],
         ["D13:50", "D13:51"]),
        (HELD15, ["that monster flick that kept me up late way back, what was it called"],
         ["D3:4"]),
        (HELD15, ["whats that weekly thing my better half roped me into again lol"], ["P2"]),
    ],
    "memdaily-zh-dev/memdaily-u40.json": [
        (HELD15, ["我表姐叫啥来着？", "那她今年多大了？"], ["D6:2"]),
        (HELD15, ["我下属电话多少来着？", "不是，我问的是我上司的"], ["D4:1"]),
        (HELD15, ["今天在实验室焊了一下午板子，烙铁把手指头烫了个泡。"
                  "话说那个一块儿读瑜伽老书、聊心得的活动，要搞多久来着？"], ["D1:7"]),
        (HELD15, ["上回我跟你吐槽我住那小区有啥毛病来着？"], ["D4:10"]),
    ],
    "memdaily-zh-dev/memdaily-u41.json": [
        (HELD15, ["我舅妈今年多大来着？", "那俺妈呢？"], ["D4:7"]),
        (HELD15, ["我同事电话多少来着？", "不是，我问的是她在哪家店上班"], ["D6:4"]),
        (HELD15, ["今天灶台的火一直打不着，修了半天，后厨乱成一锅粥。"
                  "对了，那个练厨艺、聊后厨咋管的会是啥时候来着？"], ["D2:5", "D4:11"]),
        (HELD15, ["跟你说，我下个月要去济南参加厨师长培训，得在那边住一个月。", *SMALL_TALK_ZH,
                  "我下个月要去哪个城市学习来着？"], ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u47.json": [
        (HELD15, ["前阵子我夸的那台手机，就是骑车拍风景用的，是啥型号来着？"], ["D3:9", "D3:10"]),
        (HELD15, ["我舅妈多大岁数了来着？", "那她叫啥名儿？"], ["D10:3"]),
        (HELD15, ["今天陪客户喝了一下午茶，嗓子都说哑了。"
                  "话说那个骑车比谁快的比赛，是啥时候开始来着？"], ["D5:2"]),
        (HELD15, ["俺家那条老狗叫啥名儿来着？"], ["P5"]),
    ],
}
HELD15_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-26.json": [
        ("P5", 11, "My roommate Priya just got an offer in Seattle, so I'll be apartment hunting "
                   "by winter, ugh."),
    ],
    "locomo/conv-43.json": [
        ("P8", 24, "My grandpa taught me chess over Thanksgiving and now I'm hooked, we play "
                   "online every Sunday night."),
    ],
    "realtalk-dev/Chat_8_Akib_Muhhamed.json": [
        ("P2", 11, "my wife signed us up for ballroom dance lessons thursday nights, i got two "
                   "left feet lol"),
    ],
    "memdaily-zh-dev/memdaily-u47.json": [
        ("P5", 6, "我家那只金毛叫豆豆，都十岁了，走路都慢吞吞的。"),
    ],
}
held_out_add(HELD15_PROBES, HELD15_PLANTED)


# A sixteenth held-out set (2026-12-05): written before any change it measures, by a writer who did
# not read the app's recall, on LoCoMo conv-30, conv-41 and conv-47, conv-43 played as a group (a
# question to Rook about what John said), REALTALK Chat_6, Chat_9 and Chat_10, MemDaily u43, u46 and
# u49; facts no earlier set asked. Follow-ups leaning on the line before ("what did we end up
# winning that time?", "what kinda yoga were u trying there again", "whose place was that at again",
# "where were u headed again", 那她个子多高？, 那他多大岁数了？), corrections that turn the question
# to the other person or to another fact (nah i mean u / urs, 不是，我问的是我下属 /
# 他在哪个城市上班), vague times (way back, a while back, that time, 上回, 前阵子), a question at
# the end of a chatty message (anyway, btw, 对了, 话说), typos and slang (u, ur, urs, w, ppl, tmrw,
# smh, lol, bro, tryna, dont without apostrophe), colloquial Chinese (来着, 啥, 咋, 名儿), a
# category or a paraphrase the chat never uses (the good news from the suppliers for a wholesaler's
# yes, that expo thing for a fair, the food contest for a chili cook-off, that bungee thing for rope
# jumping from 150 m, that online writing thing for a coding blog, the sport for bowling, a camping
# gear brand for an outdoor gear company, going somewhere just for a burger for In-N-Out in Los
# Angeles, that fizzy drink for Inca Kola, that nerdy thing u find relaxing for spreadsheets, that
# old astronomy dude for Galileo, that chunky family saga for Pachinko, the art gig for drawing
# commissions, 讲邮票背后故事的会 for 邮票故事阅读会, 琢磨咋把货卖得更好的会 for 销售创新研讨会,
# 招砌墙师傅的会 for 瓦工精英招聘会, 那双跑鞋哪儿不太行 for its breathability, 我嫌它缺啥 for the
# park's little food), the player's own facts in the chats asked in other words (what my crew won,
# the expo, the test I bombed, the bungee jump, the sport, the warm fizzy drink, the hammock story,
# the movie for the astronomer, the family saga, 跑鞋的毛病, 公园缺啥), planted in words the
# question does not use (where my wife's folks live for the in-laws' place in Tucson, what machine I
# may now operate at work for a forklift cert, 我老公是干啥的 for 我家那口子在建设银行当柜员) or
# told in a lead-in turn (a cat from the shelter on Saturday asked as "whats happening saturday",
# 周六上午的日语班 asked as 周末上午要去干啥). Every expected id was checked against its line and
# the whole conversation searched for other lines holding the answer (e.g. conv-41's aptitude test
# also D8:18, conv-47's coding blog also D14:3 and D14:4 and John's HTML also D1:24, Chat_6's Inca
# Kola also D4:70 and the aunt also D1:53, Chat_10's Pachinko also D3:30 and D5:46, u46's sales
# seminar's two days also D4:13 and D9:1); Chat_6's D3:39 ("Soda", the kind of drink, not which one)
# was left out of the fizzy drink probe. Played alone with --only "held out 16".
# On ee866978 (main's recall, before any change it measures; 2026-12-05 07:11-07:13, load 2-4),
# played alone (--only "held out 16"): found 37/40, @5 27/40, @10 30/40; by file: conv-30 3/4, 1/4,
# 2/4; conv-41 4/4, 3/4, 4/4; conv-47 4/4, 3/4, 3/4; Chat_6 3/4, 1/4, 1/4; Chat_9 4/4, 4/4, 4/4;
# Chat_10 3/4, 1/4, 2/4; u43 4/4, 4/4, 4/4; u46 4/4, 2/4, 2/4; u49 4/4, 4/4, 4/4; group conv-43 4/4,
# 4/4, 4/4 (found, @5, @10). No expected id and no turn of any probe was changed after the run.
HELD16 = "held out 16"
HELD16_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-30.json": [
        (HELD16, ["ugh my car made that clunking noise again and the mechanic cant see me till "
                  "friday. anyway what was that good news u got from the suppliers way back, the "
                  "one that meant u could grow the shop?"], ["D3:2"]),
        (HELD16, ["found that old pic of my crew up on stage lol",
                  "what did we end up winning that time?"], ["D1:16"]),
        (HELD16, ["how do i keep track of my goals again?",
                  "nah i mean u, how do u keep ur confidence up w the store"], ["D10:8"]),
        (HELD16, ["that expo thing i took the studio to a while back, did anything come out of "
                  "it?"], ["D10:1"]),
    ],
    "locomo/conv-41.json": [
        (HELD16, ["finally got the kids to bed, took three stories and two glasses of water lol. "
                  "btw what was that food contest at ur shelter fundraiser way back?"], ["D16:4"]),
        (HELD16, ["u still going to that gym u joined?",
                  "what kinda yoga were u trying there again"], ["D19:3"]),
        (HELD16, ["that test i bombed a while back that had me all stressed, what was it for "
                  "again?"], ["D3:11", "D8:18"]),
        (HELD16, ["where do my wife's folks live again? tryna plan thanksgiving lol"], ["P9"]),
    ],
    "locomo/conv-47.json": [
        (HELD16, ["that crazy bungee thing i did way back, how high was the jump again lol"],
         ["D16:5"]),
        (HELD16, ["what coding languages do i use again?",
                  "nah i mean u, what did u used to code in before that class"],
         ["D1:7", "D1:24"]),
        (HELD16, ["ugh my neighbor's been drilling since 7am and daisy wont stop barking at the "
                  "wall lol. btw that online writing thing u started a while back, what was it "
                  "about?"], ["D14:2", "D14:3", "D14:4"]),
        (HELD16, ["whats that sport i'm obsessed with that u refuse to play with me lol"],
         ["D1:26", "D1:27"]),
    ],
    "group:locomo/conv-43.json": [
        (HELD16, ["Rook, John had that one game where he broke his own scoring record, how many "
                  "points did he drop?"], ["D3:1"]),
        (HELD16, ["John's always off somewhere new huh Rook",
                  "which city was it that time, the one he said had super nice ppl?"],
         ["D6:3", "D6:4"]),
        (HELD16, ["Rook, how old was John when his dad first put him in a league?"], ["D6:13"]),
        (HELD16, ["Rook, John got that deal w some camping gear brand a while back, where'd they "
                  "do the photo shoot?"], ["D25:4"]),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        (HELD16, ["ugh my cough is back and my boss wants me in at 6 tmrw smh. btw didnt u go all "
                  "the way somewhere just for a burger once? where was that"], ["D3:100"]),
        (HELD16, ["whats that fizzy drink i like warm again lol"], ["D3:40", "D4:70"]),
        (HELD16, ["what was my conspiracy thing again, the dr phil one?",
                  "nah i mean urs, what were u suspicious of"], ["D3:132", "D3:133"]),
        (HELD16, ["remember my hammock story lol", "whose place was that at again"],
         ["D1:51", "D1:53"]),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        (HELD16, ["bro my phone died overnight again cuz i fell asleep w youtube on smh. btw whats "
                  "that nerdy thing u said u find weirdly relaxing"], ["D2:28"]),
        (HELD16, ["what was my weird dream again, the ketchup one lol",
                  "nah i mean urs, the one in that huge building"], ["D2:7"]),
        (HELD16, ["which movie did i say id show that old astronomy dude again"],
         ["D7:11", "D7:31"]),
        (HELD16, ["what machine am i finally allowed to operate at work again lol"], ["P7"]),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        (HELD16, ["oh btw my landlord finally said yes to a cat, im getting her from the shelter "
                  "on saturday", *SMALL_TALK, "wait whats happening saturday again, i already "
                  "forgot lol"], ["said:0"]),
        (HELD16, ["remember that crazy long flight u took?", "where were u headed again"],
         ["D19:45"]),
        (HELD16, ["whats that chunky family saga i was reading a while back"],
         ["D3:22", "D3:30", "D5:46"]),
        (HELD16, ["work was brutal, inventory count took 4 hrs n my feet r dead. anyway what do u "
                  "do on the side for extra cash again, the art gig"], ["D1:31"]),
    ],
    "memdaily-zh-dev/memdaily-u43.json": [
        (HELD16, ["我上司叫啥名儿来着？", "那她个子多高？"], ["D2:4"]),
        (HELD16, ["今天飞了两趟早班，困得眼皮直打架。"
                  "话说那个大伙儿凑一块儿讲邮票背后故事的会，一共来多少人来着？"], ["D1:2"]),
        (HELD16, ["跟你说，我报了个日语班，每周六上午在南山那边上课。", *SMALL_TALK_ZH,
                  "我周末上午要去干啥来着？"], ["said:0"]),
        (HELD16, ["上回我说我那双跑鞋哪儿不太行来着？"], ["D6:2"]),
    ],
    "memdaily-zh-dev/memdaily-u46.json": [
        (HELD16, ["我叔叔个子多高来着？", "不是，我问的是我下属"], ["D3:2", "D8:8"]),
        (HELD16, ["前阵子逛的那个公园，我嫌它缺啥来着？"], ["D3:10", "D5:4"]),
        (HELD16, ["今天跑了三家客户，签了两单，累并快乐着。"
                  "对了，那个琢磨咋把货卖得更好的会，要开几天来着？"], ["D2:2", "D4:13", "D9:1"]),
        (HELD16, ["我老公是干啥工作的来着？"], ["P4"]),
    ],
    "memdaily-zh-dev/memdaily-u49.json": [
        (HELD16, ["我领导叫啥来着？", "那他多大岁数了？"], ["D9:1"]),
        (HELD16, ["我舅舅电话多少来着？", "不是，我问的是他在哪个城市上班"], ["D3:2"]),
        (HELD16, ["上回我路过的那个大商场叫啥来着？"], ["D2:1", "D2:2"]),
        (HELD16, ["今天店里进了一车货，搬得腰都直不起来。"
                  "话说那个招砌墙师傅的会，要办几天来着？"], ["D1:4", "D8:1"]),
    ],
}
HELD16_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-41.json": [
        ("P9", 6, "Spent the long weekend at my in-laws' place in Tucson, 110 degrees and my "
                  "mother-in-law still made soup."),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        ("P7", 12, "finally passed my forklift cert at the warehouse lol, now they let me drive "
                   "the big one"),
    ],
    "memdaily-zh-dev/memdaily-u46.json": [
        ("P4", 2, "我家那口子在建设银行当柜员，天天加班到九点才回家。"),
    ],
}
held_out_add(HELD16_PROBES, HELD16_PLANTED)


# A seventeenth held-out set (2026-12-05): written before any change it measures, by a writer who
# did not read the app's recall, on LoCoMo conv-26, conv-42 and conv-44, conv-47 played as a group
# (a question to Rook about what John said), REALTALK Chat_5, Chat_7 and Chat_8, MemDaily u40, u44
# and u48; facts no earlier set asked. Follow-ups leaning on the line before ("how often do u guys
# actually make it out there", "what do they go nuts for at snack time again", "why'd u pick that
# name for him again lol", "what kinda beer did he say he cant stand again?", "where did u say his
# old family moved to", "wait where does ur sister's husband work again", 那他个子多高？,
# 那她是啥学历？, 那她电话多少？), corrections that turn the question to the other person or to
# another fact (nah not his name…, nah wait…, nah i mean u…, nah i mean that goofy name u gave…,
# 不是，我问的是他叫啥名儿 / 他单位叫啥), vague times (a while back, that time, way back, 上回,
# 前阵子), a question at the end of a chatty message (anyway, btw, reminds me, 对了, 话说, no
# pivot), typos and slang (u, ur, w, n, lil, rn, smh, lol, tryna, cant / dont without apostrophe),
# colloquial Chinese (来着, 啥, 俺, 名儿, 凑一块儿), a category or a paraphrase the chat never uses
# (the silly thing the dog did for a bone hidden in a slipper, what he loves to munch on for
# parsley, that glass piece for a stained glass window, the lil party favors for custom controller
# decorations, where the money from my necklaces goes for the animal shelter, the boba flavor for
# mango green tea, the sad dry salad for Chopt, 边游山边下棋、顺便交朋友的活动 for 棋游名山交谊行,
# 一帮人凑一块儿比赛打球的活动 for 竞技羽毛球盛宴), the player's own facts in the chats asked in
# other words (the guinea pig's snack, the church window, the notes from a brother, the necklace
# money, the leash that snapped, the sunset hike's drive, Ted and the car, the nickname, the salad,
# the snowmobile), planted in words the question does not use (the thing I do w the kids every
# weekend for reading stories to the little ones at the library on Saturdays, the new lunch spot my
# relative runs for a cousin's halal food truck, 俺姑娘在哪儿念书 for
# 我闺女考上了浙大的研究生) or told in a lead-in turn (maid of honor at Jolene's wedding asked as
# whose wedding am i in, 千岛湖团建 asked as 单位组织出去玩是去哪儿). Every expected id was checked
# against its line and the whole conversation searched for other lines holding the answer (e.g.
# conv-42's party favors also D16:3 and the turtles' fruit also D25:22, conv-47's three years at IT
# also D18:2, Chat_8's pizza shop also D13:3, u44's 七个周 also D8:3 and the uncle's 单位 also
# D9:6); conv-42's D25:19 (fruit in the turtles' whole diet, not what they go for) and Chat_8's
# D16:21 and D16:25 (the player's own potato) were left out. Played alone with
# --only "held out 17".
# On 74f74037 (main's recall, before any change it measures; 2026-12-05 08:39-08:41, load 2),
# played alone (--only "held out 17"): found 36/40, @5 33/40, @10 34/40; by file: conv-26 4/4,
# 4/4, 4/4; conv-42 4/4, 3/4, 3/4; conv-44 2/4, 2/4, 2/4; Chat_5 3/4, 2/4, 3/4; Chat_7 4/4, 4/4,
# 4/4; Chat_8 3/4, 3/4, 3/4; u40 4/4, 4/4, 4/4; u44 4/4, 3/4, 3/4; u48 4/4, 4/4, 4/4; group
# conv-47 4/4, 4/4, 4/4 (found, @5, @10). No expected id and no turn of any probe was changed after
# the run.
HELD17 = "held out 17"
HELD17_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-26.json": [
        (HELD17, ["omg my neighbor's dog just ran off w a sock from the laundry line lol. reminds "
                  "me, what was that silly thing ur dog did once?"], ["D13:6"]),
        (HELD17, ["whats my guinea pig's name again lol",
                  "nah not his name, what does he love to munch on"], ["D13:5"]),
        (HELD17, ["that glass piece i made a while back, where did it end up again?"],
         ["D14:19"]),
        (HELD17, ["oh big news, my friend Jolene asked me to be maid of honor at her wedding in "
                  "Maui this spring!!", *SMALL_TALK, "wait whose wedding am i in again lol i keep "
                  "blanking"], ["said:0"]),
    ],
    "locomo/conv-42.json": [
        (HELD17, ["ugh my allergies r going nuts, the neighbor's cat keeps sitting on my "
                  "windowsill lol. btw what did u hand out to everyone at ur gaming party, like "
                  "the lil party favors?"], ["D14:24", "D16:3"]),
        (HELD17, ["hows the turtle squad doing?", "what do they go nuts for at snack time again"],
         ["D25:21", "D25:22"]),
        (HELD17, ["who used to leave me those cute lil notes when we were kids?"], ["D27:30"]),
        (HELD17, ["what's that thing i do w the kids every weekend now? my mom asked and i "
                  "totally blanked"], ["P4"]),
    ],
    "locomo/conv-44.json": [
        (HELD17, ["someone at the dog park asked where the money from my necklaces goes and i "
                  "blanked lol, where does it go again?"], ["D22:9"]),
        (HELD17, ["which of my pups pulled so hard the leash snapped that time?"], ["D19:3"]),
        (HELD17, ["hows buddy settling in w toby?", "why'd u pick that name for him again lol"],
         ["D24:6"]),
        (HELD17, ["ugh my cast itches like crazy n pixie keeps tryna chew the edge of it lol. "
                  "anyway how far away was that sunset hike i did last year?"], ["D11:32"]),
    ],
    "group:locomo/conv-47.json": [
        (HELD17, ["Rook, John got some fancy new headphones a while back, what brand did he go "
                  "with?"], ["D23:10"]),
        (HELD17, ["Rook, we're dragging John to the pub friday",
                  "what kinda beer did he say he cant stand again?"], ["D21:16"]),
        (HELD17, ["Rook, how long was John stuck at that IT job before he bailed?"],
         ["D18:1", "D18:2"]),
        (HELD17, ["Rook, what instrument did John used to play?",
                  "nah wait, what music did he say he's into"], ["D24:13"]),
    ],
    "realtalk-dev/Chat_5_Nicolas_Nebraas.json": [
        (HELD17, ["ugh my flight home got delayed 3 hrs and im stuck at the gate w a $14 sandwich "
                  "smh. how early did u say u show up to the airport again lol"], ["D11:6"]),
        (HELD17, ["been reading reincarnation stuff at 2am again lol",
                  "what animal did u say ud wanna come back as"], ["D22:35", "D22:37"]),
        (HELD17, ["what did my buddy ted end up winning way back",
                  "nah wait, what did he swipe off my car"], ["D23:29"]),
        (HELD17, ["what did my friends nickname me again lol"], ["D14:24"]),
    ],
    "realtalk-dev/Chat_7_Nebraas_Vanessa.json": [
        (HELD17, ["gym was packed and some dude hogged the stair machine for like 40 min smh. btw "
                  "whats ur go-to boba flavor, grabbing some rn"], ["D17:84"]),
        (HELD17, ["moon still crying for attention all day lol?",
                  "where did u say his old family moved to"], ["D23:37"]),
        (HELD17, ["whats my cats name again lol",
                  "nah i mean that goofy name u gave one of ur old dogs"], ["D19:38"]),
        (HELD17, ["where'd i grab that sad dry salad that one time?"], ["D7:25"]),
    ],
    "realtalk-dev/Chat_8_Akib_Muhhamed.json": [
        (HELD17, ["another storm rolling in tonight smh, second one this month. btw how did i get "
                  "to the store that time we got buried in snow lol"], ["D11:16"]),
        (HELD17, ["that yeast brick story still cracks me up lol",
                  "wait where does ur sister's husband work again"], ["D13:2", "D13:3"]),
        (HELD17, ["what fruit would i eat forever if i had to pick one",
                  "nah i mean u, what veggie did u go with"], ["D16:18", "D16:22"]),
        (HELD17, ["whats that new lunch spot my relative runs again"], ["P3"]),
    ],
    "memdaily-zh-dev/memdaily-u40.json": [
        (HELD17, ["我表弟今年多大了来着？", "那他个子多高？"], ["D5:4", "D6:6"]),
        (HELD17, ["我上司平时爱干啥来着？", "不是，我问的是他叫啥名儿"], ["D4:4"]),
        (HELD17, ["今天在公司测了一天板子，眼睛都花了。对了，俺表姐在哪个城市上班来着？"],
         ["D7:1"]),
        (HELD17, ["跟你说，我们部门下礼拜要去千岛湖团建，坐大巴去，住两晚。", *SMALL_TALK_ZH,
                  "下礼拜单位组织出去玩是去哪儿来着？"], ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u44.json": [
        (HELD17, ["今天又改了一天稿子，脖子都僵了。话说俺爸生日是几号来着？想提前订个蛋糕。"],
         ["D9:3"]),
        (HELD17, ["我上司今年多大了来着？", "那她是啥学历？"], ["D4:8"]),
        (HELD17, ["上回说的那个边游山边下棋、顺便交朋友的活动，要搞多久来着？"],
         ["D7:4", "D8:3"]),
        (HELD17, ["我叔叔是干啥的来着？", "不是，我问的是他单位叫啥"], ["D6:3", "D9:6"]),
    ],
    "memdaily-zh-dev/memdaily-u48.json": [
        (HELD17, ["我婶婶叫啥名儿来着？", "那她电话多少？"], ["D7:5"]),
        (HELD17, ["我表弟哪天过生日来着？前阵子好像跟你提过"], ["D4:6"]),
        (HELD17, ["那个一帮人凑一块儿比赛打球的活动，要搞几天来着？"], ["D2:4", "D3:12"]),
        (HELD17, ["俺姑娘在哪儿念书来着？"], ["P5"]),
    ],
}
HELD17_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-42.json": [
        ("P4", 15, "I've started reading stories to the little ones at the public library every "
                   "Saturday morning, they're brutally honest critics lol."),
    ],
    "realtalk-dev/Chat_8_Akib_Muhhamed.json": [
        ("P3", 13, "my cousin rafi finally opened his halal food truck by the train station, been "
                   "eating there like every day lol"),
    ],
    "memdaily-zh-dev/memdaily-u48.json": [
        ("P5", 6, "我闺女去年考上了浙大的研究生，学的是临床医学。"),
    ],
}
held_out_add(HELD17_PROBES, HELD17_PLANTED)


# An eighteenth held-out set (2026-12-05): written before any change it measures, by a writer who
# did not read the app's recall, on LoCoMo conv-30, conv-41 and conv-43, conv-44 played as a group
# (a question to Rook about what Andrew said), REALTALK Chat_5, Chat_6 and Chat_9, MemDaily u41, u42
# and u45; facts no earlier set asked. Follow-ups leaning on the line before ("what was i hoping to
# get out of it again", "how many times a week do we even do that again", "what tripped u up there
# at first?", "what's he bringing along for the birding trip?", "wait so where r u working now
# then", "who was it that passed again", 那她念到哪儿了？, 那他啥学历？, 那她老家是哪儿的？),
# corrections that turn the question to the other person or to another fact (nah i mean me…, nah i
# mean the one i took back in high school, nah wait…, nah i mean u…, 不是，我问的是她叫啥名儿 /
# 她个子多高 / 她啥学历), vague times (a while back, way back, that time, that one night, 上回,
# 前阵子, 这阵子), a question at the end of a chatty message (anyway, btw, 对了, 话说, no pivot),
# typos and slang (u, ur, urs, w, n, r, rn, smh, lol, tryna, dont / cant without apostrophe),
# colloquial Chinese (来着, 啥, 咋, 俺, 名儿), a category or a paraphrase the chat never uses (how i
# was covering the bills for a temp job, the money thing i had to close out for a bank account, what
# i started doing to stay in shape for the gym, who helped ur fam out w money for an auntie, that
# old soldier guy for a veteran named Samuel, the place that went belly up for the mechanical
# engineering company, the big turkey dinner for Thanksgiving, the birding trip for bird watching,
# what Andrew stocked up on for a bed, toys and puppy pads, that cozy night in for board games, the
# food thing my stomach cant handle for dairy, that lil toy battle tournament for Bakugan, a buddy
# coming over from europe for Cornelius from Spain, the book w the hockey kids n their birthdays for
# Outliers, where the wife's side is from heritage wise for half Japanese,
# 大厨们凑一块儿聊餐饮创新的会 for 美食创新会, 去试穿运动新品、顺便享受折扣的活动 for
# 运动品牌体验购, 要启动农业新项目、帮农民合作社发展的会 for 农业创新启动会,
# 聊金融新技术、咋把银行服务做好的研讨会 for 金融科技创新研讨会, 敲代码搞创意的旅行活动 for
# 编程创意之旅), the player's own facts in the chats asked in other words (the temp job, the bank
# account, the gym, the boot camp, Samuel, the company that tanked, the Thanksgiving movie, French
# in high school, the dairy, where i met my crush, Bakugan, Cornelius, the wife's heritage), planted
# in words the question does not use (our dorm cat for a tabby named Dobby adopted with a roommate,
# my weekend gig for extra cash for walking a neighbor's huskies on Saturdays for 20 bucks,
# 这阵子一到傍晚就出门干啥 for 迷上了广场舞，每天吃完晚饭就去村口跳) or told in a lead-in turn
# (flying into Osaka for the Japan trip asked as "where do we land again for the big trip"). Every
# expected id was checked against its line and the whole conversation searched for other lines
# holding the answer (e.g. conv-41's auntie also D5:8, conv-44's board games also D23:3, Chat_5's
# dairy also D6:68 and D6:71 and the deli also D6:114 and the bf's shop also D20:29 and Bakugan also
# D20:79, Chat_6's brown sugar creamer also D16:14 and Cornelius also D3:88, Chat_9's Outliers also
# D19:80, u41's Qingdao also D8:2 and D9:2 and the sports shopping event's 3,000 also D8:3 and D9:4,
# u42's uncle's master's also D6:4, u45's nine days also D10:5); left out as only half holding it:
# conv-30's D8:3 (a tough call, not what was closed) and D4:13 (a comp he entered, not the one he
# hosted), conv-41's D28:5 (his mechanical skills, not the company), conv-43's D8:22 (movies after
# the feast, no title) and D8:26 / D8:28 (holiday films, not Thanksgiving's), conv-44's D20:20
# (Audrey's own binoculars), Chat_9's D19:81 (the author only), u41's D1:6 (Qingdao's food culture
# as the meeting's content, not its place). Played alone with --only "held out 18".
# On 6e538cfd (main's recall, before any change it measures; 2026-12-05 09:32-09:34, load 2-4),
# played alone (--only "held out 18"): found 39/40, @5 28/40, @10 34/40; by file: conv-30 3/4, 1/4,
# 2/4; conv-41 4/4, 4/4, 4/4; conv-43 4/4, 4/4, 4/4; Chat_5 4/4, 2/4, 2/4; Chat_6 4/4, 2/4, 4/4;
# Chat_9 4/4, 2/4, 2/4; u41 4/4, 3/4, 4/4; u42 4/4, 3/4, 4/4; u45 4/4, 4/4, 4/4; group conv-44 4/4,
# 3/4, 4/4 (found, @5, @10). No expected id and no turn of any probe was changed after the run.
HELD18 = "held out 18"
HELD18_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-30.json": [
        (HELD18, ["ugh rent's due friday n im tryna not panic lol, my card got declined at the gas "
                  "station this morning. anyway how was i covering the bills back when the studio "
                  "was barely hanging on?"], ["D18:2"]),
        (HELD18, ["what money thing did i have to close out for the studio way back?"], ["D8:1"]),
        (HELD18, ["remember that comp i was putting on w the other schools?",
                  "what was i hoping to get out of it again"], ["D8:13"]),
        (HELD18, ["u still doing that dance class w ur friends on fridays?",
                  "nah i mean me, what did i start doing to stay in shape back when the biz was "
                  "just getting going"], ["D6:1"]),
    ],
    "locomo/conv-41.json": [
        (HELD18, ["ugh the car's making that grinding noise again n the shop wants like $600 smh. "
                  "btw who helped ur fam out w money back when u were a kid?"], ["D5:8", "D6:9"]),
        (HELD18, ["im so sore from boot camp w the fam lol",
                  "how many times a week do we even do that again"], ["D13:7"]),
        (HELD18, ["that old soldier guy who told me all those stories at the hospital a while "
                  "back, whats his name again"], ["D24:3"]),
        (HELD18, ["that place i worked at that went belly up a while back, what kinda company was "
                  "it again?"], ["D28:1"]),
    ],
    "locomo/conv-43.json": [
        (HELD18, ["still cant believe u finally made it to nyc lol",
                  "what tripped u up there at first?"], ["D10:2"]),
        (HELD18, ["which movie do me n the fam always end up watching after the big turkey "
                  "dinner lol"], ["D8:24"]),
        (HELD18, ["what language am i learning rn again?",
                  "nah i mean the one i took back in high school"], ["D27:7"]),
        (HELD18, ["whats our dorm cat called again lol"], ["P9"]),
    ],
    "group:locomo/conv-44.json": [
        (HELD18, ["Andrew's been such a bird nerd lately huh Rook",
                  "what's he bringing along for the birding trip?"], ["D20:21"]),
        (HELD18, ["Rook, what did Andrew stock up on for the newest pup when they brought it "
                  "home?"], ["D28:12"]),
        (HELD18, ["Rook, Andrew had some cozy night in w his gf n Toby a while back, what were "
                  "they doing?"], ["D23:1", "D23:3"]),
        (HELD18, ["Rook, did Andrew ever find a pet-friendly apartment?",
                  "nah wait, what kinda area did he say he wanted to be near"], ["D5:7"]),
    ],
    "realtalk-dev/Chat_5_Nicolas_Nebraas.json": [
        (HELD18, ["ugh the snow's so deep i cant even get my truck door open lol n julio's "
                  "blasting music again. whats that food thing my stomach cant handle again, my "
                  "coworker's bringing a casserole friday"], ["D6:67", "D6:68", "D6:71"]),
        (HELD18, ["did u ever end up asking for that raise?", "wait so where r u working now then"],
         ["D20:23", "D20:29"]),
        (HELD18, ["what was that lil toy battle tournament i went to where some dude spat at me "
                  "lol"], ["D20:78", "D20:79"]),
        (HELD18, ["i dont even remember where i first ran into my crush, where was it again"],
         ["D6:100", "D6:114"]),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        (HELD18, ["ugh my coffee tastes like burnt dirt this morning smh. how do u make urs again, "
                  "the one u keep going on about lol"], ["D1:11", "D16:14"]),
        (HELD18, ["which buddy of mine was coming over from europe for the winter?"],
         ["D3:82", "D3:88"]),
        (HELD18, ["what did i bring to that new years potluck again lol",
                  "nah i mean u, what were u cooking that night"], ["D4:10"]),
        (HELD18, ["whats my weekend gig for extra cash again lol"], ["P4"]),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        (HELD18, ["where's my wife's side of the fam from again, like heritage wise? her cousin "
                  "asked n i totally blanked"], ["D4:12"]),
        (HELD18, ["ugh the ice on my windshield took 20 min to scrape off this morning smh. btw "
                  "whats that book u kept hyping, the one w the hockey kids n their birthdays"],
         ["D19:76", "D19:80"]),
        (HELD18, ["u doing ok after that funeral?", "who was it that passed again"], ["D11:29"]),
        (HELD18, ["yo the wife n i finally booked the japan trip, we fly into osaka on april 3rd!!",
                  *SMALL_TALK, "wait where do we land again for the big trip lol"], ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u41.json": [
        (HELD18, ["我舅妈叫啥名儿来着？", "那她念到哪儿了？"], ["D3:4"]),
        (HELD18, ["我妈在哪个城市上班来着？", "不是，我问的是她叫啥名儿"], ["D3:8"]),
        (HELD18, ["今天切了一下午土豆丝，手都酸了。"
                  "话说那个大厨们凑一块儿聊餐饮创新的会，在哪个城市开来着？"],
         ["D7:2", "D8:2", "D9:2"]),
        (HELD18, ["前阵子说的那个去试穿运动新品、顺便享受折扣的活动，有多少人参加来着？"],
         ["D1:2", "D8:3", "D9:4"]),
    ],
    "memdaily-zh-dev/memdaily-u42.json": [
        (HELD18, ["我舅舅叫啥名儿来着？", "那他啥学历？"], ["D2:6", "D6:4"]),
        (HELD18, ["我同事生日几号来着？", "不是，我问的是她个子多高"], ["D5:2"]),
        (HELD18, ["今天在地里拔了一天草，腰都快断了。"
                  "对了，那个要启动农业新项目、帮农民合作社发展的会，要来多少人来着？"], ["D1:3"]),
        (HELD18, ["俺这阵子一到傍晚就出门干啥去了来着？"], ["P4"]),
    ],
    "memdaily-zh-dev/memdaily-u45.json": [
        (HELD18, ["我舅妈叫啥来着？", "那她老家是哪儿的？"], ["D3:4"]),
        (HELD18, ["我下属在哪儿上班来着？", "不是，我问的是她啥学历"], ["D8:1"]),
        (HELD18, ["今天柜台一上午办了四十多笔业务，嗓子都哑了。"
                  "话说那个聊金融新技术、咋把银行服务做好的研讨会，要开几天来着？"],
         ["D6:4", "D10:5"]),
        (HELD18, ["上回说的那个敲代码搞创意的旅行活动，啥时候开始来着？"], ["D2:7"]),
    ],
}
HELD18_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-43.json": [
        ("P9", 26, "My roommate and I finally caved and adopted a grumpy old tabby from the campus "
                   "shelter, we named him Dobby lol."),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        ("P4", 10, "started walking my neighbor's 3 huskies every saturday morning for 20 bucks a "
                   "pop lol, they drag me down the whole block"),
    ],
    "memdaily-zh-dev/memdaily-u42.json": [
        ("P4", 5, "我最近迷上了广场舞，每天吃完晚饭就去村口跳一个钟头。"),
    ],
}
held_out_add(HELD18_PROBES, HELD18_PLANTED)


# A nineteenth held-out set (2026-12-05): written before any change it measures, by a writer who did
# not read the app's recall, on LoCoMo conv-26, conv-42 and conv-47, conv-41 played as a group (a
# question to Rook about what Maria said), REALTALK Chat_7, Chat_8 and Chat_10, MemDaily u40, u43
# and u47; facts no earlier set asked. Follow-ups leaning on the line before ("why'd i pick them
# again?", "do u guys go a lot or is it more of a rare treat?", "how long have u had em now?", "what
# else did i ride besides the coasters?", "what did she try for the first time out there?", "how
# often does she switch em up again", "what time did i drag the fam outside to see it again", "what
# was she in again, like a concert?", 那他生日哪天？, 那她念到啥程度了？, 那他念到哪儿了？), corrections that turn the
# question to another fact or person (nah i mean the thing for the kids at the youth center, nah i
# mean that beach gadget of urs, nah wait how often…, nah i mean my bro…, 不是，我问的是他个子多高 / 他平时爱捣鼓啥 /
# 她平时爱干啥), vague times (way back, a while back, that time, 上回, 前阵子), a question at the end of a
# chatty message (anyway, btw, 话说, 对了), typos and slang (u, ur, w, n, r, rn, lol, smh, tryna, dont /
# didnt without apostrophe), colloquial Chinese (来着, 啥, 俺, 名儿, 营生, 捣鼓), a category or a paraphrase
# the chat never uses (that six-string for acoustic guitar, the adoption place for the agency, the
# thing for the kids at the youth center for a talent show, a rare treat for once or twice a year,
# what to grab to make a living room cozy for a fluffy couch, a weighted blanket and dimmable
# lights, that lil craft thing for a bookmark and the writers' circle for the writing club, what
# breed for Labrador, the beach gadget for the metal detector, the hookup w housing for the
# organisation he was linked to, that creep of an ex for the toxic partner, the cozy lil
# monster-collecting game w the card battles for Ooblets, that gadget for a laser leveler, what he
# ended up deciding was best for modified socialism, the phone games w the loot box pulls for gacha
# games, where i headed over to for across the river to Jersey, 八千人的硬件大会 for 硬件创新与发展论坛,
# 大伙儿晒技术新成果、互相交流合作的会 for 硬件创新研讨会, 满世界跑邮局、跟邮友换心得的旅行 for 邮旅探索之旅, 年底给销售团队发奖、定明年目标的大会 for 销售年度盛典,
# 边骑车边吃好吃的活动 for 骑行美食文化节), the player's own facts in the chats asked in other words (the guitar's
# years, the agency, the living-room advice, the bookmark, Daisy's breed, the countries before
# Canada, the amusement park, the ex, Ooblets, the laser leveler, the blood moon, gacha games, the
# snow in Jersey), planted in words the question does not use (my lil sis training to be for a kid
# sister in nursing school, what i finally managed to get after bombing it for a motorcycle license
# on the third try, 俺媳妇干啥营生 for 我老婆开了家花店) or told in a lead-in turn (a big sister's wedding in
# Savannah asked as where's my sis getting hitched). Every expected id was checked against its line
# and the whole conversation searched for other lines holding the answer (e.g. conv-42's bookmark
# also D22:20 (Nate names it), Chat_8's laser leveler also D10:43 (Muhhamed names it), Chat_10's
# gacha games D19:15, D19:16 and D19:18 and the brother's viola D14:9 and D14:10, u40's 研讨会 四天 D1:5
# and D5:10 and the boss's 171 D6:7 and D8:2, u43's 舅妈 硕士 D2:7 and D7:1 and the 邮旅 start D2:15 and
# D8:2); left out as only half holding it: conv-42's D23:24 (her own couch and blanket, not the
# advice), conv-26's D15:19 (guitar, no years), Chat_7's D4:13 (Vanessa's own nails every couple of
# weeks, not the girlfriend's), Chat_8's D10:44 (the shelves, no tool), conv-41's D6:7 (the housing
# link, no name). Played alone with --only "held out 19".
# On 7bdbdd2f (main's recall, before any change it measures; 2026-12-05 10:21-10:24, load 4),
# played alone (--only "held out 19"): found 40/40, @5 34/40, @10 38/40; by file: conv-26 4/4, 4/4,
# 4/4; conv-42 4/4, 4/4, 4/4; conv-47 4/4, 3/4, 3/4; Chat_7 4/4, 3/4, 4/4; Chat_8 4/4, 3/4, 4/4;
# Chat_10 4/4, 3/4, 3/4; u40 4/4, 4/4, 4/4; u43 4/4, 2/4, 4/4; u47 4/4, 4/4, 4/4; group conv-41 4/4,
# 4/4, 4/4 (found, @5, @10). No expected id and no turn of any probe was changed after the run.
HELD19 = "held out 19"
HELD19_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-26.json": [
        (HELD19, ["ugh my landlord finally fixed the heater n now the sink's leaking lol, this "
                  "place is cursed. anyway how long have i been strumming that six-string of "
                  "mine?"],
         ["D15:21"]),
        (HELD19, ["been thinking about that adoption place i went w way back",
                  "why'd i pick them again?"], ["D2:12"]),
        (HELD19, ["whats that art show i was putting together again?",
                  "nah i mean the thing we were planning for the kids at the youth center"],
         ["D15:11"]),
        (HELD19, ["the kids must've had a blast flying kites at the beach lol",
                  "do u guys go a lot or is it more of a rare treat?"], ["D10:10"]),
    ],
    "locomo/conv-42.json": [
        (HELD19, ["my roommate keeps swiping my oat milk n then acts all innocent smh, im tryna "
                  "make my own place comfy too. btw what did i tell u to grab to make ur living "
                  "room all cozy?"], ["D23:26"]),
        (HELD19, ["ur turtles r honestly the chillest lil guys lol", "how long have u had em now?"],
         ["D2:12"]),
        (HELD19, ["that lil craft thing i made for one of the ladies in my writers' circle a while "
                  "back, what was it?"], ["D22:19", "D22:20"]),
        (HELD19, ["whats my lil sis training to be again? my aunt asked n i blanked lol"], ["P5"]),
    ],
    "locomo/conv-47.json": [
        (HELD19, ["the vet's intake form wants daisy's breed n i totally blanked lol, what is she "
                  "again?"], ["D9:12"]),
        (HELD19, ["ugh sam dragged me thru ikea for 4 hrs n ned chewed up the receipt lol. btw "
                  "besides italy where else had i been before that canada trip?"], ["D6:14"]),
        (HELD19, ["that amusement park day w the guys was such a blast",
                  "what else did i ride besides the coasters?"], ["D12:3"]),
        (HELD19, ["how long had u been drumming when u showed me ur kit?",
                  "nah i mean that beach gadget of urs, what kinda stuff did u dig up w it?"],
         ["D2:12"]),
    ],
    "group:locomo/conv-41.json": [
        (HELD19, ["Rook, Maria went on some solo trip a while back right?",
                  "what did she try for the first time out there?"], ["D13:30"]),
        (HELD19, ["Rook, what does Maria usually get up to w her friends at her place?"],
         ["D2:17"]),
        (HELD19, ["Rook, that guy Maria got hooked up w housing after her charity event a while "
                  "back, whats his name again?"], ["D6:5"]),
        (HELD19, ["Rook, whats Maria's new puppy called?",
                  "nah wait, how often did she say she helps out at the dog shelter"], ["D17:12"]),
    ],
    "realtalk-dev/Chat_7_Nebraas_Vanessa.json": [
        (HELD19, ["how long was i stuck w that creep of an ex again? my trainer asked n i didnt "
                  "even know what to say"], ["D14:6"]),
        (HELD19, ["ur gf still getting her nails done all the time?",
                  "how often does she switch em up again"], ["D4:14"]),
        (HELD19, ["ugh 12 appointments back to back n the clinic printer jammed twice smh. btw "
                  "what was that cozy lil monster-collecting game w the card battles i was gonna "
                  "start"],
         ["D6:31"]),
        (HELD19, ["omg my big sister just got engaged!! the wedding's gonna be in savannah next "
                  "october", *SMALL_TALK, "wait where's my sis getting hitched again lol"],
         ["said:0"]),
    ],
    "realtalk-dev/Chat_8_Akib_Muhhamed.json": [
        (HELD19, ["what was that gadget i was fiddling w to get my shelves straight?"],
         ["D8:3", "D10:43"]),
        (HELD19, ["that blood moon pic i sent u still looks sick lol",
                  "what time did i drag the fam outside to see it again"], ["D22:62"]),
        (HELD19, ["another group project at work w the same freeloaders smh, im so done. btw ur "
                  "buddy who did that whole US economy thing for his research, what did he end up "
                  "deciding was best lol"], ["D18:2"]),
        (HELD19, ["wait what did i finally manage to get after bombing it a couple times lol"],
         ["P4"]),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        (HELD19, ["my cousin keeps begging me to try some phone game w all the loot box pulls lol. "
                  "what kinda games did i say i swore off again?"],
         ["D19:15", "D19:16", "D19:18"]),
        (HELD19, ["u went to watch ur sister perform a while back right?",
                  "what was she in again, like a concert?"], ["D14:1"]),
        (HELD19, ["trains were packed n some dude spilled coffee on my sketchbook smh. anyway "
                  "where did i head over to that time that had way more snow than us"], ["D13:15"]),
        (HELD19, ["what instrument do i play again lol",
                  "nah i mean my bro, which one did he go w instead of the cello i wanted for him"],
         ["D14:9", "D14:10"]),
    ],
    "memdaily-zh-dev/memdaily-u40.json": [
        (HELD19, ["我下属多高来着？", "那他生日哪天？"], ["D7:8"]),
        (HELD19, ["我上司多大岁数来着？", "不是，我问的是他个子多高"], ["D6:7", "D8:2"]),
        (HELD19, ["今天在车间调了一上午示波器，脖子都僵了。话说那个八千人的硬件大会哪天开幕来着？"],
         ["D1:3"]),
        (HELD19, ["前阵子说的那个大伙儿晒技术新成果、互相交流合作的会，要开几天来着？"],
         ["D1:5", "D5:10"]),
    ],
    "memdaily-zh-dev/memdaily-u43.json": [
        (HELD19, ["我舅妈叫啥名儿来着？", "那她念到啥程度了？"], ["D2:7", "D7:1"]),
        (HELD19, ["我下属生日几号来着？", "不是，我问的是他平时爱捣鼓啥"], ["D3:4"]),
        (HELD19, ["今天连飞了三段，腿都站麻了。对了，那个满世界跑邮局、跟邮友换心得的旅行，"
                  "啥时候出发来着？"], ["D2:15", "D8:2"]),
        (HELD19, ["俺媳妇现在干啥营生来着？"], ["P6"]),
    ],
    "memdaily-zh-dev/memdaily-u47.json": [
        (HELD19, ["我叔叔今年多大了来着？", "那他念到哪儿了？"], ["D8:4"]),
        (HELD19, ["我下属多大了来着？", "不是，我问的是她平时爱干啥"], ["D4:2"]),
        (HELD19, ["今天跑了一天客户，嘴皮子都磨破了。"
                  "话说那个年底给销售团队发奖、定明年目标的大会，要开几天来着？"], ["D1:2"]),
        (HELD19, ["上回说的那个边骑车边吃好吃的活动，几点开始来着？"], ["D2:2"]),
    ],
}
HELD19_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-42.json": [
        ("P5", 20, "My kid sister Bree just moved into my spare room while she finishes nursing "
                   "school, so bye bye home office lol."),
    ],
    "realtalk-dev/Chat_8_Akib_Muhhamed.json": [
        ("P4", 17, "finally got my motorcycle license!! took me 3 tries on that stupid cone test "
                   "lol"),
    ],
    "memdaily-zh-dev/memdaily-u43.json": [
        ("P6", 4, "我老婆上个月在小区门口开了家花店，天天忙到半夜。"),
    ],
}
held_out_add(HELD19_PROBES, HELD19_PLANTED)


# A twentieth held-out set (2026-12-05): written before any change it measures, by a writer who did
# not read the app's recall, on LoCoMo conv-44, conv-30 and conv-42, conv-43 played as a group (a
# question to Rook about what John said), REALTALK Chat_5, Chat_6 and Chat_9, MemDaily u44, u46 and
# u48; facts no earlier set asked. Follow-ups leaning on the line before ("where'd i pick up how to
# do that again?", "how did i keep my wins sorted on it again?", "why'd u go w that shade again",
# "what kinda club was that again?", "which one was actually decent again?", "didnt someone in ur
# fam get the same treatment?", "why didnt i ever end up giving it back again?", 那他具体是干啥岗位的？,
# 那他是做哪行的？, 那他平时爱玩点啥？), corrections that turn the question to another fact or person
# (nah i mean the long drives…, nah wait who was it that noticed ur stuff…, nah i mean the cake i
# baked…, nah wait how many years did he play w his old hs squad, nah i mean what else were u
# playing…, nah i mean the show u were watching…, nah i mean mine…, 不是，我问的是他平时爱捣鼓啥 / 她念到啥程度了 /
# 他在医院里是个啥职位), vague times (way back, a while back, that time, ages ago, 上回), a question at the
# end of a chatty message (anyway, btw, 话说, 对了), typos and slang (u, ur, w, n, r, lol, smh, bc,
# dont / didnt / im without apostrophe), colloquial Chinese (来着, 啥, 俺, 名儿, 捣鼓, 折腾), a category or a
# paraphrase the chat never uses (where i got my dogs for a breeder nearby, the pups' haircuts for
# grooming, the long drives for road trips, that old family dish for Chicken Pot Pie, those shirts w
# that local artist for the designs and a fashion mag, how i kept my wins sorted for color-coding,
# who noticed ur stuff for fashion editors, the waterfall spot for Whispering Falls, that wild hair
# color for a bright and bold shade, what i have hanging in my room for a cork board, riding waves
# for surfing, what John wants once he's done w ball for a foundation and charity work, my sleep
# gummies for melatonin from Costco, that pet food for a black and white dog cookie, where i caught
# covid for Jack in the Box, kicked me off his twitter for blocked, the xmas movie u watched a
# million times for The Polar Express, 走路半道上摆棋局比拼的活动 for 徒步棋缘挑战赛, 聊翻译这行往后啥走向、跟同行
# 互相取经的会 for 翻译行业交流峰会, 摆一堆手工八音盒、边看边听现场演奏的活儿 for 音乐盒之韵·手作音乐会, 嫌它哪儿不够好 for
# 性能比旗舰差点, 比着买买买的挑战赛 for 活力购物挑战赛), the player's own facts in the chats asked in other words
# (the breeder, the grooming course, road trips, the pot pie, the whiteboard, the waterfall, the
# cake, the cork board, the gummies, the pet food, the crush's book club, covid from a burger run,
# the borrowed bike, the favourite book), planted in words the question does not use (what i do w
# the old folks for line dancing at the senior center, what the wife makes me go to on thursdays
# for ballroom dance lessons, 俺家小子折腾考啥证 for 儿子在驾校学车) or told in a lead-in turn (a line cook
# job at a ramen place asked as where's my new kitchen gig). Every expected id was checked against
# its line and the whole conversation searched for other lines holding the answer (e.g. conv-30's
# color-coding also D13:16 (Gina names it) and the fashion editors D17:2 (Jon names them), conv-42's
# cork board also D15:9, Chat_5's book club D14:20, D16:27 and D18:4, Chat_6's Jack in the Box D3:77
# and the munchausen show D5:7, Chat_9's bike D2:40 and D2:41, u44's 八百人 D2:3 and D8:7); left out
# as only half holding it: conv-44's D10:15 (the family recipe and grandma, no dish named) and D16:2
# (grooming herself, no course), Chat_5's D6:20 (melatonin, not where from), Chat_9's D6:71 (a
# favourite, no title), u48's D3:2 and D8:1 (护士, not the 护士长 post). Played alone with
# --only "held out 20".
# On 7d76964b (main's recall, before any change it measures; 2026-12-05 12:07-12:09, load 2),
# played alone (--only "held out 20"): found 40/40, @5 28/40, @10 30/40; by file: conv-44 4/4, 2/4,
# 2/4; conv-30 4/4, 3/4, 3/4; conv-42 4/4, 3/4, 4/4; Chat_5 4/4, 2/4, 2/4; Chat_6 4/4, 2/4, 2/4;
# Chat_9 4/4, 4/4, 4/4; u44 4/4, 4/4, 4/4; u46 4/4, 3/4, 3/4; u48 4/4, 2/4, 3/4; group conv-43 4/4,
# 3/4, 3/4 (found, @5, @10). No expected id and no turn of any probe was changed after the run.
HELD20 = "held out 20"
HELD20_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-44.json": [
        (HELD20, ["ugh the pups knocked over the recycling n panda ran off w a yogurt cup lol, "
                  "total chaos. btw where'd i even get my dogs from in the first place? my "
                  "neighbor asked n i blanked"],
         ["D11:4"]),
        (HELD20, ["did the pups' haircuts myself again today, they look so fluffy lol",
                  "where'd i pick up how to do that again?"], ["D16:6"]),
        (HELD20, ["how often do i walk the pups again?",
                  "nah i mean the long drives, how often do i pack em in the car for those"],
         ["D5:10"]),
        (HELD20, ["what was that old family dish of mine that reminds me of grandma's kitchen?"],
         ["D10:13"]),
    ],
    "locomo/conv-30.json": [
        (HELD20, ["ugh the left speaker blew out mid class n the kids just kept dancing to the "
                  "beat in their heads lol. anyway those shirts u did w that local artist way "
                  "back, where'd u get the idea from?"],
         ["D5:7"]),
        (HELD20, ["found my old whiteboard behind the mirrors lol",
                  "how did i keep my wins sorted on it again?"], ["D13:15", "D13:16"]),
        (HELD20, ["did u ever get that website for orders up n running?",
                  "nah wait, who was it that noticed ur stuff a while back n had u all nervous?"],
         ["D17:1", "D17:2"]),
        (HELD20, ["what do i do w the old folks every week again? my mom asked n i totally spaced"],
         ["P5"]),
    ],
    "locomo/conv-42.json": [
        (HELD20, ["my editor wants a rewrite by monday n my laptop fan sounds like a jet engine "
                  "smh. anyway what was that waterfall spot i hiked to that chilled me out so "
                  "much? wanna go back this wknd"],
         ["D11:7"]),
        (HELD20, ["u still rockin that wild hair color?", "why'd u go w that shade again"],
         ["D7:5"]),
        (HELD20, ["what flavor was that ice cream u made for ur friend?",
                  "nah i mean the cake i baked for the fam, what did i fill it w"], ["D10:11"]),
        (HELD20, ["what do i have hanging in my room for motivation again?"],
         ["D15:7", "D15:9"]),
    ],
    "group:locomo/conv-43.json": [
        (HELD20, ["Rook, how long's John been riding waves again?"], ["D3:27"]),
        (HELD20, ["Rook, John said a bunch of his club buddies showed up to his wedding even tho "
                  "he just joined", "what kinda club was that again?"], ["D12:6"]),
        (HELD20, ["Rook, what did John say he wants to do once he's done playing ball for good?"],
         ["D11:19"]),
        (HELD20, ["Rook, what did John's teammates give him when he got back that time?",
                  "nah wait, how many years did he play w his old hs squad?"], ["D9:4"]),
    ],
    "realtalk-dev/Chat_5_Nicolas_Nebraas.json": [
        (HELD20, ["ugh julio microwaved fish again n the whole apt reeks smh, i cant sleep. btw "
                  "where do i get my sleep gummies from again lol"],
         ["D6:24"]),
        (HELD20, ["i still cant believe i tried pet food that one time lol",
                  "which one was actually decent again?"], ["D15:23", "D15:24"]),
        (HELD20, ["whats ur fav level in mario sunshine again?",
                  "nah i mean what else were u playing that chill day besides mario"], ["D5:43"]),
        (HELD20, ["what did my crush wanna start w me that i wasnt even into lol"],
         ["D14:5", "D14:20", "D16:27", "D18:4"]),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        (HELD20, ["ugh my cough's back n my roommate used my last clean towel smh. anyway "
                  "where'd i say i prob caught covid from lol"],
         ["D3:61", "D3:77"]),
        (HELD20, ["still salty gordon ramsay kicked me off his twitter smh",
                  "didnt someone in ur fam get the same treatment?"], ["D2:92"]),
        (HELD20, ["what kinda apples were u snacking on that night?",
                  "nah i mean the show u were watching, what was it about"], ["D2:131", "D5:7"]),
        (HELD20, ["ok big news i got a line cook job at that new ramen place on 5th st, first "
                  "shift is saturday!!", *SMALL_TALK, "wait where's my new kitchen gig again lol"],
         ["said:0"]),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        (HELD20, ["bro the heater in my truck died n i had to scrape the ice off w my library card "
                  "smh. btw whats that xmas movie u said u watched like a million times as a kid"],
         ["D1:29"]),
        (HELD20, ["lol i still got that bike i borrowed ages ago",
                  "why didnt i ever end up giving it back again?"], ["D2:40", "D2:41"]),
        (HELD20, ["whats ur fav book again?",
                  "nah i mean mine, which one did i say was my all time fav"], ["D5:56"]),
        (HELD20, ["what does the wife make me go to on thursdays again lol"], ["P8"]),
    ],
    "memdaily-zh-dev/memdaily-u44.json": [
        (HELD20, ["我同事叫啥名儿来着？", "那他具体是干啥岗位的？"], ["D5:4"]),
        (HELD20, ["我叔叔今年多大岁数了？", "不是，我问的是他平时爱捣鼓啥"], ["D6:4"]),
        (HELD20, ["今天给客户改了一下午合同，眼睛都快瞎了。话说那个一边走路一边在半道上摆棋局比拼的活动，"
                  "规模多大来着？"], ["D2:3", "D8:7"]),
        (HELD20, ["上回说的那个聊翻译这行往后啥走向、跟同行互相取经的会，在哪儿开来着？"], ["D2:5"]),
    ],
    "memdaily-zh-dev/memdaily-u46.json": [
        (HELD20, ["我表哥叫啥来着？", "那他是做哪行的？"], ["D4:2"]),
        (HELD20, ["我下属今年多大来着？", "不是，我问的是她念到啥程度了"], ["D3:4"]),
        (HELD20, ["今天药房盘点到半夜，腰都直不起来了。话说那个摆一堆手工八音盒、边看边听现场演奏的活儿，"
                  "哪天开始来着？"], ["D2:6"]),
        (HELD20, ["上回说我那手机，我嫌它哪儿不够好来着？"], ["D5:2"]),
    ],
    "memdaily-zh-dev/memdaily-u48.json": [
        (HELD20, ["我上司在哪儿上班来着？", "那他平时爱玩点啥？"], ["D6:5"]),
        (HELD20, ["我表弟学历是啥来着？", "不是，我问的是他在医院里是个啥职位"], ["D4:5"]),
        (HELD20, ["今天在店里揉了一上午面，胳膊都抬不起来了。对了，那个比着买买买的挑战赛，啥时候开始来着？"],
         ["D2:7"]),
        (HELD20, ["俺家小子最近在折腾考啥证来着？"], ["P6"]),
    ],
}
HELD20_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-30.json": [
        ("P5", 11, "Been teaching a free line dancing hour at the senior center on Sunday "
                   "mornings, the grannies out-dance me every single time lol."),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        ("P8", 17, "the wifey signed us up for ballroom dance lessons every thursday night, i have "
                   "two left feet lmao"),
    ],
    "memdaily-zh-dev/memdaily-u48.json": [
        ("P6", 3, "我儿子上个月开始在驾校学车，科目二都挂了两回了。"),
    ],
}
held_out_add(HELD20_PROBES, HELD20_PLANTED)


# A twenty-first held-out set (2026-12-05): written before any change it measures, by a writer who
# did not read the app's recall, on LoCoMo conv-26, conv-41 and conv-47, conv-42 played as a group
# (a question to Rook about what Nate said), REALTALK Chat_7, Chat_8 and Chat_10, MemDaily u49, u47
# and u41; facts no earlier set asked. Follow-ups leaning on the line before ("how long ago was that
# for them?", "wait which coworker talked me into that class again?", "what was it keeping track of
# for them again?", "what's he showing people how to make?", "how long has he been doing it again?",
# "what was she bringing em that time?", "how'd they end up turning out?", 那他闲下来爱鼓捣点啥？,
# 那她在公司里是个啥官儿？, 那她个子多高？), corrections that turn the question to another fact or person (nah i mean
# the other instrument…, nah i mean the newer one…, nah i mean the soccer game in my course…, nah
# wait who did he say he bumped into…, nah i mean what did i say to bring…, nah i mean me…,
# 不是，我问的是他在工地上是个啥头衔 / 她电话多少 / 她在哪家公司上班), vague times (way back, a while back, that time, 上回), a
# question at the end of a chatty message (anyway, btw, 话说), typos and slang (u, ur, w, n, em, lol,
# smh, bro, im / dont / whats without apostrophe), colloquial Chinese (来着, 啥, 俺, 名儿, 鼓捣, 瞎练, 官儿), a
# category or a paraphrase the chat never uses (my ride or die crew for friends known since the
# move, someone who went thru it for a buddy who adopted, the other instrument for the piano,
# feeling at home in my own skin for 'Embracing Identity', the coastline n parks for the Pacific
# Northwest trip, my old stomping grounds for West County, the newer writing class for the poetry
# class, what it was keeping track of for inventory, the soccer game for the football simulator,
# what everyone played after the party for chess, what he's showing people for dairy-free desserts,
# what goes into it for the coconut milk recipe, who's into running the bakery for the younger
# sister, what to bring for flowers, what my neighbors keep an eye on for the runescape afk farm,
# the huge one after pachinko for Ducks, Newburyport, 在工地上是个啥头衔 for 瓦工班长, 聊盖房子手艺、交流经验的会 for
# 建筑技艺交流盛宴, 在水里摆艺术品、还能画游泳主题画的活儿 for 泳动艺术盛宴, 在公司里是个啥官儿 for 总裁, 给项目开头炮、经理讲讲市场打法的会 for 项目启航会,
# 尝遍各国菜、还能现场比划比划运动的节 for 美食运动狂欢节, 琢磨灶台手艺、顺带学怎么管厨房的活动 for 烹饪技艺提升盛宴), the player's own facts in the
# chats asked in other words (the crew, the piano, the painting, the road trip, the coworker, the
# old area, the online tourney, the course's part, the protein powder, what to bring, the neighbors'
# favour, the soup, the reading challenge, the next book), planted in words the question does not
# use (where my mom moved after she stopped working for retiring to Tampa, what the doc said was off
# w me for high cholesterol, 瞎练的那个乐器 for 学吹萨克斯) or told in a lead-in turn (a move to the pharmacy's
# new branch in Evanston asked as where am i getting moved to). Every expected id was checked
# against its line and the whole conversation searched for other lines holding the answer (e.g.
# conv-47's semis also D4:5 (John names them) and the charity app's inventory D11:3 and D11:5,
# Chat_7's sister also D8:10 (Vanessa names her)); left out as only half holding it: conv-26's D3:11
# (the friends, no time), conv-41's D10:1 (a colleague, no name), conv-42's D3:4 and D4:5 (coconut
# milk only, no recipe), Chat_7's D4:73 (a gift, not flowers), Chat_10's D5:50 (a massive tome, no
# title), u41's D6:6 (上海, not the company), u47's D3:4 (做销售, not the post), u49's D3:3 (干建筑,
# not the post). Played alone with --only "held out 21".
# On 43156193 (main's recall, before any change it measures; 2026-12-05 12:52-12:54, load 2),
# played alone (--only "held out 21"): found 40/40, @5 32/40, @10 39/40; by file: conv-26 4/4, 4/4,
# 4/4; conv-41 4/4, 4/4, 4/4; conv-47 4/4, 3/4, 4/4; Chat_7 4/4, 3/4, 4/4; Chat_8 4/4, 3/4, 4/4;
# Chat_10 4/4, 3/4, 4/4; u49 4/4, 2/4, 3/4; u47 4/4, 3/4, 4/4; u41 4/4, 3/4, 4/4; group conv-42
# 4/4, 4/4, 4/4 (found, @5, @10). No expected id and no turn of any probe was changed after the run.
HELD21 = "held out 21"
HELD21_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-26.json": [
        (HELD21, ["ugh spilled a whole jar of paint water on the rug n spent an hour scrubbing "
                  "lol. anyway how long have i known my ride or die crew again? since i moved "
                  "over here right?"],
         ["D3:13"]),
        (HELD21, ["been filling out adoption forms all day lol, didnt u say u know someone who "
                  "already went thru it?", "how long ago was that for them?"], ["D17:4"]),
        (HELD21, ["how long have i been playing guitar again?",
                  "nah i mean the other instrument i was just starting to pick up back when u "
                  "signed up for pottery"], ["D5:5"]),
        (HELD21, ["that painting of mine about feeling at home in my own skin, what did i name "
                  "it again?"], ["D11:12"]),
    ],
    "locomo/conv-41.json": [
        (HELD21, ["the baby's teething again n the dishwasher flooded the kitchen this morning "
                  "smh. btw where did me n the fam drive around last year, the trip w all the "
                  "coastline n parks? my daughter asked"],
         ["D11:5"]),
        (HELD21, ["finally touched my toes in yoga today lol",
                  "wait which coworker talked me into that class again?"], ["D7:16"]),
        (HELD21, ["u took some writing class a while back right?",
                  "nah i mean the newer one u said helps u get ur feelings out, what kind was it?"],
         ["D9:1"]),
        (HELD21, ["whats my old stomping grounds called again, the area i wanna fix up too?"],
         ["D14:21"]),
    ],
    "locomo/conv-47.json": [
        (HELD21, ["ugh ned chewed thru my headset cable n daisy wont stop barking at the mailman "
                  "lol. btw how far did i get in that online tourney way back? told my cousin i "
                  "went all the way n now im not sure lol"],
         ["D4:4", "D4:5"]),
        (HELD21, ["that app u built for the charity way back was so sick",
                  "what was it keeping track of for them again?"], ["D11:3", "D11:5"]),
        (HELD21, ["what was that big project i finally wrapped up that made me learn a whole new "
                  "language?",
                  "nah i mean the soccer game in my course, what part was i stuck doing?"],
         ["D13:8"]),
        (HELD21, ["wait where'd my mom move after she stopped working? my buddy asked n i blanked "
                  "lol"], ["P4"]),
    ],
    "group:locomo/conv-42.json": [
        (HELD21, ["Rook, once Nate's gaming party wound down, what did everyone play after?"],
         ["D16:2"]),
        (HELD21, ["Nate's been teaching some kinda class lately right Rook?",
                  "what's he showing people how to make?"], ["D18:8"]),
        (HELD21, ["Rook, what's the name of Nate's newest pup again?",
                  "nah wait, who did he say he bumped into walking him?"], ["D13:1"]),
        (HELD21, ["ugh my roommate ate all my snacks again lol. Rook, what did Nate say goes into "
                  "that dairy-free ice cream of his? wanna try making it"], ["D8:19"]),
    ],
    "realtalk-dev/Chat_7_Nebraas_Vanessa.json": [
        (HELD21, ["ugh 3 dogs in a row tried to bite me at the clinic today n my shaker bottle "
                  "leaked all over my bag smh. btw which protein powder did i say im obsessed w? "
                  "gotta reorder lol"],
         ["D6:53"]),
        (HELD21, ["is ur tattoo buddy still gonna let u practice on him?",
                  "how long has he been doing it again?"], ["D8:29"]),
        (HELD21, ["what did i tell u to do about that flirty girl at the bakery?",
                  "nah i mean what did i say to bring when u went over to make up w ur gf"],
         ["D4:77"]),
        (HELD21, ["who in ur fam actually wants to run the bakery someday?"], ["D8:7", "D8:10"]),
    ],
    "realtalk-dev/Chat_8_Akib_Muhhamed.json": [
        (HELD21, ["bro my internet's been cutting out all day n i had to reboot the router like 5 "
                  "times smh. btw what do my neighbors keep an eye on for me when im outta town "
                  "lol"],
         ["D4:9"]),
        (HELD21, ["ur sister still doing those holiday gift runs for her coworkers lol?",
                  "what was she bringing em that time?"], ["D3:17"]),
        (HELD21, ["what kinda soup do u go for when ur sick?",
                  "nah i mean me, what do i always get"], ["D2:5"]),
        (HELD21, ["what did the doc say was off w me after my checkup again?"], ["P5"]),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        (HELD21, ["trains were stuck for 20 min again n some dude's backpack kept smacking me in "
                  "the face smh. btw how many books am i supposed to get thru for that reading "
                  "challenge this year?"],
         ["D7:8"]),
        (HELD21, ["lol remember when u tried making fancy eggs for breakfast?",
                  "how'd they end up turning out?"], ["D5:24"]),
        (HELD21, ["whats that book u were reading thats supposed to be super sad?",
                  "nah i mean me, which huge one was i starting after i finished pachinko"],
         ["D5:48"]),
        (HELD21, ["ok news, my manager's moving me to the pharmacy's new branch out in evanston "
                  "starting next month", *SMALL_TALK, "wait where am i getting moved to again lol"],
         ["said:0"]),
    ],
    "memdaily-zh-dev/memdaily-u49.json": [
        (HELD21, ["我上司生日几号来着？", "那他闲下来爱鼓捣点啥？"], ["D2:10"]),
        (HELD21, ["我舅舅多高来着？", "不是，我问的是他在工地上是个啥头衔"], ["D3:5"]),
        (HELD21, ["今天店里冰柜坏了，雪糕化了一地，收拾到半夜。话说那个大伙儿凑一块儿聊盖房子手艺、交流经验的会，"
                  "是哪天几点来着？"], ["D4:5"]),
        (HELD21, ["上回说的那个在水里摆艺术品、还能画游泳主题画的活儿，啥时候开始来着？"], ["D4:7"]),
    ],
    "memdaily-zh-dev/memdaily-u47.json": [
        (HELD21, ["我上司电话多少来着？", "那她在公司里是个啥官儿？"], ["D3:2"]),
        (HELD21, ["我舅妈多大岁数来着？", "不是，我问的是她电话多少"], ["D4:7"]),
        (HELD21, ["今天值了个大夜班，眼睛都快睁不开了。话说那个给项目开头炮、经理讲讲市场打法的会，得来多少人来着？"],
         ["D7:7"]),
        (HELD21, ["俺最近下了班在瞎练的那个乐器是啥来着？"], ["P6"]),
    ],
    "memdaily-zh-dev/memdaily-u41.json": [
        (HELD21, ["我同事叫啥名儿来着？", "那她个子多高？"], ["D4:5"]),
        (HELD21, ["我舅妈老家哪儿的来着？", "不是，我问的是她在哪家公司上班"], ["D3:7"]),
        (HELD21, ["今天后厨排风扇又罢工了，炒一锅菜熏得眼泪直流。话说那个尝遍各国菜、还能现场比划比划运动的节，"
                  "是哪天几点开始来着？"], ["D2:3"]),
        (HELD21, ["上回说的那个琢磨灶台手艺、顺带学怎么管厨房的活动，要连着办多久来着？"], ["D4:12"]),
    ],
}
HELD21_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-47.json": [
        ("P4", 15, "Mom finally retired from the post office and moved down to Tampa, now she "
                   "texts me beach selfies every single morning lol."),
    ],
    "realtalk-dev/Chat_8_Akib_Muhhamed.json": [
        ("P5", 9, "got my bloodwork back n the doc says my cholesterol is way too high, so no "
                  "more fried chicken for me smh"),
    ],
    "memdaily-zh-dev/memdaily-u47.json": [
        ("P6", 4, "我最近在学吹萨克斯，楼下邻居都快被我吵疯了。"),
    ],
}
held_out_add(HELD21_PROBES, HELD21_PLANTED)


# A twenty-second held-out set (2026-12-05): written before any change it measures, by a writer who
# did not read the app's recall, on LoCoMo conv-43, conv-30 and conv-44, conv-41 played as a group
# (a question to Rook about what Maria said), REALTALK Chat_5, Chat_9 and Chat_6, MemDaily u40, u42
# and u45; facts no earlier set asked. Follow-ups leaning on the line before ("where'd i take it
# again?", "what were we getting ready to perform at?", "where'd i even hear about it again?", "what
# was it raising money for again?", "who was my fav character in it again?", "what critter did we
# run into up there again?", "how much did u say it adds up to every month?", 她个儿多高来着？, 她念到啥程度来着？, 她
# 那个公司叫啥来着？), corrections that turn the question to another fact or person (nah i mean what city did
# i tell u to pick…, nah i mean me, what extra thing was i offering…, nah i mean that group of dog
# parents…, nah wait, where was that sunset pic from…, nah i mean me, what was i tryna fix…, nah i
# mean those smoothies…, nah i mean my dad back in the day…, 不是，我问的是我表姐的 / 我上司的单位 / 我舅妈), vague
# times (way back, a while back, that time, 上回), a question at the end of a chatty message (anyway,
# btw, 话说), typos and slang (u, ur, w, n, em, lol, smh, bro, tryna, whats / didnt / im without
# apostrophe), colloquial Chinese (来着, 啥, 俺, 丫头, 个儿, 搞), a category or a paraphrase the chat never
# uses (the quote i lean on when things get rough for J.K. Rowling's "Turn on the light", the sunset
# over the mountains pic for the Smoky Mountains, the art print from the design studio behind the
# wizard movie stuff for MinaLima, what mattered most for running the shop for brand identity and
# relationships, the little group of dancers for the festival choreography, the extra thing on top
# of the regular lessons for one-on-one mentoring, some computer stuff for marketing and analytics
# tools, the specialist for an animal behaviorist, the dog parents group for the dog owners group,
# the charity race for the 5K run for a homeless shelter, the religious jewelry for a cross
# necklace, apartment hunting around the car wreck for the cousin's new place, the dino wrestling
# thing for Jurassic Fight Night, the youtube series about the crazy dudes for Psychopaths, what ate
# my usb sticks for the broken ChromeOS laptop, the coding where u pull info off websites for
# scraping, which nba squad i ride for for the Pistons, the critter on the freezing hike for a bear,
# my old job before comics for barbecue, the halal cart guy for rafiqi, 上海的硬件大会、要开新品发布会的那个 for 硬件创新与
# 发展论坛, 跑到外头边看风景边练瑜伽的活儿 for 异域瑜伽之旅, 七千人的农业大会 for 农业升级合作大会, 又要写代码又要逛街找店的活动 for 编程购物挑战之旅, 银行同行凑一块儿交流的大
# 会 for 银行业交流峰会), the player's own facts in the chats asked in other words (the quote, the mountain
# pic, the team-trip tip, the print, the shop tips, the festival, the mentoring, the computer
# skills, the workshop flyer, the dog owners group, the behaviorist, the dino show, the favourite
# character, the laptop, the scraping, the Pistons, the bear, the cousin's smoothies, the barbecue
# job, the halal cart guy, the dad's night shift), planted in words the question does not use (what
# i got put in so the dogs can let themselves out for the landlord's yes to a doggy door, what sport
# i play every hump day after dark for a wednesday bowling league, 俺家丫头在哪儿念书 for 闺女考上了南京农业大学).
# Every expected id was checked against its line and the whole conversation searched for other lines
# holding the answer (e.g. conv-43's Edinburgh also D11:11 (John names it), conv-30's shop tips also
# D7:6 (Gina repeats them), the festival D1:25, D1:26, D1:27 and D5:2, the mentoring D13:8,
# conv-44's behaviorist D26:2, D26:3 and D26:5, u40's 表姐邮箱 D6:1); left out as only half holding it:
# conv-43's D15:7 (J.K. Rowling, no quote) and D14:14 (last summer, no place), Chat_5's D4:38 and
# D4:43 (dinosaurs wrestle, no name) and D17:9 (the flash drives, not what was being fixed),
# Chat_9's D2:14 (a basketball fan, no team), D16:53 (a bear as the animal he would be, not the one
# met) and D7:58 (used to make barbecue, not said as a job), Chat_6's D10:27 (9PM to 5AM, Vanessa's,
# not the dad's), conv-41's D21:7 (a new place, no cousin), u45's D4:2, D5:2 and D7:5 (婶婶在广州, no
# company). Played alone with --only "held out 22".
# On 1ad91b18 (main's recall, before any change it measures; 2026-12-05 14:32-14:34, load 2),
# played alone (--only "held out 22"): found 40/40, @5 33/40, @10 37/40; by file: conv-43 4/4, 4/4,
# 4/4; conv-30 4/4, 4/4, 4/4; conv-44 4/4, 3/4, 3/4; Chat_5 4/4, 4/4, 4/4; Chat_9 4/4, 2/4, 3/4;
# Chat_6 4/4, 3/4, 4/4; u40 4/4, 3/4, 4/4; u42 4/4, 4/4, 4/4; u45 4/4, 3/4, 4/4; group conv-41 4/4,
# 3/4, 3/4 (found, @5, @10). No expected id and no turn of any probe was changed after the run.
HELD22 = "held out 22"
HELD22_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-43.json": [
        (HELD22, ["ugh my roommate left the stove on n the smoke alarm went off at 3am smh. btw "
                  "that quote i lean on when things get rough, how does it go again?"],
         ["D15:11"]),
        (HELD22, ["that sunset over the mountains pic i showed u way back",
                  "where'd i take it again?"], ["D14:16"]),
        (HELD22, ["where did u end up going on that team trip?",
                  "nah i mean what city did i tell u to pick for it"], ["D11:10", "D11:11"]),
        (HELD22, ["that art print on my bookshelf from the design studio behind the wizard movie "
                  "stuff, whats the studio called again?"], ["D2:9"]),
    ],
    "locomo/conv-30.json": [
        (HELD22, ["ugh one of the moms yelled at me in the parking lot over recital costumes smh. "
                  "anyway way back when u asked me for tips on running the shop, what did i say "
                  "mattered most?"],
         ["D7:5", "D7:6"]),
        (HELD22, ["remember way back when i was rehearsing w that little group of dancers after "
                  "work?", "what were we getting ready to perform at?"],
         ["D1:24", "D1:25", "D1:26", "D1:27", "D5:2"]),
        (HELD22, ["u ever send me that styling video presentation?",
                  "nah i mean me, what extra thing was i offering my dancers on top of the regular "
                  "lessons?"], ["D13:7", "D13:8"]),
        (HELD22, ["a while back i started teaching myself some computer stuff to push the biz, "
                  "what was it again?"], ["D17:4"]),
    ],
    "locomo/conv-44.json": [
        (HELD22, ["ugh it rained all day n the whole house smells like wet dog smh. btw what did i "
                  "get put in a while back so the dogs can let themselves out? my mom asked n i "
                  "blanked"],
         ["P3"]),
        (HELD22, ["remember that bonding workshop i signed up for way back?",
                  "where'd i even hear about it again?"], ["D6:4"]),
        (HELD22, ["how often do i take the pups to the dog park?",
                  "nah i mean that group of dog parents i joined, how often do we meet up?"],
         ["D27:4"]),
        (HELD22, ["who was that specialist i took the pups to when they were acting all off?"],
         ["D26:1", "D26:2", "D26:3", "D26:5"]),
    ],
    "group:locomo/conv-41.json": [
        (HELD22, ["Maria did some charity race a while back huh Rook",
                  "what was it raising money for again?"], ["D10:10"]),
        (HELD22, ["Rook, what was that jewelry Maria bought herself a while back, the religious "
                  "one?"], ["D11:10"]),
        (HELD22, ["Rook, where did Maria go on that solo trip of hers?",
                  "nah wait, where was that sunset pic from, the trip w her fam?"], ["D19:23"]),
        (HELD22, ["ugh my landlord raised the rent again n the dryer ate another sock lol. Rook, "
                  "who was Maria helping w apartment hunting around the time of that car wreck?"],
         ["D21:5"]),
    ],
    "realtalk-dev/Chat_5_Nicolas_Nebraas.json": [
        (HELD22, ["ugh julio clogged the sink w his ramen again n my nose is bleeding AGAIN smh. "
                  "btw whats that dino wrestling thing i wanted to drag my buddies to called again "
                  "lol"],
         ["D4:37"]),
        (HELD22, ["that youtube series i was bingeing way back about the crazy dudes",
                  "who was my fav character in it again?"], ["D16:44"]),
        (HELD22, ["what were u playing w ur friends that night, lethal company?",
                  "nah i mean me, what was i tryna fix that ate like 3 of my usb sticks lol"],
         ["D17:8"]),
        (HELD22, ["what was that coding thing i was learning for school way back, where u pull "
                  "info off websites?"], ["D1:12"]),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        (HELD22, ["bro the raccoons got the trash again n my ear's ringing smh. btw which nba "
                  "squad do i ride for again lol, my coworker's tryna start beef"],
         ["D2:15"]),
        (HELD22, ["remember that freezing hike up the mountain a while back?",
                  "what critter did we run into up there again?"], ["D16:49"]),
        (HELD22, ["whats ur usual drink order, the mango thing?",
                  "nah i mean those smoothies i hyped up, who in my fam makes em"], ["D3:75"]),
        (HELD22, ["what was my old job before i got into the comics stuff?"],
         ["D3:61", "D4:57", "D8:3"]),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        (HELD22, ["ugh my roommate left his cereal bowl in the sink for a week n now theres ants "
                  "everywhere smh. btw whats the name of my fav halal cart guy again, im craving "
                  "street meat"],
         ["D18:12"]),
        (HELD22, ["u still dropping crazy money on boba lol?",
                  "how much did u say it adds up to every month?"], ["D18:43"]),
        (HELD22, ["what shift do u usually work at the clinic?",
                  "nah i mean my dad back in the day, what hours did he used to work"], ["D10:26"]),
        (HELD22, ["what sport do i play every hump day after dark again lmao"], ["P5"]),
    ],
    "memdaily-zh-dev/memdaily-u40.json": [
        (HELD22, ["我表姐不是在深圳上班嘛", "她个儿多高来着？"], ["D6:4"]),
        (HELD22, ["我表弟邮箱是啥来着？", "不是，我问的是我表姐的"], ["D5:6", "D6:1"]),
        (HELD22, ["今天又在机房蹲了一下午，空调冻得我直哆嗦。话说那个上海的硬件大会，就是要开新品发布会的那个，"
                  "得开几天来着？"], ["D1:2"]),
        (HELD22, ["上回说的那个跑到外头边看风景边练瑜伽的活儿，具体都搞些啥来着？"], ["D5:14"]),
    ],
    "memdaily-zh-dev/memdaily-u42.json": [
        (HELD22, ["我同事叫李晓婷对吧？", "她念到啥程度来着？"], ["D2:3"]),
        (HELD22, ["我同事在哪个单位来着？", "不是，我问的是我上司的单位"], ["D6:8"]),
        (HELD22, ["今天去镇上卖菜，三轮车半道爆胎了，推了两里地才到。话说那个七千人的农业大会，要搞多长时间来着？"],
         ["D3:7"]),
        (HELD22, ["俺家丫头在哪儿念书来着？"], ["P5"]),
    ],
    "memdaily-zh-dev/memdaily-u45.json": [
        (HELD22, ["我婶婶不是在广州上班嘛", "她那个公司叫啥来着？"], ["D3:8"]),
        (HELD22, ["我婶婶个子多高来着？", "不是，我问的是我舅妈"], ["D3:5"]),
        (HELD22, ["今天网点系统又卡了一上午，客户排队排到门外。话说那个又要写代码又要逛街找店的活动，是哪天几点来着？"],
         ["D2:6"]),
        (HELD22, ["上回说的那个银行同行凑一块儿交流的大会，规模多大来着？"], ["D1:3"]),
    ],
}
HELD22_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-44.json": [
        ("P3", 21, "Landlord finally said yes to a doggy door out to the backyard, so now the pups "
                   "come and go all day and track mud everywhere lol."),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        ("P5", 7, "joined a bowling league w some guys from the laundromat, wednesday nights, my "
                  "avg is like 90 lol"),
    ],
    "memdaily-zh-dev/memdaily-u42.json": [
        ("P5", 4, "我闺女今年考上了南京农业大学，学的是园艺。"),
    ],
}
held_out_add(HELD22_PROBES, HELD22_PLANTED)


# A twenty-third held-out set (2026-12-05): written before any change it measures, by a writer who
# did not read the app's recall, on LoCoMo conv-42, conv-47 and conv-26, conv-30 played as a group
# (a question to Rook about what Gina said), REALTALK Chat_7, Chat_8 and Chat_10, MemDaily u43, u46
# and u48; facts no earlier set asked. Follow-ups leaning on the line before ("where'd i even get
# the idea for it again lol", "what did u guys do w the cash that was left over?", "what got me to
# paint it again?", "what did she say the key was again?", "where were some of ur relatives flying
# in from again?", "what did the guy they sent end up replacing?", "whose recording of it do i like
# best again?", 她邮箱是啥来着？, 他电话多少来着？, 那人闲下来都爱干点啥来着？), corrections that
# turn the question to another fact or person (nah i mean that trilogy u kept hyping…, nah i mean
# the board game u got into…, nah i mean the other one u said u play to unwind…, nah wait, what did
# she say that camo hoodie design reminds her of?, nah i mean the big dog i had before…, nah i mean
# u, who'd u have over, nah i mean ur boss…, 不是，我问的是我上司的 / 她邮箱 /
# 他在公司里是个啥级别), vague times (way back, a while back, that time, 上回), a question at the
# end of a chatty message (anyway, btw, 话说), typos and slang (u, ur, w, n, r, lol, smh, tryna,
# whats / havent / mans without apostrophe), colloquial Chinese (来着, 啥, 咋, 俺, 捣鼓, 沾边), a
# category or a paraphrase the chat never uses (the sunset pic in the field for the sunflower shot
# near Fort Wayne, the love story script w all the obstacles for the script from a dream, the
# trilogy u kept hyping for The Lord of the Rings, the story i wrote back in like 4th grade for the
# brave little turtle at 10, the big advice the pro team gave me for communicating and never putting
# ego above the team, the cash left over for groceries and food for the homeless, the board game for
# Dungeons of the Dragon, my old man's job before he hung it up for a firefighter, the music ur into
# for Bach, Mozart and "Perfect", the other one u play to unwind for the violin, smth for my future
# kids for a library of kids' books, who Gina was gonna team up with for bloggers and influencers,
# the key for starting out for passionate, focused and resilient, what the camo design reminds her
# of for the grit to stand out, what she put out to get the word out for an ad campaign, the game
# series before the new one dropped for Yakuza, the big dog i had before for a Rottweiler, what i
# was cramming at the cafe for animal science, the creepy AI theory for Roko's Basilisk, who'd u
# have over for lunch for MLK, what i do w the baseball kids for coaching little league, the arc for
# the chimera ant arc, whose recording for Kate Liu's, the video game movie w the spiderman guy for
# Uncharted, 当警察的表姐 for 表姐, 琢磨咋让坐飞机的人更满意的大典 for 航空服务创新交流盛典,
# 周边买东西方便不 for 商业配套, 一边读手工书、一边现场动手做的会 for 手工阅享会, 往城外跑是去捣鼓啥
# for 郊区的菜地, 在公司里是个啥级别 for 总监, 到外头比拼挥拍的盛会 for 竞技羽毛球盛宴,
# 跟翻译沾边、琢磨新路子的研讨会 for 创新翻译研讨会), the player's own facts in the chats asked in
# other words (the sunset pic, the script's idea, the trilogy, the childhood story, the pro team's
# tip, the sunset painting, the library, the game series, the old dog, the studies, the AI theory,
# the Chopin recording, the Uncharted movie, the arc), planted in words the question does not use
# (my old man's job before he hung it up for a dad who was a firefighter thirty years, what i do w
# the baseball kids twice a week for coaching the nephew's little league team, 往城外跑是去捣鼓啥
# for 郊区租了一小块菜地). Every expected id was checked against its line and the whole conversation
# searched for other lines holding the answer (e.g. conv-47's tip also D4:13 (John restates it),
# conv-26's library also D6:8 and D6:9 (Melanie names it, the kids' books), the sunset painting also
# D14:8 (Melanie names the beach), conv-30's advice D14:10, D14:11 and D14:12, Chat_7's studies also
# D16:13, Chat_8's AI theory D8:16 and D8:18, the lunch guest D7:6 and D7:7 (Akib names him), u46's
# 叔叔电话 D6:3 and D8:2); left out as only half holding it: conv-42's D28:20 (the pic, no place)
# and D27:6 (the love story, no idea), conv-42's D9:12 (a trilogy, no name), conv-30's D14:4 and
# D18:13 (influencers as advice to Jon, not her plan), D8:12 for the ad campaign (more ads later,
# not the launch) and D8:4 (offers and promotions, a later push), Chat_7's D1:75 (Rottweilers, not
# hers), Chat_8's D8:20 to D8:22 (the thought experiment, no name), Chat_10's D10:15 (the show, not
# the arc), D10:17 (the ending, no arc) and D3:39 (her recording, no name), u43's D3:1 (the 小区's
# name, no shops). Played alone with --only "held out 23".
# On e70431ce (main's recall, before any change it measures; 2026-12-05 15:12-15:16, load 4-6),
# played alone (--only "held out 23"): found 39/40, @5 30/40, @10 35/40; by file: conv-42 4/4, 3/4,
# 4/4; conv-47 4/4, 2/4, 3/4; conv-26 4/4, 3/4, 3/4; Chat_7 4/4, 4/4, 4/4; Chat_8 3/4, 3/4, 3/4;
# Chat_10 4/4, 4/4, 4/4; u43 4/4, 3/4, 3/4; u46 4/4, 4/4, 4/4; u48 4/4, 1/4, 3/4; group conv-30 4/4,
# 3/4, 4/4 (found, @5, @10). No expected id and no turn of any probe was changed after the run.
HELD23 = "held out 23"
HELD23_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-42.json": [
        (HELD23, ["ugh my sister borrowed my car n brought it back w the tank on empty smh. btw "
                  "that sunset pic in the field i showed u a while back, what town was i hiking "
                  "near when i took it?"],
         ["D28:22"]),
        (HELD23, ["remember that love story script w all the obstacles i started on?",
                  "where'd i even get the idea for it again lol"], ["D27:8"]),
        (HELD23, ["what game did u win that big international tourney in?",
                  "nah i mean that trilogy u kept hyping, which one did i finally sit down n "
                  "watch?"], ["D10:1"]),
        (HELD23, ["that story i wrote back in like 4th grade, what was it about again?"],
         ["D26:7"]),
    ],
    "locomo/conv-47.json": [
        (HELD23, ["ugh sam burned the pasta n the smoke alarm went off twice lol. btw what was the "
                  "big advice that pro team gave me at that online tourney way back? tryna "
                  "remember it for tonight's match"],
         ["D4:12", "D4:13"]),
        (HELD23, ["that charity tourney u threw for the dog shelter was so sick",
                  "what did u guys do w the cash that was left over?"], ["D10:12"]),
        (HELD23, ["whats that rpg u were hooked on w the monster hunter guy?",
                  "nah i mean the board game u got into, whats it called again"], ["D24:3"]),
        (HELD23, ["what was my old mans job before he hung it up? my buddy asked n i blanked lol"],
         ["P5"]),
    ],
    "locomo/conv-26.json": [
        (HELD23, ["ugh my landlord's doing an inspection tmrw n my place is a total disaster lol. "
                  "anyway what kinda music r u into again? making u a playlist"],
         ["D15:28"]),
        (HELD23, ["that sunset painting i finished a while back, the ocean one",
                  "what got me to paint it again?"], ["D14:7", "D14:8"]),
        (HELD23, ["u play clarinet right?",
                  "nah i mean the other one u said u play to unwind every day"], ["D2:5"]),
        (HELD23, ["way back i started putting together smth at home for my future kids, what was "
                  "it again?"], ["D6:7", "D6:8", "D6:9"]),
    ],
    "group:locomo/conv-30.json": [
        (HELD23, ["Rook, a while back Gina had all these plans to grow her customer base, who was "
                  "she gonna team up with?"], ["D8:12"]),
        (HELD23, ["Gina gave me some solid advice way back when i asked how to start out, right "
                  "Rook?", "what did she say the key was again?"],
         ["D14:10", "D14:11", "D14:12"]),
        (HELD23, ["Rook, what was that quote Gina got inked?",
                  "nah wait, what did she say that camo hoodie design reminds her of?"],
         ["D16:5"]),
        (HELD23, ["ugh the studio AC died mid class n the kids were melting smh. Rook, way back "
                  "when Gina's store was brand new, what did she put out to get the word out?"],
         ["D2:1"]),
    ],
    "realtalk-dev/Chat_7_Nebraas_Vanessa.json": [
        (HELD23, ["ugh my car battery died in the clinic parking lot n i waited an hour for a jump "
                  "smh. btw which game series was i tryna finish before the new one dropped? "
                  "wanna pick it back up"],
         ["D2:23"]),
        (HELD23, ["ur parents threw that huge party for nye right?",
                  "where were some of ur relatives flying in from again?"], ["D5:30"]),
        (HELD23, ["whats my lil mutt's name again lol",
                  "nah i mean the big dog i had before, what breed was it"], ["D1:74"]),
        (HELD23, ["that first day we talked i was cramming at the cafe, what was i studying "
                  "again?"], ["D1:16", "D16:13"]),
    ],
    "realtalk-dev/Chat_8_Akib_Muhhamed.json": [
        (HELD23, ["ugh the office coffee machine died n i had to drink gas station coffee all day "
                  "smh. btw whats that creepy AI theory i told u about way back, where just "
                  "knowing about it dooms u lol"],
         ["D8:16", "D8:18"]),
        (HELD23, ["remember when ur wifi was acting up n u were stuck on hold forever?",
                  "what did the guy they sent end up replacing?"], ["D1:78"]),
        (HELD23, ["if i could have anyone from history over for lunch who would i pick?",
                  "nah i mean u, who'd u have over"], ["D7:6", "D7:7"]),
        (HELD23, ["wait what am i doing w the baseball kids twice a week again? my wife asked lol"],
         ["P6"]),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        (HELD23, ["ugh my upstairs neighbor was vacuuming at midnight again smh. btw which arc did "
                  "i say might be my fav of any show ever? my cousin wants to start it"],
         ["D10:16"]),
        (HELD23, ["remember that chopin piece i kept telling u to listen to?",
                  "whose recording of it do i like best again?"], ["D3:38"]),
        (HELD23, ["how long is ur commute again?",
                  "nah i mean ur boss, why havent u reported him yet?"], ["D1:16"]),
        (HELD23, ["that video game movie w the spiderman guy that we both trashed, how far did i "
                  "get before i gave up on it?"], ["D2:35"]),
    ],
    "memdaily-zh-dev/memdaily-u43.json": [
        (HELD23, ["我那个当警察的表姐，你还记得吧",
                  "我要给她发个东西，她邮箱是啥来着？"], ["D3:8"]),
        (HELD23, ["我下属电话多少来着？", "不是，我问的是我上司的"], ["D2:1"]),
        (HELD23, ["今天律所加班整理卷宗到半夜，眼睛都花了。"
                  "话说那个琢磨咋让坐飞机的人更满意的大典，"
                  "规模多大来着？"], ["D1:5"]),
        (HELD23, ["上回跟你说俺住那小区，周边买东西方便不？"
                  "我咋说的来着"], ["D3:2"]),
    ],
    "memdaily-zh-dev/memdaily-u46.json": [
        (HELD23, ["我叔叔不是在杭州那家医院上班嘛", "他电话多少来着？"],
         ["D6:3", "D8:2"]),
        (HELD23, ["我同事在哪儿上班来着？", "不是，我问的是她邮箱"], ["D6:7"]),
        (HELD23, ["今天药房又排长队，配药配到手抽筋。"
                  "话说那个一边读手工书、一边现场动手做的会，"
                  "得来多少人来着？"], ["D1:7"]),
        (HELD23, ["俺周末老往城外跑，是去捣鼓啥来着？"], ["P5"]),
    ],
    "memdaily-zh-dev/memdaily-u48.json": [
        (HELD23, ["我同事不是也干翻译的嘛", "那人闲下来都爱干点啥来着？"],
         ["D6:8"]),
        (HELD23, ["我上司是干啥的来着？", "不是，我问的是他在公司里是个啥级别"],
         ["D4:9"]),
        (HELD23, ["今天烤箱温控又坏了，一炉面包全烤煳了，心疼死我了。"
                  "话说那个到外头比拼挥拍的盛会，"
                  "在哪个城市搞来着？"], ["D3:10"]),
        (HELD23, ["上回说的那个跟翻译沾边、琢磨新路子的研讨会，"
                  "啥时候开来着？"], ["D2:5"]),
    ],
}
HELD23_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-47.json": [
        ("P5", 12, "My dad spent thirty years as a firefighter, he still swings by the station "
                   "every Friday for poker night lol."),
    ],
    "realtalk-dev/Chat_8_Akib_Muhhamed.json": [
        ("P6", 15, "signed up to coach my nephews little league team this spring, practices r "
                   "tuesdays n thursdays after work lol"),
    ],
    "memdaily-zh-dev/memdaily-u46.json": [
        ("P5", 3, "我去年在郊区租了一小块菜地，周末就去种点黄瓜西红柿。"),
    ],
}
held_out_add(HELD23_PROBES, HELD23_PLANTED)


# A twenty-fourth held-out set (2026-12-05): written before any change it measures, by a writer who
# did not read the app's recall, on LoCoMo conv-41, conv-44 and conv-43, conv-47 played as a group
# (a question to Rook about what John said), REALTALK Chat_5, Chat_6 and Chat_9, MemDaily u40, u44
# and u49; facts no earlier set asked. Follow-ups leaning on the line before ("how many yrs was he
# w us again?", "what other outdoorsy stuff did u say u wanted to try after that?", "how long have u
# been at it again?", "what kinda game was it again?", "where'd he fly to again lol", "what critters
# did i end up buying for it?", "what was weird about the menu again?", 他在哪个城市上班来着？,
# 那人邮箱是啥来着？, 他平时下了班爱捣鼓点啥？), corrections that turn the question to another fact
# or person (nah i mean the run i put together in our neighborhood…, nah i mean the kinda weather
# they cant stand, nah i mean who'd u go with…, nah wait, whats his other half's name…, nah wait,
# what cereal do u always get, nah thats mine lol, which ones do u always grab, nah i mean the space
# colony thing…, 不是，我问的是我下属的 / 我爸 / 我舅舅), vague times (way back, a while back, back
# when, 上回, 之前), a question at the end of a chatty message (btw, 话说), typos and slang (u, ur,
# w, n, yrs, lol, smh, bro, lil, whats / cant / thats without apostrophe), colloquial Chinese (来着,
# 啥, 咋, 俺, 捣鼓, 胡吃海喝), a category or a paraphrase the chat never uses (the motto on the
# poster at the school job fair for the career fair sign "Always look on the bright side of life",
# the beat up building back home for a rundown community center, the tiny bird zipping around for a
# hummingbird, outdoorsy stuff to try after the climbing for kayaking and bungee jumping, the
# weather they cant stand for snow, the tune i jam to on the keys for the Philosopher's Stone theme
# on the piano, hitting the waves for surfing, the first paid coding job for a website for a local
# small business, his phone game for a 2D adventure game with puzzles, his other half for Jill, his
# lil brothers n sisters for his younger siblings, the cheesy line for "are you gouda", the dumb
# trip just for some food for France and authentic French bread, cat chow brands for science diet
# and royal canin, the cash i found lying outside his door for 50 bucks, critters for beetles and
# crickets, how i came up w my soup for a Gordon Ramsay video and Barbara's online recipe, the lil
# trash bandits for raccoons, the space colony thing for the Jupiter colonization plan, 凑一块儿念
# 瑜伽老经书的活动 for 瑜伽经典阅读汇, 一边爬山看景一边下棋交朋友的活动 for 棋游名山交谊行, 一边
# 胡吃海喝一边下水比赛的节 for 美食游泳趣味节, 下了班爱捣鼓点啥 for 喜欢编程), the player's own
# facts in the chats asked in other words (the job fair motto, the old dog's years, the run's cause,
# the community center, the hummingbird, the dogs and snow, the piano theme, the Universal Studios
# trip, the pickup line, the soup's origin, the cash, the bugs, the trash bin, the diner, the
# uranium), planted in words the question does not use (what debt i got rid of for paying
# off student loans, what am i learning so i dont drown on our big trip for swim lessons at the
# Y, 俺家新添的那个小丫头平时咋称呼她 for 媳妇生了个闺女小名叫糖糖). Every expected id was
# checked against its line and the whole conversation searched for other lines holding the answer
# (e.g. conv-41's run also D29:6 (veterans again), conv-44's hummingbird also D4:2 (Andrew names
# it), the kayaking and bungee jumping also D8:8 (Audrey repeats them), conv-43's Universal Studios
# also D10:10 (John names it), conv-47's Jill D17:24 and D17:25, the siblings' game D21:8 and D21:9
# (James repeats it), Chat_5's fruit loops D19:26 and D19:27, Chat_6's bugs D20:23 and D20:40, the
# soup's origin D7:47 and D24:46 (two answers the chat gives), u40's 下属邮箱 D3:4 and D5:8, the
# 研讨会 D2:5 and D5:12, u49's 编程 D2:9, D6:5 and D7:4, the 趣味节 D4:4 and D5:2); left out as
# only half holding it: conv-41's D29:10 (a domestic abuse charity, another cause), conv-43's D8:14
# (a movie theme, no name), conv-47's D21:6 (a game, no kind), D22:12 (basic games and stories,
# later) and D25:10 (James's taste, not John's game), Chat_5's D17:58 (the cheese one, no line),
# Chat_6's D7:46 (the blocking, not the soup) and D23:28 (where, not how much), Chat_9's D16:31 and
# D16:33 (the combination, Korean food, no diner), u44's D5:6 (叔叔家在宁波, not 爸爸). u40's
# 上司邮箱 and 表姐老家 were not asked: their other or only line is in the last 15. Played alone
# with --only "held out 24".
# On 4189b41d (main's recall, before any change it measures; 2026-12-05 15:49-15:52, load 3-4),
# played alone (--only "held out 24"): found 40/40, @5 28/40, @10 31/40; by file: conv-41 4/4, 3/4,
# 3/4; conv-44 4/4, 2/4, 3/4; conv-43 4/4, 2/4, 3/4; Chat_5 4/4, 3/4, 3/4; Chat_6 4/4, 3/4, 3/4;
# Chat_9 4/4, 4/4, 4/4; u40 4/4, 4/4, 4/4; u44 4/4, 3/4, 3/4; u49 4/4, 3/4, 3/4; group conv-47 4/4,
# 1/4, 2/4 (found, @5, @10). No expected id and no turn of any probe was changed after the run.
HELD24 = "held out 24"
HELD24_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-41.json": [
        (HELD24, ["ugh the baby spit up all over my work shirt n the garage door's stuck again "
                  "smh. btw that motto on the poster at the school job fair i helped out at, what "
                  "did it say again?"],
         ["D10:15"]),
        (HELD24, ["still miss max so much man, the kids keep asking about him",
                  "how many yrs was he w us again?"], ["D17:1"]),
        (HELD24, ["how'd u do in that 5k u ran a while back?",
                  "nah i mean the run i put together in our neighborhood, who was the money going "
                  "to?"], ["D29:4", "D29:6"]),
        (HELD24, ["way back i helped fix up some beat up building back home, what was it again?"],
         ["D28:11"]),
    ],
    "locomo/conv-44.json": [
        (HELD24, ["ugh panda ate a sock n pixie threw up on the rug at 2am smh. btw what was that "
                  "tiny bird i watched zipping around on a hike way back?"],
         ["D4:1", "D4:2"]),
        (HELD24, ["u still doing the climbing thing?",
                  "what other outdoorsy stuff did u say u wanted to try after that?"],
         ["D8:7", "D8:8"]),
        (HELD24, ["what games do my dogs go nuts for at the park, fetch right?",
                  "nah i mean the kinda weather they cant stand"], ["D23:12"]),
        (HELD24, ["btw what debt did i get rid of a while back? my mom was asking lol"],
         ["P4"]),
    ],
    "locomo/conv-43.json": [
        (HELD24, ["ugh my roommate microwaved fish in the dorm kitchen n the whole floor reeks "
                  "smh. btw that tune i always jam to on the keys, what movie is it from again?"],
         ["D8:16"]),
        (HELD24, ["u still hitting the waves these days?", "how long have u been at it again?"],
         ["D3:27"]),
        (HELD24, ["how'd u do at that harry potter trivia thing way back?",
                  "nah i mean who'd u go with, one of ur teammates?"], ["D4:8"]),
        (HELD24, ["back when i got turned down for that summer job, where was i planning to go the "
                  "next month?"], ["D10:9", "D10:10"]),
    ],
    "group:locomo/conv-47.json": [
        (HELD24, ["ugh my landlord finally fixed the sink but now the dishwasher leaks lol. Rook, "
                  "what was the first paid coding job John ever landed?"],
         ["D8:4"]),
        (HELD24, ["John made his own phone game a while back right Rook?",
                  "what kinda game was it again?"], ["D25:9"]),
        (HELD24, ["Rook, does John have a dog yet?",
                  "nah wait, whats his other half's name, the one i brought a lil gift back for?"],
         ["D17:24", "D17:25"]),
        (HELD24, ["Rook, way back John was teaching his lil brothers n sisters to code, what were "
                  "they building?"], ["D21:8", "D21:9"]),
    ],
    "realtalk-dev/Chat_5_Nicolas_Nebraas.json": [
        (HELD24, ["ugh julio left his laundry in the washer for 3 days n now it smells like a "
                  "swamp smh. btw that cheesy line i hit my crush w, how did it go again lol"],
         ["D17:55"]),
        (HELD24, ["julio's loaded right, remember that dumb trip he took just for some food?",
                  "where'd he fly to again lol"], ["D21:103"]),
        (HELD24, ["what were u painting at the pottery place, a plate?",
                  "nah wait, what cereal do u always get"], ["D19:26", "D19:27"]),
        (HELD24, ["a while back what cat chow brands did u tell me to grab for that stray?"],
         ["D21:42"]),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        (HELD24, ["ugh my roommate used my good pan n left it crusty in the sink smh. btw how much "
                  "was that cash i found lying outside his door a while back lol"],
         ["D23:25"]),
        (HELD24, ["lol remember my big revenge plan on that guy who got in the way w my crush?",
                  "what critters did i end up buying for it?"], ["D20:23", "D20:40"]),
        (HELD24, ["whats ur fav onigiri, the sour plum one?",
                  "nah thats mine lol, which ones do u always grab"], ["D17:54"]),
        (HELD24, ["way back how'd i even come up w my famous tomato soup in the first place?"],
         ["D7:47", "D24:46"]),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        (HELD24, ["bro my truck battery died at work n i had to flag down a stranger for a jump "
                  "smh. btw what was i gonna buy so the lil trash bandits quit wrecking my "
                  "garbage?"],
         ["D13:49"]),
        (HELD24, ["that diner we stopped at after the freezing mountain hike",
                  "what was weird about the menu again?"], ["D16:30"]),
        (HELD24, ["how much uranium did i need for the time machine again lol",
                  "nah i mean the space colony thing, how much for that one"], ["D12:5"]),
        (HELD24, ["what am i learning so i dont drown on our big trip lol"], ["P9"]),
    ],
    "memdaily-zh-dev/memdaily-u40.json": [
        (HELD24, ["我下属你还记得吧，爱听音乐会那个", "他在哪个城市上班来着？"], ["D3:3"]),
        (HELD24, ["我表姐邮箱是啥来着？", "不是，我问的是我下属的"], ["D3:4", "D5:8"]),
        (HELD24, ["今天在机房调了一下午板子，手都麻了。"
                  "话说那个凑一块儿念瑜伽老经书的活动，"
                  "在哪儿搞来着？"], ["D2:7"]),
        (HELD24, ["之前跟你提过的那个硬件创新研讨会，"
                  "是在哪个城市来着？"], ["D2:5", "D5:12"]),
    ],
    "memdaily-zh-dev/memdaily-u44.json": [
        (HELD24, ["我同事不是叫郭语涵嘛", "那人邮箱是啥来着？"], ["D4:3"]),
        (HELD24, ["我叔叔啥学历来着？", "不是，我问的是我爸"], ["D4:7"]),
        (HELD24, ["今天赶一份说明书译稿赶到凌晨，眼睛都快瞎了。"
                  "话说那个一边爬山看景一边下棋交朋友的活动，"
                  "啥时候出发来着？"], ["D1:6"]),
        (HELD24, ["之前好像提过，俺爸老家是哪儿的来着？"], ["D5:7"]),
    ],
    "memdaily-zh-dev/memdaily-u49.json": [
        (HELD24, ["我那个下属不是福建厦门人嘛", "他平时下了班爱捣鼓点啥？"],
         ["D2:9", "D6:5", "D7:4"]),
        (HELD24, ["我表妹生日几号来着？", "不是，我问的是我舅舅"], ["D6:7"]),
        (HELD24, ["今天小卖部门口下水道堵了，臭了一下午，烦死了。"
                  "话说那个一边胡吃海喝一边下水比赛的节，"
                  "是哪天几点来着？"], ["D4:4", "D5:2"]),
        (HELD24, ["俺家新添的那个小丫头，平时咋称呼她来着？"], ["P5"]),
    ],
}
HELD24_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-44.json": [
        ("P4", 9, "Oh and I finally paid off my student loans last week, first thing I did was buy "
                  "the pups a giant bag of fancy treats."),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        ("P9", 10, "signed up for swim lessons at the Y every sunday morning cause the wife wants "
                   "to hit the beaches in japan n i sink like a rock lmao"),
    ],
    "memdaily-zh-dev/memdaily-u49.json": [
        ("P5", 3, "我媳妇上个月给我生了个闺女，小名叫糖糖。"),
    ],
}
held_out_add(HELD24_PROBES, HELD24_PLANTED)


# A twenty-fifth held-out set (2026-12-05): written before any change it measures, by a writer who
# did not read the app's recall, on LoCoMo conv-26, conv-42 and conv-30, conv-44 played as a group
# (a question to Rook about what Andrew said), REALTALK Chat_7, Chat_8 and Chat_10, MemDaily u41,
# u47 and u46; facts no earlier set asked. Follow-ups leaning on the line before ("where had i just
# been when i painted it?", "who's the main character in it again?", "what was i gonna do w the
# advice i got again?", "why hasn't he done it yet?", "which consoles were u still missing again?",
# "where was i gonna go use one again?", "whats the part i said i always sucked at again?", 他在哪个
# 城市上班来着？ (twice), 她手机号多少来着？), corrections that turn the question to another fact or
# person (nah i mean the pup…, nah i mean the deals n discounts…, nah wait, where'd he get him
# from?, nah i mean u, whats the one thing u had the hardest time giving up, nah i mean that old ps2
# game…, nah i mean the one u said never drags…, 不是，我问的是我同事 / 我叔叔的 (twice)), vague
# times (way back, a while back, 上回), a question at the end of a chatty message (btw, 话说), typos
# and slang (u, ur, w, n, r, ppl, bdays, wks, lol, smh, bro, lil, whats / doesnt / hows without
# apostrophe), colloquial Chinese (来着, 啥, 俺, 嘛, 礼拜三, 差点意思), a category or a paraphrase
# the chat never uses (how long since i started transitioning for three years ago, the big bird on
# the mural for the eagle, what i always bake for bdays for the chocolate cake with raspberries for
# birthdays and special days, the side thing for the downtime between comps for gaming content for
# YouTube, where he got the pup for adopted, the spot w all the sunlight's part of town for
# downtown, the deals n discounts for the offers and promotions, that startup book for The Lean
# Startup, how often he bails on the city for escaping the city at least once a weekend, what ppl
# should think about before picking out a pup for the living space and the breed's exercise needs,
# what the comp would help me get over for the fear of crowds and people, the one thing u had the
# hardest time giving up for the chocolate mousse cake, the weird show my friends flew out to see
# for the dinosaur wrestling match, the thing in the sky i gotta see before i die for the northern
# lights, landing the monster ones for fresh bait to catch huge fish, the part i always sucked at
# for sight reading, the one that never drags for no pacing issues, so the ride to work doesnt feel
# like wasted time for a book or a podcast on the bus or train, 厨师长们上台讲心得、要把青岛吃食文化
# 传下去的会 for 美食创新会, 边吃边动的狂欢节 for 美食运动狂欢节, 一年一回、表彰业绩好的团队的销售大
# 聚会 for 销售年度盛典, 嫌它哪块儿差点意思 for 商业设施有点少, 一帮销售凑一块儿晒成功案例的研讨会
# for 销售创新研讨会), the player's own facts in the chats asked in other words (the transition, the
# art show painting, the mural, the birthday cake, the second script, the studio's spot, the
# networking advice, the startup book, the bodybuilding fear, the friends' NYE trip, the northern
# lights, the gift cards, the fishing trick, the piano's weak spot, the commute, the 小区), planted
# in words the question does not use (who's crashing at my place for a few weeks for a cousin flying
# in from Stockholm to stay three weeks, where my lil sis is headed for doctor school for med school
# in Dublin, 俺礼拜三晚上出去是教人啥 for 每周三晚上去老年大学教写毛笔字). Every expected id was
# checked against its line and the whole conversation searched for other lines holding the answer
# (e.g. conv-42's cake also D21:15 (for birthdays) and D26:22 (Nate names it), the gaming videos
# D28:14 and D28:16, conv-44's advice also D5:4 (Audrey repeats it), Chat_7's dinosaur wrestling
# D5:65 and the mousse cake D12:22 (Vanessa names it back), Chat_8's northern lights D22:69,
# Chat_10's demon slayer D11:13, u41's 下属在青岛 D5:4 and D6:8, 同事高中 D4:3 and D6:2, u47's
# 八千人 D1:4 and D7:8, u46's 表哥在杭州 D3:6 and D4:4); left out as only half holding it: conv-42's
# D21:11 (a tart, her favourite treat, not the birthday cake), D4:14 (the main character's troubles,
# not who) and D28:15 (making "them", no videos named), conv-30's D8:4 (the offers launched, no
# result), Chat_7's D6:61 (the fear, no crowds), D6:81 (the psp only), D6:71 (a gameboy only), D5:68
# (the girlfriend's friend going) and D5:71 (she has heard of it), Chat_8's D3:18 and D3:19 (gift
# cards, no shop), D12:50 (holds up, no title) and D20:27 / D20:28 (why bait works, not the trick),
# Chat_10's D11:17 (Fahim's own list) and D1:44 (no what), u41's D6:1 (the 同事 in 青岛, not the
# 下属), u47's D7:1 (the 小区's name, no flaw). Played alone with --only "held out 25".
# On 2fe7dd30 (main's recall, before any change it measures; 2026-12-05 16:56-16:58, load 2),
# played alone (--only "held out 25"): found 39/40, @5 25/40, @10 30/40; by file: conv-26 4/4, 4/4,
# 4/4; conv-42 4/4, 0/4, 0/4; conv-30 4/4, 3/4, 4/4; Chat_7 4/4, 1/4, 2/4; Chat_8 4/4, 2/4, 3/4;
# Chat_10 3/4, 1/4, 2/4; u41 4/4, 4/4, 4/4; u47 4/4, 4/4, 4/4; u46 4/4, 3/4, 4/4; group conv-44
# 4/4, 3/4, 3/4 (found, @5, @10). No expected id and no turn of any probe was changed after the run.
HELD25 = "held out 25"
HELD25_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-26.json": [
        (HELD25, ["ugh my landlord's been 'fixing' the hallway light for 3 wks n now it just "
                  "flickers all night smh. btw that talk i gave at the school way back, how long "
                  "did i say it'd been since i started transitioning?"],
         ["D3:1"]),
        (HELD25, ["remember the painting i showed u for my lgbtq art show way back?",
                  "where had i just been when i painted it?"], ["D9:16"]),
        (HELD25, ["that mural i showed u w the big bird on it, what did i say the bird stands "
                  "for?"], ["D14:15"]),
        (HELD25, ["wait who's gonna be crashing at my place for a few weeks again? i need to clear "
                  "out the spare room lol"], ["P6"]),
    ],
    "locomo/conv-42.json": [
        (HELD25, ["ugh my neighbor's car alarm went off like 6 times last night n i got zero sleep "
                  "smh. btw what's that thing i always bake for bdays? my nephew's party is "
                  "saturday"],
         ["D21:13", "D21:15", "D26:22"]),
        (HELD25, ["remember that second script i started while i was still waiting to hear back "
                  "on my first one?", "who's the main character in it again?"], ["D4:12"]),
        (HELD25, ["how many turtles u got now, 3?",
                  "nah i mean the pup, max, did u get him from a breeder or what?"], ["D12:5"]),
        (HELD25, ["what did u start doing for the downtime between ur big comps again?"],
         ["D28:13", "D28:14", "D28:16"]),
    ],
    "locomo/conv-30.json": [
        (HELD25, ["ugh one of my students' moms called me at 11pm about recital tickets smh. btw "
                  "that spot w all the sunlight i found for the studio way back, what part of "
                  "town was it in?"],
         ["D2:6"]),
        (HELD25, ["remember that networking night where i met a bunch of investors?",
                  "what was i gonna do w the advice i got again?"], ["D18:10"]),
        (HELD25, ["did u ever end up doing those blogger collabs?",
                  "nah i mean the deals n discounts u put on the shop, did they actually pay off?"],
         ["D8:10"]),
        (HELD25, ["that startup book i was reading a while back, what did it get me thinking about "
                  "for the studio?"], ["D12:8"]),
    ],
    "group:locomo/conv-44.json": [
        (HELD25, ["ugh my upstairs neighbor's washing machine sounds like a jet taking off lol. "
                  "Rook, once Andrew found that new open spot to hike near him, how often did he "
                  "say he bails on the city?"],
         ["D4:4"]),
        (HELD25, ["Andrew's been dying to take Toby on a hike, right Rook?",
                  "why hasn't he done it yet?"], ["D18:17"]),
        (HELD25, ["Rook, what's the name of Andrew's second pup again?",
                  "nah wait, where'd he get him from?"], ["D24:2"]),
        (HELD25, ["Rook, what did Andrew say ppl should think about before picking out a pup?"],
         ["D5:3", "D5:4"]),
    ],
    "realtalk-dev/Chat_7_Nebraas_Vanessa.json": [
        (HELD25, ["ugh my trainer added burpees to my warmup n i almost threw up lol. btw besides "
                  "the gains, what did i say the bodybuilding comp would help me get over?"],
         ["D6:55"]),
        (HELD25, ["hows ur retro game collection coming along lol",
                  "which consoles were u still missing again?"], ["D6:82"]),
        (HELD25, ["what was the hardest food for me to cut out for the comp lol",
                  "nah i mean u, whats the one thing u had the hardest time giving up"],
         ["D12:20", "D12:22"]),
        (HELD25, ["what was that weird show my friends flew out to see on nye instead of chilling "
                  "w me?"], ["D5:64", "D5:65"]),
    ],
    "realtalk-dev/Chat_8_Akib_Muhhamed.json": [
        (HELD25, ["bro the printer at work jammed 4 times n my boss acted like it was my fault "
                  "smh. btw whats that thing in the sky i said i gotta see before i die?"],
         ["D22:66", "D22:69"]),
        (HELD25, ["i still got a couple of those gift cards from xmas lol",
                  "where was i gonna go use one again?"], ["D3:22"]),
        (HELD25, ["u still grinding guardians of the galaxy?",
                  "nah i mean that old ps2 game u said holds up way better than u expected, which "
                  "one was it"], ["D12:49"]),
        (HELD25, ["whats my trick for landing the monster ones when i go fishing again?"],
         ["D20:26"]),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        (HELD25, ["ugh my landlord shut the heat off for 'maintenance' n my apt is like 50 degrees "
                  "smh. btw where's my lil sis headed for doctor school again? my aunt keeps "
                  "asking lol"],
         ["P8"]),
        (HELD25, ["been practicing piano every night this week lol",
                  "whats the part i said i always sucked at again?"], ["D8:21"]),
        (HELD25, ["what anime r u bingeing now, bleach?",
                  "nah i mean the one u said never drags, like zero slow parts"],
         ["D11:12", "D11:13"]),
        (HELD25, ["what do i do so the ride to work doesnt feel like wasted time?"], ["D1:43"]),
    ],
    "memdaily-zh-dev/memdaily-u41.json": [
        (HELD25, ["我下属不是叫李志宏嘛", "他在哪个城市上班来着？"], ["D5:4", "D6:8"]),
        (HELD25, ["我舅妈念到哪儿了来着？", "不是，我问的是我同事"], ["D4:3", "D6:2"]),
        (HELD25, ["今天后厨冰柜坏了，一柜子海鲜差点全化了，忙活到半夜。"
                  "话说那个厨师长们上台讲心得、要把青岛吃食文化传下去的会，"
                  "哪天开来着？"], ["D2:6"]),
        (HELD25, ["上回说的那个边吃边动的狂欢节，前后要搞多久来着？"], ["D4:15"]),
    ],
    "memdaily-zh-dev/memdaily-u47.json": [
        (HELD25, ["我那个下属不是爱看书嘛", "她手机号多少来着？"], ["D4:3"]),
        (HELD25, ["我舅妈电话多少来着？", "不是，我问的是我叔叔的"], ["D4:6"]),
        (HELD25, ["今天值完夜班又被拉去开会，困得眼皮直打架。"
                  "话说那个一年一回、表彰业绩好的团队的销售大聚会，"
                  "得来多少人来着？"], ["D1:4", "D7:8"]),
        (HELD25, ["俺住那小区，我嫌它哪块儿差点意思来着？"], ["D7:2"]),
    ],
    "memdaily-zh-dev/memdaily-u46.json": [
        (HELD25, ["我表哥不是爱攀岩嘛", "他在哪个城市上班来着？"], ["D3:6", "D4:4"]),
        (HELD25, ["我表哥邮箱是啥来着？", "不是，我问的是我叔叔的"], ["D6:1"]),
        (HELD25, ["今天药房到了一车货，搬了一下午箱子，胳膊都酸了。"
                  "话说那个一帮销售凑一块儿晒成功案例的研讨会，"
                  "得来多少人来着？"], ["D1:5"]),
        (HELD25, ["俺礼拜三晚上出去是教人啥来着？"], ["P6"]),
    ],
}
HELD25_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-26.json": [
        ("P6", 7, "Oh and my cousin Leila is flying in from Stockholm next month to stay with me "
                  "for three weeks, so my couch is officially taken lol."),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        ("P8", 7, "my lil sis just got into med school in dublin!! shes leaving in august n my mom "
                  "is already crying lol"),
    ],
    "memdaily-zh-dev/memdaily-u46.json": [
        ("P6", 6, "我每周三晚上去社区老年大学教大爷大妈写毛笔字，他们比我还认真。"),
    ],
}
held_out_add(HELD25_PROBES, HELD25_PLANTED)


# A twenty-sixth held-out set (2026-12-05): written before any change it measures, by a writer who
# did not read the app's recall, on LoCoMo conv-41, conv-43 and conv-47, conv-26 played as a group
# (a question to Rook about what Melanie said), REALTALK Chat_5, Chat_6 and Chat_9, MemDaily u42,
# u45 and u48; facts no earlier set asked. Follow-ups leaning on the line before ("which poses did u
# say were ur fav", "which mountains were those again?", "who was the money going to that time?",
# "what was she going for w all that blue?", "oh wait u dont do bk right, what happened there
# again?", "how much water did u say u try to drink a day?", "what kind were u learning again, like
# oils or what", 他邮箱多少来着？ / 她邮箱多少来着？, 她电话多少来着？, 那会在哪个城市开来着？),
# corrections that turn the question to another fact or person (nah i mean that picnic w them…, nah
# i mean the one i kept pushing on u…, nah i mean me, which one do i always go for, nah wait, what
# did she say flowers mean to her?, nah i mean them hot dogs…, nah i mean u, til what grade…, nah
# thats urs lol, whats mine, 不是，我问的是我舅舅的 / 她老家是哪儿的 / 他在单位里是个啥职位), vague
# times (way back, a while back, that time, that one time, 上回), a question at the end of a chatty
# message (btw, 话说), typos and slang (u, ur, w, n, r, lil, bk, lol, smh, bro, tryna, whats / dont
# / thats without apostrophe), colloquial Chinese (来着, 啥, 俺, 嘛, 那口子, 捣鼓, 门道), a category
# or a paraphrase the chat never uses (what i used to snap pics with for the film camera, what my
# crew pulled off on our very first emergency call for saving a family from a burning building,
# where i found the gig writing for the online mag for a fantasy lit forum, the snowy mountain pic
# for the Rocky Mountains, what gave u the most trouble when u first joined the wolves for fitting
# into the team's style of play, the crazy dream that gave me game ideas for the castle labyrinth
# with puzzles and traps, the pizza i always go for for pepperoni, why Mel pushes her runs longer
# for de-stressing, the critter Mel painted for a horse, what landed me in the hospital for a driver
# swerving into me, what happened w bk for food poisoning, them hot dogs at the bulk store food
# court for the 1.50 Costco hot dog, how long i lasted going vegan for 3 hours, what i lift since i
# never go to the gym for chairs and shelves, the science class u liked for anatomy,
# 去探写字门道的旅行 for 书法艺术探秘之旅, 那个五百人的盛宴 for 书法阅美盛宴, 边写程序边找点子的出游
# for 编程创意之旅, 琢磨怎么出新货的研讨会 for 创新产品研讨会, 下了班爱干点啥 for 爱好运动), the
# player's own facts in the chats asked in other words (the film camera, the first call-out, the
# writing gig, the Rothfuss book, the dream, the pizza, the hospital, the hot dogs, the vegan try,
# the benching, the funeral count, the breakfast), planted in words the question does not use (what
# my sister does for work now for a sister just started as a park ranger up in Maine, who in my fam
# runs that food truck for a cousin Marco who opened a taco truck, 俺家那口子最近在家捣鼓啥 for
# 我爱人报了 个烘焙班、天天在家烤面包蛋糕). Every expected id was checked against its line and the
# whole conversation searched for other lines holding the answer (e.g. conv-43's book also D28:17
# and D28:18 (John names it back), conv-47's dream also D24:9 (John repeats the castle, puzzles and
# traps), the children's hospital D29:1, D29:2 and D29:3, conv-26's running D7:20 and D7:22, the
# horse painting D13:8, D13:9 and D13:10, Chat_5's hot dog price also D17:3 (Nebraas repeats it),
# u48's 表弟爱运动 D3:3 and D6:6); left out as only half holding it: conv-41's D26:4 (the first
# call-out, not what was done), conv-43's D5:15 and D11:24 (Rothfuss, no title) and D20:36 (camping
# in the mountains, no name), conv-47's D24:6 (a dream, no content), D24:11 (the castle only), D9:16
# (pizza, no kind) and D9:20 (other pizzas he also likes), conv-26's D17:14 (the abstract, no
# feeling) and D13:6 (feeding a horse, not the painting), Chat_5's D20:5 and D20:6 (in hospital, no
# why), D20:42 and D20:44 (no Burger King in years, no craving) and D17:1 (a Costco hot dog, no
# price), Chat_6's D17:62 and D17:66 (the vegan week, the chicken), D15:35 (Nicolas's own school
# years) and D16:17 (benching, not where), Chat_9's D11:36, D11:38 and D19:62 (painting, not
# watercolor), D1:16 (Fahim's own breakfast) and D10:40 (chemistry not the favourite), u42's D3:5
# (书法阅美盛宴 九个周, another event), u45's D3:4 (舅妈老家, another aunt). Played alone with
# --only "held out 26".
# On 9df2381c (main's recall, before any change it measures; 2026-12-05 17:54-17:56, load 2),
# played alone (--only "held out 26"): found 39/40, @5 30/40, @10 36/40; by file: conv-41 4/4, 4/4,
# 4/4; conv-43 4/4, 3/4, 3/4; conv-47 4/4, 3/4, 4/4; Chat_5 3/4, 2/4, 2/4; Chat_6 4/4, 4/4, 4/4;
# Chat_9 4/4, 2/4, 4/4; u42 4/4, 2/4, 4/4; u45 4/4, 3/4, 3/4; u48 4/4, 3/4, 4/4; group conv-26 4/4,
# 4/4, 4/4 (found, @5, @10). No expected id and no turn of any probe was changed after the run.
HELD26 = "held out 26"
HELD26_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-41.json": [
        (HELD26, ["ugh the garage flooded in the storm n i spent half the night bailing water lol. "
                  "btw what did i used to snap pics with when i was a lil kid? sara wants one now"],
         ["D3:15"]),
        (HELD26, ["u still doing the aerial yoga thing?", "which poses did u say were ur fav"],
         ["D18:17"]),
        (HELD26, ["u take any pics on that camping trip w the church crew?",
                  "nah i mean that picnic w them, what games did u guys end up playing"],
         ["D24:8"]),
        (HELD26, ["what did my crew pull off on our very first emergency call w the brigade?"],
         ["D26:6"]),
    ],
    "locomo/conv-43.json": [
        (HELD26, ["ugh my roommate used all the hot water n i had to take an ice cold shower "
                  "before my 8am lol. btw where'd i even find that gig writing for the online "
                  "mag?"],
         ["D4:3"]),
        (HELD26, ["that snowy mountain pic u sent me a while back was unreal",
                  "which mountains were those again?"], ["D20:40"]),
        (HELD26, ["u still reading that dune book?",
                  "nah i mean the one i kept pushing on u, the rothfuss one, whats it called "
                  "again"],
         ["D6:8", "D28:17", "D28:18"]),
        (HELD26, ["what gave u the most trouble when u first joined the wolves?"], ["D1:11"]),
    ],
    "locomo/conv-47.json": [
        (HELD26, ["ugh ned chewed thru the tv remote n daisy ate the batteries, vet visit #2 this "
                  "month smh. btw that crazy dream i had a while back that gave me game ideas, "
                  "what was in it again?"],
         ["D24:8", "D24:9"]),
        (HELD26, ["u threw another gaming tourney w ur buddies a while back right, the fortnite "
                  "one?",
                  "who was the money going to that time?"], ["D29:1", "D29:2", "D29:3"]),
        (HELD26, ["ur fav pizza's hawaiian right?", "nah i mean me, which one do i always go for"],
         ["D9:18"]),
        (HELD26, ["sam asked what my sister does for work now n i totally spaced lol, what was it "
                  "again?"], ["P6"]),
    ],
    "group:locomo/conv-26.json": [
        (HELD26, ["ugh the neighbors' kid practiced drums all afternoon n now i have a migraine "
                  "lol. Rook, why did Mel say she's been pushing her runs longer lately?"],
         ["D7:20", "D7:22"]),
        (HELD26, ["Mel showed us some abstract painting she did a while back right Rook?",
                  "what was she going for w all that blue?"], ["D17:16"]),
        (HELD26, ["Rook, what did Mel's kids make at that pottery workshop?",
                  "nah wait, what did she say flowers mean to her?"], ["D8:12"]),
        (HELD26, ["Rook, what critter did Mel do a painting of a while back?"],
         ["D13:8", "D13:9", "D13:10"]),
    ],
    "realtalk-dev/Chat_5_Nicolas_Nebraas.json": [
        (HELD26, ["ugh julio used my towel AGAIN n my nose started bleeding in the shower smh. btw "
                  "what landed me in the hospital that one time lol, my coworker's asking"],
         ["D20:7"]),
        (HELD26, ["just grabbed some burger king lol want some",
                  "oh wait u dont do bk right, what happened there again?"], ["D20:45"]),
        (HELD26, ["whats my fav cereal again lol",
                  "nah i mean them hot dogs at the bulk store food court i'm always hyping, how "
                  "cheap r they again"],
         ["D17:2", "D17:3"]),
        (HELD26, ["who in my fam runs that food truck again? tryna send my coworker there lol"],
         ["P6"]),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        (HELD26, ["ugh my roommate left the fridge open all night n my jello salad got all warm "
                  "smh. btw how long did i even last the last time i tried going vegan lol"],
         ["D17:64"]),
        (HELD26, ["u still on ur healthy kick?", "how much water did u say u try to drink a day?"],
         ["D16:26"]),
        (HELD26, ["was i one of the popular kids back in school?",
                  "nah i mean u, til what grade were u one of the popular ones"], ["D15:34"]),
        (HELD26, ["what do i even lift since i never go to the gym lol"], ["D16:19"]),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        (HELD26, ["bro the snow plow buried my truck in the driveway n i was late to work smh. btw "
                  "how many friends did i say would def show up to my funeral lol"],
         ["D11:18"]),
        (HELD26, ["u still doing the painting thing?",
                  "what kind were u learning again, like oils or what"], ["D11:37"]),
        (HELD26, ["whats ur usual breakfast, the egg sandwich?", "nah thats urs lol, whats mine"],
         ["D1:12"]),
        (HELD26, ["which science class did u say u actually liked back when u took those courses?"],
         ["D10:41"]),
    ],
    "memdaily-zh-dev/memdaily-u42.json": [
        (HELD26, ["我同事不是叫李晓婷嘛", "她邮箱多少来着？"], ["D2:2"]),
        (HELD26, ["我表妹邮箱是啥来着？", "不是，我问的是我舅舅的"], ["D6:1"]),
        (HELD26, ["今天给大棚里的西红柿搭架子，搭了一整天，手上全是口子。"
                  "话说那个去探写字门道的旅行，"
                  "要搞多久来着？"], ["D3:9"]),
        (HELD26, ["上回说俺要去的那个五百人的盛宴，主要是去干啥的来着？"], ["D7:4"]),
    ],
    "memdaily-zh-dev/memdaily-u45.json": [
        (HELD26, ["我舅妈不是在青岛那家快递公司上班嘛", "她电话多少来着？"], ["D7:8"]),
        (HELD26, ["我婶婶在哪个城市上班来着？", "不是，我问的是她老家是哪儿的"], ["D5:1"]),
        (HELD26, ["今天网点来了个大客户，光签字就签了半个钟头，手都酸了。"
                  "话说那个边写程序边找点子的出游，不是逛街那个，"
                  "得去多少人来着？"], ["D1:7"]),
        (HELD26, ["俺家那口子最近在家捣鼓啥来着？"], ["P6"]),
    ],
    "memdaily-zh-dev/memdaily-u48.json": [
        (HELD26, ["我下礼拜是不是要去开那个翻译方面的研讨会来着", "那会在哪个城市开来着？"],
         ["D1:2"]),
        (HELD26, ["我同事啥学历来着？", "不是，我问的是他在单位里是个啥职位"], ["D4:10"]),
        (HELD26, ["今天一早揉面揉到胳膊抽筋，烤箱还罢工了。"
                  "话说那个琢磨怎么出新货的研讨会，"
                  "得来多少人来着？"], ["D1:5"]),
        (HELD26, ["俺表弟下了班爱干点啥来着？"], ["D3:3", "D6:6"]),
    ],
}
HELD26_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-47.json": [
        ("P6", 7, "My sister just started as a park ranger up in Maine, she keeps sending me moose "
                  "pics at 6am lol."),
    ],
    "realtalk-dev/Chat_5_Nicolas_Nebraas.json": [
        ("P6", 4, "my cousin marco just opened a taco truck by the train station, i get free "
                  "birria every friday lol"),
    ],
    "memdaily-zh-dev/memdaily-u45.json": [
        ("P6", 3, "我爱人去年报了个烘焙班，现在天天在家烤面包蛋糕。"),
    ],
}
held_out_add(HELD26_PROBES, HELD26_PLANTED)


# A twenty-seventh held-out set (2026-12-05): written before any change it measures, by a writer who
# did not read the app's recall, on LoCoMo conv-42, conv-30 and conv-44, conv-47 played as a group
# (a question to Rook about what John said), REALTALK Chat_7, Chat_8 and Chat_10, MemDaily u40, u43
# and u49; facts no earlier set asked. Follow-ups leaning on the line before ("how long ago did i
# first see it again?", "what was it sitting right next to again?", "where does panda always go to
# crash again?", "why'd he say he picked it up in the first place?", "why'd i pick her out of all
# the cats at that rescue lady's place again?", "wait what happened that time i tried returning
# those plates i didnt like?", "wheres the point i always get stuck at again?", 他平时爱捣鼓点啥来着？,
# 他邮箱多少来着？ (twice)), corrections that turn the question to another fact or person (nah i mean me,
# whats my number one dairy-free dessert?, nah i mean me, who'd i take lessons with…, nah i mean me,
# what did i set up out back…, nah wait, what part did he say was the biggest pain…, whats my usual
# order again, nah i mean me, what kinda diet…, nah i mean me, what weather do i love most?,
# 不是，我问的是我上司 (twice)), vague times (way back, a while back, that time, right at the very start, 上回),
# a question at the end of a chatty message (btw, 话说), typos and slang (u, ur, w, n, r, lil, lol,
# smh, bro, whats / im / dont / didnt / wheres without apostrophe), colloquial Chinese (来着, 啥, 俺, 嘛,
# 捣鼓, 老丈人), a category or a paraphrase the chat never uses (what the stranger who read my blog post
# said my story did for them for brought them comfort, that old love story about memories for the
# romantic drama about memory and relationships, how long ago for around 3 years ago, my number one
# dairy-free dessert for my favorite dairy-free treat, that dusty old book in the library on my
# research road trip for the book from the 1900s in Woodhaven, what i was so freaked out about
# before i got over it for scared to death of what people would think, the dream studio pic for my
# ideal dance studio, sitting right next to for by the water, who'd i take lessons with for with my
# friends, did anybody notice when i put my routines up for creating a bit of a stir, what i'd do
# different next time for one by one, where panda goes to crash for relax on his rug, what i set up
# out back for a doggy play area in the backyard, John's brothers n sisters for his siblings, what
# they threw for him for a gaming marathon, the biggest pain on the site for getting payments, the
# saying about why he takes breaks for only those who rest well work well, why i ended up w latte
# for someone at my job couldn't take care of her, why i picked Soufflé for the only cat that had to
# be caged up, my usual boba order for black tea with brown sugar syrup or creme brulee, how i
# messed up my ear for going too hard with the ear cleaning pick, what happened when i returned the
# plates for credited on a gift card, the new spot by my house for the shawarma place, what i had to
# read for the traffic in the city building game for a traffic management textbook, where i get
# stuck in the castle game for year 500, the weather i love most for misty, a gentle rain, the
# writer i wanna write like for emulating Cormac McCarthy, 爱捣鼓点啥 for 爱好美食和烹饪, 那个八千人的硬件论坛主要是去干啥的 for
# 论坛的主要内容, 跑去异国练瑜伽的旅行 for 异域瑜伽之旅, 那个乘务管理的交流会 for 航空服务创新与乘务管理交流会, 集邮的人凑一块儿聊邮票背后故事的读书会 for 邮票故事阅读会,
# 瓦工师傅们凑一块儿切磋手艺的盛宴 for 建筑技艺交流盛宴, 招瓦工的会 for 瓦工精英招聘会), the player's own facts in the chats asked in
# other words (the blog letter, the favourite film, the favourite dessert, the Woodhaven book, the
# old fear, the dream studio, the childhood lessons, the dance videos, the vet trip, the dogs'
# spots, the backyard, Latte, Soufflé, the boba, the ear, the plates, the diet, the shawarma, the
# traffic textbook, the castle game, the weather, the writer, 表弟的爱好, 论坛, 瑜伽之旅, 交流会规模, 下属邮箱 (twice),
# 上司生日, 阅读会, 盛宴地点, 上司上班的城市, 招聘会规模), planted in words the question does not use (where my lil bro
# spends his saturdays for a brother volunteering at the animal shelter on weekends, what my cousin
# is in school for for a cousin who just started vet tech school, 俺老丈人退休前在哪个单位 for 老丈人从铁路局退休). Every
# expected id was checked against its line and the whole conversation searched for other lines
# holding the answer (e.g. conv-30's videos also D14:6 (Gina echoes them doing well online),
# conv-47's chess D17:1 and D17:7, Chat_8's ear D12:28 and D12:29, the plates D22:38 and D22:39,
# u40's 论坛内容 D2:3 and D5:13, u49's 上司在杭州 D3:8 only); left out as only half holding it: conv-42's
# D21:13 and D21:15 (the raspberry cake, a favourite for birthdays, not the treat she likes best),
# D17:4 (Woodhaven, no book) and D1:16 (the film, no when), conv-30's D1:6 and D11:5 (dancing since
# a kid, no with whom) and D9:8 (Gina's own classes), conv-44's D9:1 (the bigger backyard, nothing
# set up) and D13:1, D22:9 and D22:10 (Andrew's and Audrey's own shelter lines, not the brother),
# conv-47's D17:9 (what chess may do, not why he began), D8:4 (the website, no trouble) and D20:15 /
# D20:17 (game nights with his siblings now, not the marathon), Chat_7's D23:42 and D23:43 (where
# Soufflé came from, not why her), D17:76 (sweet or milky teas, no order) and D19:4 (Latte's name
# only), Chat_8's D12:19 to D12:23 (the ear's symptoms, no cause), D22:36 (plates returned, no
# outcome) and the planted P3 (a cousin's food truck, not the new place), Chat_10's D15:17
# (McCarthy's books, not wanting to write like him), D13:26 (never surviving, no year) and D1:29 (a
# run in the rain, not the favourite weather), u43's D1:5 and D5:13 (the 盛典, another event), u49's
# D5:6 (招聘会 in 杭州, another event). Played alone with --only "held out 27".
# On 0d7d7b3d (main's recall, before any change it measures; 2026-12-05 19:33-19:35, load 3-4),
# played alone (--only "held out 27"): found 38/40, @5 28/40, @10 33/40; by file: conv-30 4/4, 2/4,
# 3/4; Chat_8 4/4, 3/4, 4/4; u40 4/4, 3/4, 4/4; u43 4/4, 3/4, 3/4; Chat_10 4/4, 4/4, 4/4; conv-42
# 4/4, 4/4, 4/4; Chat_7 3/4, 2/4, 2/4; u49 4/4, 3/4, 3/4; conv-44 4/4, 3/4, 4/4; group conv-47 3/4,
# 1/4, 2/4 (found, @5, @10). No expected id and no turn of any probe was changed after the run.
HELD27 = "held out 27"
HELD27_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-42.json": [
        (HELD27, ["ugh my upstairs neighbor's dog started barking at like 5am n my coffee maker "
                  "died smh. btw that stranger who reached out after reading my blog post about a "
                  "rough time, what did they say my story did for them?"],
         ["D18:5"]),
        (HELD27, ["remember that old love story about memories i keep telling everyone to watch?",
                  "how long ago did i first see it again?"], ["D1:18"]),
        (HELD27, ["whats ur fav dairy-free dessert, the coconut ice cream right?",
                  "nah i mean me, whats my number one dairy-free dessert?"], ["D21:11"]),
        (HELD27, ["that dusty old book i found in the library on my research road trip way back, "
                  "what was in it again?"], ["D17:6"]),
    ],
    "locomo/conv-30.json": [
        (HELD27, ["ugh one of my students' dads tried to haggle over tuition for like 20 min lol. "
                  "btw what was i always so freaked out about back when i first got into dancing, "
                  "before i got over it?"],
         ["D9:7"]),
        (HELD27, ["remember that pic of my dream studio i showed u right at the very start?",
                  "what was it sitting right next to again?"], ["D1:20"]),
        (HELD27, ["u took dance lessons as a kid right?",
                  "nah i mean me, who'd i take lessons with back when i was younger?"], ["D9:9"]),
        (HELD27, ["a while back when i first started putting my routines up on social media, did "
                  "anybody actually notice?"], ["D14:5", "D14:6"]),
    ],
    "locomo/conv-44.json": [
        (HELD27, ["ugh my landlord's 'quick fix' on the sink flooded half the kitchen lol. btw "
                  "that time i hauled all 4 dogs to the vet at once, what did i say i'd do "
                  "different next time?"],
         ["D15:3"]),
        (HELD27, ["the pups have been lazing around all day lol",
                  "where does panda always go to crash again?"], ["D15:5"]),
        (HELD27, ["did u ever build toby a lil play corner?",
                  "nah i mean me, what did i set up out back for my pups after the move?"],
         ["D9:5"]),
        (HELD27, ["where's my lil bro been spending his saturdays lately? mom won't stop bragging "
                  "about it lol"], ["P5"]),
    ],
    "group:locomo/conv-47.json": [
        (HELD27, ["ugh my neighbor's leaf blower went off at 7am on a sunday smh. Rook, what did "
                  "John say his brothers n sisters threw for him back when he was a kid?"],
         ["D20:13"]),
        (HELD27, ["John's been getting into chess lately right Rook?",
                  "why'd he say he picked it up in the first place?"], ["D17:1", "D17:7"]),
        (HELD27, ["Rook, did John ever finish that site for the local shop?",
                  "nah wait, what part did he say was the biggest pain to figure out?"], ["D8:10"]),
        (HELD27, ["Rook, John's got some saying about why he takes breaks, what was it again?"],
         ["D6:11"]),
    ],
    "realtalk-dev/Chat_7_Nebraas_Vanessa.json": [
        (HELD27, ["ugh 3 surgeries back to back at the clinic n i didnt even get to eat lunch smh. "
                  "btw how did i even end up w latte? my mom keeps asking lol"],
         ["D19:9"]),
        (HELD27, ["souffle's been extra cuddly today lol",
                  "why'd i pick her out of all the cats at that rescue lady's place again?"],
         ["D23:44"]),
        (HELD27, ["u still drinking that mango green tea boba that tastes like medicine lol?",
                  "whats my usual order again, i forget"], ["D17:78"]),
        (HELD27, ["my cousin's been texting me about her classes nonstop lol, what's she in school "
                  "for again?"], ["P5"]),
    ],
    "realtalk-dev/Chat_8_Akib_Muhhamed.json": [
        (HELD27, ["bro the vending machine at work ate my last 5 bucks n my boss just laughed at "
                  "me smh. btw how did i end up messing up my ear that time? its itchy again lol"],
         ["D12:28", "D12:29"]),
        (HELD27, ["found some nice plates on sale today lol",
                  "wait what happened that time i tried returning those plates i didnt like?"],
         ["D22:38", "D22:39"]),
        (HELD27, ["whats ur diet like these days, still doing keto?",
                  "nah i mean me, what kinda diet was i tryna stick to?"], ["D2:52"]),
        (HELD27, ["that new spot that opened up right by my house, what did i get from there "
                  "again?"], ["D13:14"]),
    ],
    "realtalk-dev/Chat_10_Fahim_Muhhamed.json": [
        (HELD27, ["ugh my laptop decided to update right before my shift n i was late clocking in "
                  "smh. btw what did i end up having to read to fix the traffic mess in that city "
                  "building game lol"],
         ["D13:33"]),
        (HELD27, ["been playing that castle game w the vikings n dragons again",
                  "wheres the point i always get stuck at again?"], ["D15:14"]),
        (HELD27, ["whats ur fav kinda weather, snow days?",
                  "nah i mean me, what weather do i love most?"], ["D1:13"]),
        (HELD27, ["which writer did i say i wanna write like?"], ["D15:19"]),
    ],
    "memdaily-zh-dev/memdaily-u40.json": [
        (HELD27, ["我表弟不是叫李志强嘛", "他平时爱捣鼓点啥来着？"], ["D3:6"]),
        (HELD27, ["今天在实验室测了一下午电源板，烧了两颗芯片，心疼死了。"
                  "话说那个八千人的硬件论坛，"
                  "主要是去干啥的来着？"], ["D2:3", "D5:13"]),
        (HELD27, ["上回说的那个跑去异国练瑜伽的旅行，在哪个城市办来着？"], ["D2:6"]),
        (HELD27, ["俺老丈人退休前是在哪个单位干的来着？"], ["P5"]),
    ],
    "memdaily-zh-dev/memdaily-u43.json": [
        (HELD27, ["我下属不是在深圳航空服务公司上班嘛", "他邮箱多少来着？"], ["D3:7"]),
        (HELD27, ["我舅妈生日几号来着？", "不是，我问的是我上司"], ["D5:8"]),
        (HELD27, ["今天连飞了两段夜航，回来眼睛都睁不开了。"
                  "话说那个乘务管理的交流会，"
                  "得来多少人来着？"], ["D1:6"]),
        (HELD27, ["上回说俺要去的那个集邮的人凑一块儿聊邮票背后故事的读书会，前后得搞多久来着？"],
         ["D5:15"]),
    ],
    "memdaily-zh-dev/memdaily-u49.json": [
        (HELD27, ["我下属不是爱捣鼓编程嘛", "他邮箱是啥来着？"], ["D6:4"]),
        (HELD27, ["我表妹在哪个城市上班来着？", "不是，我问的是我上司"], ["D3:8"]),
        (HELD27, ["今天给店里搬了一下午矿泉水，胳膊都抬不起来了。"
                  "话说那个瓦工师傅们凑一块儿切磋手艺的盛宴，"
                  "在哪个城市办来着？"], ["D5:5"]),
        (HELD27, ["俺要去的那个招瓦工的会，得来多少人来着？"], ["D1:3"]),
    ],
}
HELD27_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-44.json": [
        ("P5", 13, "My little brother Kyle just started volunteering at the animal shelter across "
                   "town on weekends, and he's already begging Mom to let him adopt a three-legged "
                   "beagle."),
    ],
    "realtalk-dev/Chat_7_Nebraas_Vanessa.json": [
        ("P5", 9, "my cousin jess just started vet tech school in philly n she keeps sending me "
                  "pics from her anatomy lab lol"),
    ],
    "memdaily-zh-dev/memdaily-u40.json": [
        ("P5", 6, "我老丈人前年从铁路局退休了，现在天天在小区楼下跟人下象棋。"),
    ],
}
held_out_add(HELD27_PROBES, HELD27_PLANTED)


# A twenty-eighth held-out set (2026-12-05): written before any change it measures, by a writer who
# did not read the app's recall, on LoCoMo conv-41, conv-43 and conv-26, conv-30 played as a group
# (a question to Rook about what Gina said), REALTALK Chat_5, Chat_6 and Chat_9, MemDaily u41, u42
# and u47; facts no earlier set asked. Follow-ups leaning on the line before ("what did i say was in
# the worst shape around here after that?", "where were those two hikers going in the one i told u
# about?", "who was the kid i got paired with again?", "what did she compare it to again?", "what
# ended up happening w everybody i invited?", "wait whats the longest i ever kept mine going lol",
# "why cant i even use em anymore again?", 她在哪个城市上班来着？, 他在哪个城市上班来着？, 得来多少人来着？), corrections that
# turn the question to another fact or person (nah i mean me, what did i have back then…, nah i mean
# that actress i'm a massive fan of…, nah i mean mine, the red n blue one…, nah wait, what did she
# show off…, nah i mean me, what did i say about em?, nah i mean me, what kinda pet…, nah i mean me,
# which ones did i say were my favs?, 不是，我问的是青岛那个美食创新会, 不是，我问的是我同事, 不是，我问的是我叔叔的), vague times (way
# back, a while back, that one time, 上回), a question at the end of a chatty message (btw, 话说), typos
# and slang (u, ur, w, n, r, lil, lol, smh, bro, tryna, whats / cant / im without apostrophe),
# colloquial Chinese (来着, 啥, 俺, 嘛, 老爷子, 掺一块儿, 琢磨), a category or a paraphrase the chat never uses
# (that dessert i baked for the kids for an apple pie, what was in the worst shape around here for
# mainly the roadways, what i had as a kid that always cheered me up for a little doll, what
# everybody at the convention was so into for tech for good, the thing i'd grab first if the dorm
# caught fire for my prized possession, where the two hikers were going for trekked through the
# Himalayas, what kinda reading for a transgender poetry reading, the kid i got paired with for a
# transgender teen, what i stumbled on walking around my block for a rainbow sidewalk, what Gina was
# tryna mash together for blending dance and fashion, what she compared dancing to for like air,
# what she showed off from when she competed for a trophy from a dance contest, her go-to to blow
# off steam for dance as stress relief, the happiest things i remember from being a kid for walking
# with my mom around the neighborhood, when i hit the bottle for a confidence boost to talk to the
# ladies, my sad-day dinner straight outta the tin for chef boyardee from a can when im down, what i
# ate after the monster movie for a pizza with pineapple and green onions, how many whole birds for
# 5 whole chickens, 那个四千人的盛宴 for 烹饪技艺提升盛宴, 去运动品牌店里试新鞋新衣裳的活动 for 运动品牌体验购, 把写毛笔字跟读书掺一块儿的盛宴 for 书法阅美盛宴,
# 跑出去琢磨毛笔字奥妙的旅行 for 书法艺术探秘之旅, 七千人的骑车比赛 for 自行车速度挑战, 骑着车到处吃的那个节 for 骑行美食文化节), the player's own facts
# in the chats asked in other words (the apple pie, the roads, the doll, the convention, the signed
# basketball, the Himalayas story, Emma Watson, the poetry reading, the red and blue painting, the
# mentee, the rainbow sidewalk, the childhood walks, the cancelled birthday, the olives, the
# drinking, the Chef Boyardee, the skincare streak, the pet shrimp, the pizza, the old controllers,
# the Harry Potter favourites, the chickens, 盛宴内容, 同事城市, 创新会持续时间, 体验购时间, 阅美盛宴时间, 上司城市, 同事城市, 探秘之旅地点,
# 速度挑战持续时间, 文化节规模, 叔叔邮箱), planted in words the question does not use (what's my cousin's new job for
# a cousin who just started working at the San Diego Zoo, what did my big sis just get hired as for
# a sister hired as a flight attendant, 俺家老爷子天天一早往外跑是去干啥 for 我爸退休以后迷上了钓鱼). Every expected id was
# checked against its line and the whole conversation searched for other lines holding the answer
# (e.g. conv-41's roads also D14:16 (Maria names them back), conv-43's Himalayas D26:9 (John asks
# about the trek), group conv-30's dance and fashion D6:8 and D8:8 and her stress relief D1:7, D8:6
# and D11:6, Chat_5's childhood walks D21:167 and D21:173, Chat_9's controllers D18:12, D18:13 and
# D18:15 and the chickens D14:31 and D14:35, u41's 创新会 D4:13 and D7:4, u42's 阅美盛宴时间 D3:4, D4:4, D7:3
# and D8:4, u47's 速度挑战 D5:4, D6:4 and D7:5); left out as only half holding it: conv-41's D14:13 (the
# power cut, no part named) and D12:13 (the energy in the room, no topic), conv-43's D16:9 (LeBron,
# not the keepsake), D26:10 (the trek, no place) and D26:18 (her advocacy, no name), conv-26's
# D17:17 (a poetry reading, no kind), D16:11 and D16:12 (red and blue, no meaning), D9:2 (the
# program, not who) and D14:21 (togetherness, the sidewalk only in the photo), group conv-30's D6:9
# and D8:7 (Jon on combining, not naming them), D1:17 (first place at fifteen, no trophy shown),
# D2:11 (advice to Jon) and D11:5 / D11:7 (Jon's own stress relief), Chat_5's D21:176 (fresh air,
# not the walks), D7:48 (one unfollow) and D7:5 (the invitations), D17:15 (olive oil) and D17:87
# (alcohol as a superpower, not when), Chat_6's D12:25 (jello salad for cheering up, not the can),
# D13:2 (ravioli as a kid), D14:34 (Vanessa's ten years) and D17:42 / D17:44 (the big ones;
# Vanessa's aquarium), Chat_9's D4:5 (food afterwards, no kind), D18:16 (PC adapters), D3:28 and
# D3:29 (Fahim's own favourites) and D14:36 ($60, no count), u41's D5:4 / D6:8 (下属 in 青岛, another
# person), u42's D6:8 and D2:4 / D6:7 (the unit's name, not the city). Played alone with --only
# "held out 28".
# On 09ef2bed (main's recall, before any change it measures; 2026-12-05 21:07-21:09, load 2-3),
# played alone (--only "held out 28"): found 37/40, @5 29/40, @10 33/40; by file: conv-26 4/4, 3/4,
# 3/4; conv-41 4/4, 4/4, 4/4; Chat_9 4/4, 3/4, 4/4; u47 4/4, 4/4, 4/4; conv-43 3/4, 3/4, 3/4; u41
# 4/4, 3/4, 4/4; Chat_5 3/4, 1/4, 2/4; Chat_6 3/4, 3/4, 3/4; u42 4/4, 3/4, 4/4; group conv-30 4/4,
# 2/4, 2/4 (found, @5, @10). No expected id and no turn of any probe was changed after the run.
HELD28 = "held out 28"
HELD28_PROBES: dict[str, list[tuple[str, list[str], list[str]]]] = {
    "locomo/conv-41.json": [
        (HELD28, ["ugh the neighbor's car alarm went off like 4 times last night n sara's got a "
                  "cold so nobody slept smh. btw what was that dessert i baked for the kids a "
                  "while back?"],
         ["D13:17"]),
        (HELD28, ["remember that blackout on our street a while back?",
                  "what did i say was in the worst shape around here after that?"],
         ["D14:15", "D14:16"]),
        (HELD28, ["what did u have as a kid that made u feel better when u were sad, a teddy?",
                  "nah i mean me, what did i have back then that always cheered me up?"],
         ["D5:13"]),
        (HELD28, ["that convention me n my coworkers went to a while back, what was everybody "
                  "there so into?"], ["D12:9", "D12:11"]),
    ],
    "locomo/conv-43.json": [
        (HELD28, ["ugh my roommate's space heater tripped the breaker n i lost half my essay smh. "
                  "btw whats that thing of mine i'd grab first if the dorm caught fire lol"],
         ["D16:7"]),
        (HELD28, ["found that book of stories from travelers all over the world again",
                  "where were those two hikers going in the one i told u about?"],
         ["D26:8", "D26:9"]),
        (HELD28, ["who's ur fav player, lebron?",
                  "nah i mean that actress i'm a massive fan of, the one fighting for women's "
                  "rights, whats her name?"],
         ["D26:16"]),
        (HELD28, ["what's my cousin's new job again? my mom keeps asking n i totally blanked lol"],
         ["P10"]),
    ],
    "locomo/conv-26.json": [
        (HELD28, ["ugh my upstairs neighbor's been vacuuming at midnight again smh. btw that "
                  "poetry thing i went to a while back, what kinda reading was it?"],
         ["D17:19"]),
        (HELD28, ["what were u going for w all that blue in ur abstract?",
                  "nah i mean mine, the red n blue one, what did the colors stand for?"],
         ["D16:13"]),
        (HELD28, ["that mentoring thing i signed up for way back",
                  "who was the kid i got paired with again?"], ["D9:6"]),
        (HELD28, ["what did i stumble on while i was out walking around my block that one time? i "
                  "took a pic of it"], ["D14:23"]),
    ],
    "group:locomo/conv-30.json": [
        (HELD28, ["ugh the studio's AC is dripping on the marley again n the landlord won't pick "
                  "up smh. Rook, what did Gina say she was tryna mash together w that online shop "
                  "of hers?"],
         ["D6:8", "D8:8"]),
        (HELD28, ["Rook, Gina's basically obsessed w dancing huh",
                  "what did she compare it to again?"], ["D11:8"]),
        (HELD28, ["Rook, what did Gina say her tattoo stands for?",
                  "nah wait, what did she show off from back when she used to compete?"],
         ["D9:10"]),
        (HELD28, ["Rook, whats Gina's go-to when she needs to blow off some steam?"],
         ["D1:7", "D8:6", "D11:6"]),
    ],
    "realtalk-dev/Chat_5_Nicolas_Nebraas.json": [
        (HELD28, ["ugh the laundromat ate 4 of my quarters n my socks came out still soaked smh. "
                  "btw whats one of the happiest things i remember from being a lil kid? my "
                  "therapist asked n i blanked lol"],
         ["D21:167", "D21:173"]),
        (HELD28, ["remember my bday a while back when i made that huge pot of soup?",
                  "what ended up happening w everybody i invited?"], ["D7:47"]),
        (HELD28, ["u like olives?", "nah i mean me, what did i say about em?"], ["D17:14"]),
        (HELD28, ["when do i even hit the bottle these days lol"], ["D17:79"]),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        (HELD28, ["ugh my roommate blasted music til 3am n the fridge is leaking again smh. btw "
                  "whats my sad-day dinner again, the one straight outta the tin lol"],
         ["D13:1"]),
        (HELD28, ["u still doing ur skincare every night?",
                  "wait whats the longest i ever kept mine going lol"], ["D14:36"]),
        (HELD28, ["u had shrimp in ur aquarium as a kid right?",
                  "nah i mean me, what kinda pet did i say i wanted?"], ["D17:41"]),
        (HELD28, ["what did my big sis just get hired as? my mom keeps bragging n i forgot lol"],
         ["P6"]),
    ],
    "realtalk-dev/Chat_9_Fahim_Akib.json": [
        (HELD28, ["bro the garage door opener died n i had to lift it by hand in the rain smh. btw "
                  "what did me n the wife eat after that monster movie way back?"],
         ["D4:6"]),
        (HELD28, ["just found my old xbox controllers in the closet lol",
                  "why cant i even use em anymore again?"], ["D18:12", "D18:13", "D18:15"]),
        (HELD28, ["whats ur fav harry potter one, half blood prince?",
                  "nah i mean me, which ones did i say were my favs?"], ["D3:20"]),
        (HELD28, ["that big grocery list i made when i had ppl coming over, how many whole birds "
                  "was i getting lol"], ["D14:31", "D14:35"]),
    ],
    "memdaily-zh-dev/memdaily-u41.json": [
        (HELD28, ["今天后厨油烟机坏了，炒了一晚上菜，头发里全是油烟味儿。"
                  "话说那个四千人的盛宴，"
                  "主要是去干啥的来着？"], ["D1:5", "D4:10"]),
        (HELD28, ["我同事不是在海味轩当服务员嘛", "她在哪个城市上班来着？"], ["D6:1"]),
        (HELD28, ["那个美食运动狂欢节要搞几天来着？", "不是，我问的是青岛那个美食创新会"],
         ["D4:13", "D7:4"]),
        (HELD28, ["上回说俺要去的那个去运动品牌店里试新鞋新衣裳的活动，哪天几点开始来着？"],
         ["D1:3", "D2:7"]),
    ],
    "memdaily-zh-dev/memdaily-u42.json": [
        (HELD28, ["今天给鸡舍换了一下午垫草，一身的鸡屎味儿。"
                  "话说那个把写毛笔字跟读书掺一块儿的盛宴，"
                  "哪天几点开始来着？"], ["D3:4", "D4:4", "D7:3", "D8:4"]),
        (HELD28, ["我上司不是叫赵国庆嘛", "他在哪个城市上班来着？"], ["D5:8"]),
        (HELD28, ["我表妹在哪个城市上班来着？", "不是，我问的是我同事"], ["D2:5", "D5:3"]),
        (HELD28, ["上回说俺要去的那个跑出去琢磨毛笔字奥妙的旅行，在哪个城市办来着？"],
         ["D4:9", "D10:4"]),
    ],
    "memdaily-zh-dev/memdaily-u47.json": [
        (HELD28, ["今天值完夜班回家，楼下又在装修，电钻响了一上午。"
                  "话说那个七千人的骑车比赛，"
                  "要比多久来着？"], ["D5:4", "D6:4", "D7:5"]),
        (HELD28, ["我下礼拜不是要去那个骑着车到处吃的节嘛", "得来多少人来着？"], ["D7:9"]),
        (HELD28, ["我舅妈邮箱多少来着？", "不是，我问的是我叔叔的"], ["D8:2"]),
        (HELD28, ["俺家老爷子现在不上班了，天天一早就往外跑，是去干啥来着？"], ["P7"]),
    ],
}
HELD28_PLANTED: dict[str, list[tuple[str, int, str]]] = {
    "locomo/conv-43.json": [
        ("P10", 19, "My cousin Nora just started working at the San Diego Zoo, she's on the "
                    "penguin team and sends me videos every single day."),
    ],
    "realtalk-dev/Chat_6_Vanessa_Nicolas.json": [
        ("P6", 12, "my big sis rosa just got hired as a flight attendant, shes gonna be flying out "
                   "of jfk lol"),
    ],
    "memdaily-zh-dev/memdaily-u47.json": [
        ("P7", 2, "我爸退休以后迷上了钓鱼，天天一大早就扛着鱼竿去西湖边蹲着。"),
    ],
}
held_out_add(HELD28_PROBES, HELD28_PLANTED)


class RoundProvider:
    """Answers at once; keeps every request of the last turn (a group's round)."""

    name = "recording"

    def __init__(self) -> None:
        self.round: list[list[dict]] = []

    async def stream(self, messages: list[dict], *, context: dict):
        self.round.append(messages)
        yield "Of course I remember."

    async def complete(self, messages: list[dict], *, context: dict) -> str:
        return "Of course I remember."


def members_made(store, owner, names: list[str]) -> list[str]:
    # App modules are imported once main() has booted Django (turn_overhead.django_boot).
    from library.character_services import character_save

    return [character_save(store, user=owner, character_id=None, data={
        "name": name, "base_persona": f"{name}, an old friend.", "greeting": "",
        "visibility": "private"}) for name in names]


def conversation_play(path: Path, probes: list[tuple[str, list[str], list[str]]], store, owner,
                      character_ids: list[str], *, misses: bool,
                      planted: list[tuple[str, int, str]] = ()) -> list[dict]:
    # The app's modules read Django settings when imported: only after main() set Django up.
    from chat.groups.round import conversation_turn
    from chat.services.instances import instance_create
    from chat.services.session_import import session_import
    from memory import runtime
    from memory.vectors.sync import instance_sync

    conversation = json.loads(path.read_text(encoding="utf-8"))
    conversation = conversation.get("conversation", conversation)
    for dia_id, number, text in planted:
        session = conversation[f"session_{number}"]
        session.insert(len(session) // 2, {"speaker": conversation["speaker_a"],
                                           "dia_id": dia_id, "text": text})
    records, texts, _ = chat_records(conversation, session_days(conversation))
    instance_id = instance_create(store, owner=owner, character_ids=character_ids)
    session_import(store, instance_id=instance_id,
                   data="".join(json.dumps(r) + "\n" for r in records).encode())
    instance_sync(store, runtime.index_for(store), instance_id=instance_id)
    provider = RoundProvider()
    found: list[dict] = []
    for kind, turns, evidence in probes:
        for text in turns:
            provider.round = []
            results = asyncio.run(conversation_turn(store, instance_id=instance_id,
                                                    user_text=text, emit=t._emit,
                                                    provider=provider))
        answers = [turns[int(d.split(":")[1])] if d.startswith("said:") else texts[d]
                   for d in evidence if d.startswith("said:") or texts.get(d, "").strip()]
        # In a group every member's request must hold it (each may be the one asked).
        sent = [("\n".join(m["content"] for m in request)).replace(turns[-1], "")
                for request in provider.round]
        reached = bool(sent) and all(any(a in s for a in answers) for s in sent)
        recall = store.trace_read(instance_id, results[0].trace_id).get("retrievals") or {}
        hits = [str(hit.get("text") or "") for hit in recall.get("hits") or []]
        rank = min((i for i, hit in enumerate(hits) if hit in answers), default=None)
        found.append({"kind": kind, "reached": reached, "rank": rank})
        if misses and (not reached or rank is None or rank >= 5):
            print(f"    {'missed' if not reached else f'rank {rank}'} [{kind}] {turns!r}: "
                  f"searched {recall.get('query')!r}, {len(hits)} lines, first "
                  f"{[hit[:70] for hit in hits[:3]]!r}", flush=True)
    return found


def figures_line(name: str, found: list[dict]) -> str:
    n = len(found)
    return (f"talk[{name}] found={sum(f['reached'] for f in found)}/{n} "
            f"at5={sum(f['rank'] is not None and f['rank'] < 5 for f in found)}/{n} "
            f"at10={sum(f['rank'] is not None and f['rank'] < 10 for f in found)}/{n} "
            f"probes={n}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path,
                        default=Path(__file__).resolve().parents[2] / "shared" / "bench")
    parser.add_argument("--keep-messages", type=int, default=10)
    parser.add_argument("--only", help="probes of this kind only (follow-up, long, group, …)")
    parser.add_argument("--misses", action="store_true", help="print each probe not at @5")
    parser.add_argument("--match", action="append",
                        help="probes whose measured turn holds this text only (a quick "
                        "look: the probes left out are not played, so ranks may differ a little)")
    args = parser.parse_args()
    with h.data_dir_temp() as data_dir:
        t.django_boot(data_dir)
        store, owner, character_id, _ = t.library_seed(data_dir)
        settings_for_play(store, keep=args.keep_messages)
        found: list[dict] = []
        for name, probes in PROBES.items():
            probes = [p for p in probes if args.only in (None, p[0])
                      and (not args.match or any(m in p[1][-1] for m in args.match))]
            if not probes:
                continue
            group, _, file = name.rpartition(":")
            ids = [character_id]
            if group:
                data = json.loads((args.data / file).read_text(encoding="utf-8"))
                speaker_b = data.get("conversation", data)["speaker_b"]
                ids = members_made(store, owner, [speaker_b, GROUP_OTHER])
            done = conversation_play(args.data / file, probes, store, owner, ids,
                                     misses=args.misses, planted=PLANTED.get(name, []))
            print("  " + figures_line(name, done), flush=True)
            found += done
        by_kind: dict[str, list[dict]] = defaultdict(list)
        for f in found:
            by_kind[f["kind"]].append(f)
        for kind, done in by_kind.items():
            print(figures_line(kind, done), flush=True)
        print(figures_line("all", found), flush=True)


if __name__ == "__main__":
    main()
