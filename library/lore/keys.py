"""Does a key of a world-info entry match the chat? Plain keys (case, whole words as
SillyTavern reads them), regex keys (`/pattern/flags` or `use_regex`, bounded by
personalab/lib/user_regex.py), secondary keys and their logic."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import regex

from library.lore.defaults import CASE_SENSITIVE, MATCH_WHOLE_WORDS, book_flag
from personalab.lib.regex_faults import REFUSAL_KINDS, RegexFault, pattern_fault
from personalab.lib.user_regex import (
    PatternRefused,
    pattern_compile,
    pattern_expansion,
    pattern_search,
)

REGEX_TIMEOUT_SECONDS = 0.05
REGEX_TOTAL_SECONDS = 1.0
# "/pattern/flags": how SillyTavern writes a regex key (its parseRegexFromString): the
# shortest pattern before flags JavaScript's RegExp took then, and no unescaped "/" inside it,
# so "/and/or/" and "/a/b/i" are plain text there and here.
SLASH_REGEX = regex.compile(r"\A/(.+?)/([gimsuy]*)\Z", regex.DOTALL)
UNESCAPED_SLASH = regex.compile(r"(?:^|[^\\])/")
WORD_CHAR = regex.compile(r"[A-Za-z0-9_]")
# JavaScript's \s, which SillyTavern splits a whole-word key on: a key with any of these
# inside (a tab, a no-break or an ideographic space) is several words, matched as a phrase.
JS_SPACE = regex.compile("[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f"
                         "\u3000\ufeff]")

# JavaScript's String.prototype.trim, which SillyTavern gives every key before matching it.
JS_TRIM = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008" \
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def slash_regex(key: str) -> regex.Match[str] | None:
    """The `/pattern/flags` parts of a regex key, or None when SillyTavern reads it as text."""
    slashed = SLASH_REGEX.match(key)
    if slashed is None or UNESCAPED_SLASH.search(slashed.group(1)):
        return None
    return slashed


@dataclass
class KeyScan:
    """One turn's scanning: the chat (newest last), the regex time spent, the problems."""

    messages: list[str]
    problems: list[str]
    regex_seconds: float = 0.0
    regex_time_said: bool = False
    # A pattern stopped once is not tried again this turn.
    stopped: set[str] = field(default_factory=set)

    def texts(self, depth: int) -> list[tuple[str, str]]:
        if depth <= 0:
            return []
        recent = self.messages[-depth:]
        return [(f"message -{offset}", text)
                for offset, text in zip(range(1, len(recent) + 1), reversed(recent))]


# --- entry settings --------------------------------------------------------------------------

def entry_number(value: Any, default: int) -> int:
    """A whole-number setting as SillyTavern reads it (`"4"`, 4.7 too); anything else,
    `True` and an infinite float included, is `default`."""
    if isinstance(value, bool):
        return default
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an infinite float
        return default


def setting(entry: dict[str, Any], name: str, card_name: str, default: Any,
            st_name: str | None = None) -> Any:
    """The entry's own field, else its card `extensions` name, else (files imported from
    SillyTavern before the field was mapped) its world-info name kept under `st_extra`."""
    value = entry.get(name)
    if value is None:
        ext = entry.get("extensions") if isinstance(entry.get("extensions"), dict) else {}
        value = ext.get(card_name)
    if value is None and st_name:
        extra = entry.get("st_extra") if isinstance(entry.get("st_extra"), dict) else {}
        value = extra.get(st_name)
    return default if value is None else value


# --- keys --------------------------------------------------------------------------------------

def _compile(pattern: str, flags: int) -> regex.Pattern[str] | None:
    try:
        return pattern_compile(pattern, flags)
    except (regex.error, ValueError, OverflowError) as exc:
        if isinstance(exc, PatternRefused):
            raise
        return None


def key_regex(key: str, *, use_regex: bool, case_sensitive: bool) -> regex.Pattern[str] | None:
    """The regex of a key, or None: a plain key, or one that is not a valid regex (SillyTavern
    then reads it as text, so `*hug*` is a plain key). Raises PatternRefused for a regex too
    costly to compile (user_regex), which never fires."""
    slashed = slash_regex(key)
    if slashed:
        letters = slashed.group(2)
        flags = (regex.IGNORECASE if "i" in letters else 0) | (
            regex.MULTILINE if "m" in letters else 0) | (regex.DOTALL if "s" in letters else 0)
        return _compile(slashed.group(1), flags | regex.V0)
    if use_regex:
        return _compile(key, (0 if case_sensitive else regex.IGNORECASE) | regex.V0)
    return None


def key_fault(key: str, *, use_regex: bool, strict: bool = True) -> tuple[RegexFault, int] | None:
    """Why a regex key (`/…/flags`, or any key of a use_regex entry) cannot be used, with where
    its pattern starts in the key (1 after the "/"), or None. A regex too costly to compile is
    always a fault; one that does not compile only when `strict` (SillyTavern reads it as
    text, so an imported book keeps it that way)."""
    slashed = slash_regex(key)
    if not slashed and not use_regex:
        return None
    fault = pattern_fault(slashed.group(1) if slashed else key, regex.V0)
    if fault is None or (not strict and fault.kind not in REFUSAL_KINDS):
        return None
    return fault, 1 if slashed else 0


def key_expansion(key: str, *, use_regex: bool) -> int:
    """What compiling the key costs (user_regex units); 0 for a plain key."""
    slashed = slash_regex(key)
    if not slashed and not use_regex:
        return 0
    try:
        return pattern_expansion(slashed.group(1) if slashed else key)
    except PatternRefused:
        return 0


def _whole_word_found(key: str, text: str) -> bool:
    # JavaScript's \b: only ASCII letters, digits and _ are word characters, so a Chinese key
    # inside Chinese text still counts as a whole word, as in SillyTavern.
    start = text.find(key)
    while start != -1:
        before = text[start - 1] if start else ""
        after = text[start + len(key):start + len(key) + 1]
        if not (before and WORD_CHAR.match(before)) and not (after and WORD_CHAR.match(after)):
            return True
        start = text.find(key, start + 1)
    return False


MESSAGE_START = "\x01"


def _regex_time_spent(scan: KeyScan) -> bool:
    """The turn's regex time is gone: the regex keys left are not tried (said once)."""
    if scan.regex_seconds <= REGEX_TOTAL_SECONDS:
        return False
    if not scan.regex_time_said:
        scan.regex_time_said = True
        scan.problems.append(f"regex keys took their {REGEX_TOTAL_SECONDS:g} s of this turn: "
                             "the rest were not tried")
    return True


def _regex_found(pattern: regex.Pattern[str], text: str, scan: KeyScan, label: str, *,
                 sticky: bool = False) -> bool:
    if _regex_time_spent(scan) or pattern.pattern in scan.stopped:
        return False
    started = time.perf_counter()
    try:
        # SillyTavern scans one buffer whose every message starts with \x01: `^hello` never
        # fires there, and `\x01hello` is how a card says "a message that starts with".
        return pattern_search(pattern, MESSAGE_START + text, seconds=REGEX_TIMEOUT_SECONDS,
                              anchored=sticky) is not None
    except TimeoutError:
        scan.stopped.add(pattern.pattern)
        scan.problems.append(f"{label}: regex {pattern.pattern!r} took longer than "
                             f"{int(REGEX_TIMEOUT_SECONDS * 1000)} ms and was stopped")
        return False
    finally:
        scan.regex_seconds += time.perf_counter() - started


def key_found(key: str, text: str, entry: dict[str, Any], book: dict[str, Any], scan: KeyScan,
              label: str, *, first: bool = True, trim: bool = True) -> bool:
    """Whether `key` is in `text`; `first`: the text is the first of the scan buffer (where
    alone a sticky `/…/y` key can match); `trim`: as SillyTavern's scan reads a key (its
    group score reads the key as written: not trimmed, and an empty key is found)."""
    # SillyTavern trims each key first ("sword " fires on "sword."), and a key of spaces alone
    # is then the empty text, which its matchKeys finds in any chat.
    if trim:
        key = key.strip(JS_TRIM)
    if not key:
        return True
    case = bool(setting(entry, "case_sensitive", "case_sensitive",
                        book_flag(book, "case_sensitive", CASE_SENSITIVE)))
    use_regex = bool(entry.get("use_regex"))
    # Compiling counts in the turn's regex time too: a chat linking many books of costly keys
    # compiled them all every turn (the pattern cache holds few large ones), whatever it spent.
    regex_key = use_regex or slash_regex(key) is not None
    if regex_key and _regex_time_spent(scan):
        return False
    started = time.perf_counter()
    try:
        pattern = key_regex(key, use_regex=use_regex, case_sensitive=case)
    except PatternRefused as exc:
        if key not in scan.stopped:
            scan.stopped.add(key)
            scan.problems.append(f"{label}: regex key {key[:80]!r} is not used: {exc}")
        return False
    finally:
        if regex_key:
            scan.regex_seconds += time.perf_counter() - started
    if pattern is not None:
        # JavaScript's sticky flag: RegExp.test matches only at lastIndex 0 of SillyTavern's
        # one buffer, the \x01 before the newest message scanned; any later text never.
        slashed = slash_regex(key)
        sticky = slashed is not None and "y" in slashed.group(2)
        return (first or not sticky) and _regex_found(pattern, text, scan, label, sticky=sticky)
    if not case:
        # JavaScript's toLowerCase, as SillyTavern's matchKeys: casefold made "STRASSE" fire
        # on "Straße" and "fi" on "ﬁ", where SillyTavern's never did.
        key, text = key.lower(), text.lower()
    whole = bool(setting(entry, "match_whole_words", "match_whole_words",
                         book_flag(book, "match_whole_words", MATCH_WHOLE_WORDS)))
    if whole and not JS_SPACE.search(key):
        return _whole_word_found(key, text)
    return key in text


def first_hit(keys: list[str], texts: list[tuple[str, str]], entry: dict[str, Any],
               book: dict[str, Any], scan: KeyScan, label: str) -> tuple[str, str] | None:
    for index, (where, text) in enumerate(texts):
        for key in keys:
            if key and key_found(key, text, entry, book, scan, label, first=index == 0):
                return key, where
    return None


def _secondary_reason(entry: dict[str, Any], texts: list[tuple[str, str]], book: dict[str, Any],
                      scan: KeyScan, label: str) -> str | None:
    """'' when there is no secondary condition, a reason when it holds, None when it fails."""
    secondary = [key for key in entry.get("secondary_keys") or [] if key]
    if not secondary:
        return ""
    found = [key for key in secondary if first_hit([key], texts, entry, book, scan, label)]
    logic = entry.get("selective_logic", "and_any")
    holds = {"and_any": bool(found), "and_all": len(found) == len(secondary),
             "not_any": not found, "not_all": len(found) < len(secondary)}.get(logic, bool(found))
    if not holds:
        return None
    if logic.startswith("and"):
        return f" (secondary {logic}: {', '.join(repr(key) for key in found)} present)"
    missing = [key for key in secondary if key not in found]
    return f" (secondary {logic}: {', '.join(repr(key) for key in missing)} absent)"


def key_trigger(entry: dict[str, Any], texts: list[tuple[str, str]], book: dict[str, Any],
             scan: KeyScan, label: str) -> str | None:
    hit = first_hit(entry.get("keys") or [], texts, entry, book, scan, label)
    if hit is None:
        return None
    secondary = _secondary_reason(entry, texts, book, scan, label)
    if secondary is None:
        return None
    return f"key {hit[0]!r} in {hit[1]}{secondary}"


def entry_key(book_id: str, entry: dict[str, Any]) -> str:
    return f"{book_id}:{entry.get('uid')}"
