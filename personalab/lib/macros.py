"""SillyTavern-style macros in text a user wrote (cards, personas, lore, notes, messages).

Framework-free. `macros_replace` is the only thing author text ever goes through: it swaps
`{{user}}`, `{{char}}`, `{{random:a,b}}`, `<USER>`... for their values in one linear pass and
leaves everything else, unknown macros included, exactly as written. Inserted values are not
scanned again, so a persona named "{{char}}" stays "{{char}}". Work and output are bounded:
macro names longer than MAX_MACRO_BODY are not macros, dice are capped, and once the output
would pass `max_chars` the remaining macros are left as written.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from datetime import datetime

MAX_MACRO_BODY = 1000
MAX_OUTPUT_CHARS = 1_000_000
MAX_DICE = 100
MAX_SIDES = 1_000_000
_TRIM = "\x00trim\x00"

# `[^{}]` keeps each attempt from running past the next brace: the scan stays linear.
MACRO = re.compile(r"\{\{([^{}]{0,%d})\}\}|<(USER|BOT|CHAR)>" % MAX_MACRO_BODY, re.IGNORECASE)
TRIM_AROUND = re.compile(r"(?:\r?\n)*" + re.escape(_TRIM) + r"(?:\r?\n)*")
DICE = re.compile(r"^\s*(\d{0,3})\s*d\s*(\d{1,7})\s*(?:([+-])\s*(\d{1,7}))?\s*$", re.IGNORECASE)
LEGACY = {"user": "user", "bot": "char", "char": "char"}


def _now_values(now: datetime) -> dict[str, str]:
    hour = now.hour % 12 or 12
    return {
        "time": f"{hour}:{now.minute:02d} {'AM' if now.hour < 12 else 'PM'}",
        "date": f"{now:%B} {now.day}, {now.year}",
        "weekday": f"{now:%A}",
        "isotime": f"{now:%H:%M}",
        "isodate": f"{now:%Y-%m-%d}",
    }


def dice_roll(formula: str, rng: random.Random) -> str | None:
    """'d6', '2d6+1' or '20' (one d20) rolled; None when it is not a bounded dice formula."""
    formula = formula.strip()
    if formula.isdigit():
        formula = f"d{formula}"
    found = DICE.match(formula)
    if not found:
        return None
    count, sides = int(found.group(1) or 1), int(found.group(2))
    if not (1 <= count <= MAX_DICE and 1 <= sides <= MAX_SIDES):
        return None
    total = sum(rng.randint(1, sides) for _ in range(count))
    if found.group(3):
        modifier = int(found.group(4))
        total += modifier if found.group(3) == "+" else -modifier
    return str(total)


def _random_pick(arguments: str, rng: random.Random) -> str:
    if "::" in arguments:
        choices = arguments.split("::")
    else:
        # SillyTavern lets "\," stand for a comma inside one choice.
        choices = [c.replace("\x00", ",") for c in arguments.replace("\\,", "\x00").split(",")]
    return rng.choice(choices) if choices else ""


def _macro_value(body: str, values: Mapping[str, str], rng: random.Random) -> str | None:
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
    if lowered.startswith("random:") or lowered.startswith("random::"):
        return _random_pick(name[len("random:"):].removeprefix(":"), rng)
    if lowered.startswith("roll:") or lowered.startswith("roll "):
        return dice_roll(name[5:], rng)
    if lowered.startswith("outlet::"):
        # World-info outlet: the fired entries of that name, or nothing (as SillyTavern).
        return values.get("outlet::" + lowered[len("outlet::"):].strip(), "")
    return values.get(lowered)


def macros_replace(text: str, values: Mapping[str, str], *, now: datetime | None = None,
                   rng: random.Random | None = None, max_chars: int = MAX_OUTPUT_CHARS) -> str:
    """`text` with its macros replaced. `values` maps macro names (any case) to text:
    user, char, persona, description, personality, scenario, lastMessage, idle_duration,
    original, ... ; time, date and weekday come from `now` unless `values` gives them."""
    if not text or ("{{" not in text and "<" not in text):
        return text
    rng = rng or random.Random()
    table = {**_now_values(now or datetime.now()), **{k.lower(): str(v) for k, v in values.items()}}
    budget = max(max_chars, len(text))
    size = len(text)
    trimmed = False

    def replace(found: re.Match[str]) -> str:
        nonlocal size, trimmed
        written = found.group(0)
        if found.group(2) is not None:
            value = table.get(LEGACY[found.group(2).lower()])
        else:
            value = _macro_value(found.group(1), table, rng)
        if value is None or size + len(value) - len(written) > budget:
            return written
        size += len(value) - len(written)
        trimmed = trimmed or value == _TRIM
        return value

    result = MACRO.sub(replace, text)
    return TRIM_AROUND.sub("", result) if trimmed else result


def idle_duration_text(seconds: float) -> str:
    """A rough English duration, the way SillyTavern's {{idle_duration}} reads (moment's humanize)."""
    seconds = max(0, int(seconds))
    minutes, hours, days = round(seconds / 60), round(seconds / 3600), round(seconds / 86400)
    if seconds < 45:
        return "a few seconds"
    if seconds < 90:
        return "a minute"
    if seconds < 45 * 60:
        return f"{minutes} minutes"
    if seconds < 90 * 60:
        return "an hour"
    if seconds < 22 * 3600:
        return f"{hours} hours"
    if seconds < 36 * 3600:
        return "a day"
    return f"{days} days"


def message_macros_replace(content: str, values: Mapping[str, str], *, seed: str) -> str:
    """Macros in a stored message: the same rolls every time it is shown or sent (`seed`
    names the message), since the file keeps the text as written."""
    if not content or ("{{" not in content and "<" not in content):
        return content  # seeding a generator costs more than the rest of a long prompt's lines
    return macros_replace(content, values, rng=random.Random(seed))
