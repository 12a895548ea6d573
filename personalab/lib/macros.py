"""SillyTavern-style macros in text a user wrote (cards, personas, lore, notes, messages).

Framework-free. `macros_replace` is the only thing author text ever goes through: it swaps
`{{user}}`, `{{char}}`, `{{random:a,b}}`, `<USER>`... for their values in one linear pass and
leaves everything else, unknown macros included, exactly as written. Inserted values are not
scanned again, so a persona named "{{char}}" stays "{{char}}". Work and output are bounded:
macro names longer than MAX_MACRO_BODY are not macros, dice are capped, and once the output
would pass `max_chars` the remaining macros are left as written. `{{// comments}}` go first,
whatever their length and the braces in them (a second linear pass).
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from personalab.lib.macro_fills import KEPT_FROM_CHARS, macro_fill_keep, macro_fill_kept
from personalab.lib.macro_variables import MacroVariables, variable_macro
from personalab.lib.moment_format import moment_format
from personalab.lib.st_random import st_pick_index, st_string_hash, st_text_hash
from personalab.lib.time_zones import zone_named

MAX_MACRO_BODY = 1000
MAX_OUTPUT_CHARS = 1_000_000
# SillyTavern's own generator costs 0.2 ms a pick here: one text's first picks choose what
# SillyTavern chooses, those past them a cheaper draw (5,000 picks in one card took 1.5 s).
MAX_EXACT_PICKS = 200
MAX_DICE = 100
MAX_SIDES = 1_000_000
# Dice rolled in one text, all its {{roll}}s together; past it a {{roll}} stays as written. A
# shared card of 52,000 `{{roll:100d999999}}` rolled 5 million dice each time it was filled in,
# 4 s of CPU, several times in every turn of every chat with it.
MAX_DICE_PER_TEXT = 10_000
_TRIM = "\x00trim\x00"

MAX_NESTED = 50
# `[^{}]` keeps each attempt from running past the next brace: the scan stays linear.
# SillyTavern fills {{user}}, {{getvar::…}} and the rest before {{random}}, {{pick}} and
# {{reverse}}, so those three may hold macros one level deep: `{{random::{{user}}::{{char}}}}`.
MACRO = re.compile(
    r"\{\{(?:(?P<outer>(?:random|pick)\s?::?|reverse:)"
    r"(?P<nested>(?:[^{}]{0,%(body)d}\{\{[^{}]{0,%(body)d}\}\}){1,%(nested)d}[^{}]{0,%(body)d})"
    r"|(?P<body>[^{}]{0,%(body)d}))\}\}|<(?P<legacy>USER|BOT|CHARIFNOTGROUP|CHAR|GROUP)>"
    % {"body": MAX_MACRO_BODY, "nested": MAX_NESTED}, re.IGNORECASE)
INNER = re.compile(r"\{\{([^{}]{0,%d})\}\}" % MAX_MACRO_BODY)
BRACES = re.compile(r"\{\{|\}\}")
DICE = re.compile(r"^\s*(\d{0,3})\s*d\s*(\d{1,7})\s*(?:([+-])\s*(\d{1,7}))?\s*$", re.IGNORECASE)
# What SillyTavern's dice library (droll) takes: `2d6+1`, `d20`, no spaces, no 0 dice or sides.
ST_DICE = re.compile(r"(?:[1-9][0-9]{0,8})?d[1-9][0-9]{0,8}(?:[+-][0-9]{1,9})?", re.IGNORECASE)
# A body that reads only the values (`{{user}}`, `{{char}}`, `{{time}}`): its value is the same
# wherever it stands in one text, unlike {{original}} (given once), {{pick}}, {{roll}}, {{setvar}}.
# A card of 1 MB of `{{user}}` went through every rule for each of its 125,000 (0.35-0.65 s).
PLAIN_NAME = re.compile(r"\s*[A-Za-z0-9_]{1,100}\s*")
PICK = re.compile(r"pick\s?::?", re.IGNORECASE)
RANDOM = re.compile(r"random\s?::?", re.IGNORECASE)
TIME_UTC = re.compile(r"time_utc([-+]\d{1,4})", re.IGNORECASE)
# SillyTavern's {{banned "word"}}: a word its text-completion request bans, gone from the text.
BANNED = re.compile(r'banned "[^\r\n]*"', re.IGNORECASE)
LEGACY = {"user": "user", "bot": "char", "char": "char", "group": "group",
          "charifnotgroup": "charifnotgroup"}
# The values' key for the chat a {{pick}} is stable in (SillyTavern seeds it by the chat's id):
# braces keep any macro from naming it.
PICK_SEED = "{pick seed}"
# The values' key for the player's time zone (an IANA name; SillyTavern's clock macros read the
# browser's clock): {{time}}, {{date}}, {{datetimeformat}}... in it, the server's without one.
TIME_ZONE = "{time zone}"


def _now_values(now: datetime) -> dict[str, str]:
    return {
        "time": _clock_text(now),
        "date": f"{now:%B} {now.day}, {now.year}",
        "weekday": f"{now:%A}",
        "isotime": f"{now:%H:%M}",
        "isodate": f"{now:%Y-%m-%d}",
    }


def _now_in(now: datetime | None, zone: ZoneInfo | None) -> datetime:
    """`now` (the clock's when None) in the player's zone; without one, as given (the clock's in
    the server's zone)."""
    if zone is None:
        return now or datetime.now()
    return now.astimezone(zone) if now else datetime.now(zone)


def _clock_text(moment: datetime) -> str:
    """moment's `LT` in English: 2:05 PM."""
    return f"{moment.hour % 12 or 12}:{moment.minute:02d} {'AM' if moment.hour < 12 else 'PM'}"


def _utc_time(now: datetime, offset: str) -> str:
    """SillyTavern's {{time_UTC+2}}: the time at that offset from UTC (moment's utcOffset
    reads a number under 16 as hours, else as minutes)."""
    amount = int(offset)
    minutes = amount * 60 if abs(amount) < 16 else amount
    return _clock_text(now.astimezone(UTC) + timedelta(minutes=minutes))


def _moment_parsed(text: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.astimezone()  # moment reads it as local time


def _time_diff(arguments: str) -> str | None:
    """SillyTavern's {{timeDiff::a::b}}: how far a is from b in moment's words ("in 2 days",
    "3 hours ago"); dates moment reads as ISO 8601. Another form stays as written."""
    first, separator, second = arguments.partition("::")
    start, end = _moment_parsed(first), _moment_parsed(second)
    if not separator or start is None or end is None:
        return None
    seconds = (start - end).total_seconds()
    words = idle_duration_text(abs(seconds))
    return f"in {words}" if seconds > 0 else f"{words} ago"


def dice_roll(formula: str, rng: random.Random, *, dice_left: list[int] | None = None
              ) -> str | None:
    """'d6', '2d6+1' or '20' (one d20) rolled; None when it is not a bounded dice formula, or
    its dice are more than `dice_left` (one count, taken from as dice are rolled) still allows."""
    formula = formula.strip()
    if formula.isdigit():
        formula = f"d{formula}"
    found = DICE.match(formula)
    if not found:
        return None
    count, sides = int(found.group(1) or 1), int(found.group(2))
    if not (1 <= count <= MAX_DICE and 1 <= sides <= MAX_SIDES):
        return None
    if dice_left is not None:
        if count > dice_left[0]:
            return None
        dice_left[0] -= count
    total = sum(rng.randint(1, sides) for _ in range(count))
    if found.group(3):
        modifier = int(found.group(4))
        total += modifier if found.group(3) == "+" else -modifier
    return str(total)


def _roll_value(formula: str, rng: random.Random, dice_left: list[int]) -> str | None:
    """SillyTavern's {{roll:…}}: a formula its dice library refuses ("2d6 + 1", "0d6") gives
    nothing, as there; one past our bounds on dice and sides stays as written."""
    formula = formula.strip()
    if not formula:
        return None
    if not ST_DICE.fullmatch(f"d{formula}" if formula.isascii() and formula.isdigit()
                             else formula):
        return ""
    return dice_roll(formula, rng, dice_left=dice_left)


def _choices(arguments: str) -> list[str]:
    if "::" in arguments:
        return arguments.split("::")
    # SillyTavern lets "\," stand for a comma inside one choice, and trims each choice.
    return [c.replace("\x00", ",").strip() for c in arguments.replace("\\,", "\x00").split(",")]


def _choices_pick(arguments: str, rng: random.Random) -> str:
    choices = _choices(arguments)
    return rng.choice(choices) if choices else ""


def _units(text: str) -> int:
    """The length of `text` in JavaScript's UTF-16 units."""
    return len(text) if text.isascii() else len(text) + sum(1 for c in text if c > "\uffff")


def _chat_hash(seed: str) -> int:
    """SillyTavern's chat hash a {{pick}} is seeded by: a chat imported from it keeps its own
    (`chat_id_hash`, digits), any other seed is hashed as SillyTavern hashes a chat's name."""
    return int(seed) if seed.isascii() and seed.isdigit() and len(seed) <= 16 \
        else st_string_hash(seed)


def comments_remove(text: str) -> str:
    """`text` without its `{{// …}}` comments. A comment runs to the `}}` that closes it, so
    braces and macros inside it go with it; an unclosed one stays as written."""
    if "{{//" not in text:
        return text
    kept, start, opened, open_comments = [], 0, [], 0
    for brace in BRACES.finditer(text):
        if brace.group() == "{{":
            is_comment = text.startswith("//", brace.end())
            opened.append((brace.start(), is_comment))
            open_comments += is_comment
        elif opened:
            where, is_comment = opened.pop()
            open_comments -= is_comment
            if is_comment and not open_comments:
                kept.append(text[start:where])
                start = brace.end()
    kept.append(text[start:])
    return "".join(kept)


@dataclass
class _Reading:
    """What one call's macros are read with."""

    text: str
    table: Mapping[str, str]
    rng: random.Random
    variables: MacroVariables
    now: datetime
    seed: str
    raw: str = ""
    # SillyTavern fills {{pick}} last, so its place is counted (in UTF-16 units) in the text
    # with every other macro before it filled: `shift` is what they changed so far.
    shift: int = field(default=0, init=False)
    _walked: tuple[int, int] = field(default=(0, 0), init=False)
    _hashes: tuple[int, int] | None = field(default=None, init=False)
    _exact_picks: int = field(default=0, init=False)
    _original_given: bool = field(default=False, init=False)
    _dice_left: list[int] = field(default_factory=lambda: [MAX_DICE_PER_TEXT], init=False)

    def pick(self, arguments: str, offset: int) -> str:
        """SillyTavern's {{pick}}: the same choice each time this text is read at this place,
        the one its pickReplace makes for this chat, text and place."""
        choices = _choices(arguments)
        if not choices:
            return ""
        if self._hashes is None:
            self._hashes = (_chat_hash(self.seed), st_text_hash(self.raw))
        self._exact_picks += 1
        if self._exact_picks > MAX_EXACT_PICKS:  # the same seeds, a cheaper generator
            return random.Random(f"{self._hashes}-{offset}").choice(choices)
        return choices[st_pick_index(len(choices), chat_hash=self._hashes[0],
                                     text_hash=self._hashes[1], offset=offset)]

    def place(self, index: int) -> int:
        """Where `index` of the text is as SillyTavern counts a {{pick}}'s place (indexes come
        in order, so the text is walked once)."""
        walked, units = self._walked
        units += _units(self.text[walked:index])
        self._walked = (index, units)
        return units + self.shift

    def moved(self, written: str, result: str) -> None:
        self.shift += _units(result) - _units(written)

    def value(self, body: str, offset: int) -> str | None:
        name = body.strip()
        lowered = name.lower()
        if lowered.startswith("//"):
            return ""
        if lowered == "trim":
            return _TRIM
        if lowered in ("noop", ""):
            return "" if lowered == "noop" else None
        if lowered == "newline":
            return "\n"
        if lowered == "input":
            # SillyTavern's input box, emptied when a message is sent: nothing here unless given.
            return self.table.get("input", "")
        chosen = RANDOM.match(name)
        if chosen and len(name) > chosen.end():  # `{{random :a,b}}` too, as SillyTavern's
            return _choices_pick(name[chosen.end():], self.rng)
        if lowered.startswith("roll:") or lowered.startswith("roll "):
            return _roll_value(name[5:], self.rng, self._dice_left)
        if lowered == "original" and "original" in self.table:
            # SillyTavern's {{original}} gives its text once; written again it is empty.
            given, self._original_given = self._original_given, True
            return "" if given else self.table["original"]
        if lowered.startswith("timediff::"):
            return _time_diff(name[len("timediff::"):])
        if lowered.startswith("outlet::"):
            # World-info outlet: the fired entries of that name, or nothing (as SillyTavern).
            return self.table.get("outlet::" + lowered[len("outlet::"):].strip(), "")
        return self._more(body.lstrip(), lowered, offset)

    def _more(self, written: str, lowered: str, offset: int) -> str | None:
        pick = PICK.match(written)
        if pick and len(written) > pick.end():
            return self.pick(written[pick.end():], offset)
        utc = TIME_UTC.fullmatch(written.rstrip())
        if utc:
            return _utc_time(self.now, utc.group(1))
        if BANNED.fullmatch(written.rstrip()):
            return ""
        if lowered.startswith("reverse:"):
            # SillyTavern's `.+?`: at least one character, none of them a line break.
            argument = written[len("reverse:"):]
            return argument[::-1] if argument and not any(c in argument for c in "\r\n") else None
        if lowered.startswith("datetimeformat "):
            pattern = written[len("datetimeformat "):].lstrip(" ")
            if not pattern:  # moment's format() with no pattern: ISO 8601
                return self.now.isoformat("T", "seconds")
            return moment_format(self.now, pattern)
        if "::" in lowered and "var::" in lowered:
            return variable_macro(written, self.variables)
        return self.table.get(lowered)


def macros_replace(text: str, values: Mapping[str, str], *, now: datetime | None = None,
                   rng: random.Random | None = None, max_chars: int = MAX_OUTPUT_CHARS,
                   variables: MacroVariables | None = None, seed: str = "") -> str:
    """`text` with its macros replaced. `values` maps macro names (any case) to text:
    user, char, persona, description, personality, scenario, lastMessage, idle_duration,
    original, lastMessageId, currentSwipeId, model, ... (line_macros.py, llm_providers.py
    make the chat's and the model's); time, date and weekday come from `now` unless `values`
    gives them, in the zone `values[TIME_ZONE]` names (a bad name: the server's), and {{input}}
    is empty unless it does.
    `variables`: what {{setvar}} / {{getvar}}... read and change, shared by the texts of one
    prompt (a fresh set when None); `seed`: what {{pick}} is stable for besides this text
    (none given: the values' PICK_SEED, the chat)."""
    if not text or ("{{" not in text and "<" not in text):
        return text
    written, keep = text, len(text) >= KEPT_FROM_CHARS
    table = {k.lower(): str(v) for k, v in values.items()}
    text, now = comments_remove(text), _now_in(now, zone_named(table.pop(TIME_ZONE, None)))
    table = {**_now_values(now), **table}
    if keep and (kept := macro_fill_kept(written, max_chars, table)) is not None:
        return kept
    seed = seed or table.pop(PICK_SEED, "")
    reading = _Reading(text, table, rng or random.Random(), variables or MacroVariables(), now,
                       seed, written)
    fill = _Fill(reading, table, budget=max(max_chars, len(text)), size=len(text),
                 picks_placed="pick" in text.lower())
    result = MACRO.sub(fill.replace, text)
    result = _trims_applied(result) if fill.trimmed else result
    if keep and fill.plain:
        macro_fill_keep(written, max_chars, table, fill.reads, result)
    return result


class _Fill:
    """One text's macros replaced, one match at a time (`replace`, MACRO.sub's callback): the
    text never grows past `budget`, and what was read is noted for the fill kept for reuse."""

    def __init__(self, reading: _Reading, table: dict[str, str], *, budget: int, size: int,
                 picks_placed: bool) -> None:
        self.reading, self.table, self.budget, self.size = reading, table, budget, size
        # A {{pick}}'s place counts what the macros before it changed; without one nothing is
        # counted.
        self.picks_placed = picks_placed
        self.trimmed = False
        self.named: dict[str, str | None] = {}  # a plain name's value, looked up once per text
        self.reads: set[str] = set()  # the names whose values the text read
        self.plain = True  # no macro but names: the fill is the same for the same values

    def filled(self, written: str, value: str | None) -> str:
        if value is None or self.size + len(value) - len(written) > self.budget:
            return written
        self.size += len(value) - len(written)
        self.trimmed = self.trimmed or value == _TRIM
        return value

    def moved(self, before: str, after: str) -> str:
        if self.picks_placed:
            self.reading.moved(before, after)
        return after

    def replace(self, found: re.Match[str]) -> str:
        written_here, kind = found.group(0), found.lastgroup
        if kind == "legacy":
            name = LEGACY[found.group("legacy").lower()]
            self.reads.add(name)
            return self.moved(written_here, self.filled(written_here, self.table.get(name)))
        place = self.reading.place(found.start()) if "pick" in written_here.lower() else 0
        if kind == "body":
            return self._body_replaced(found.group("body"), written_here, place)
        self.plain = False
        # The inner macros first, then the outer one on what they gave (its choice is not read
        # again); one the outer does not take (reverse: over a line break) keeps them filled.
        body = found.group("outer") + INNER.sub(
            lambda inner: self.filled(inner.group(0), self.reading.value(inner.group(1), place)),
            found.group("nested"))
        result = self.filled("{{" + body + "}}", self.reading.value(body, place))
        self.moved(written_here, "{{" + body + "}}" if _picks(body) else result)
        return result

    def _body_replaced(self, body: str, written_here: str, place: int) -> str:
        if body in self.named:
            return self.moved(written_here, self.filled(written_here, self.named[body]))
        name = body.strip().lower()
        value = self.reading.value(body, place)
        if PLAIN_NAME.fullmatch(body) and name != "original":
            self.named[body] = value
            self.reads.add(name)
        else:
            self.plain = False
        result = self.filled(written_here, value)
        self.moved(written_here, written_here if _picks(body) else result)
        return result


def _picks(body: str) -> bool:
    written = body.lstrip()
    pick = PICK.match(written)
    return pick is not None and len(written) > pick.end()


def _trims_applied(text: str) -> str:
    """Each {{trim}} gone with the line breaks (LF or CRLF) either side of it, in one pass: a
    regex substitution tried a match at each line break of a run and read the run to its end
    from each (40,000 line breaks before a {{trim}}: 10 s, holding the interpreter lock)."""
    parts = text.split(_TRIM)
    kept = []
    for index, part in enumerate(parts):
        start = 0
        if index:  # after a trim: the line breaks that follow it
            while True:
                if part.startswith("\n", start):
                    start += 1
                elif part.startswith("\r\n", start):
                    start += 2
                else:
                    break
        end = len(part)
        if index < len(parts) - 1:  # before a trim: the line breaks that lead to it
            while end > start and part[end - 1] == "\n":
                end -= 2 if end - 2 >= start and part[end - 2] == "\r" else 1
        kept.append(part[start:end])
    return "".join(kept)


def _js_round(value: float) -> int:
    return math.floor(value + 0.5)


def idle_duration_text(seconds: float) -> str:
    """A rough English duration, as SillyTavern's {{idle_duration}} reads it (moment's
    `humanize` with its default thresholds, each unit rounded half up)."""
    seconds = max(0.0, float(seconds))
    days = seconds / 86400
    units = [("second", _js_round(seconds)), ("minute", _js_round(seconds / 60)),
             ("hour", _js_round(seconds / 3600)), ("day", _js_round(days)),
             ("month", _js_round(days / 30.436875)), ("year", _js_round(days / 365.2425))]
    if units[0][1] <= 44:
        return "a few seconds"
    # moment: under 45 minutes, 22 hours, 26 days, 11 months; one of a unit is "a"/"an".
    for (unit, amount), limit in zip(units[1:], (45, 22, 26, 11, None)):
        if amount <= 1:
            return f"{'an' if unit == 'hour' else 'a'} {unit}"
        if limit is None or amount < limit:
            return f"{amount} {unit}s"
    return ""  # not reached: years have no limit


def message_macros_replace(content: str, values: Mapping[str, str], *, seed: str) -> str:
    """Macros in a stored message: the same rolls and picks every time it is shown or sent
    (`seed` names the message), since the file keeps the text as written."""
    if not content or ("{{" not in content and "<" not in content):
        return content  # seeding a generator costs more than the rest of a long prompt's lines
    return macros_replace(content, values, rng=random.Random(seed), seed=seed)
