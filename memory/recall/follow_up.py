"""A player's line that leans on the one before it: "Where did she live again?" after a line
about the player's grandmother, "And did you get accepted?",
"那我上司呢？" after "我表弟生日是几号？",
"no, I mean the cat you got later". Searched alone it names too little (or the wrong half of
what is asked), so its search also carries the player's line before it; when that line asked
about someone, the follow-up is searched as the question it stands for ("那他多大了？" after
"我下属是哪里人来着？" -> "我下属多大了？"). A line that names nothing and points at nothing ("How
are you doing today?") is small talk, not a follow-up.

Framework-free and pure: what leans is read from the grammar of the line (an opening "and",
"no", "what about", 那, 不对; a pronoun with next to nothing and nobody named), never
from what the chat is about.
"""

from __future__ import annotations

import re

from memory.recall.floor import content_words
from memory.recall.queries import (
    CORRECTION_WORDS_ZH,
    PRONOUNS_EN,
    PRONOUNS_ZH,
    PUNCTUATION,
    QUESTION_SCAN_CHARS,
    chat_words_plain,
    query_extract,
)
from memory.recall.whose import PEOPLE_EN, PEOPLE_ZH

# Openings that continue or correct the turn before ("And her birthday?", "No, the other dog",
# "What about Tom?"); 那 only as "then" (那他呢), never as "that" (那个/那天/那家…).
OPENERS_EN = ("and", "what about", "how about", "no", "nope", "nah", "naw", "nvm", "not that",
              "not the", "i mean", "i meant")
OPENERS_ZH = CORRECTION_WORDS_ZH
_ZH_THEN = re.compile(r"^那(?![个位天次时家里边些样种件条只本张儿会阵])")
# "that" / "this" standing for what the line before told ("how'd that even happen?", "when was
# that?", "whose place was that at again", "what did we win that time?"), not naming a thing
# ("that book") or opening a clause: last but for words that name nothing, or before a word
# that goes on about it.
_THAT_EN = re.compile(r"(?<![a-z'])(?:that|this)(?=(?:\s(?:time|again|at|in|from|for|about|"
                      r"with|to|on|lol|tho|though|exactly))*\s*(?:$|[?!.,])|\s(?:even|ever|"
                      r"really|actually|happen|happened|go|went|turn|turned|end|ended|start|"
                      r"started|work|worked|come|came|mean|meant)\b)")
# Words that only point, no thing of the line's own: "where were u guys headed again when it
# happened?" names where one was headed, and the trip is the line before's.
_POINTING_WORDS = re.compile(r"(?<![a-z'])(?:(?:it|that|this)\s+happen(?:ed|s)?|"
                             r"happen(?:ed|s)?(?=\s+(?:there|then))|(?<=you\s)guys|"
                             r"(?<=you\s)all|some(?:one|body)|any(?:one|body)|(?:the\s+)?same"
                             r"(?:\s+(?:thing|things|treatment|way|deal|stuff|problem|issue|story|"
                             r"one))?)(?![a-z'])", re.IGNORECASE)
# A pause and a tag that ask nothing ("oh wait u dont do bk right, what happened there again?"):
# no words of the line's own.
_TAGS_EN = re.compile(r"(?<![a-z'])(?:(?:oh|ok|okay)\s+)?wait(?=\s*[,.!…]|\s+(?:you|i|we|he|she|"
                      r"they)\b)|(?<![a-z'])right(?=\s*[,?])")
# Idioms that name nothing of the line's own ("why'd he say he picked it up in the first place?",
# "what was it sitting right next to again?"): "right" before a where is only "just".
_IDIOMS_EN = re.compile(r"(?<![a-z'])(?:in\s+the\s+first\s+place|to\s+begin\s+with|right(?=\s+"
                        r"(?:next|by|behind|beside|near|across|outside|inside|in\s+front|on\s+top)"
                        r"\b))(?![a-z'])")
# "there" standing for the place the line before told ("remember that freezing hike up the
# mountain?" "what critter did we run into up there again?"), not "is there", "there was".
_THERE_EN = re.compile(r"(?<![a-z'])(?:(?:up|down|over|out|back)\s+there|there(?=(?:\s(?:again|"
                       r"lol|tho|though|exactly|that\s+time))*\s*(?:$|[?!.,])))(?![a-z'])")
# "Where to" asked of a going the line does not name ("remember that crazy long flight u took?"
# "where were u headed again"): the trip is the line before's.
_WHERE_TO_EN = re.compile(r"^(?:where|wheres|where's)\b.*?(?<![a-z'])(?:headed|heading|"
                          r"going|goin|flying|off\s+to|go|went)(?![a-z'])")
_GOING_STEMS = content_words("headed heading going goin flying flew go went off")
# "the same" standing for what the line before told ("didnt someone in ur fam get the same
# treatment?", "did the same thing happen to u?"): a word like "thing" after it is the told
# thing's, no thing of the line's own.
_SAME_EN = re.compile(r"(?<![a-z'])(?:the\s+same|same\s+thing)(?![a-z'])")
# A thing the line names itself before its "it" ("that weird breakfast u told me about, what was
# it again"): the "it" is that thing, not one of the line before.
_THING_NAMED = re.compile(r"(?<![a-z'])(?:that|this|the|those|these)\s+([a-z']+)")
# ...unless it is a part of the "it" ("who's the main character in it again?" after "remember
# that second script i started?"): the thing is the line before's.
_PART_OF_IT = re.compile(r"(?<![a-z'])the\s+(?:[a-z']+\s+){1,3}?(?:in|of|on|from|inside)\s+its?"
                         r"(?![a-z'])")
# "the part" / "the bit" with no "of" naming whose ("whats the part i always sucked at again?"
# after "been practicing piano every night"): a part of what the line before told.
_PART_EN = re.compile(r"(?<![a-z'])(?:the|which|what)\s+(?:part|bit)(?!\s+of\b)(?![a-z'])")
_IT = re.compile(r"(?<![a-z'])its?(?![a-z'])")
# "X呢？" with no word that asks (什么, 哪, 谁…) is "what about X?": it asks what the line
# before asked ("我表姐生日是哪天？" "那我舅妈呢？"); "我表姐在哪上班呢？" asks on its own.
ASKING_ZH = ("什么", "哪", "谁", "几", "多少", "多大", "多久", "怎", "啥", "吗", "何", "么")
# A line with a pronoun that names at most this many words (Chinese: characters) of its own
# leans on the line before: "What were they most excited about?", "他单位叫啥？".
FEW_WORDS = 2
FEW_CJK_CHARS = 6
# Of the line before, the last characters are carried: a pasted page would drown the question.
CARRIED_CHARS = 300
_CJK = re.compile(r"[\u3400-\u9fff]")
_WORD = re.compile(r"[a-z']+")

# Who a pronoun stands for, when the line before asked about someone ("我下属是哪里人来着？" then
# "那他多大了？"): the possessor and the person words that open it, or "my/your … sister (Claire)".
POSSESSORS_ZH = ("我们的", "我的", "我们", "我", "咱们的", "咱们", "咱", "俺们的", "俺们", "俺的",
                 "俺", "你的", "你")
# "我那个下属" is 我下属: the word points at the person, it names no one else.
DEMONSTRATIVES_ZH = ("那个", "这个", "那位", "这位")
POSSESSIVES_EN = frozenset("my your our their his her".split())
PERSON_LOOK_AHEAD = 3  # words after a possessive read for its person word ("my older sister")
CLAUSE_MAX_CHARS = 60  # of a clause that says which person ("ur friend who works in chinatown")
_WORD_SPAN = re.compile(r"[A-Za-z']+")
_CLAUSE = re.compile(r"\s+(?:who|that)\s[^,?!.;]{1,%d}" % CLAUSE_MAX_CHARS)
PLURAL_EN = frozenset("kids children parents folks friends siblings cousins grandparents "
                      "coworkers colleagues roommates classmates teammates neighbors neighbours "
                      "sisters brothers sons daughters".split())
# 他 / 她 standing for one person (它 is a thing's): not in 其他, 吉他, 他们, 他人, 他乡.
_PERSON_PRONOUN_ZH = re.compile(r"(?<![其吉])[他她](?![们人乡])")
PLURAL_PRONOUNS_EN = frozenset("they them their theirs".split())
_PRONOUN_EN = re.compile(r"(?<![a-z'])(he|him|his|she|her|hers|they|them|their|theirs)(?![a-z'])",
                         re.IGNORECASE)

# A message that tells first and asks last without changing the subject by a word ("bro im so
# tired, work was crazy lol. how long is ur drive again?", "…今天腿疼得下不了楼。我表弟在哪家医院
# 上班来着"): its last sentence is also searched by itself. The telling may name what is asked
# ("I was thinking about the Japan trip. What was the hotel called?"), so the whole message is
# searched too; a last sentence that leans on the telling ("…my grandma's necklace. Where did
# she live?") is no question of its own.
_SENTENCE_END = re.compile(r"(?<=[.!])\s+|(?<=[。！!\n])\s*")
_ASKING_EN = re.compile(r"^(?:what|whats|what's|where|where's|wheres|who|who's|whos|when|why|"
                        r"how|hows|how's|which|wat|wats|wat's|wut|do|does|did|is|are|was|were|"
                        r"can|could|have|has)\b", re.IGNORECASE)

__all__ = ["follow_up_carried", "follow_up_resolved", "follow_up_searched", "leans_on_before",
           "question_alone"]


def question_alone(text: str) -> str:
    """The last sentence of `text` when it asks on its own after sentences that only tell;
    "" when `text` is one sentence, asks before its last one, or its last leans on them."""
    scanned = text[:QUESTION_SCAN_CHARS].strip()
    sentences = [piece for piece in _SENTENCE_END.split(scanned) if piece.strip(PUNCTUATION)]
    if len(sentences) < 2:
        return ""
    last = sentences[-1].strip()
    told = scanned[:scanned.rfind(last)]
    # A clause may ask after the thing it names, the chat words gone ("btw that cheesy line i
    # hit my crush w, how did it go again lol").
    asks = (last.endswith(("?", "？"))
            or any(_ASKING_EN.match(clause.strip()) for clause in chat_words_plain(last).split(","))
            or (bool(_CJK.search(last)) and any(word in last for word in ASKING_ZH)))
    if (not asks or any(mark in told for mark in "?？") or leans_on_before(last)
            or not content_words(query_extract(last, fallback=False))):
        return ""
    return last


def leans_on_before(text: str) -> bool:
    """Whether the player's line `text` (a question or a correction) leans on the line before."""
    line = chat_words_plain(text).strip().lstrip(PUNCTUATION)
    lowered = line.lower()
    if any(lowered == opener or re.match(rf"{re.escape(opener)}\b", lowered)
           for opener in OPENERS_EN):
        return True
    if line.startswith(OPENERS_ZH) or _ZH_THEN.match(line):
        return True
    asked = query_extract(line, fallback=False)
    if _CJK.search(line):
        own = [c for c in _CJK.findall(asked) if c not in PRONOUNS_ZH]
        elliptic = line.rstrip(PUNCTUATION).endswith("呢") and not any(
            word in line for word in ASKING_ZH)
        return elliptic or (
            any(p in line for p in PRONOUNS_ZH) and len(own) <= FEW_CJK_CHARS)
    named = content_words(_IDIOMS_EN.sub(" ", _TAGS_EN.sub(" ", _PART_EN.sub(
        " ", _POINTING_WORDS.sub(" ", asked)))))
    pronouns = PRONOUNS_EN & set(_WORD.findall(lowered))
    that = _THAT_EN.search(lowered)
    pointing = (bool(pronouns) and not (pronouns <= {"it", "its"} and _thing_named(lowered))
                or bool(that) and not _told_first(lowered[:that.start()])
                or bool(_SAME_EN.search(lowered)) or bool(_THERE_EN.search(lowered))
                or bool(_PART_EN.search(lowered))
                or bool(_WHERE_TO_EN.match(lowered)) and not named - _GOING_STEMS)
    return pointing and len(named) <= FEW_WORDS and not _someone_named(line)


def _told_first(head: str) -> bool:
    """Whether `head`, a line up to its "that", tells in a sentence of its own before it ("I
    had a dog before my allergies got bad, right? where was that again?"): "that" is what it
    told."""
    end = max(head.rfind(mark) for mark in ".!?")
    return end > 0 and len(content_words(head[:end])) > FEW_WORDS


def _thing_named(lowered: str) -> bool:
    """Whether the lower-cased line names a thing ("that weird breakfast") before its first
    "it"."""
    it = _IT.search(lowered)
    part = _PART_OF_IT.search(lowered)
    return it is not None and any(
        found.start() < it.start() and content_words(found.group(1))
        and not (part and part.start() == found.start() and part.end() == it.end())
        for found in _THING_NAMED.finditer(lowered))


def _someone_named(line: str) -> bool:
    """A name after the first word ("What does Melanie do with her family?"): the pronoun
    points at it, not at the line before."""
    return any(word[:1].isupper() and word.strip(PUNCTUATION) not in ("I", "I'm", "I've", "I'd",
                                                                     "I'll")
               for word in line.split()[1:])


def follow_up_carried(text: str, before: str) -> str:
    """The search for `text` with the player's line `before` it: the question it stands for
    when `before` asked about someone (follow_up_resolved), else both lines as one question
    (question marks made commas so the two are searched together, and a pause opening `text`
    is still one: "…going, wait what are they having u do"); "" when `text` does not lean on
    it or there is nothing before."""
    return follow_up_searched(text, before)[0]


def follow_up_searched(text: str, before: str) -> tuple[str, bool]:
    """follow_up_carried, and whether it is the question `text` stands for, which names all
    that `text` does."""
    before = " ".join(before.split())[-CARRIED_CHARS:]
    if not before:
        return "", False
    if not leans_on_before(text):
        # 他 / 她 in a line that names no one stands for the person of the line before however
        # much it asks ("我表弟不是叫李志强嘛" then "他平时爱捣鼓点啥来着？"): put in, it drops
        # no word.
        named = any(word in text for word in PEOPLE_ZH)
        resolved = "" if named or not _CJK.search(text) else _pronoun_resolved_zh(
            text.strip(), before.strip())
        return resolved, bool(resolved)
    resolved = follow_up_resolved(text, before)
    return (resolved or f"{before.replace('?', ',').replace('？', '，')} {text.strip()}",
            bool(resolved))


def _asks(line: str) -> bool:
    return line.rstrip().endswith(("?", "？")) or (
        bool(_CJK.search(line)) and any(word in line for word in ASKING_ZH))


def follow_up_resolved(text: str, before: str) -> str:
    """`text` as the question it stands for when the player's question `before` asked about
    someone: the pronoun replaced by who it was ("那他多大了？" after "我下属是哪里人来着？" ->
    "我下属多大了？", "what does she do?" after "remember my sister Claire?" -> "what does my
    sister Claire do?"), or an elliptic "那X呢？" given the rest of the question before ("那我
    上司呢？" after "我表弟生日是几号？" -> "我上司生日是几号？"). Carried whole, the question
    before also brought what it asked (哪里人): its answer, not this one, came first. "" when
    `before` is no question or names nobody `text` can stand for."""
    if _CJK.search(text):
        # A line that only tells of someone ("我舅妈不是在青岛那家快递公司上班嘛") still says who
        # the next line's 她 is; what it told is no question to carry over.
        if not _asks(before):
            return _pronoun_resolved_zh(text.strip(), before.strip())
        return _resolved_zh(text.strip(), before.strip())
    if not _asks(before):
        return ""
    return _resolved_en(text.strip(), chat_words_plain(before))


def person_split_zh(question: str) -> tuple[str, str]:
    """(who, the rest) of a Chinese question that opens with a person: "我下属是哪里人来着？" ->
    ("我下属", "是哪里人来着？"); ("", question) when it opens with no person word."""
    text = _ZH_THEN.sub("", question.lstrip(PUNCTUATION), count=1)
    head = next((p for p in POSSESSORS_ZH if text.startswith(p)), "")
    rest, at = text[len(head):], 0
    pointed = next((d for d in DEMONSTRATIVES_ZH if head and rest.startswith(d)), "")
    if pointed and rest.startswith(PEOPLE_ZH, len(pointed)):
        rest = rest[len(pointed):]
    while word := max((w for w in PEOPLE_ZH if rest.startswith(w, at)), key=len, default=""):
        at += len(word)
    return (head + rest[:at], rest[at:]) if at else ("", question)


def _resolved_zh(text: str, before: str) -> str:
    who, asked = person_split_zh(before)
    if not who:
        return ""
    if resolved := _pronoun_resolved_zh(text, before):
        return resolved
    line = _ZH_THEN.sub("", text.lstrip(PUNCTUATION), count=1)
    bare = line.rstrip(PUNCTUATION)
    corrected = _correction_strip(bare)
    if corrected != bare or (bare.endswith("呢") and not any(w in line for w in ASKING_ZH)):
        other = corrected.removesuffix("呢")
        if other.endswith("的") and asked.startswith("的"):
            other = other[:-1]
        return f"{other}{asked}" if person_split_zh(other)[0] else ""
    return ""


def _pronoun_resolved_zh(text: str, before: str) -> str:
    """"她电话多少来着？" after "我舅妈不是在青岛上班嘛" -> "我舅妈电话多少来着？"; "" when `text`
    has no 他 / 她 or `before` opens with nobody."""
    who = person_split_zh(before)[0]
    line = _ZH_THEN.sub("", text.lstrip(PUNCTUATION), count=1)
    pronoun = _PERSON_PRONOUN_ZH.search(line)
    return f"{line[:pronoun.start()]}{who}{line[pronoun.end():]}" if who and pronoun else ""


def _correction_strip(line: str) -> str:
    """"不对，我是说我表姐的" -> "我表姐的": what the correction names instead."""
    while opener := next((o for o in sorted(OPENERS_ZH, key=len, reverse=True)
                          if line.startswith(o)), ""):
        line = line[len(opener):].lstrip(PUNCTUATION)
    return line


def _resolved_en(text: str, before: str) -> str:
    found = _PRONOUN_EN.search(text)
    who = person_found_en(before, plural=found.group(1).lower() in PLURAL_PRONOUNS_EN
                          ) if found else ""
    return f"{text[:found.start()]}{who}{text[found.end():]}" if who else ""


def person_found_en(line: str, *, plural: bool) -> str:
    """The first person `line` names with a possessive ("my older sister Claire", "your kids",
    "your friend who works in chinatown"), one or many as `plural` asks; "" when none."""
    words = list(_WORD_SPAN.finditer(line))
    for i, word in enumerate(words):
        if word.group(0).lower() not in POSSESSIVES_EN:
            continue
        for person in words[i + 1:i + 1 + PERSON_LOOK_AHEAD]:
            said = person.group(0).lower()
            if said in PLURAL_EN if plural else said in PEOPLE_EN and said not in PLURAL_EN:
                end = person.end()
                after = line[end:]
                named = re.match(r"\s+[A-Z][a-z]+\b", after)
                if named and named.group(0).strip() != "I":
                    end += named.end()
                clause = _CLAUSE.match(line[end:])
                return line[word.start():end + (clause.end() if clause else 0)]
    return ""
