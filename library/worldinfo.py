"""World-info activation with SillyTavern's semantics. Framework-free.

Which entries of the linked lorebooks fire this turn, and why: keys (plain, whole-word, case,
`/regex/flags` or `use_regex`; a key that is not a valid regex is plain text), per-entry scan
depth, secondary keys, probability (the roll is recorded), inclusion groups (one winner per
group: sticky first, then group override by order, else by weight), sticky / cooldown / delay in
turns (`TimedState`, kept by the caller in a file), recursion (exclude / prevent /
delay-until-recursion) and a token budget spent higher order first. Fired entries are returned in
insertion order, lower order first, as SillyTavern places them.

Entry settings are read from the PersonaLab fields first, then from the card's
`extensions` (SillyTavern's export names), then from the book's defaults.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import regex

MAX_RECURSION_ROUNDS = 3
REGEX_TIMEOUT_SECONDS = 0.05
REGEX_TOTAL_SECONDS = 1.0
# "/pattern/flags": how SillyTavern writes a regex key.
SLASH_REGEX = regex.compile(r"^/(.+)/([dgimsuvy]*)$", regex.DOTALL)
JS_NAMED_GROUP = regex.compile(r"\(\?<(?=[A-Za-z_])")
WORD_CHAR = regex.compile(r"[A-Za-z0-9_]")


@dataclass
class LoreMatch:
    fired: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    timed: dict[str, dict[str, int]] = field(default_factory=dict)


@dataclass
class _Scan:
    """One turn's scanning: the chat (newest last), the regex time spent, the problems."""

    messages: list[str]
    problems: list[str]
    regex_seconds: float = 0.0
    # A pattern stopped once is not tried again this turn.
    stopped: set[str] = field(default_factory=set)

    def texts(self, depth: int) -> list[tuple[str, str]]:
        if depth <= 0:
            return []
        recent = self.messages[-depth:]
        return [(f"message -{offset}", text)
                for offset, text in zip(range(1, len(recent) + 1), reversed(recent))]


# --- entry settings --------------------------------------------------------------------------

def setting(entry: dict[str, Any], name: str, card_name: str, default: Any) -> Any:
    value = entry.get(name)
    if value is None:
        ext = entry.get("extensions") if isinstance(entry.get("extensions"), dict) else {}
        value = ext.get(card_name)
    return default if value is None else value


def _number(value: Any, default: int) -> int:
    if isinstance(value, bool):
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def entry_key(book_id: str, entry: dict[str, Any]) -> str:
    return f"{book_id}:{entry.get('uid')}"


def _groups(entry: dict[str, Any]) -> list[str]:
    group = setting(entry, "group", "group", "")
    return [name.strip() for name in str(group).split(",") if name.strip()]


# --- keys --------------------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def _compile(pattern: str, flags: int) -> regex.Pattern[str] | None:
    try:
        return regex.compile(JS_NAMED_GROUP.sub("(?P<", pattern), flags)
    except (regex.error, ValueError, OverflowError):
        return None


def key_regex(key: str, *, use_regex: bool, case_sensitive: bool) -> regex.Pattern[str] | None:
    """The regex of a key, or None: a plain key, or one that is not a valid regex (SillyTavern
    then reads it as text, so `*hug*` is a plain key)."""
    slashed = SLASH_REGEX.match(key)
    if slashed:
        letters = slashed.group(2)
        flags = (regex.IGNORECASE if "i" in letters else 0) | (
            regex.MULTILINE if "m" in letters else 0) | (regex.DOTALL if "s" in letters else 0)
        return _compile(slashed.group(1), flags | regex.V0)
    if use_regex:
        return _compile(key, (0 if case_sensitive else regex.IGNORECASE) | regex.V0)
    return None


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


def _regex_found(pattern: regex.Pattern[str], text: str, scan: _Scan, label: str) -> bool:
    if scan.regex_seconds > REGEX_TOTAL_SECONDS or pattern.pattern in scan.stopped:
        return False
    started = time.perf_counter()
    try:
        return pattern.search(text, timeout=REGEX_TIMEOUT_SECONDS) is not None
    except TimeoutError:
        scan.stopped.add(pattern.pattern)
        scan.problems.append(f"{label}: regex {pattern.pattern!r} took longer than "
                             f"{int(REGEX_TIMEOUT_SECONDS * 1000)} ms and was stopped")
        return False
    finally:
        scan.regex_seconds += time.perf_counter() - started


def key_found(key: str, text: str, entry: dict[str, Any], book: dict[str, Any], scan: _Scan,
              label: str) -> bool:
    case = bool(setting(entry, "case_sensitive", "case_sensitive",
                        book.get("case_sensitive", False)))
    pattern = key_regex(key, use_regex=bool(entry.get("use_regex")), case_sensitive=case)
    if pattern is not None:
        return _regex_found(pattern, text, scan, label)
    if not case:
        key, text = key.casefold(), text.casefold()
    whole = bool(setting(entry, "match_whole_words", "match_whole_words",
                         book.get("match_whole_words", False)))
    if whole and " " not in key.strip():
        return _whole_word_found(key, text)
    return key in text


def _first_hit(keys: list[str], texts: list[tuple[str, str]], entry: dict[str, Any],
               book: dict[str, Any], scan: _Scan, label: str) -> tuple[str, str] | None:
    for where, text in texts:
        for key in keys:
            if key and key_found(key, text, entry, book, scan, label):
                return key, where
    return None


def _secondary_reason(entry: dict[str, Any], texts: list[tuple[str, str]], book: dict[str, Any],
                      scan: _Scan, label: str) -> str | None:
    """'' when there is no secondary condition, a reason when it holds, None when it fails."""
    secondary = [key for key in entry.get("secondary_keys") or [] if key]
    if not secondary:
        return ""
    found = [key for key in secondary if _first_hit([key], texts, entry, book, scan, label)]
    logic = entry.get("selective_logic", "and_any")
    holds = {"and_any": bool(found), "and_all": len(found) == len(secondary),
             "not_any": not found, "not_all": len(found) < len(secondary)}.get(logic, bool(found))
    if not holds:
        return None
    if logic.startswith("and"):
        return f" (secondary {logic}: {', '.join(repr(key) for key in found)} present)"
    missing = [key for key in secondary if key not in found]
    return f" (secondary {logic}: {', '.join(repr(key) for key in missing)} absent)"


def _trigger(entry: dict[str, Any], texts: list[tuple[str, str]], book: dict[str, Any],
             scan: _Scan, label: str) -> str | None:
    hit = _first_hit(entry.get("keys") or [], texts, entry, book, scan, label)
    if hit is None:
        return None
    secondary = _secondary_reason(entry, texts, book, scan, label)
    if secondary is None:
        return None
    return f"key {hit[0]!r} in {hit[1]}{secondary}"


# --- one book ----------------------------------------------------------------------------------

@dataclass
class _Book:
    book: dict[str, Any]
    book_id: str
    scan: _Scan
    turn: int
    chat_length: int
    timed: dict[str, dict[str, int]]
    rng: random.Random
    active: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    settled: set[str] = field(default_factory=set)

    def label(self, entry: dict[str, Any]) -> str:
        return f"lorebook {self.book_id} entry {entry.get('uid')}"

    def drop(self, entry: dict[str, Any], reason: str) -> None:
        self.settled.add(entry_key(self.book_id, entry))
        self.dropped.append({**entry, "lorebook_id": self.book_id, "reason": reason})

    def timed_phase(self, entry: dict[str, Any]) -> str:
        state = self.timed.get(entry_key(self.book_id, entry)) or {}
        start, end = state.get("start", -1), state.get("sticky_end", -1)
        if start < self.turn <= end:
            return "sticky"
        if end < self.turn <= state.get("cooldown_end", -1):
            return "cooldown"
        return ""

    def candidates(self, entries: list[dict[str, Any]], recursion: list[tuple[str, str]],
                   depth_round: int) -> list[dict[str, Any]]:
        found = []
        for entry in entries:
            key = entry_key(self.book_id, entry)
            if key in self.settled:
                continue
            reason = self._reason(entry, recursion, depth_round)
            if reason:
                found.append({**entry, "lorebook_id": self.book_id, "reason": reason})
        return found

    def _reason(self, entry: dict[str, Any], recursion: list[tuple[str, str]],
                depth_round: int) -> str | None:
        phase = self.timed_phase(entry)
        if phase == "sticky":
            return "sticky (fired earlier, still active)"
        recursing = depth_round > 0
        if recursing and setting(entry, "exclude_recursion", "exclude_recursion", False):
            return None
        if not recursing and setting(entry, "delay_until_recursion", "delay_until_recursion",
                                     False):
            return None
        if entry.get("constant"):
            reason = "constant"
        else:
            depth = _number(setting(entry, "scan_depth", "scan_depth", None),
                            _number(self.book.get("scan_depth", 4), 4))
            texts = self.scan.texts(depth)
            if recursing:
                texts = [*texts, *recursion]
            reason = _trigger(entry, texts, self.book, self.scan, self.label(entry))
        if reason is None:
            return None
        if phase == "cooldown":
            self.drop(entry, f"on cooldown; would have fired: {reason}")
            return None
        delay = _number(setting(entry, "delay", "delay", 0), 0)
        if delay and self.chat_length < delay:
            self.drop(entry, f"delayed until {delay} messages (chat has {self.chat_length}); "
                             f"would have fired: {reason}")
            return None
        return reason

    def probability_pass(self, entry: dict[str, Any]) -> bool:
        if entry["reason"].startswith("sticky"):
            return True
        if not setting(entry, "use_probability", "useProbability", True):
            return True
        chance = _number(setting(entry, "probability", "probability", 100), 100)
        if chance >= 100:
            return True
        roll = round(self.rng.random() * 100, 2)
        entry["roll"] = roll
        if roll < chance:
            entry["reason"] += f" (probability {chance}%: rolled {roll})"
            return True
        self.drop(entry, f"probability {chance}%: rolled {roll}; would have fired: "
                         f"{entry['reason']}")
        return False

    def groups_filter(self, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
        by_group: dict[str, list[dict[str, Any]]] = {}
        for entry in found:
            for group in _groups(entry):
                by_group.setdefault(group, []).append(entry)
        losers: dict[int, str] = {}
        for group, members in by_group.items():
            if any(group in _groups(entry) for entry in self.active):
                for entry in members:
                    losers[id(entry)] = f"group {group!r} already has an active entry"
                continue
            winner = self._group_winner(members)
            for entry in members:
                if entry is not winner:
                    losers.setdefault(id(entry), f"group {group!r} won by entry "
                                                 f"{winner.get('uid')}")
            winner["reason"] += f" (won group {group!r} of {len(members)})"
        kept = []
        for entry in found:
            if id(entry) in losers:
                self.drop(entry, f"{losers[id(entry)]}; would have fired: {entry['reason']}")
            else:
                kept.append(entry)
        return kept

    def _group_winner(self, members: list[dict[str, Any]]) -> dict[str, Any]:
        sticky = [e for e in members if e["reason"].startswith("sticky")]
        if sticky:
            return sticky[0]
        overrides = [e for e in members if setting(e, "group_override", "group_override", False)]
        if overrides:
            return max(overrides, key=lambda e: _number(e.get("priority"), 100))
        weights = [max(0, _number(setting(e, "group_weight", "group_weight", 100), 100))
                   for e in members]
        if not any(weights):
            return members[0]
        return self.rng.choices(members, weights=weights)[0]

    def activate(self, entries: list[dict[str, Any]]) -> None:
        recursive = bool(self.book.get("recursive"))
        recursion: list[tuple[str, str]] = []
        for depth_round in range(MAX_RECURSION_ROUNDS + 1 if recursive else 1):
            found = self.candidates(entries, recursion, depth_round)
            found.sort(key=lambda e: -_number(e.get("priority"), 100))
            found = [e for e in self.groups_filter(found) if self.probability_pass(e)]
            if not found:
                break
            for entry in found:
                self.settled.add(entry_key(self.book_id, entry))
            self.active.extend(found)
            recursion = [(f"entry lore:{self.book_id}:{e['uid']}", e.get("content", ""))
                         for e in found
                         if not setting(e, "prevent_recursion", "prevent_recursion", False)]
            if not recursion:
                break


def _timed_update(book: _Book, entry: dict[str, Any], timed: dict[str, dict[str, int]]) -> None:
    if entry["reason"].startswith("sticky"):
        return
    sticky = _number(setting(entry, "sticky", "sticky", 0), 0)
    cooldown = _number(setting(entry, "cooldown", "cooldown", 0), 0)
    if sticky or cooldown:
        timed[entry_key(book.book_id, entry)] = {
            "start": book.turn, "sticky_end": book.turn + sticky,
            "cooldown_end": book.turn + sticky + cooldown}


def _budget_apply(active: list[dict[str, Any]], budget: int | None,
                  count_tokens: Callable[[str], int], match: LoreMatch) -> list[dict[str, Any]]:
    """Higher order first, as SillyTavern spends its budget; once full, the rest are left out."""
    kept, used, full = [], 0, False
    for entry in sorted(active, key=lambda e: -_number(e.get("priority"), 100)):
        tokens = count_tokens(entry.get("content", ""))
        book_budget = entry.pop("_book_budget", None)
        if full or (budget is not None and used + tokens > budget):
            full = True
            match.dropped.append({**entry, "tokens": tokens, "reason":
                                  f"over the world-info budget ({used} + {tokens} > {budget} "
                                  f"tokens); would have fired: {entry['reason']}"})
            continue
        if book_budget is not None and entry["_book_used"][0] + tokens > book_budget:
            match.dropped.append({**entry, "tokens": tokens, "reason":
                                  f"over its lorebook's token_budget of {book_budget}; "
                                  f"would have fired: {entry['reason']}"})
            continue
        entry["_book_used"][0] += tokens
        used += tokens
        kept.append({**entry, "tokens": tokens})
    return kept


def lorebook_match(lorebooks: list[dict[str, Any]], *, messages: list[str],
                   count_tokens: Callable[[str], int], budget_tokens: int | None = None,
                   turn: int = 0, timed: dict[str, dict[str, int]] | None = None,
                   chat_length: int | None = None, rng: random.Random | None = None) -> LoreMatch:
    """Entries the recent `messages` (newest last) trigger in `lorebooks`. `budget_tokens` is
    the world-info budget (None: no limit); `timed` the sticky/cooldown state of earlier turns,
    returned updated in `match.timed`."""
    match = LoreMatch(timed=dict(timed or {}))
    rng = rng or random.Random()
    active: list[dict[str, Any]] = []
    scan = _Scan(messages, match.problems)  # one regex time budget for the whole turn
    for book in lorebooks:
        book_id = str(book.get("lorebook_id") or book.get("name") or "?")
        state = _Book(book, book_id, scan, turn, len(messages) if chat_length is None
                      else chat_length, match.timed, rng)
        entries = [{**entry, "uid": entry.get("uid", index)}
                   for index, entry in enumerate(book.get("entries") or [])
                   if isinstance(entry, dict) and entry.get("enabled", True)]
        state.activate(entries)
        match.dropped.extend(state.dropped)
        own_budget = book.get("token_budget")
        used = [0]
        for entry in state.active:
            _timed_update(state, entry, match.timed)
            active.append({**entry, "_book_budget": own_budget or None, "_book_used": used})
    kept = _budget_apply(active, budget_tokens, count_tokens, match)
    for entry in [*kept, *match.dropped]:
        entry.pop("_book_used", None)
        entry.pop("_book_budget", None)
    match.fired = sorted(kept, key=lambda e: _number(e.get("priority"), 100))
    return match


def lore_blocks(match: LoreMatch) -> list[dict[str, Any]]:
    """Floating prompt blocks of the fired entries, in insertion order (lower order first)."""
    return [
        {"name": f"lore:{entry['lorebook_id']}:{entry['uid']}",
         "content": entry.get("content", ""),
         "position": entry.get("position", "before_char"),
         "depth": _number(entry.get("depth"), 4),
         "role": entry.get("role", "system"),
         "priority": _number(entry.get("priority"), 100)}
        for entry in match.fired
        if entry.get("content", "").strip()
    ]
