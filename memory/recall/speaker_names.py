"""Which speakers a question's word names ("Mel" for Melanie, "Muhhamed" for Muhammad), for
memory/recall/focus.py. Framework-free and pure.

Each word was compared with each speaker's name parts, and with difflib when not equal: a
20,000-character question (2,860 capitalised words) against an imported chat's 1,000 names
took 20 s of CPU per search (red team, 2026-12-02). Now the parts are indexed once by their
prefixes, each distinct word is looked up once, and the spelling comparisons a question may
cost are counted: past FUZZY_PAIRS_MAX only whole names and prefixes are recognised.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

NAME_SIMILARITY = 0.75
# A part's prefixes are indexed up to this length; a longer word names a part only whole.
PREFIX_MAX = 64
FUZZY_PAIRS_MAX = 5_000
_PART = re.compile(r"[A-Za-z]{3,}")


class SpeakerNames:
    """The speakers and their name parts, asked word by word (`named_by`)."""

    def __init__(self, speakers: Iterable[str]) -> None:
        self.parts: dict[str, set[str]] = {}
        for speaker in speakers:
            for part in {found.lower() for found in _PART.findall(speaker or "")}:
                self.parts.setdefault(part, set()).add(speaker)
        self.prefixes: dict[str, set[str]] = {}
        for part, owners in self.parts.items():
            for end in range(3, min(len(part), PREFIX_MAX) + 1):
                self.prefixes.setdefault(part[:end], set()).update(owners)
        self.fuzzy_left = FUZZY_PAIRS_MAX
        self.known: dict[str, frozenset[str]] = {}

    def named_by(self, word: str) -> frozenset[str]:
        """The speakers `word` names: one of their name parts, its beginning (3 letters or
        more), or spelled closely enough (5 letters or more)."""
        key = word.lower().removesuffix("'s")
        if key not in self.known:
            self.known[key] = frozenset(self._found(key))
        return self.known[key]

    def _found(self, key: str) -> set[str]:
        found = set(self.parts.get(key, ()))
        if len(key) >= 3:
            found |= self.prefixes.get(key, set())
        if len(key) >= 5:
            found |= self._spelled_like(key, skip=found)
        return found

    def _spelled_like(self, key: str, *, skip: set[str]) -> set[str]:
        found: set[str] = set()
        for part, owners in self.parts.items():
            if owners <= skip or owners <= found:
                continue
            if self.fuzzy_left <= 0:
                break
            self.fuzzy_left -= 1
            matcher = difflib.SequenceMatcher(None, key, part)
            # the two quick ratios are upper bounds of ratio(), cheap to take first
            if (matcher.real_quick_ratio() >= NAME_SIMILARITY
                    and matcher.quick_ratio() >= NAME_SIMILARITY
                    and matcher.ratio() >= NAME_SIMILARITY):
                found |= owners
        return found
