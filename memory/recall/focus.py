"""What a recall question says besides its words: when ("in May 2023", "last week", "上个月") and
whom ("What did Melanie paint…"). Framework-free and pure.

A question's time expression becomes a window of dates; lines whose session date falls in it
are preferred, because the words of "What did Maria donate in December 2023?" match every
donation she ever mentioned. A question that names some of the conversation's speakers prefers
their lines. Both are preferences added to the fused score, never filters: a line told a week
after the event, or by the other speaker, still ranks on its words.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from memory.keyword_index.bm25 import speaker_name
from memory.recall.feedback import Key
from memory.recall.speaker_names import SpeakerNames
from memory.vectors.index import Hit

SCAN_CHARS = 4000  # of a question, the first characters are read for a turn to the listener

MONTHS = {name.lower(): number for number, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): number for number, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
WEEKDAYS = {name.lower(): number for number, name in enumerate(calendar.day_name)}
# People tell what happened on a day that day or within the week after ("yesterday I…").
TOLD_AFTER = timedelta(days=7)
# "before D" asks about the time just before D, as the conversation told it then.
BEFORE_SPAN = timedelta(days=14)

_MONTH = r"(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_EN_DATES = [
    re.compile(rf"\b{_MONTH}\s+{_DAY}(?:,\s*|\s+){_YEAR}\b", re.I),            # May 23, 2023
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b", re.I),         # 17th of January, 2024
    re.compile(r"\b(?P<day>[0-3]?\d)\.(?P<month>[01]?\d)\.(?P<year>(?:19|20)\d\d)\b"),  # 19.01.2024
    re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>[01]\d)-(?P<day>[0-3]\d)\b"),      # 2024-01-19
]
_EN_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+{_YEAR}\b", re.I)
_EN_MONTH = re.compile(rf"\b(?:in|during|since|of|early|late|mid)\s+{_MONTH}\b(?!\s+\d)", re.I)
_EN_YEAR = re.compile(rf"\b(?:in|during|of)\s+{_YEAR}\b", re.I)
_EN_AGO = re.compile(r"\b(?P<count>\d{1,6}|a|an|one|two|three|four|five|six|a few|few|several|"
                     r"a couple of|a couple|couple of|couple)\s+"
                     r"(?P<unit>day|week|month|year)s?\s+(?:ago|back)\b", re.I)
# "the other day", "the day before yesterday": days the question does not count exactly.
_EN_OTHER_DAY = re.compile(r"\bthe other (?:day|night)\b", re.I)
_EN_DAY_BEFORE_YESTERDAY = re.compile(r"\bthe day before yesterday\b", re.I)
_EN_YESTERDAY = re.compile(r"\byesterday\b", re.I)
_EN_LAST = re.compile(r"\b(?P<which>last|this|past)\s+(?P<unit>week|weekend|month|year|night|"
                      + "|".join(WEEKDAYS) + r")\b", re.I)
_EN_BEFORE = re.compile(r"\bbefore\s*$", re.I)
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
           "a few": 3, "few": 3, "several": 3, "a couple of": 2, "a couple": 2, "couple of": 2,
           "couple": 2}
VAGUE_COUNTS = {"a few", "few", "several", "a couple of", "a couple", "couple of", "couple"}
# Some days back, not counted ("the other day", 前几天): the week before the day asked.
SOME_DAYS_BACK = (7, 1)

MAX_AGO_DAYS = 200 * 365  # a chat's memory goes back no further
# At most 9 characters: a search tried each character of a long run and read the run to its
# end from each (20,000 of 一 in a player's line: 4.7 s of recall, holding the interpreter).
_ZH_NUMBER = r"(?P<n>[0-9一二两三四五六七八九十]{1,9})"
_ZH_DATE = re.compile(r"(?:(?P<year>(?:19|20)\d\d)年)?(?P<month>[01]?\d)月(?:(?P<day>[0-3]?\d)[日号])?")
# Days back (first, last); the longest word is looked for first (大前天 holds 前天).
_ZH_RELATIVE = {"昨天": (1, 1), "昨晚": (1, 1), "前天": (2, 2), "大前天": (3, 3), "今天": (0, 0),
                "前两天": (3, 1), "前几天": SOME_DAYS_BACK, "几天前": SOME_DAYS_BACK,
                "前些天": SOME_DAYS_BACK, "前些日子": SOME_DAYS_BACK}
_ZH_AGO = re.compile(_ZH_NUMBER + r"(?P<unit>天|周|个?星期|个?礼拜|个?月|年)(?:以)?前")
_ZH_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九")} | {"两": 2}


@dataclass(frozen=True)
class TimeWindow:
    """Dates from `start` to `end` (inclusive); with `month` and no year, that month of any year."""
    start: date | None = None
    end: date | None = None
    month: int | None = None

    def holds(self, day: date) -> bool:
        if self.month is not None:
            return day.month == self.month
        return (self.start is None or day >= self.start) and (self.end is None or day <= self.end)


@dataclass(frozen=True)
class QuestionFocus:
    window: TimeWindow | None = None
    words: tuple[str, ...] = ()  # the question's capitalised words (names, as written)
    listener: bool = False  # the question turns to the listener's own (_LISTENER_TURN)


# Preferences added to the fused score (which lies in 0..1) of a line from the time the question
# names, and of a line by a speaker it names or by the listener it turns to.
DATE_BONUS = 0.2
SPEAKER_BONUS = 0.3

# A correction or follow-up that turns the question from the player to the one they talk to
# ("who'd i wanna swap lives with?" then "nah i mean u, who'd u trade places with", "no wait, I
# mean you, which one's yours?", "and what about you?", "不是，我问的是你", "那你呢？"): the answer
# is the character's own, told in the character's lines, while the line before carried with it
# drew the player's (rank 22 and 7 in bench/recall_talk.py). Not "and you told me…": that asks
# what was said.
_LISTENER_TURN = re.compile(
    r"(?<![a-z'’])(?:i\s+meant?|what\s+about|how\s+about|and)\s+(?:you|u|yours|urs|your\s+one|"
    r"ur\s+one)(?![a-z'’])(?!\s+(?:told|said|mentioned|remember|know|think|tell|asked)\b)"
    r"|我(?:问|说)的是你", re.IGNORECASE)
_CLAUSE_ENDS = "，,。！!？?；; \t\n"


def focus_read(question: str, *, now: date | None = None) -> QuestionFocus:
    return QuestionFocus(window=time_window(question, now=now),
                         words=tuple(re.findall(r"\b[A-Z][a-zA-Z'-]+", question)),
                         listener=turned_to_listener(question[:SCAN_CHARS]))


def turned_to_listener(question: str) -> bool:
    """_LISTENER_TURN, or a message ending in "(那)你呢？" alone in its clause."""
    if _LISTENER_TURN.search(question):
        return True
    tail = question.rstrip(_CLAUSE_ENDS)
    before = tail[:-2].removesuffix("那")
    return tail.endswith("你呢") and (not before or before[-1] in _CLAUSE_ENDS)


def focus_prefer(fused: dict[Key, float], hits: dict[Key, Hit], *, window: TimeWindow | None,
                 speakers: set[str], listener: bool = False) -> dict[Key, float]:
    """Fused scores with the question's preferences added: lines of the time it names, lines
    of the speakers it names or, when it turns to the listener, the characters' lines."""
    preferred = {}
    for key, score in fused.items():
        hit = hits.get(key)
        if hit is not None and _hit_in_window(hit, window):
            score += DATE_BONUS
        if hit is not None and ((speakers and speaker_name(hit.metadata) in speakers)
                                or (listener and hit.metadata.get("role") == "assistant")):
            score += SPEAKER_BONUS
        preferred[key] = score
    return preferred


def _hit_in_window(hit: Hit, window: TimeWindow | None) -> bool:
    if window is None or hit.collection != "turns":
        return False
    day = timestamp_day(str(hit.metadata.get("timestamp") or ""))
    return day is not None and window.holds(day)


# --- when ----------------------------------------------------------------------------------


def time_window(question: str, *, now: date | None = None) -> TimeWindow | None:
    """The dates a question's time expression points at, or None. Relative expressions ("last
    week", "上个月") need `now`, the day the question is asked."""
    for find in (_en_date, _en_month_year, _zh_date, _en_year, _en_month):
        window = find(question)
        if window is not None:
            return window
    if now is None:
        return None
    for find in (_en_relative, _zh_relative):
        window = find(question, now)
        if window is not None:
            return window
    return None


def _day_window(question: str, at: int, day: date) -> TimeWindow:
    if _EN_BEFORE.search(question[:at]) or question[:at].rstrip().endswith(("之前", "以前")):
        return TimeWindow(day - BEFORE_SPAN, day)
    return TimeWindow(day, day + TOLD_AFTER)


def _date_make(year: str, month: str, day: str) -> date | None:
    number = MONTHS.get(month.lower().rstrip(".")) if not month.isdigit() else int(month)
    try:
        return date(int(year), number or 0, int(day))
    except ValueError:
        return None


def _en_date(question: str) -> TimeWindow | None:
    for pattern in _EN_DATES:
        found = pattern.search(question)
        if found:
            day = _date_make(found["year"], found["month"], found["day"])
            if day is not None:
                return _day_window(question, found.start(), day)
    return None


def _month_window(year: int, month: int) -> TimeWindow:
    last = calendar.monthrange(year, month)[1]
    return TimeWindow(date(year, month, 1), date(year, month, last) + TOLD_AFTER)


def _en_month_year(question: str) -> TimeWindow | None:
    found = _EN_MONTH_YEAR.search(question)
    if not found:
        return None
    return _month_window(int(found["year"]), MONTHS[found["month"].lower().rstrip(".")])


def _en_month(question: str) -> TimeWindow | None:
    found = _EN_MONTH.search(question)
    if not found:
        return None
    return TimeWindow(month=MONTHS[found["month"].lower().rstrip(".")])


def _en_year(question: str) -> TimeWindow | None:
    found = _EN_YEAR.search(question)
    if not found:
        return None
    year = int(found["year"])
    return TimeWindow(date(year, 1, 1), date(year, 12, 31) + TOLD_AFTER)


def _zh_date(question: str) -> TimeWindow | None:
    found = _ZH_DATE.search(question)
    if not found or not 1 <= int(found["month"]) <= 12:
        return None
    year, month = found["year"], int(found["month"])
    if found["day"]:
        if year:
            day = _date_make(year, str(month), found["day"])
            return _day_window(question, found.start(), day) if day else None
        return None  # a birthday-like "06月05日" names a day of any year, not when it was said
    return _month_window(int(year), month) if year else TimeWindow(month=month)


def _week_start(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _en_relative(question: str, now: date) -> TimeWindow | None:
    if _EN_DAY_BEFORE_YESTERDAY.search(question):
        return TimeWindow(now - timedelta(days=2), now - timedelta(days=2))
    if _EN_OTHER_DAY.search(question):
        return _days_back(now, *SOME_DAYS_BACK)
    if _EN_YESTERDAY.search(question):
        return TimeWindow(now - timedelta(days=1), now - timedelta(days=1))
    if re.search(r"\btoday\b|\btonight\b", question, re.I):
        return TimeWindow(now, now)
    found = _EN_AGO.search(question)
    if found:
        count = _COUNTS.get(found["count"].lower()) or int(found["count"])
        vague = found["count"].lower() in VAGUE_COUNTS
        return _ago_window(now, count, found["unit"].lower(), vague=vague)
    found = _EN_LAST.search(question)
    if found:
        return _last_window(now, found["which"].lower(), found["unit"].lower())
    return None


def _ago_window(now: date, count: int, unit: str, *,
                vague: bool = False) -> TimeWindow | None:
    """None past MAX_AGO_DAYS: "3000 years ago" fell before the calendar's first day and
    "99999999999 days ago" past what a date can count (the player's turn answered 500)."""
    length = {"day": 1, "week": 7, "month": 30, "year": 365}[unit]
    if (count + 1) * length > MAX_AGO_DAYS:
        return None
    if vague:  # "a couple of weeks ago" is said of 10 days as of 20: a unit either side
        return TimeWindow(now - timedelta(days=(count + 1) * length),
                          now - timedelta(days=max(1, (count - 1) * length)))
    days = length * count
    slack = max(1, days // 4)
    return TimeWindow(now - timedelta(days=days + slack), now - timedelta(days=max(0, days - slack)))


def _last_window(now: date, which: str, unit: str) -> TimeWindow:
    back = which != "this"
    if unit in ("week", "weekend"):
        start = _week_start(now) - (timedelta(days=7) if back else timedelta(0))
        if unit == "weekend":
            start += timedelta(days=5)
            return TimeWindow(start, start + timedelta(days=1) + TOLD_AFTER)
        return TimeWindow(start, start + timedelta(days=6) + (TOLD_AFTER if back else timedelta(0)))
    if unit == "month":
        year, month = (now.year, now.month) if not back else (
            (now.year - 1, 12) if now.month == 1 else (now.year, now.month - 1))
        return _month_window(year, month)
    if unit == "year":
        year = now.year - 1 if back else now.year
        return TimeWindow(date(year, 1, 1), date(year, 12, 31) + TOLD_AFTER)
    if unit == "night":
        return TimeWindow(now - timedelta(days=1), now)
    days_back = (now.weekday() - WEEKDAYS[unit]) % 7 or 7
    day = now - timedelta(days=days_back)
    return TimeWindow(day, day + TOLD_AFTER)


_ZH_LAST = ("上周末", "上周", "上个星期", "上星期", "上个礼拜", "上礼拜", "这周", "本周", "这个星期",
            "这星期", "上个月", "上月", "这个月", "本月", "去年", "今年")


def time_words_strip(text: str) -> str:
    """`text` without the relative time phrases `time_window` reads ("a couple of weeks ago",
    "the other day", "yesterday", "三天前", "前几天"): the window prefers the days they name,
    while as searched words they pulled up lines that say "weeks" or "days"."""
    for pattern in (_EN_DAY_BEFORE_YESTERDAY, _EN_OTHER_DAY, _EN_AGO, _EN_LAST, _EN_YESTERDAY,
                    _ZH_AGO):
        text = pattern.sub(" ", text)
    for word in sorted([*_ZH_RELATIVE, *_ZH_LAST], key=len, reverse=True):
        text = text.replace(word, " ")
    return text


def _zh_count(text: str) -> int:
    if text.isdigit():
        return int(text) if len(text) <= 9 else 10**9  # int() refuses 4,300 digits
    if text.startswith("十"):
        return 10 + _ZH_DIGITS.get(text[1:], 0) if len(text) > 1 else 10
    if "十" in text:
        tens, _, ones = text.partition("十")
        return _ZH_DIGITS.get(tens, 1) * 10 + (_ZH_DIGITS.get(ones, 0) if ones else 0)
    return _ZH_DIGITS.get(text, 1)


def _days_back(now: date, first: int, last: int) -> TimeWindow:
    return TimeWindow(now - timedelta(days=first), now - timedelta(days=last))


def _zh_relative(question: str, now: date) -> TimeWindow | None:
    for word in sorted(_ZH_RELATIVE, key=len, reverse=True):
        if word in question:
            return _days_back(now, *_ZH_RELATIVE[word])
    found = _ZH_AGO.search(question)
    if found:
        unit = {"天": "day", "周": "week", "月": "month", "年": "year"}.get(
            found["unit"][-1], "week")
        return _ago_window(now, _zh_count(found["n"]), unit)
    for words, which, unit in ((("上周末",), "last", "weekend"),
                               (("上周", "上个星期", "上星期", "上个礼拜", "上礼拜"), "last", "week"),
                               (("这周", "本周", "这个星期", "这星期"), "this", "week"),
                               (("上个月", "上月"), "last", "month"),
                               (("这个月", "本月"), "this", "month"),
                               (("去年",), "last", "year"), (("今年",), "this", "year")):
        if any(word in question for word in words):
            return _last_window(now, which, unit)
    return None


def timestamp_day(timestamp: str) -> date | None:
    """The day of an ISO 8601 timestamp as the app stores it ("2023-05-08T13:56:00Z")."""
    try:
        return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).date()
    except (ValueError, AttributeError):
        return None


# --- whom ----------------------------------------------------------------------------------


def speakers_named(words: tuple[str, ...], speakers: set[str]) -> set[str]:
    """The speakers a question names by a part of their name, spelled closely enough
    ("Muhammad" for "Muhhamed", "Mel" for "Melanie"); empty when it names none or all of them
    (then their lines are equal)."""
    names = SpeakerNames(speakers)
    named = {speaker for word in dict.fromkeys(words) for speaker in names.named_by(word)
             if speaker}
    return named if named != {s for s in speakers if s} else set()


def names_strip(query: str, speakers: set[str]) -> str:
    """`query` without the words that name one of the speakers ("What are Fahim's hobbies" ->
    "What are hobbies"); the query itself when nothing else would be left. Whose line it is
    is the speaker preference's business: a name in the searched text pulls up every line
    that says it, and every line the named speaker said, whatever its topic."""
    names = SpeakerNames(speaker for speaker in speakers if speaker)
    kept = [word for word in query.split()
            if not (word[:1].isupper() and names.named_by(word.strip(_NAME_EDGES)))]
    stripped = " ".join(kept)
    return stripped if stripped.strip(_NAME_EDGES + " ") else query


_NAME_EDGES = "?？!！.,;:\"'`“”‘’()"
