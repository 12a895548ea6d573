"""What a recall question asks for: the words that name it, and its parts when it asks two things.

Framework-free and pure. "你还记得我们之前的约定吗？" -> "约定"; "A是什么？另外，B是哪个？" -> two
searches, because one search for both halves ranks the lines of one half first and the other
half's lines fall out of the top k.
"""

from __future__ import annotations

import re

from memory.keyword_index.said_instead import kinds_asked
from memory.keyword_index.stated import PEOPLE_ZH
from memory.recall.focus import time_words_strip

TRIGGERS_ZH = ["还记得", "记得吗", "记不记得", "记得不", "之前", "以前", "当时", "那次", "那时候",
               "上次", "上回", "曾经", "回忆", "想起", "忘了"]
TRIGGERS_EN = ["remember", "last time", "before", "earlier", "recall", "back then", "that time",
               "previously", "you said", "you told", "i told you", "we talked", "forgot", "forget"]
# Other ways people ask about the past: what one said ("我跟你说过…", "What did I tell you
# about…", "Did I mention…") or a time ("上周", "the other day"). They ask as "remember" does, but
# an earlier line holding them is often the answer ("You mentioned your kids, how are they?"),
# never taken for the player's earlier asking (memory/recall/turn.py, _meta_talk).
ASKING_ZH = ["说过", "提过", "讲过", "聊过", "那天", "上周", "上星期", "上个月", "前几天", "前阵子"]
ASKING_EN = ["what did i tell you", "did i tell you", "did i ever tell you", "what did i say",
             "did i mention", "i mentioned", "you mentioned", "the other day", "last week",
             "last month", "a while ago", "a few days ago", "a while back",
             "ages ago", "a long time ago", "long ago", "back in the day", "you told me"]
# "上次说的那个X" asks for X: what one said of it is how it is asked (说过 above).
ZH_FILLERS_LEADING = ["你们", "您", "你", "我们", "咱们", "我", "俺们", "俺", "他们", "她们", "他", "她", "的", "跟", "和",
                      "吗", "呢", "说的", "提到的", "讲的"]
# 来着 ("…again?") ends a question the way 呢 does: "我是哪里人来着？" asks for 哪里人 alone.
ZH_FILLERS_TRAILING = ["吗", "呢", "吧", "啊", "呀", "了", "的", "么", "来着"]
# A trailing 么 is a particle only when it is not the end of a word: 什么, 怎么, 那么, 这么, 多么.
ZH_WORDS_ENDING_IN_PARTICLE = ("什么", "怎么", "那么", "这么", "多么", "要么", "为什么")
# A correction's own words ("nah i mean u, whats ur fav"): searched, "mean" drew every line
# opening "I mean it's…" above the answer.
CORRECTION_WORDS_EN = ["i mean", "i meant", "nah", "nope", "naw"]
# ...and in Chinese, where they open a clause ("不是，我问的是我上司的"): searched, 不是 and 是我
# drew "华为Mate60是我的心头好" first.
CORRECTION_WORDS_ZH = ("不对", "不是", "我是说", "我说的是", "我是问", "我问的是")
_CORRECTION_ZH = re.compile(r"(?:^|(?<=[，,。！!？?；;\s]))(?:" + "|".join(sorted(
    CORRECTION_WORDS_ZH, key=len, reverse=True)) + r")(?=[，,。！!\s我你他她俺咱])")
# "remind me" asks as "tell me" does: searched, its rare "remind" drew every line saying it
# ("remind me, what do I do for a living?" found the answer 30th).
EN_QUESTION_FILLERS = ["do you", "did you", "can you", "could you", "what about", "tell me about",
                       "tell me", "remind me", "please", "hey", "hi", *CORRECTION_WORDS_EN]
PUNCTUATION = "?？!！。，,.、；;：:~…\"'“”‘’()（）[]【】 \t\n"
# Chat talk in a question: laughter and address words name nothing ("wats my job again lol":
# searched, "lol" drew every line saying it and the dense side read a greeting), and a
# question word typed without its apostrophe ("whats", "wat") is a rare word in the keyword
# index that matches lines asking something else ("whats that book u keep reading"). The
# first are removed, the second written as the question words they are (stop words there).
EN_CHAT_FILLERS = ("lol", "lmao", "lmfao", "rofl", "haha", "hahaha", "hehe", "bro", "bruh",
                   "yo", "dude", "tho", "pls", "plz", "btw", "omg", "rn", "tbh", "smh", "ngl",
                   "imo", "imho", "idk", "ikr", "lowkey", "ugh", "ughh", "welp", "oof")
EN_CHAT_SPELLINGS = {"wat": "what", "wats": "what's", "whats": "what's", "wut": "what",
                     "whos": "who's", "wheres": "where's", "hows": "how's", "u": "you",
                     "ur": "your", "urs": "yours", "im": "i'm", "ive": "i've", "n": "and",
                     "ud": "you'd", "youd": "you'd", "youre": "you're", "theyre": "they're",
                     # Negations typed without the apostrophe are stop words as written.
                     **{word: f"{word[:-1]}'t" for word in (
                         "dont", "didnt", "doesnt", "cant", "couldnt", "wouldnt", "shouldnt",
                         "wasnt", "werent", "isnt", "arent", "havent", "hasnt", "hadnt")}}
_CHAT_WORD = re.compile(r"(?<![\w'’])(" + "|".join(
    sorted((*EN_CHAT_FILLERS, *EN_CHAT_SPELLINGS), key=len, reverse=True)) + r")(?![\w'’])",
    re.IGNORECASE)
# "wait what did i say the perfect temp was again": "wait" opening a question is a pause, not a
# word of it (searched, it drew "Wait that's what pirates say" and "Make people wait again").
# Also after a correction's "nah" and before its "i mean" ("nah wait i mean u, which day").
_PAUSE = re.compile(r"(?:^|(?<=[.!?,;:…]))\s*(?:(?:oh|ok|okay|nah|no|nope),?\s+)?"
                    r"(?:wait|hold on|hmm+)[,.!…]*\s+(?=(?:what|which|who|whose|where|when|how|"
                    r"whats|wat|did|do|does|is|was|are|were|i\s+meant?)(?:['’]s)?(?![\w'’]))",
                    re.IGNORECASE)

# Words that open the second half of a two-part question ("另外，B？", "Also, B?").
PART_OPENERS_ZH = ("另外", "还有", "此外", "以及", "顺便问一下", "顺便问", "顺便")
PART_OPENERS_EN = ("also", "and also", "another thing", "besides", "plus")
PART_MIN_CHARS = 4
MAX_PARTS = 4
QUESTION_SCAN_CHARS = 4000  # a change of subject is looked for in the first characters only

_QUESTION_END = re.compile(r"(?<=[?？])\s*")
_OPENER_ZH = re.compile(r"[，,；;。]\s*(?=(?:" + "|".join(PART_OPENERS_ZH) + r")[，,]?)")


def questions_split(text: str) -> list[str]:
    """The separate questions in `text`, in order; the text itself when it asks one thing.
    A piece too short to be a question ("还有呢？") stays with the one before it."""
    pieces: list[str] = []
    for sentence in _QUESTION_END.split(text.strip()):
        pieces += [p for p in _OPENER_ZH.split(sentence) if p]
    parts: list[str] = []
    for piece in pieces:
        cleaned = _opener_strip(piece.strip())
        if parts and len(cleaned.strip(PUNCTUATION)) < PART_MIN_CHARS:
            parts[-1] = f"{parts[-1]} {piece.strip()}"
        elif cleaned.strip(PUNCTUATION):
            parts.append(cleaned)
    if len(parts) > MAX_PARTS:
        parts = [*parts[: MAX_PARTS - 1], " ".join(parts[MAX_PARTS - 1:])]
    return parts if len(parts) > 1 else [text]


def _opener_strip(piece: str) -> str:
    for opener in sorted(PART_OPENERS_ZH, key=len, reverse=True):
        if piece.startswith(opener):
            return piece[len(opener):].lstrip(PUNCTUATION)
    lowered = piece.lower()
    for opener in sorted(PART_OPENERS_EN, key=len, reverse=True):
        if lowered.startswith(opener + " ") or lowered.startswith(opener + ","):
            return piece[len(opener):].lstrip(PUNCTUATION)
    return piece


# "what did I do for a living before the studio?", "开店之前我是干嘛的？": the event after
# "before" / before 之前 only says when; the fact asked (the job, the home town) was told before
# the event was talked of, in lines that do not name it, while lines about the event ("Losing my
# job gave me the push to open the studio") held both. Left out of the search when the rest of
# the question still names a kind of personal fact (memory/keyword_index/said_instead.py);
# otherwise the event is what the lines are about ("Which city was John in before Chicago?").
_ANCHOR_EN = re.compile(r"(?<![a-z])before\s[^?.!,;？。！，；\n]{1,80}", re.IGNORECASE)
_ANCHOR_ZH = re.compile(r"[^，,。？?！!；;\s我你他她]{2,12}(?:之前|以前)")


def anchor_strip(text: str) -> str:
    """`text` without the event a question about a personal fact counts back from."""
    for pattern in (_ANCHOR_EN, _ANCHOR_ZH):
        stripped = pattern.sub(" ", text, count=1)
        if stripped != text and kinds_asked(stripped):
            return stripped
    return text


def query_extract(user_input: str, *, fallback: bool = True) -> str:
    """The part of the message that names what to recall: trigger words, question fillers and
    particles removed ("你还记得我们之前的约定吗？" -> "约定"), and the event a personal fact is
    asked before (anchor_strip). Falls back to the whole message (`fallback`), or "" when
    nothing is left."""
    # A closing "again" ("Who was the singer again?") stays: stripped, 3 probes of 95 fell
    # out of the first five and one came in (bench/recall_talk.py).
    text = _CORRECTION_ZH.sub(" ", chat_words_plain(time_words_strip(anchor_strip(user_input))))
    for phrase in sorted(TRIGGERS_ZH + ASKING_ZH + ["记得"], key=len, reverse=True):
        text = text.replace(phrase, " ")
    for phrase in sorted(TRIGGERS_EN + ASKING_EN + EN_QUESTION_FILLERS, key=len, reverse=True):
        text = re.sub(rf"(?<![a-z]){re.escape(phrase)}(?![a-z])", " ", text, flags=re.IGNORECASE)
    pieces = [_zh_fillers_strip(piece) for piece in re.split(r"\s+", text)]
    cleaned = " ".join(piece for piece in pieces if piece).strip(PUNCTUATION)
    return cleaned if cleaned or not fallback else user_input.strip()


# "bro" after whose or which is a brother ("where's my lil bro been spending his saturdays"),
# no way to address someone: written out, the keyword side also finds the lines saying "bro".
_BROTHER_AFTER = re.compile(r"(?<![\w'’])(?:my|your|ur|his|her|our|their|lil|little|big|baby|"
                            r"older|younger|twin)\s+$", re.IGNORECASE)
_BROTHER_SCAN_CHARS = 12


def _chat_word_plain(found: re.Match[str]) -> str:
    word = found.group(1).lower()
    if word == "bro" and _BROTHER_AFTER.search(
            found.string[max(0, found.start() - _BROTHER_SCAN_CHARS):found.start()]):
        return "brother"
    return EN_CHAT_SPELLINGS.get(word, " ")


def chat_words_plain(text: str) -> str:
    """`text` with chat fillers and a pause before a question removed, and question words typed
    without an apostrophe written out (EN_CHAT_FILLERS, EN_CHAT_SPELLINGS)."""
    return _PAUSE.sub(" ", _CHAT_WORD.sub(_chat_word_plain, text))


def _zh_fillers_strip(piece: str) -> str:
    leading = sorted(ZH_FILLERS_LEADING, key=len, reverse=True)
    trailing = sorted(ZH_FILLERS_TRAILING, key=len, reverse=True)
    piece = piece.strip(PUNCTUATION)
    while piece and piece not in leading and piece not in trailing:
        head = next((f for f in leading if piece.startswith(f)), None)
        tail = next((f for f in trailing if piece.endswith(f) and not _ends_in_word(piece, f)),
                    None)
        if head is None and tail is None:
            return piece
        if head is not None:
            piece = piece[len(head):].strip(PUNCTUATION)
        elif tail is not None:
            piece = piece[: -len(tail)].strip(PUNCTUATION)
    return "" if piece in leading or piece in trailing else piece


def _ends_in_word(piece: str, particle: str) -> bool:
    return any(piece.endswith(word) for word in ZH_WORDS_ENDING_IN_PARTICLE
               if word.endswith(particle))


# A question often ends in a repair: "…哎，我真正想问的是：X？" / "…what I actually meant: X?".
# Only X is the question; the chatter before it would pull in lines about the weather.
REPAIR_MARKERS_ZH = ("想问的是", "想说的是", "想弄清楚的是", "想知道的是", "我的意思是", "我是想问")
REPAIR_MARKERS_EN = ("what i meant is", "what i mean is", "i meant", "what i want to know is",
                     "what i actually want to ask is", "my real question is", "actually i want to ask")


# A message that talks first and then changes the subject to ask ("ugh, the power went out again
# last night… anyway where'd you say you traveled?", "累死了。对了，你上次说…"): only what follows
# the turn is the question; the talk before it pulled up lines about the power cut, and its
# "last night" chose the days searched. A marker counts where a sentence or the talk's last
# word ends ("lol anyway …"), and only when nothing before it asks: "A? Also, B?" asks both.
TOPIC_CHANGES_EN = ("anyway", "anyways", "anyhow", "btw", "by the way", "oh and", "oh also",
                    "also", "random question", "random but", "unrelated but", "quick question",
                    "on another note", "on a different note", "changing the subject")
TOPIC_CHANGES_ZH = ("对了", "话说回来", "话说", "顺便问一下", "顺便问下", "顺便问", "言归正传",
                    "说正经的", "不说这个了", "另外")
_TOPIC_CHANGE = re.compile(
    r"(?<![\w'’])(?:" + "|".join(re.escape(marker) for marker in sorted(
        TOPIC_CHANGES_EN, key=len, reverse=True)) + r")(?![\w'’])|"
    + "|".join(sorted(TOPIC_CHANGES_ZH, key=len, reverse=True)), re.IGNORECASE)
# Who a line points at without naming: after a change of subject such a word points back into
# the talk ("My sister is visiting. Also, when is her birthday again?"), which then stays.
PRONOUNS_EN = frozenset("he she him her his hers it its they them their theirs".split())
PRONOUNS_ZH = ("他", "她", "它")
_SENTENCE_ENDS = tuple(".!,;:…~)]。！，；：、")
_TALK_END = re.compile(r"(?<![\w'’])(?:lol|lmao|haha|hehe|but|ok|okay|so)$", re.IGNORECASE)


def topic_change_cut(text: str) -> str:
    """What `text` asks after its last change of subject (TOPIC_CHANGES_EN / _ZH), or `text`
    when it makes none, asks before it, or leaves too little or a pronoun after it."""
    scanned = text[:QUESTION_SCAN_CHARS]
    asks_at = min((at for at in (scanned.find("?"), scanned.find("？")) if at >= 0),
                  default=len(scanned))
    cut = -1
    for found in _TOPIC_CHANGE.finditer(scanned, 0, asks_at):
        before = scanned[max(0, found.start() - 12):found.start()].rstrip()
        if found.start() == 0 or not before or before.endswith(_SENTENCE_ENDS) or (
                _TALK_END.search(before)):
            cut = found.end()
    rest = text[cut:].lstrip(PUNCTUATION) if cut > 0 else ""
    # Only the question points: talk after it ("who's my boss again? blanked on it when they
    # asked") says nothing of what it asks.
    asked = re.split(r"(?<=[?？])", rest, maxsplit=1)[0]
    points_back = (PRONOUNS_EN & set(re.findall(r"[a-z]+", asked.lower()))
                   or any(pronoun in asked for pronoun in PRONOUNS_ZH))
    return rest if len(rest.strip(PUNCTUATION)) >= PART_MIN_CHARS and not points_back else text


def question_focus(text: str) -> str:
    """The question after the last change of subject (topic_change_cut) and after the last
    repair marker, or the whole text."""
    text = topic_change_cut(text)
    lowered = text.lower()
    cut = -1
    for marker in (*REPAIR_MARKERS_ZH, *REPAIR_MARKERS_EN):
        at = lowered.rfind(marker)
        if at >= 0:
            cut = max(cut, at + len(marker))
    focus = text[cut:].strip(PUNCTUATION) if cut >= 0 else ""
    return focus if len(focus) >= PART_MIN_CHARS else text


# Conditional questions name a thing by what is true of it, then ask something else of it:
# "那个[是工程师]的人，[电话号码]是多少" / "[28岁]的那个人[生日是哪天]". The line that matches the
# condition names the thing ("我的上司是个工程师"); the answer is in another line about the same
# thing ("我上司的联系电话是…"), which shares few words with the question.
_CONDITION_AFTER = re.compile(r"那[个位](?P<condition>[^？?。!！]{2,120}?)的(?P<rest>[^的].{1,200})", re.S)
_CONDITION_BEFORE = re.compile(r"(?P<condition>[^，,。？?！!\s]{2,60})的那[个位](?P<rest>.{2,200})", re.S)


# "我住的那个小区" / "那个我要参加的活动…" / "俺家新添的那个小丫头": a clause whose subject is
# the asker names the thing by what the asker said of it ("我住在龙湖小区", "我将要参加美食节"), a
# line the answer is wanted with, not a condition to bridge from: such a question is searched
# whole.
_ASKERS_CLAUSE_BEFORE = r"[我俺][^，,。？?！!\s的]{1,20}的(?=那[个位])"
_ASKERS_CLAUSE = re.compile(_ASKERS_CLAUSE_BEFORE
                            + r"|(?<=那[个位])[我俺][^，,。？?！!\s的]{1,20}的")


# "上次说的那个手工阅享会" / "你提到的那家店" / "上回跟你夸的那个手机": what was said of the
# thing is how it is asked, no condition on it (searched, "上次说" drew lines at random and took
# half the places; "跟你夸" drew the lines of the question before).
_SAID_CLAUSE = re.compile(r"(?:说|提|提到|讲|聊|讲到|聊到|告诉我|说起|提起|聊起|夸|推荐|安利|吐槽|"
                          r"抱怨|显摆|炫耀|念叨)过?$|(?:跟|和|对|给|向)你[^，,。？?！!\s]{0,4}$")


# "那个琢磨咋让坐飞机的人更满意的大典，规模多大": a condition may hold a 的 of its own; the thing
# is the short word before the comma, after the last 的 ("大典"), not the first ("人").
HEAD_MAX_CHARS = 4


def _condition_to_head(condition: str, rest: str) -> tuple[str, str]:
    """The condition and what is asked, the condition taken up to the 的 before the head word
    that the comma follows."""
    comma = re.search(r"[，,]", rest)
    named = rest[:comma.start()] if comma else ""
    last = named.rfind("的")
    if last < 0 or not 1 <= len(named) - last - 1 <= HEAD_MAX_CHARS:
        return condition, rest
    return f"{condition}的{named[:last]}", rest[last + 1:]


def condition_split(question: str) -> tuple[str, str] | None:
    """(condition, what is asked) of a conditional question, or None."""
    if _ASKERS_CLAUSE.search(question):
        # ...unless the thing is also named by a condition of its own after 那个 ("俺要去的
        # 那个五百人的盛宴，主要是去干啥": the 500 people say which event; "我将要参加…" is
        # said of each).
        question = re.sub(_ASKERS_CLAUSE_BEFORE, "", question, count=1)
        if _ASKERS_CLAUSE.search(question) or not _CONDITION_AFTER.search(question):
            return None
    for pattern in (_CONDITION_BEFORE, _CONDITION_AFTER):
        found = pattern.search(question)
        if found:
            condition = found["condition"].strip(PUNCTUATION)
            # "我那个爱做饭的表弟叫啥": the person is named, the clause only says which one.
            if _SAID_CLAUSE.search(condition) or found["rest"].startswith(PEOPLE_ZH):
                return None
            condition, rest = _condition_to_head(condition, found["rest"])
            rest = re.sub(r"^(?:人|活动|东西|地方|事情?)?[，,\s]*", "", rest).strip()
            # "前阵子逛的那个公园": a time and what the asker did name no condition (searched,
            # "前阵子逛" drew every line of 前阵子's days and the park's came 35th).
            if (len(query_extract(condition, fallback=False)) >= 2
                    and len(rest.strip(PUNCTUATION)) >= 2):
                return condition, rest
    return None
