"""Does a key of a world-info entry match the chat? Plain keys (case, whole words as
SillyTavern reads them), regex keys (`/pattern/flags` or `use_regex`, bounded by
personalab/lib/user_regex.py), secondary keys and their logic."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import regex

from library.lore.defaults import CASE_SENSITIVE, MATCH_WHOLE_WORDS, book_flag
from personalab.lib.js_regex import (
    JsRefused,
    js_flags_valid,
    js_pattern,
    js_pattern_fault,
    js_utf16,
)
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
    """The `/pattern/flags` parts of a regex key, or None when SillyTavern reads it as text
    (a flag written twice, `/dragon/ii`, is an error to JavaScript's RegExp: text too)."""
    slashed = SLASH_REGEX.match(key)
    if slashed is None or UNESCAPED_SLASH.search(slashed.group(1)) \
            or not js_flags_valid(slashed.group(2)):
        return None
    return slashed


def _slashed_source(slashed: regex.Match[str]) -> str:
    # Without u, matched against the buffer in UTF-16 halves, as JavaScript holds it.
    return js_pattern(slashed.group(1), unicode="u" in slashed.group(2),
                      multiline="m" in slashed.group(2), utf16=True)


# A whole character past U+FFFF in text given through js_utf16.
_HALVES_PAIR = regex.compile("[\ud800-\udbff][\udc00-\udfff]")


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
        # SillyTavern's buffer holds each message trimmed (`WorldInfoBuffer`): `/go\.$/m`
        # fires on "go.  " there.
        return [(f"message -{offset}", text.strip(JS_TRIM))
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
        try:
            source = _slashed_source(slashed)
        except JsRefused:  # SillyTavern's RegExp throws on `(?i)`: the key is text there
            return None
        return _compile(source, flags | regex.V0)
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
    fault = js_pattern_fault(slashed.group(1), flags=regex.V0, unicode="u" in slashed.group(2),
                             multiline="m" in slashed.group(2)) if slashed \
        else pattern_fault(key, regex.V0)
    if fault is None or (not strict and fault.kind not in REFUSAL_KINDS):
        return None
    return fault, 1 if slashed else 0


def key_expansion(key: str, *, use_regex: bool) -> int:
    """What compiling the key costs (user_regex units); 0 for a plain key."""
    slashed = slash_regex(key)
    if not slashed and not use_regex:
        return 0
    try:
        return pattern_expansion(_slashed_source(slashed) if slashed else key)
    except (PatternRefused, JsRefused):
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
# SillyTavern's scan buffer (`WorldInfoBuffer.get`): each text after \x01, joined by newlines.
JOINER = "\n" + MESSAGE_START


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
                 sticky: bool = False, written: str = "") -> int | None:
    """Where in MESSAGE_START + `text` the pattern matches first, or None; `written`: the
    pattern as its author wrote it (js_pattern rewrote `$` and `\\s`), for the problem said."""
    if _regex_time_spent(scan) or pattern.pattern in scan.stopped:
        return None
    started = time.perf_counter()
    try:
        # SillyTavern scans one buffer whose every message starts with \x01: `^hello` never
        # fires there, and `\x01hello` is how a card says "a message that starts with".
        found = pattern_search(pattern, MESSAGE_START + text, seconds=REGEX_TIMEOUT_SECONDS,
                               anchored=sticky)
        return None if found is None else found.start()
    except TimeoutError:
        scan.stopped.add(pattern.pattern)
        scan.problems.append(f"{label}: regex {written or pattern.pattern!r} took longer than "
                             f"{int(REGEX_TIMEOUT_SECONDS * 1000)} ms and was stopped")
        return None
    finally:
        scan.regex_seconds += time.perf_counter() - started


def _text_at(texts: list[tuple[str, str]], position: int) -> str:
    """The label of the text of the joined buffer (MESSAGE_START + JOINER-joined `texts`)
    that `position` falls in, its leading \x01 and its trailing newline included."""
    end = 0
    for where, text in texts:
        end += len(MESSAGE_START) + len(text) + 1
        if position < end:
            return where
    return texts[-1][0]


def key_where(key: str, texts: list[tuple[str, str]], entry: dict[str, Any],
              book: dict[str, Any], scan: KeyScan, label: str, *,
              trim: bool = True) -> str | None:
    """The label of the text `key` is found in among `texts` (SillyTavern's scan buffer: the
    newest message first), or None; `trim`: as SillyTavern's scan reads a key (its group
    score reads the key as written: not trimmed, and an empty key is found). A regex key is
    searched in the texts joined, as SillyTavern tests its one buffer: `/dragon.*sword/s`
    matches across two messages, `/^…/` or a sticky `/…/y` only at the newest one's \x01."""
    if not texts:
        return None
    # SillyTavern trims each key first ("sword " fires on "sword."), and a key of spaces alone
    # is then the empty text, which its matchKeys finds in any chat.
    if trim:
        key = key.strip(JS_TRIM)
    if not key:
        return texts[0][0]
    case = bool(setting(entry, "case_sensitive", "case_sensitive",
                        book_flag(book, "case_sensitive", CASE_SENSITIVE)))
    use_regex = bool(entry.get("use_regex"))
    # Compiling counts in the turn's regex time too: a chat linking many books of costly keys
    # compiled them all every turn (the pattern cache holds few large ones), whatever it spent.
    regex_key = use_regex or slash_regex(key) is not None
    if regex_key and _regex_time_spent(scan):
        return None
    started = time.perf_counter()
    try:
        pattern = key_regex(key, use_regex=use_regex, case_sensitive=case)
    except PatternRefused as exc:
        if key not in scan.stopped:
            scan.stopped.add(key)
            scan.problems.append(f"{label}: regex key {key[:80]!r} is not used: {exc}")
        return None
    finally:
        if regex_key:
            scan.regex_seconds += time.perf_counter() - started
    if pattern is not None:
        # JavaScript's sticky flag: RegExp.test matches only at lastIndex 0 of the buffer.
        slashed = slash_regex(key)
        sticky = slashed is not None and "y" in slashed.group(2)
        buffer = JOINER.join(text for _, text in texts)
        halves = js_utf16(buffer) if slashed and "u" not in slashed.group(2) else buffer
        position = _regex_found(pattern, halves, scan, label,
                                sticky=sticky, written=slashed.group(1) if slashed else key)
        if position is not None and halves is not buffer:  # back to the text's characters
            position -= len(_HALVES_PAIR.findall(halves, 0, max(position - 1, 0)))
        return None if position is None else _text_at(texts, position)
    if not case:
        # JavaScript's toLowerCase, as SillyTavern's matchKeys: casefold made "STRASSE" fire
        # on "Straße" and "fi" on "ﬁ", where SillyTavern's never did.
        key = key.lower()
    whole = bool(setting(entry, "match_whole_words", "match_whole_words",
                         book_flag(book, "match_whole_words", MATCH_WHOLE_WORDS)))
    phrase = not whole or JS_SPACE.search(key)
    # A plain key cannot span two texts (a phrase has no newline, a word stops at one), so
    # each text alone says the same as the joined buffer, and where it is.
    for where, text in texts:
        text = text if case else text.lower()
        if key in text if phrase else _whole_word_found(key, text):
            return where
    return None


def first_hit(keys: list[str], texts: list[tuple[str, str]], entry: dict[str, Any],
              book: dict[str, Any], scan: KeyScan, label: str) -> tuple[str, str] | None:
    """The first key found (in the keys' order, as SillyTavern's `entry.key.find`) and where."""
    for key in keys:
        where = key_where(key, texts, entry, book, scan, label) if key else None
        if where is not None:
            return key, where
    return None


def _secondary_reason(entry: dict[str, Any], texts: list[tuple[str, str]], book: dict[str, Any],
                      scan: KeyScan, label: str) -> str | None:
    """'' when there is no secondary condition, a reason when it holds, None when it fails."""
    # An empty secondary key never matches, but it is one (SillyTavern's check is the list's
    # length): AND ANY / AND ALL on [""] never hold, NOT ANY / NOT ALL always do.
    secondary = [key for key in entry.get("secondary_keys") or [] if isinstance(key, str)]
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
