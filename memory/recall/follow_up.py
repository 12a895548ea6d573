"""A player's line that leans on the one before it: "Where did she live again?" after a line
about the player's grandmother, "And did you get accepted?",
"那我上司呢？" after "我表弟生日是几号？",
"no, I mean the cat you got later". Searched alone it names too little (or the wrong half of
what is asked), so its search also carries the player's line before it. A line that names
nothing and points at nothing ("How are you doing today?") is small talk, not a follow-up.

Framework-free and pure: what leans is read from the grammar of the line (an opening "and",
"no", "what about", 那, 不对; a pronoun with next to nothing and nobody named), never
from what the chat is about.
"""

from __future__ import annotations

import re

from memory.recall.floor import content_words
from memory.recall.queries import PUNCTUATION, query_extract

# Openings that continue or correct the turn before ("And her birthday?", "No, the other dog",
# "What about Tom?"); 那 only as "then" (那他呢), never as "that" (那个/那天/那家…).
OPENERS_EN = ("and", "what about", "how about", "no", "nope", "not that", "not the",
              "i mean", "i meant")
OPENERS_ZH = ("不对", "不是", "我是说", "我说的是", "我是问", "我问的是")
_ZH_THEN = re.compile(r"^那(?![个位天次时家里边些样种件条只本张儿会阵])")
PRONOUNS_EN = frozenset("he she him her his hers it its they them their theirs".split())
PRONOUNS_ZH = ("他", "她", "它")
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

__all__ = ["follow_up_carried", "leans_on_before"]


def leans_on_before(text: str) -> bool:
    """Whether the player's line `text` (a question or a correction) leans on the line before."""
    line = text.strip().lstrip(PUNCTUATION)
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
    named = content_words(asked)
    return (bool(PRONOUNS_EN & set(_WORD.findall(lowered))) and len(named) <= FEW_WORDS
            and not _someone_named(line))


def _someone_named(line: str) -> bool:
    """A name after the first word ("What does Melanie do with her family?"): the pronoun
    points at it, not at the line before."""
    return any(word[:1].isupper() and word.strip(PUNCTUATION) not in ("I", "I'm", "I've", "I'd",
                                                                     "I'll")
               for word in line.split()[1:])


def follow_up_carried(text: str, before: str) -> str:
    """The search for `text` with the player's line `before` it carried, as one question
    (its question marks dropped so the two are searched together); "" when `text` does not
    lean on it or there is nothing before."""
    before = " ".join(before.split())[-CARRIED_CHARS:]
    if not before or not leans_on_before(text):
        return ""
    return f"{before.replace('?', ' ').replace('？', '，')} {text.strip()}"
