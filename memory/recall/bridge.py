"""The second hop of a conditional question ("那个[是工程师]的人，[电话]是多少"): the line that
matched the condition names the thing the answer is about, and what is asked is searched
together with that name (memory/recall/rag.py part_search)."""

from __future__ import annotations

import re

from memory.keyword_index.stated import PEOPLE_ZH
from memory.recall.queries import PUNCTUATION

# The second hop of a conditional question adds the start of the first hop's line: a statement
# names its subject early, and a long reply would make the second search as slow as its length.
BRIDGE_MAX_CHARS = 60
BRIDGE_SCAN_CHARS = 400  # of a long line, the start: the bridge is its first BRIDGE_MAX_CHARS
BRIDGE_MAX_WORDS = 12
BRIDGE_HEAD_CHARS = 20  # how far into a Chinese line its first 的 may end the name it opens with
_PRONOUNS_ZH = "我你他她们"
# Of the lines the condition found first, these are read for the one of the kind the question
# names (bridge_chosen).
BRIDGE_CHOICES = 12
KIND_MAX_CHARS = 4  # a kind named before the question's comma: 读书会, 盛宴, 研讨会
_KIND_ZH = re.compile(r"([\u3400-\u9fff]{1,%d})[，,]" % KIND_MAX_CHARS)
_CLAUSE_MARKS = "，,。.！!？?；;：: "


def bridge_chosen(lines: list[str], condition: str, asked: str) -> str:
    """The bridge (bridge_words) of the first of `lines`, the condition's hits best first, or
    of the first whose name shares the most characters with the kind of thing `asked` opens
    with: "…集邮的人凑一块儿聊邮票背后故事的读书会，前后得搞多久" asks of a 读书会, and
    "邮票故事阅读会…" is its bridge though the condition's words found "邮旅探索之旅…体验邮票背后的
    文化故事" first."""
    kind = _KIND_ZH.match(asked.strip())
    bridges = [bridge_words(line, condition) for line in lines[:BRIDGE_CHOICES if kind else 1]]
    if not bridges or kind is None:
        return bridges[0] if bridges else ""
    shared = [len(set(kind.group(1)) & set(bridge)) for bridge in bridges]
    return bridges[shared.index(max(shared))]


def bridge_words(line: str, condition: str) -> str:
    """What the line matching a condition says of the thing it is about: the name it opens
    with ("我表姐的电话号码是18424143177" -> "我表姐"), else the line less the condition ("我的
    上司是个工程师" with condition "是工程师" -> "我的上司是个")."""
    if condition.isascii():
        used = set(condition.lower().split())
        kept = [word for word in line.split() if word.lower().strip(".,!?") not in used]
        return " ".join(kept[:BRIDGE_MAX_WORDS])
    scanned = line[:BRIDGE_SCAN_CHARS]
    # The words before the line's first 的 name what it is about ("建筑技艺交流盛宴的主要内容是…",
    # "我表姐的电话号码是…"): they are the bridge, whole, though the condition shares a part of
    # the name (交流); the rest of such a line tells the condition again in other words.
    head = scanned[:max(scanned.find("的", 0, BRIDGE_HEAD_CHARS), 0)].strip(PUNCTUATION)
    if _names(head):
        return head
    return _without_shared(scanned, condition).strip()[:BRIDGE_MAX_CHARS]


def _without_shared(line: str, condition: str) -> str:
    """`line` without the runs of two or more characters it shares with `condition`, the
    longest first, each run of the condition used once: "美食创新会的主要内容是…聚焦餐饮创新" for
    "大厨们凑一块儿聊餐饮创新" keeps the event's name (dropping every shared character made it
    "美食会")."""
    for size in range(len(condition), 1, -1):
        start = 0
        while start + size <= len(condition):
            run = condition[start:start + size]
            if "\0" not in run and run in line:
                line = line.replace(run, "")
                condition = f"{condition[:start]}\0{condition[start + size:]}"
            start += 1
    return line


def _names(head: str) -> bool:
    """Whether the words before a line's first 的 are a name: a thing's ("建筑技艺交流盛宴") or a
    person's ("我表姐"), not one character ("我的上司是…"), a clause ("我表弟今年28岁，他的…") or
    what the speaker did ("我将要参加的美食节…")."""
    if len(head) < 2 or any(mark in head for mark in _CLAUSE_MARKS):
        return False
    person = head.lstrip(_PRONOUNS_ZH)
    return person == head or person.startswith(PEOPLE_ZH)
