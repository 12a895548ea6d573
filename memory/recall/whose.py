"""Whose fact a line tells. "我老家在哪？" and "what's my job?" ask for the asker's own fact;
"我上司的老家是江苏苏州" and "his job at the bank" hold the question's word but tell another
person's, and the keyword side ranked them above "我出生在成都" (which holds only a word a
statement says instead, memory/keyword_index/said_instead.py). A line whose every word of the
asked kind belongs to someone else ("X的老家", "他老家", "your job", "Mel's job") is ranked as if
it held a statement's word only.

Framework-free and pure: the owner is read from the words right before the kind's word (a
possessive 的, a pronoun, "'s"), never from who the chat is about.
"""

from __future__ import annotations

import re

from memory.keyword_index.said_instead import kinds_asked
from memory.keyword_index.stated import PEOPLE_ZH, PERSONS_ZH, stated

__all__ = ["asked_of_asker", "person_asked_zh", "told_before", "told_by_asker",
           "told_of_another", "told_of_other_person_zh", "told_without_word"]

# Words right before the kind's word that make it someone else's.
OTHERS_EN = frozenset("your his her their its".split())
MINE_EN = frozenset("my our".split())
OTHERS_ZH = ("他", "她", "它", "你", "您")
YOURS_EN = frozenset({"your"})
YOURS_ZH = ("你", "您")
# A line said to the player names them: "you", "你" anywhere in it.
_ADDRESSED = re.compile(r"(?<![a-z'’])(?:you|your|yours|u|ur)(?![a-z])|[你您]")
MINE_ZH = ("我", "我的", "我们", "我们的", "咱", "咱们", "咱们的", "俺")
# The people one's own words speak of: "my sister works at…", "我上司上班的地方…", "我表姐老家…"
# tell the sister's, the boss's, the cousin's. Kin, partners and the people of work and school
# (PEOPLE_ZH: memory/keyword_index/said_instead.py, where an age is asked of them).
PEOPLE_EN = frozenset("""
boss friend friends sister brother sibling mom mum dad mother father parents wife husband son
daughter kid kids child children cousin aunt uncle nephew niece grandma grandpa grandmother
grandfather partner girlfriend boyfriend fiance fiancee colleague coworker neighbor neighbour
roommate classmate teammate manager
""".split())
# What a question puts between 我 and the kind's word without naming anyone: "我在哪上班",
# "我是哪里人", "我是做什么工作的", "我今年多大", "我家的狗" (one's household is one's own).
_ASKING_ZH = frozenset("的是在哪儿里什么做干啥从今年家")
# "where's home": a question word's "'s" names nobody.
_ASKING_EN = frozenset("where's where’s what's what’s who's who’s how's how’s".split())
# A clause ends at these: "我的一个下属，他老家是…" is 他's.
_CLAUSE_END = "，,。.！!？?；;：:、\n"
LOOK_BACK = 12  # characters before a word read for its owner
LOOK_BACK_EN = 40  # an English word's: its owner and the verb before an article
NOUN_PHRASE_WORDS = 2  # English words before a word read for its owner
SCAN_CHARS = 2000  # of a line, the first characters are read
_WORD_EN = re.compile(r"[a-z]+(?:['’][a-z]+)?")
# Words that speak to the listener only to ask them to remember or tell.
_LISTENER_ASKED = re.compile(
    r"(?<![a-z])(?:(?:do|did|can|could|would|will)\s+)?(?:you|u)\s+(?:remember|recall|know|tell|"
    r"remind)(?![a-z])|(?<![a-z])(?:told|tell|remind|asked)\s+(?:you|u)(?![a-z])")
# An article before a noun speaks of one of a kind, not of the asker's own ("that black cat",
# "the office", "a cat or a dog"), unless a verb of having or being comes before it ("we
# adopted a tabby kitten", "I'm a nurse", "I work as a teacher").
_ARTICLES_EN = frozenset("a an the that this those these another any some".split())
_HAVING_EN = frozenset("""have has had got adopted own owned bought rescued am im i'm i’m was
been be became become as are we're we’re""".split())
# Kinds told only by whose the thing is or by having it ("my cat mochi", "we have a parakeet"):
# a pet's bare word in the asker's line speaks of the kind ("I wonder what cats are thinking").
# Keyed by the row's first key (said_table.SAID_INSTEAD).
_HAD_KINDS_EN = frozenset({"pet", "dog", "cat", "bird"})
# Kinds whose words after an article speak of one of a kind: "go to the office", "with a
# client" tell no job ("I'm a nurse", "got a job at" do: a verb of having or being).
_ONE_OF_A_KIND_EN = frozenset({"job"})
# "work" tells a job when a place, a role or whom it is for follows ("I work at a local IT
# company", "work weekends at a bookshop", "working as a nurse"); "go to work", "done with work",
# "work on some projects" speak of working, not of what the job is.
_WORK_TOLD_EN = re.compile(r"[a-z]*\s+(?:[a-z]+\s+)?(?:at|as|for|in|with)(?![a-z])")
# The asker as the subject: "I …", "we're …"; 我 / 我们 opening a clause, not "我的 X" / "我上司".
_I_EN = re.compile(r"(?<![a-z'’])(?:i|we|im|ive)(?:['’](?:m|re|ve|d|ll))?(?![a-z'’])")
_CJK = re.compile(r"[\u3400-\u9fff]")


def _before(text: str, start: int, look_back: int = LOOK_BACK) -> str:
    """The clause before position `start`, at most `look_back` characters."""
    window = text[max(0, start - look_back):start]
    cut = max(window.rfind(mark) for mark in _CLAUSE_END)
    return window[cut + 1:].strip()


def _owner(text: str, start: int, *, chinese: bool) -> str:
    """"mine", "yours", "other", "some" (one of a kind: "that cat"), "had" (had or been: "we
    have a parakeet", "I'm a nurse") or "" (not said) for the word at `start` of the
    lower-cased `text`, as its speaker says it."""
    before = _before(text, start, LOOK_BACK if chinese else LOOK_BACK_EN)
    if chinese:
        if before.endswith(YOURS_ZH):
            return "yours"
        if before.endswith(OTHERS_ZH) or (before.endswith("的") and not before.endswith(MINE_ZH)
                                          and "我" not in before):
            return "other"
        if "我" not in before and "咱" not in before:
            return ""
        said = before[max(before.rfind("我"), before.rfind("咱")) + 1:].lstrip("们的")
        if said.startswith(PEOPLE_ZH) or any(p in said for p in OTHERS_ZH):
            return "other"
        return "mine" if set(said) <= _ASKING_ZH else ""
    # The owner may stand a word further back: "our golden retriever", "my dad's old car".
    words = _WORD_EN.findall(before)
    for at in range(len(words) - 1, max(len(words) - NOUN_PHRASE_WORDS, 0) - 1, -1):
        word = words[at]
        if word in MINE_EN:
            return "mine"
        if word in YOURS_EN:
            return "yours"
        if word in OTHERS_EN or word in PEOPLE_EN or word.endswith(("'s", "’s")):
            return "other"
        if word in _ARTICLES_EN:
            return "had" if at > 0 and words[at - 1] in _HAVING_EN else "some"
    return ""


def _places(text: str, word: str) -> list[int]:
    """Where `word` starts in `text` (an English word at a word's start)."""
    places, at = [], text.find(word)
    while at >= 0:
        if not word.isascii() or at == 0 or not text[at - 1].isalpha():
            places.append(at)
        at = text.find(word, at + 1)
    return places


def asked_of_asker(question: str) -> tuple[str, ...]:
    """The words of the kind of fact `question` asks about the asker's own life ("我老家在哪？",
    "what do I do for work?"); () when it asks of someone else ("我上司老家是哪儿的？", "what
    does my partner do for a living?": the partner's job), or names no kind."""
    text = question.lower()[:SCAN_CHARS]
    kinds = [(key, words, _owner(text, text.find(key), chinese=bool(_CJK.search(key))))
             for key, words in kinds_asked(text)]
    mine = [words for _, words, owner in kinds if owner == "mine"]
    if any(owner in ("other", "yours") for *_, owner in kinds) or len(mine) > 1:
        return ()
    if mine:
        return mine[0]
    english = [(key, words) for key, words, _ in kinds if not _CJK.search(key)]
    if len(kinds) != 1 or not english:
        return ()
    # "what do I do for work?", "what kind of work do I do?", "where's home for me?": the asker
    # is the subject or the one it is for, and nobody is named.
    _, words = english[0]
    said = _WORD_EN.findall(text)
    # "you" names the character ("what time do u wake up for work? no i mean…"), except in
    # the words that only ask to remember.
    spoken = _WORD_EN.findall(_LISTENER_ASKED.sub(" ", text))
    named = [w for w in said if w in OTHERS_EN or w in MINE_EN or w in PEOPLE_EN
             or (w.endswith(("'s", "’s")) and w not in _ASKING_EN)]
    named += [w for w in spoken if w in ("you", "u")]
    return words if ("i" in said or "me" in said) and not named else ()


def told_of_another(line: str, words: tuple[str, ...], *, by_asker: bool = True) -> bool:
    """Whether every word of the kind in `line` is someone else's ("我上司的老家是江苏苏州",
    "his job at the bank"); False when it holds none. A line the asker did not say
    (`by_asker` False: the character's) tells its speaker's own fact by "my" / "I" / 我, and
    the asker's by "your" / 你: "Because I work as a teacher…" is the character's job, "your
    job at the bank" the player's; a word nobody owns is its speaker's unless the line speaks
    to the player."""
    text = line.lower()[:SCAN_CHARS]
    held = False
    addressed = not by_asker and bool(_ADDRESSED.search(text))
    for word in words:
        if word not in text:
            continue
        for at in _places(text, word):
            if _heard(_owner(text, at, chinese=not word.isascii()), by_asker=by_asker,
                      addressed=addressed) != "other":
                return False
            held = True
    return held


def _heard(owner: str, *, by_asker: bool, addressed: bool) -> str:
    """`owner` as the speaker said it, turned to whose it is for the asker."""
    if owner == "had" or (owner == "some" and not by_asker):
        owner = ""
    if by_asker:
        return "other" if owner == "yours" else owner
    return {"mine": "other", "yours": "mine", "": "" if addressed else "other"}.get(owner, owner)


def told_by_asker(line: str, words: tuple[str, ...], *, by_asker: bool = True) -> bool:
    """Whether `line` tells the asker's own fact of the kind: a word of it not someone else's,
    in a line where the asker speaks of themselves ("I work at a local IT company",
    "我在社区医院当药剂师", the asker's line) or the character speaks of the asker ("your job
    at the bank"), or the asker tells it without such a word (stated.STATED). The mirror
    of told_of_another."""
    text = line.lower()[:SCAN_CHARS]
    addressed = not by_asker and bool(_ADDRESSED.search(text))
    owners = {_heard(_told(text, at, word, words, by_asker=by_asker), by_asker=by_asker,
                     addressed=addressed)
              for word in words if word in text for at in _places(text, word)}
    if "mine" in owners:
        return True
    # "我在青岛一家酒店掌勺", "im 24 btw": the fact told without a word of its kind.
    return by_asker and ("" in owners or stated(text, words)) and _asker_speaks(text)


def told_without_word(line: str, words: tuple[str, ...]) -> bool:
    """Whether the asker's `line` tells the fact of the kind with no word of it, the way
    stated.STATED reads it ("I pour drinks at a bar downtown", "我在一家面包店做烘焙"):
    the keyword side finds nothing in it."""
    text = line.lower()[:SCAN_CHARS]
    return (not any(_places(text, word) for word in words) and stated(text, words)
            and _asker_speaks(text))


def _told(text: str, at: int, word: str, words: tuple[str, ...], *, by_asker: bool) -> str:
    """The owner of `word` at `at` as a telling of the asker's fact: an English word nobody
    owns tells it only where the asker's line could ("I work at…", not "go to work"; "we have a
    cat", not "cats are weird")."""
    owner = _owner(text, at, chinese=not word.isascii())
    if not by_asker or not word.isascii():
        return owner
    if words[0] in _HAD_KINDS_EN:
        return "some" if owner == "" else owner
    if owner == "some" and words[0] not in _ONE_OF_A_KIND_EN:
        owner = ""  # "planning a trip": an event is not had
    if owner == "" and word == "work" and not _WORK_TOLD_EN.match(text, at + len(word)):
        return "some"
    return owner


def _asker_speaks(text: str) -> bool:
    """Whether the asker is the subject of a clause of the lower-cased `text`."""
    if _I_EN.search(text):
        return True
    clauses = [clause.strip() for clause in re.split(f"[{re.escape(_CLAUSE_END)}]", text)]
    return any(clause.startswith("我") and not clause.removeprefix("我").removeprefix(
        "们").startswith(("的", *PEOPLE_ZH)) for clause in clauses)


def told_before(line: str, context: list[str], words: tuple[str, ...]) -> bool:
    """Whether `line` holds no word of the kind and a line of its `context` (the lines the
    keyword side scores it with) tells another person's: "我上司的身高是171厘米" after
    "我上司的老家是江苏苏州" matched 老家 through it."""
    text = line.lower()[:SCAN_CHARS]
    if any(_places(text, word) for word in words):
        return False
    return any(told_of_another(before, words) for before in context)


# A person the asker names, in a run of PEOPLE_ZH words after 我 / 我的 or opening the text
# ("我叔叔的邮箱", "我的下属的邮箱", "表哥的生日"): 表 and 堂 only start one ("我表格里").
_PERSONS_ALT_ZH = "|".join(sorted(map(re.escape, PEOPLE_ZH), key=len, reverse=True))
_PERSON_RUN_ZH = re.compile(
    f"(?:^|(?<=我的)|(?<=我们的)|(?<=俺的)|(?<=[我俺咱]))((?:{_PERSONS_ALT_ZH})+)")
_OPENERS_ZH = "|".join(sorted((*MINE_ZH, "俺的"), key=len, reverse=True))
_LINE_PERSON_ZH = re.compile(f"^(?:{_OPENERS_ZH})?((?:{_PERSONS_ALT_ZH})+)")
# Words for one person: "我父亲的电话" asks of the one "我爸的电话" tells of.
_SAME_PERSON_ZH = ({"爸", "父"}, {"妈", "母"}, {"老公", "丈夫", "对象", "男朋友", "男友"},
                   {"老婆", "妻子", "对象", "女朋友", "女友"}, {"上司", "领导", "老板"},
                   {"下属", "手下", "员工"}, {"孩子", "儿子", "女儿"})


def person_asked_zh(question: str) -> str:
    """The person a Chinese question asks of ("我叔叔的邮箱是啥？" -> "叔叔", "表哥生日是哪天" ->
    "表哥"); "" when it names none, or more than one ("我表哥和我叔叔谁大")."""
    runs = {run for run in _PERSON_RUN_ZH.findall(question.strip()[:SCAN_CHARS])
            if run not in ("表", "堂")}
    return runs.pop() if len(runs) == 1 else ""


def told_of_other_person_zh(line: str, person: str) -> bool:
    """Whether `line` tells of one of the asker's people who is not `person`: it opens with
    another ("我同事的邮箱是…" for "我叔叔的邮箱是啥？") and names no word of `person`, nor
    another word for them (爸 / 父亲): "我爸爸" is "我爸". Runs that share a character ("表哥",
    "表姐") are taken for one person: a line lowered wrongly loses its answer."""
    found = _LINE_PERSON_ZH.match(line[:SCAN_CHARS].strip())
    if not person or found is None or found.group(1) in ("表", "堂"):
        return False
    told, head = found.group(1), line[:SCAN_CHARS]
    words = [word for word in PERSONS_ZH if word in person]
    return not (set(told) & set(person) or any(word in head for word in words) or any(
        any(word in head for word in same) and any(word in person for word in same)
        for same in _SAME_PERSON_ZH))
