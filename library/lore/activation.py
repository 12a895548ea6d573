"""World-info activation with SillyTavern's semantics. Framework-free.

Which entries of the linked lorebooks fire this turn, and why: keys (plain, whole-word, case,
`/regex/flags` or `use_regex`; a key that is not a valid regex is plain text), per-entry scan
depth, secondary keys, probability (the roll is recorded), inclusion groups (one winner per
group: sticky first, then group override by order, else by weight), sticky / cooldown / delay in
turns (`TimedState`, kept by the caller in a file), recursion (exclude / prevent /
delay-until-recursion) and a token budget spent loop by loop (library/lore/budget.py).
Entries are weighed in SillyTavern's scan order (`scan_order`): the chat's lore, the
character's, then the global lore, each by order. Fired entries are returned in insertion
order, lower order first, as SillyTavern places them; what they become in the prompt is
library/lore/placement.py.

Entry settings are read from the PersonaLab fields first, then from the card's
`extensions` (SillyTavern's export names), then from the book's defaults.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import regex

from library.lore.budget import LoreBudget
from library.lore.character_filter import character_filter_note, character_filter_reason
from library.lore.defaults import book_recursive, book_scan_depth
from library.lore.keys import KeyScan, entry_key, entry_number, key_trigger, key_where, setting

# V3 decorators: lines at the start of an entry's content beginning with "@@" ("@@@" escapes
# a decorator name). SillyTavern acts on these two and never sends the lines to the model.
DECORATOR_LINES = regex.compile(r"\A(?:@@[^\n]*(?:\n|\Z))+")
KNOWN_DECORATORS = ("@@activate", "@@dont_activate")
GROUP_SEPARATOR = regex.compile(r",\s*")


@dataclass
class LoreMatch:
    fired: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    timed: dict[str, dict[str, int]] = field(default_factory=dict)


# --- entry settings --------------------------------------------------------------------------

def _group_text(entry: dict[str, Any]) -> str:
    group = setting(entry, "group", "group", "")
    return group if isinstance(group, str) else ""


def _groups(entry: dict[str, Any]) -> list[str]:
    """The inclusion groups of `entry`, split as SillyTavern splits them: "a, b" is "a" and
    "b", "a ,b" is "a " and "b"."""
    return [name for name in GROUP_SEPARATOR.split(_group_text(entry)) if name]


def decorators_split(content: str) -> tuple[list[str], str]:
    """The known decorators of an entry's content, and the content without its `@@` lines."""
    found = DECORATOR_LINES.match(content)
    if not found:
        return [], content
    names, fallback = [], False
    for line in found.group(0).removesuffix("\n").split("\n"):
        # SillyTavern's parseDecorators: "@@@name" stands in only for an unknown one above it;
        # a line is known by how it starts and acted on only when it is exactly the name, so
        # "@@activate " (a space after it) is dropped from the text and does nothing there.
        if line.startswith("@@@") and not fallback:
            continue
        name = line[1:] if line.startswith("@@@") else line
        fallback = not name.startswith(KNOWN_DECORATORS)
        if not fallback:
            names.append(name)
    # Its loop keeps the text from the first line that is no decorator: with none (no line
    # break after the last "@@" line), the text stays whole, "@@activate" and all.
    rest = content[found.end():] if found.end() < len(content) or content.endswith("\n") \
        else content
    return [name for name in names if name in KNOWN_DECORATORS], rest


# --- one turn's activation over every linked book ---------------------------------------------

# Scan states, as SillyTavern's loop has them.
INITIAL, RECURSION, MIN_ACTIVATIONS = "initial", "recursion", "min_activations"
# Each loop activates an entry, opens a recursion level or looks one message deeper, so the
# scan ends by itself; this bounds it anyway, plus one loop per message a min-activations step
# looks deeper (SillyTavern walks back to a long chat's start).
MAX_SCAN_LOOPS = 50
# Entry flag -> (key of `sources`, name in the trace, SillyTavern world-info name).
SOURCES = {
    "match_persona_description": ("persona_description", "the persona description",
                                  "matchPersonaDescription"),
    "match_character_description": ("character_description", "the character description",
                                    "matchCharacterDescription"),
    "match_character_personality": ("character_personality", "the character personality",
                                    "matchCharacterPersonality"),
    "match_character_depth_prompt": ("character_depth_prompt", "the character depth prompt",
                                     "matchCharacterDepthPrompt"),
    "match_scenario": ("scenario", "the scenario", "matchScenario"),
    "match_creator_notes": ("creator_notes", "the creator notes", "matchCreatorNotes"),
}


def delay_level(entry: dict[str, Any]) -> int:
    """SillyTavern's delay-until-recursion: false/0 none, true level 1, a number that level."""
    value = setting(entry, "delay_until_recursion", "delay_until_recursion", False,
                    "delayUntilRecursion")
    if value is True:
        return 1
    return max(0, entry_number(value, 0))


@dataclass
class _Turn:
    """Every linked book's entries scanned together, as SillyTavern does: one recursion
    buffer, one count of activations, inclusion groups across books."""

    books: dict[str, dict[str, Any]]
    scan: KeyScan
    chat_length: int
    timed: dict[str, dict[str, int]]
    rng: random.Random
    sources: dict[str, str]
    speaker: dict[str, Any] | None
    vector_scores: Callable[[list[dict[str, Any]]], dict[str, float]] | None
    vector_threshold: float
    macros: Callable[[str], str]
    budget: LoreBudget
    active: list[dict[str, Any]] = field(default_factory=list)
    dropped: list[dict[str, Any]] = field(default_factory=list)
    settled: set[str] = field(default_factory=set)
    lost: set[str] = field(default_factory=set)  # entries with a reason in `dropped`
    recursion: list[tuple[str, str]] = field(default_factory=list)
    skew: int = 0
    level: int = 0
    entries: list[dict[str, Any]] = field(default_factory=list)
    # Each entry's keys as written (before macros), which SillyTavern's group score reads.
    raw_keys: dict[str, tuple[list[Any], list[Any]]] = field(default_factory=dict)
    _vectors: dict[str, float] | None = None

    def book(self, entry: dict[str, Any]) -> dict[str, Any]:
        return self.books[entry["lorebook_id"]]

    def label(self, entry: dict[str, Any]) -> str:
        return f"lorebook {entry['lorebook_id']} entry {entry.get('uid')}"

    def key(self, entry: dict[str, Any]) -> str:
        return entry_key(entry["lorebook_id"], entry)

    def drop(self, entry: dict[str, Any], reason: str, *, settle: bool = True) -> None:
        """`settle`: the entry is weighed no more this turn; an inclusion group's loser is not
        settled, as SillyTavern only takes it out of that loop's list and weighs it again in
        every later loop that finds it (its group may have had no winner fire); the trace keeps
        the reason it first lost for."""
        if settle:
            self.settled.add(self.key(entry))
        elif self.key(entry) in self.lost:
            return
        self.lost.add(self.key(entry))
        self.dropped.append({**entry, "reason": reason})

    def dropped_final(self) -> list[dict[str, Any]]:
        """Each entry left out, once, with the last reason it was left out for; none that fired
        in a later loop (an inclusion group's loser can)."""
        fired = {self.key(entry) for entry in self.active}
        seen: set[str] = set()
        final = []
        for entry in reversed(self.dropped):
            key = self.key(entry)
            if key not in fired and key not in seen:
                seen.add(key)
                final.append(entry)
        return final[::-1]

    def timed_phase(self, entry: dict[str, Any]) -> str:
        """SillyTavern's timed effects, counted in messages: sticky until the chat has grown by
        `sticky`, then cooldown for `cooldown` more from the scan that finds the sticky time
        over; a chat that has not grown since the entry fired (a regenerate) judges it afresh."""
        state = self.timed.get(self.key(entry)) or {}
        if self.chat_length <= state.get("start", -1):
            self.timed.pop(self.key(entry))
            return ""
        if self.chat_length < state.get("sticky_end", -1):
            return "sticky"
        after_sticky = entry_number(state.get("cooldown_after_sticky"), 0)
        if after_sticky:
            # SillyTavern starts the cooldown when a scan first finds the sticky time over
            # (`onEnded.sticky`), not where it ended: sticky 3 seen over at +4 cools until +4+n.
            state = {key: value for key, value in state.items() if key != "cooldown_after_sticky"}
            state["cooldown_end"] = self.chat_length + after_sticky
            self.timed[self.key(entry)] = state
        if self.chat_length < state.get("cooldown_end", -1):
            return "cooldown"
        return ""

    def recursive(self, entry: dict[str, Any]) -> bool:
        return book_recursive(self.book(entry))

    def base_depth(self, book: dict[str, Any]) -> int:
        return book_scan_depth(book)

    def texts(self, entry: dict[str, Any], state: str) -> list[tuple[str, str]]:
        # An entry's own depth that is not a number (or is negative) is the book's.
        own = entry_number(setting(entry, "scan_depth", "scan_depth", None, "scanDepth"), -1)
        depth = own if own >= 0 else self.base_depth(self.book(entry)) + self.skew
        texts = self.scan.texts(depth)
        for flag, (name, label, st_name) in SOURCES.items():
            if setting(entry, flag, flag, False, st_name) and self.sources.get(name):
                texts.append((label, self.sources[name]))
        # Min-activation steps look deeper into the chat, not at the recursion buffer.
        if state != MIN_ACTIVATIONS and self.recursive(entry):
            texts.extend(self.recursion)
        return texts

    def vector_similarity(self, entry: dict[str, Any]) -> float | None:
        if self.vector_scores is None or not setting(entry, "vectorized", "vectorized", False):
            return None
        if self._vectors is None:
            vectorized = [e for e in self.entries
                          if setting(e, "vectorized", "vectorized", False)
                          and str(e.get("content", "")).strip()]
            self._vectors = self.vector_scores(vectorized) if vectorized else {}
        return self._vectors.get(self.key(entry))

    def reason(self, entry: dict[str, Any], state: str) -> str | None:
        phase = self.timed_phase(entry)
        sticky = phase == "sticky"
        level = delay_level(entry)
        if level and not sticky and (state != RECURSION or level > self.level):
            return None
        if (state == RECURSION and not sticky
                and setting(entry, "exclude_recursion", "exclude_recursion", False)):
            return None
        decorators = entry.get("decorators") or []
        if "@@dont_activate" in decorators and "@@activate" not in decorators:
            return None
        if "@@activate" in decorators:
            reason = "decorator @@activate"
        elif sticky:
            reason = "sticky (fired earlier, still active)"
        elif entry.get("constant"):
            reason = "constant"
        else:
            reason = key_trigger(entry, self.texts(entry, state), self.book(entry), self.scan,
                              self.label(entry))
            similarity = None if reason else self.vector_similarity(entry)
            if similarity is not None and similarity >= self.vector_threshold:
                reason = (f"vectorized: the recent chat is {similarity:.3f} similar "
                          f"(threshold {self.vector_threshold})")
        if reason is None:
            return None
        if state == MIN_ACTIVATIONS and not sticky and reason.startswith("key"):
            reason += f" (min activations: scanning {self.skew} message(s) deeper)"
        if level and state == RECURSION and not sticky:
            reason += f" (delayed until recursion level {level})"
        blocked = character_filter_reason(entry, self.speaker)
        if blocked:
            self.drop(entry, f"{blocked}; would have fired: {reason}")
            return None
        if self.speaker is not None:
            reason += character_filter_note(entry, self.speaker)
        if phase == "cooldown":
            self.drop(entry, f"on cooldown; would have fired: {reason}")
            return None
        delay = entry_number(setting(entry, "delay", "delay", 0), 0)
        if delay and self.chat_length < delay:
            self.drop(entry, f"delayed until {delay} messages (chat has {self.chat_length}); "
                             f"would have fired: {reason}")
            return None
        return reason

    def candidates(self, state: str) -> list[dict[str, Any]]:
        found = []
        for entry in self.entries:
            if self.key(entry) in self.settled:
                continue
            reason = self.reason(entry, state)
            if reason:
                found.append({**entry, "reason": reason})
        return found

    def probability_pass(self, entry: dict[str, Any]) -> bool:
        if entry["reason"].startswith("sticky"):
            return True
        if not setting(entry, "use_probability", "useProbability", True):
            return True
        chance = _chance(setting(entry, "probability", "probability", 100))
        if chance == 100:
            return True
        # SillyTavern's check: an unrounded roll in [0, 100) passes when it is <= the chance.
        roll = self.rng.random() * 100
        entry["roll"] = roll
        said = f"probability {chance:g}%: rolled {_roll_text(roll, chance)}"
        if roll <= chance:
            entry["reason"] += f" ({said})"
            return True
        self.drop(entry, f"{said}; would have fired: {entry['reason']}")
        return False

    # inclusion groups -------------------------------------------------------------------

    def score(self, entry: dict[str, Any], state: str) -> int:
        """SillyTavern's group score (`getScore`): primary keys found, plus secondary keys found
        when the logic is AND ANY (or AND ALL and all are found). It reads the keys as written,
        not as its scan does: no macros filled in (`{{char}}` scores only where the chat says
        `{{char}}`), not trimmed (" sword" needs its space), an empty key always found."""
        texts = self.texts(entry, state)
        book = self.book(entry)
        raw_keys, raw_secondary = self.raw_keys.get(self.key(entry)) or (
            entry.get("keys") or [], entry.get("secondary_keys") or [])

        def found(key: str) -> bool:
            return key == "" or key_where(key, texts, entry, book, self.scan,
                                          self.label(entry), trim=False) is not None

        keys = [k for k in raw_keys if isinstance(k, str)]
        if not keys:
            return 0
        primary = sum(found(k) for k in keys)
        secondary_keys = [k for k in raw_secondary if isinstance(k, str)]
        secondary = sum(found(k) for k in secondary_keys)
        logic = entry.get("selective_logic", "and_any")
        if secondary_keys and (logic == "and_any" or (logic == "and_all"
                                                      and secondary == len(secondary_keys))):
            return primary + secondary
        return primary

    def scored(self, entry: dict[str, Any]) -> bool:
        value = setting(entry, "use_group_scoring", "use_group_scoring", None, "useGroupScoring")
        if value is None:
            value = self.book(entry).get("use_group_scoring", False)
        return bool(value)

    def groups_filter(self, found: list[dict[str, Any]], state: str) -> list[dict[str, Any]]:
        by_group: dict[str, list[dict[str, Any]]] = {}
        for entry in found:
            for group in _groups(entry):
                by_group.setdefault(group, []).append(entry)
        losers: dict[int, str] = {}
        for group, members in by_group.items():
            self._group_decide(group, members, state, losers)
        kept = []
        for entry in found:
            if id(entry) in losers:
                self.drop(entry, f"{losers[id(entry)]}; would have fired: {entry['reason']}",
                          settle=False)
            else:
                kept.append(entry)
        return kept

    def _group_decide(self, group: str, members: list[dict[str, Any]], state: str,
                      losers: dict[int, str]) -> None:
        sticky = [e for e in members if e["reason"].startswith("sticky")]
        if sticky:
            for entry in members:
                if not entry["reason"].startswith("sticky"):
                    losers.setdefault(id(entry), f"group {group!r} has a sticky entry")
            return
        # SillyTavern closes a group to an entry of an earlier loop whose whole `group` text is
        # the group's name: one of "a,b" leaves group "a" open.
        if any(_group_text(entry) == group for entry in self.active):
            for entry in members:
                losers.setdefault(id(entry), f"group {group!r} already has an active entry")
            return
        if any(self.scored(entry) for entry in members):
            scores = {id(entry): self.score(entry, state) for entry in members}
            best = max(scores.values())
            for entry in members:
                if self.scored(entry) and scores[id(entry)] < best:
                    losers.setdefault(id(entry), f"group {group!r} scoring: {scores[id(entry)]} "
                                                 f"key(s) matched, the best matched {best}")
            members = [e for e in members if id(e) not in losers]
            for entry in members:
                if self.scored(entry):
                    entry["reason"] += f" (group {group!r} scoring: {scores[id(entry)]} key(s))"
        if len(members) <= 1:
            for entry in members:
                entry["reason"] += f" (won group {group!r} of 1)"
            return
        winner, how = self._group_winner(members)
        for entry in members:
            if entry is not winner:
                losers.setdefault(id(entry), f"group {group!r} won by entry "
                                             f"{winner.get('uid')} ({how})")
        winner["reason"] += f" (won group {group!r} of {len(members)} by {how})"

    def _group_winner(self, members: list[dict[str, Any]]) -> tuple[dict[str, Any], str]:
        overrides = [e for e in members if setting(e, "group_override", "group_override", False)]
        if overrides:
            return max(overrides, key=lambda e: entry_number(e.get("priority"), 100)), "override"
        weights = [max(0, entry_number(setting(e, "group_weight", "group_weight", 100), 100))
                   for e in members]
        if not any(weights):
            return members[0], "order"
        winner = self.rng.choices(members, weights=weights)[0]
        return winner, f"weight {weights[members.index(winner)]} of {sum(weights)}"

    # the scan loop ------------------------------------------------------------------------

    def run(self, entries: list[dict[str, Any]], *, min_activations: int,
            min_depth_max: int) -> None:
        self.entries = entries
        levels = sorted({delay_level(e) for e in entries} - {0})
        self.level = levels.pop(0) if levels else 0
        state, loops = INITIAL, 0
        while state and loops < MAX_SCAN_LOOPS + self.skew:
            loops += 1
            # Sticky first, then in scan order (SillyTavern): candidates come in scan order.
            found = sorted(self.candidates(state),
                           key=lambda e: not e["reason"].startswith("sticky"))
            found = [e for e in self.groups_filter(found, state) if self.probability_pass(e)]
            found, left_out = self.budget.loop_spend(found)
            for entry, why in left_out:
                self.drop(entry, f"{why}; would have fired: {entry['reason']}")
            for entry in found:
                self.settled.add(self.key(entry))
            self.active.extend(found)
            feeding = [e for e in found if self.recursive(e) and not setting(
                e, "prevent_recursion", "prevent_recursion", False)]
            more = not self.budget.overflowed
            following = ""
            if more and (feeding or (state == MIN_ACTIVATIONS and self.recursion)):
                following = RECURSION
            if (not following and more and len(self.active) < min_activations
                    and self.deeper(min_depth_max)):
                following = MIN_ACTIVATIONS
                self.skew += 1
            if not following and levels:
                following = RECURSION
                self.level = levels.pop(0)
            self.recursion.extend((f"entry lore:{e['lorebook_id']}:{e['uid']}",
                                   self.macros(e.get("content", ""))) for e in feeding)
            state = following

    def deeper(self, depth_max: int) -> bool:
        """Whether a min-activations step may look one message further back: not from past
        the chat's start, and not from past the books' max depth (0: no max). SillyTavern
        1.12.6 checks the depth it scanned, not the next (`getDepth() > chat.length`), so its
        last step looks one past the max, and one past the chat's first message: the same
        text again, where an inclusion group's loser is weighed once more."""
        depth = max(self.base_depth(book) for book in self.books.values()) + self.skew
        if depth > len(self.scan.messages):
            return False
        return depth_max <= 0 or depth <= depth_max


# SillyTavern's scan list (`getSortedEntries`, with its default `character_first` strategy):
# the chat's lore, then the persona's (1.12.8), then the character's, then the global lore.
SCOPES = ("chat", "persona", "character", "global")


def scan_order(entries: list[dict[str, Any]], scopes: Mapping[str, str]) -> list[dict[str, Any]]:
    """`entries` in the order SillyTavern's scan weighs them: by the scope `scopes` gives their
    book (one it does not name is global), then by order, higher first; ties keep their book's
    and their own place. The budget and the inclusion groups take them in this order."""
    rank = {scope: index for index, scope in enumerate(SCOPES)}
    unnamed = rank["global"]
    return sorted(entries, key=lambda e: (rank.get(scopes.get(e["lorebook_id"], ""), unnamed),
                                          -entry_number(e.get("priority"), 100)))


def _chance(value: Any) -> float:
    """An entry's probability as SillyTavern reads it: any number (33.5 too), else 100."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return 100
    try:
        chance = float(value)
    except ValueError:
        return 100
    return chance if math.isfinite(chance) else 100


def _roll_text(roll: float, chance: float) -> str:
    """The roll to 2 decimals, or to as many as it takes to show on which side of the chance
    it fell (49.999 passes 50, 50.001 does not)."""
    for digits in range(2, 18):
        text = f"{roll:.{digits}f}"
        if (float(text) <= chance) == (roll <= chance):
            return text
    return f"{roll:.17f}"


def _timed_update(activation: _Turn, entry: dict[str, Any]) -> None:
    if entry["reason"].startswith("sticky"):
        return
    sticky = entry_number(setting(entry, "sticky", "sticky", 0), 0)
    cooldown = entry_number(setting(entry, "cooldown", "cooldown", 0), 0)
    if sticky or cooldown:
        length = activation.chat_length
        activation.timed[activation.key(entry)] = {
            "start": length, "sticky_end": length + sticky, "cooldown_end": length + cooldown,
            **({"cooldown_after_sticky": cooldown} if sticky and cooldown else {})}


def lorebook_match(lorebooks: list[dict[str, Any]], *, messages: list[str],
                   count_tokens: Callable[[str], int], budget_tokens: int | None = None,
                   timed: dict[str, dict[str, int]] | None = None,
                   chat_length: int | None = None, rng: random.Random | None = None,
                   sources: dict[str, str] | None = None, speaker: dict[str, Any] | None = None,
                   vector_scores: Callable[[list[dict[str, Any]]], dict[str, float]] | None = None,
                   vector_threshold: float = 1.0,
                   macros: Callable[[str], str] | None = None,
                   scopes: Mapping[str, str] | None = None) -> LoreMatch:
    """Entries the recent `messages` (newest last) trigger in `lorebooks`. `budget_tokens` is
    the world-info budget (None: no limit); `timed` the sticky/cooldown state of earlier turns,
    returned updated in `match.timed`. `sources`: texts entries may also match when flagged
    (persona_description, character_description, character_personality,
    character_depth_prompt, scenario, creator_notes); `speaker`: {"name", "id", "tags"} the
    character filters are judged against (None: no filtering); `vector_scores`: given the
    vectorized entries, their similarity to the recent chat by `entry_key` (None: vectorized
    entries match by their keys only); `macros`: a text with its macros filled in, as
    SillyTavern fills in keys before matching them and an entry's text before it feeds
    recursion (`{{user}}` in a key, `{{// a comment }}` in a text); `scopes`: each book's
    scope in SillyTavern's sense ("chat", "character" or "global", by lorebook id; None: all
    global), which decides the order entries are weighed in (`scan_order`)."""
    match = LoreMatch(timed=dict(timed or {}))
    books: dict[str, dict[str, Any]] = {}
    entries: list[dict[str, Any]] = []
    raw_keys: dict[str, tuple[list[Any], list[Any]]] = {}
    for book in lorebooks:
        book_id = str(book.get("lorebook_id") or book.get("name") or "?")
        books.setdefault(book_id, book)
        for index, entry in enumerate(book.get("entries") or []):
            if not isinstance(entry, dict) or not entry.get("enabled", True):
                continue
            decorators, content = decorators_split(str(entry.get("content") or ""))
            raw_keys[entry_key(book_id, {"uid": entry.get("uid", index)})] = (
                entry.get("keys") or [], entry.get("secondary_keys") or [])
            entries.append({**entry, "uid": entry.get("uid", index), "lorebook_id": book_id,
                            "position": _position(entry), "content": content,
                            **({"decorators": decorators} if decorators else {}),
                            **(_keys_filled(entry, macros) if macros else {})})
    scan = KeyScan(messages, match.problems)  # one regex time budget for the whole turn
    budget = LoreBudget(budget_tokens, count_tokens, macros or str, books)
    activation = _Turn(books, scan, len(messages) if chat_length is None else chat_length,
                       match.timed, rng or random.Random(), dict(sources or {}), speaker,
                       vector_scores, vector_threshold, macros or str, budget)
    activation.raw_keys = raw_keys
    activation.run(scan_order(entries, scopes or {}),
                   min_activations=max([entry_number(b.get("min_activations"), 0)
                                        for b in books.values()] or [0]),
                   min_depth_max=max([entry_number(b.get("min_activations_depth_max"), 0)
                                      for b in books.values()] or [0]))
    match.dropped.extend(activation.dropped_final())
    for entry in activation.active:
        _timed_update(activation, entry)
    # Lower order first; entries of the same order in reverse of the order they fired in, as
    # SillyTavern lays them out (its "Eldoria → Shadowfang → glade" chain reads glade first).
    match.fired = sorted(activation.active,
                         key=lambda e: -entry_number(e.get("priority"), 100))[::-1]
    return match


def _keys_filled(entry: dict[str, Any], macros: Callable[[str], str]) -> dict[str, Any]:
    return {name: [macros(key) if isinstance(key, str) else key for key in entry[name]]
            for name in ("keys", "secondary_keys") if isinstance(entry.get(name), list)}


def _position(entry: dict[str, Any]) -> str:
    position = entry.get("position") or "before_char"
    ext = entry.get("extensions") if isinstance(entry.get("extensions"), dict) else {}
    # Saved before PersonaLab knew outlets: SillyTavern's number is still in the extensions.
    if position == "before_char" and ext.get("position") == 7:
        return "outlet"
    return position
