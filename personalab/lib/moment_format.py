"""A date in a moment.js format string, as SillyTavern's `{{datetimeformat …}}` writes it
(moment 2.29 with its English locale, which SillyTavern never changes).

Framework-free. The long formats (LT, LTS, L, LL, LLL, LLLL and l…llll) are expanded first,
then every moment token is written (Do "3rd", DDD day of the year, w / W weeks, Q, x, X, Z, …);
text in `[brackets]` and a backslash-escaped character are written as they are, any other
character too. Each step is one pass of a regex without nested repeats, so the work is linear.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta

MAX_FORMAT_CHARS = 1000

# moment's English long formats.
LONG_FORMATS = {"LTS": "h:mm:ss A", "LT": "h:mm A", "L": "MM/DD/YYYY", "LL": "MMMM D, YYYY",
                "LLL": "MMMM D, YYYY h:mm A", "LLLL": "dddd, MMMM D, YYYY h:mm A",
                "l": "M/D/YYYY", "ll": "MMM D, YYYY", "lll": "MMM D, YYYY h:mm A",
                "llll": "ddd, MMM D, YYYY h:mm A"}
_LONG = re.compile(r"(\[[^\[]*\])|(\\)?(LTS|LT|LL?L?L?|l{1,4})")
# moment's tokens, longest first where one starts another; `.` any other character.
_TOKEN = re.compile(
    r"(\[[^\[]*\])|(\\)?([Hh]mm(?:ss)?|Mo|MM?M?M?|Do|DDDo|DD?D?D?|ddd?d?|do?|w[o|w]?|W[o|W]?"
    r"|Qo?|N{1,5}|YYYYYY|YYYYY|YYYY|YY|y{2,4}|yo?|gg(?:ggg?)?|GG(?:GGG?)?|e|E|a|A|hh?|HH?"
    r"|kk?|mm?|ss?|S{1,9}|x|X|zz?|ZZ?|.)", re.DOTALL)
_WEEKDAYS_MIN = ("Su", "Mo", "Tu", "We", "Th", "Fr", "Sa")


def ordinal(number: int) -> str:
    """moment's English ordinal: 1st, 2nd, 3rd, 11th, 22nd."""
    last = number % 10
    suffix = "th" if (number % 100) // 10 == 1 else {1: "st", 2: "nd", 3: "rd"}.get(last, "th")
    return f"{number}{suffix}"


def _hour12(now: datetime) -> int:
    return now.hour % 12 or 12


def _sunday_index(now: datetime) -> int:
    return (now.weekday() + 1) % 7  # moment's `d`: Sunday 0


def _us_week(now: datetime) -> tuple[int, int]:
    """moment's English week and week year: weeks start on Sunday, week 1 holds 1 January."""
    start = now.date() - timedelta(days=_sunday_index(now))
    year = (start + timedelta(days=6)).year
    first = date(year, 1, 1)
    first_start = first - timedelta(days=(first.weekday() + 1) % 7)
    return (start - first_start).days // 7 + 1, year


def _offset(now: datetime, colon: bool) -> str:
    delta = now.utcoffset() if now.tzinfo else now.astimezone().utcoffset()
    minutes = int((delta or timedelta()).total_seconds() // 60)
    sign, minutes = ("-" if minutes < 0 else "+"), abs(minutes)
    return f"{sign}{minutes // 60:02d}{':' if colon else ''}{minutes % 60:02d}"


def _year(now: datetime) -> str:
    return f"{now.year:04d}" if now.year <= 9999 else f"+{now.year}"


def _fraction(token: str, now: datetime) -> str:
    millis = f"{now.microsecond // 1000:03d}"
    return (millis + "0" * 9)[:len(token)]


TOKENS: dict[str, Callable[[datetime], str]] = {
    "M": lambda now: str(now.month), "Mo": lambda now: ordinal(now.month),
    "MM": lambda now: f"{now.month:02d}", "MMM": lambda now: f"{now:%b}",
    "MMMM": lambda now: f"{now:%B}",
    "Q": lambda now: str((now.month - 1) // 3 + 1),
    "Qo": lambda now: ordinal((now.month - 1) // 3 + 1),
    "D": lambda now: str(now.day), "Do": lambda now: ordinal(now.day),
    "DD": lambda now: f"{now.day:02d}",
    "DDD": lambda now: str(now.timetuple().tm_yday),
    "DDDo": lambda now: ordinal(now.timetuple().tm_yday),
    "DDDD": lambda now: f"{now.timetuple().tm_yday:03d}",
    "d": lambda now: str(_sunday_index(now)), "do": lambda now: ordinal(_sunday_index(now)),
    "dd": lambda now: _WEEKDAYS_MIN[_sunday_index(now)], "ddd": lambda now: f"{now:%a}",
    "dddd": lambda now: f"{now:%A}",
    "e": lambda now: str(_sunday_index(now)), "E": lambda now: str(now.isoweekday()),
    "w": lambda now: str(_us_week(now)[0]), "wo": lambda now: ordinal(_us_week(now)[0]),
    "ww": lambda now: f"{_us_week(now)[0]:02d}",
    "W": lambda now: str(now.isocalendar()[1]), "Wo": lambda now: ordinal(now.isocalendar()[1]),
    "WW": lambda now: f"{now.isocalendar()[1]:02d}",
    "YY": lambda now: f"{now.year % 100:02d}", "YYYY": lambda now: f"{now.year:04d}",
    "YYYYY": lambda now: f"{now.year:05d}", "YYYYYY": lambda now: f"+{now.year:06d}",
    "Y": _year, "y": lambda now: str(now.year), "yo": lambda now: ordinal(now.year),
    "yy": lambda now: f"{now.year:02d}", "yyy": lambda now: f"{now.year:03d}",
    "yyyy": lambda now: f"{now.year:04d}",
    "gg": lambda now: f"{_us_week(now)[1] % 100:02d}",
    "gggg": lambda now: f"{_us_week(now)[1]:04d}", "ggggg": lambda now: f"{_us_week(now)[1]:05d}",
    "GG": lambda now: f"{now.isocalendar()[0] % 100:02d}",
    "GGGG": lambda now: f"{now.isocalendar()[0]:04d}",
    "GGGGG": lambda now: f"{now.isocalendar()[0]:05d}",
    "N": lambda now: "AD", "NN": lambda now: "AD", "NNN": lambda now: "AD",
    "NNNN": lambda now: "Anno Domini", "NNNNN": lambda now: "AD",
    "A": lambda now: "AM" if now.hour < 12 else "PM",
    "a": lambda now: "am" if now.hour < 12 else "pm",
    "H": lambda now: str(now.hour), "HH": lambda now: f"{now.hour:02d}",
    "h": lambda now: str(_hour12(now)), "hh": lambda now: f"{_hour12(now):02d}",
    "k": lambda now: str(now.hour or 24), "kk": lambda now: f"{now.hour or 24:02d}",
    "m": lambda now: str(now.minute), "mm": lambda now: f"{now.minute:02d}",
    "s": lambda now: str(now.second), "ss": lambda now: f"{now.second:02d}",
    "hmm": lambda now: f"{_hour12(now)}{now.minute:02d}",
    "hmmss": lambda now: f"{_hour12(now)}{now.minute:02d}{now.second:02d}",
    "Hmm": lambda now: f"{now.hour}{now.minute:02d}",
    "Hmmss": lambda now: f"{now.hour}{now.minute:02d}{now.second:02d}",
    "X": lambda now: str(int(now.timestamp())),
    "x": lambda now: str(int(now.timestamp() * 1000)),
    "Z": lambda now: _offset(now, True), "ZZ": lambda now: _offset(now, False),
    "z": lambda now: "", "zz": lambda now: "",  # a zone's name needs moment-timezone
}


def _long_expanded(found: re.Match[str]) -> str:
    if found.group(1) or found.group(2):
        return found.group(0)
    return LONG_FORMATS[found.group(3)]


def _written(found: re.Match[str], now: datetime) -> str:
    if found.group(1):
        return found.group(1)[1:-1]
    token = found.group(3)
    if token == "\\":  # a backslash escaping nothing: moment drops it
        return ""
    if found.group(2) or token not in TOKENS:
        if token.startswith("S"):
            return token if found.group(2) else _fraction(token, now)
        return token
    return TOKENS[token](now)


def moment_format(now: datetime, pattern: str) -> str | None:
    """`now` written as `pattern` says; None when the pattern is longer than allowed."""
    if len(pattern) > MAX_FORMAT_CHARS:
        return None
    pattern = _LONG.sub(_long_expanded, pattern)
    return _TOKEN.sub(lambda found: _written(found, now), pattern)
