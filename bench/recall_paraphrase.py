"""Recall of facts asked in other words (findings long-chat F3): a long chat of filler (LoCoMo
conv-26 and MemDaily lines, as the player's and the character's) with facts the player told
early, then questions that ask for each fact in other words ("what do I do for a living?" for
"I work as a night-shift radiographer"), English and Chinese, some addressed to the character
by name ("Bram, …"). Each question goes through the turn's recall (memory/recall/turn.py,
recall_for_turn: the floor, the trigger words) on the app's index; a probe hits at k when a
line holding its answer is among the first k recalled lines (a turn's section held 6 of the
long lines in the finding's chat).

    .venv/bin/python bench/recall_paraphrase.py [--data ../shared/bench] [--turns 300]
        [--embed-cache DIR] [--verbose] [--set first|second|third]

Prints one line per probe (the answer's rank, or "-") and the hits at 3 / 5 / 10 last.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from recall_locomo import CachedEmbedder  # noqa: E402

from memory.recall.turn import recall_for_turn  # noqa: E402
from memory.vectors.index import MemoryIndex  # noqa: E402

INSTANCE = "bench_paraphrase"
PLAYER, CHARACTER = "Ola", "Bram"
KS = (3, 5, 10)

# Turn -> what the player says then. Each fact is asked for later without its key words.
FACTS = {
    2: "Work was brutal today. I work as a night-shift radiographer at St. Olaf hospital, so I'm "
       "always tired by the time I get here. Anyway, pour me something warm?",
    4: "Funny thing, I grew up in Ystad, a little town on the south coast of Sweden. The sea "
       "there smells just like this place.",
    6: "Oh, and please no cilantro in my soup, I can't stand cilantro, it tastes like soap to me.",
    8: "我老家其实在贵州遵义，小时候天天早上吃羊肉粉，现在想起来还流口水。",
    10: "My birthday is on March 14th, same day as Pi day, which my friends never let me forget.",
    12: "We have a grey whippet named Pickles, he sleeps on the couch all day and snores like an "
        "old man.",
    14: "我女朋友叫林晓雨，她是一名小学老师，每天都很忙。",
    16: "I still drive a 1998 green Volvo that I call Old Bessie. She breaks down every winter "
        "but I love her.",
    18: "Big news: we're getting married on 21 September 2027, in Bergen, up in Norway, where "
        "her grandparents live.",
    20: "By the way, I'm allergic to penicillin, found out the hard way when I was twelve.",
    22: "我最喜欢的电影是《霸王别姬》，每年都要重看一遍。",
    24: "My sister Mina just moved to Lisbon for a design job, I miss her already.",
    26: "Every Saturday morning I go bouldering with my cousin Ravi at the old brewery gym.",
    28: "我们打算明年五月去云南大理旅行，已经在看民宿了。",
}
# (question, a word the answer's line holds)
PROBES = [
    ("what do I do for a living, do you remember?", "radiographer"),
    ("what's my job?", "radiographer"),
    ("Bram, remind me — what did I say my job was?", "radiographer"),
    ("which town am I from originally?", "Ystad"),
    ("where's my hometown?", "Ystad"),
    ("is there any food I refuse to eat?", "cilantro"),
    ("when do I turn a year older?", "March 14"),
    ("what's the name of our pet?", "Pickles"),
    ("what breed is our dog?", "whippet"),
    ("what kind of vehicle do I own?", "Volvo"),
    ("what nickname did I give my car?", "Bessie"),
    ("where's the wedding going to be?", "Bergen"),
    ("what date is our wedding?", "September 2027"),
    ("which medicine should I stay away from?", "penicillin"),
    ("what was my sibling called?", "Mina"),
    ("which city did my sister move to?", "Lisbon"),
    ("what sport do I do on weekends?", "bouldering"),
    ("Bram, what's my cousin's name again?", "Ravi"),
    ("我是哪里人来着？", "遵义"),
    ("我的家乡在哪个省，你还记得吗？", "贵州"),
    ("我对象叫什么名字？", "林晓雨"),
    ("我女朋友是做什么工作的？", "老师"),
    ("我最爱看的片子是哪部？", "霸王别姬"),
    ("我们计划去哪儿玩来着？", "大理"),
    ("Bram你还记得我们的旅行定在什么时候吗？", "五月"),
]
# Filler lines that would answer a probe are left out: the probes must find the planted facts.
COLLIDING = ("sister", "grew up", "birthday", "dog", "allerg", "wedding", "married", "cousin",
             "car ", "hometown", "job", "work as", "climb", "pet")
COLLIDING_ZH = ("老家", "女朋友", "电影", "旅行", "家乡", "对象")


# A second set, held apart: other facts, asked in other ways, written after the "said instead"
# table of the keyword side (memory/keyword_index/said_instead.py) by someone other than its
# author, to see whether what was mended carries over (`--set second`).
SECOND_FACTS = {
    2: "Long shift again. I've been a paramedic for six years now, mostly night calls, so excuse "
       "the yawning.",
    4: "I was born and raised in Cork, down in the south of Ireland, rain every single day.",
    6: "My husband Teodor is a carpenter, he built half the furniture in our flat.",
    8: "我在一家银行做柜员，天天数钱，数得手都酸了。",
    10: "I've been learning the cello since January, my neighbours must hate me.",
    12: "We adopted a tabby cat called Miso last spring, she rules the house now.",
    14: "我男朋友叫周航，是个程序员，天天加班。",
    16: "Oh, I'm lactose intolerant, so no cream in the sauce please.",
    18: "My brother Aleksander lives in Kraków, I visit him every Easter.",
    20: "我小时候在哈尔滨长大，冬天特别冷，零下三十度。",
    22: "I ride a little red Vespa to the station every morning.",
    24: "下个月我们要去青岛看海，酒店都订好了。",
    26: "我最喜欢的歌手是周杰伦，他的每张专辑我都有。",
    28: "Every Wednesday evening I do yoga at the community hall.",
}
SECOND_PROBES = [
    ("what's my line of work again?", "paramedic"),
    ("what did I say I do for work?", "paramedic"),
    ("where did I grow up?", "Cork"),
    ("which country am I originally from?", "Ireland"),
    ("what's my spouse called?", "Teodor"),
    ("what does my partner do for a living?", "carpenter"),
    ("我是干什么的来着？", "柜员"),
    ("我在哪儿上班？", "银行"),
    ("what instrument am I practising?", "cello"),
    ("what's our pet's name?", "Miso"),
    ("what animal did we adopt?", "cat"),
    ("我对象是做什么的？", "程序员"),
    ("is there anything I can't eat?", "lactose"),
    ("where does my sibling live?", "Kraków"),
    ("我是在哪儿长大的？", "哈尔滨"),
    ("我的家乡是哪里？", "哈尔滨"),
    ("how do I get to the station?", "Vespa"),
    ("what do I ride?", "Vespa"),
    ("我们下个月出去玩去哪儿？", "青岛"),
    ("我最爱听谁的歌？", "周杰伦"),
    ("what exercise do I do during the week?", "yoga"),
    ("Bram, what's my brother's name?", "Aleksander"),
]
SECOND_COLLIDING = COLLIDING + ("paramedic", "cork", "ireland", "husband", "cello", "cat ",
                                "lactose", "brother", "vespa", "yoga", "carpenter", "instrument")
SECOND_COLLIDING_ZH = COLLIDING_ZH + ("银行", "男朋友", "长大", "青岛", "歌手")


# A third set, kept apart by the lead while the table grew by kind of fact (2026-12-02): the
# second set's answers had become some of the table's words, so it no longer tells whether the
# table carries over (`--set third`: 13/14/16 before that change, 13/16/19 after).
THIRD_FACTS = {
    2: "Sorry I'm late, I teach chemistry at the high school across the river and the kids "
       "kept me.",
    4: "My folks moved us around a lot, but I spent most of my childhood in Tucson, Arizona.",
    6: "My wife Ingrid runs a small bakery on Mill Street, she's up at four every morning.",
    8: "我现在在一家快递公司当司机，每天要跑一百多单。",
    10: "I'm deathly allergic to peanuts, I carry an EpiPen everywhere.",
    12: "We have two goldfish, Salt and Pepper, my son named them.",
    14: "我老婆叫王丽，她在医院做护士。",
    16: "I turn forty on the second of August, dreading it honestly.",
    18: "My twin sister Dagny is a pilot for a cargo airline.",
    20: "我是在成都出生的，后来才搬到北京。",
    22: "I mostly get around on an old blue bicycle, no car for me.",
    24: "我每个周末都去公园打羽毛球。",
    26: "We're flying to Reykjavik in February to see the northern lights.",
    28: "我最喜欢吃的是火锅，越辣越好。",
}
THIRD_PROBES = [
    ("what is it I do for a job?", "chemistry"),
    ("what's my profession, remember?", "chemistry"),
    ("where was I brought up?", "Tucson"),
    ("what state did I live in as a kid?", "Arizona"),
    ("what's my wife's name?", "Ingrid"),
    ("what does my wife do?", "bakery"),
    ("我是做什么工作的？", "司机"),
    ("我的职业是什么？", "司机"),
    ("what food could kill me?", "peanuts"),
    ("what pets do we keep?", "goldfish"),
    ("我老婆是干嘛的？", "护士"),
    ("我爱人叫什么？", "王丽"),
    ("how old am I going to be this summer?", "forty"),
    ("when's my birthday?", "August"),
    ("what does my sister do?", "pilot"),
    ("我出生在哪里？", "成都"),
    ("我是哪儿的人？", "成都"),
    ("how do I commute?", "bicycle"),
    ("我周末有什么爱好？", "羽毛球"),
    ("where are we going on holiday?", "Reykjavik"),
    ("我最爱吃什么？", "火锅"),
    ("Bram, what's my sister called?", "Dagny"),
]
THIRD_COLLIDING = COLLIDING + ("chemistry", "teach", "tucson", "arizona", "wife", "bakery",
                               "peanut", "goldfish", "forty", "august", "twin", "pilot",
                               "bicycle", "bike", "reykjavik", "northern lights", "childhood")
THIRD_COLLIDING_ZH = COLLIDING_ZH + ("快递", "司机", "老婆", "护士", "出生", "成都", "羽毛球",
                                     "火锅", "爱人")
SETS = {"first": (FACTS, PROBES, COLLIDING, COLLIDING_ZH),
        "second": (SECOND_FACTS, SECOND_PROBES, SECOND_COLLIDING, SECOND_COLLIDING_ZH),
        "third": (THIRD_FACTS, THIRD_PROBES, THIRD_COLLIDING, THIRD_COLLIDING_ZH)}


def filler_read(data: Path, *, colliding: tuple[str, ...] = COLLIDING,
                colliding_zh: tuple[str, ...] = COLLIDING_ZH) -> tuple[list[str], list[str]]:
    conversation = json.loads((data / "locomo" / "conv-26.json").read_text(encoding="utf-8"))
    english = [turn["text"] for key, value in conversation.get("conversation", conversation).items()
               if key.startswith("session_") and isinstance(value, list) for turn in value]
    chinese: list[str] = []
    for path in sorted((data / "memdaily-zh-dev").glob("memdaily-u4*.json")):
        sessions = json.loads(path.read_text(encoding="utf-8"))["conversation"]
        chinese += [turn["text"] for key, value in sessions.items()
                    if key.startswith("session_") and isinstance(value, list) for turn in value]
    english = [text for text in english if not any(w in text.lower() for w in colliding)]
    chinese = [text for text in chinese if not any(w in text for w in colliding_zh)]
    return english, chinese


def chat_lines(turns: int, english: list[str], chinese: list[str], *,
               facts: dict[int, str] = FACTS) -> list[dict]:
    """The chat as the app stores it: a player's line and the character's reply per turn."""
    rng = random.Random(7)
    lines = []
    for turn in range(1, turns + 1):
        if turn in facts:
            said = facts[turn]
        elif turn % 7 == 0:
            said = "".join(rng.sample(chinese, rng.randint(1, 3)))
        else:
            said = " ".join(rng.sample(english, rng.randint(1, 4)))
        reply = ("".join(rng.sample(chinese, 1)) if turn % 7 == 0
                 else " ".join(rng.sample(english, rng.randint(1, 3))))
        stamp = f"2026-11-{1 + turn * 28 // turns:02d}T12:00:00Z"
        lines += [{"role": "user", "content": said, "turn": turn, "timestamp": stamp,
                   "name": PLAYER},
                  {"role": "assistant", "content": reply, "turn": turn, "timestamp": stamp,
                   "name": CHARACTER}]
    return lines


def probe_rank(index: MemoryIndex, question: str, answer: str) -> tuple[int | None, list[str]]:
    found = recall_for_turn(question, INSTANCE, index=index, shown_texts=[question])
    texts = [hit.text for hit in found.result.hits]
    rank = next((i for i, text in enumerate(texts) if answer.lower() in text.lower()), None)
    return rank, texts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "bench",
                        help="the folder holding locomo/ and memdaily-zh-dev/")
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--embed-cache", type=Path, default=None)
    parser.add_argument("--verbose", action="store_true", help="print each probe's first lines")
    parser.add_argument("--only", default="", help="ask only the probes holding this text")
    parser.add_argument("--set", choices=sorted(SETS), default="first",
                        help="the probe set (third: held apart from the table's making)")
    args = parser.parse_args()
    facts, probes, colliding, colliding_zh = SETS[args.set]
    english, chinese = filler_read(args.data, colliding=colliding, colliding_zh=colliding_zh)
    with tempfile.TemporaryDirectory(prefix="recall_paraphrase_") as workdir:
        embedder = CachedEmbedder(args.embed_cache) if args.embed_cache else None
        second = embedder.second if embedder is not None else None
        index = MemoryIndex(chroma_path=Path(workdir) / "chroma", embedder=embedder,
                            second=second, keywords_path=Path(workdir) / "keywords")
        lines = chat_lines(args.turns, english, chinese, facts=facts)
        for start in range(0, len(lines), 100):
            index.add_turns(instance_id=INSTANCE, character_id="char_bench", background_id=None,
                            session_id="sess_001", turns=lines[start:start + 100])
        hits = dict.fromkeys(KS, 0)
        for question, answer in [p for p in probes if args.only in p[0]]:
            rank, texts = probe_rank(index, question, answer)
            for k in KS:
                hits[k] += rank is not None and rank < k
            print(f"{'-' if rank is None else rank:>4}  {question}  [{answer}]")
            if args.verbose:
                for text in texts[:5]:
                    print(f"        {text[:100]!r}")
    summary = " / ".join(f"@{k} {hits[k]}" for k in KS)
    print(f"paraphrased probes ({args.set} set): {len(probes)}, {args.turns} turns; "
          f"hits {summary}")


if __name__ == "__main__":
    main()
