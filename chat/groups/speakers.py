"""Who speaks next in a conversation with several characters. Pure: no Django, no files.

Strategies (the stored values; SillyTavern's group reply strategies in brackets):
- natural [Natural order]: members named in the last message answer first (in the order they
  are named), then the others, shuffled as SillyTavern does, each answers when a draw is at most
  its talkativeness; if nobody is drawn, one member chosen at random answers, among those whose
  talkativeness is above 0 (as SillyTavern's activateNaturalOrder; when none is, among all
  unmuted members). Nobody is named or drawn twice in a row unless alone: when the last line is
  a character's (a trigger), that character waits; a player's message may name anyone. With
  `allow_self_responses` (SillyTavern's group setting of that name) it need not wait, and may
  also be the one chosen at random.
- everyone [List order]: every unmuted member answers once, in list order.
- list [none: PersonaLab's own "take turns"]: one reply per round, the member after the last
  speaker in list order. Its stored name predates the labels; SillyTavern's "List order" is
  `everyone` (chat/pages/members.py labels both so).
- manual [Manual, SillyTavern 1.13]: nobody answers unless the player picks one.
The player's pick (`requested`) always wins, muted or not. `draw` is the randomness (a number in
0..1, as Math.random): tests pass their own.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Callable

STRATEGIES = ("natural", "list", "manual", "everyone")
DEFAULT_TALKATIVENESS = 0.5

Draw = Callable[[], float]
Shuffle = Callable[[list], None]


@dataclass(frozen=True)
class Member:
    character_id: str
    name: str
    talkativeness: float = DEFAULT_TALKATIVENESS
    muted: bool = False


@dataclass(frozen=True)
class Pick:
    character_id: str
    reason: str


class SpeakerError(ValueError):
    pass


def speakers_pick(members: list[Member], *, strategy: str, last_message: str = "",
                  last_speaker: str | None = None, requested: str | None = None,
                  player_spoke_last: bool = False, allow_self_responses: bool = False,
                  draw: Draw = random.random,
                  shuffle: Shuffle = random.shuffle) -> list[Pick]:
    """The members who answer this round, in order, each with why it was chosen.
    `last_speaker`: the character who answered last; `player_spoke_last`: the player wrote
    since; `allow_self_responses`: the last speaker may answer again."""
    if requested is not None:
        if requested not in {m.character_id for m in members}:
            raise SpeakerError(f"{requested!r} is not a member of this conversation")
        return [Pick(requested, "requested by the player")]
    if strategy not in STRATEGIES:
        raise SpeakerError(f"unknown reply order {strategy!r}; use one of {', '.join(STRATEGIES)}")
    active = [m for m in members if not m.muted]
    if strategy == "manual" or not active:
        return []
    if strategy == "everyone":
        return [Pick(m.character_id, "everyone answers once") for m in active]
    if strategy == "list":
        return [_next_in_list(members, active, last_speaker)]
    return _natural(active, last_message=last_message,
                    last_speaker=None if player_spoke_last or allow_self_responses
                    else last_speaker, draw=draw,
                    shuffle=shuffle)


def _next_in_list(members: list[Member], active: list[Member], last_speaker: str | None) -> Pick:
    ids = [m.character_id for m in members]
    start = ids.index(last_speaker) + 1 if last_speaker in ids else 0
    active_ids = {m.character_id for m in active}
    for offset in range(len(ids)):
        candidate = ids[(start + offset) % len(ids)]
        if candidate in active_ids:
            return Pick(candidate, "next in list order")
    raise AssertionError("active members are members")  # pragma: no cover


def _natural(active: list[Member], *, last_message: str, last_speaker: str | None,
             draw: Draw, shuffle: Shuffle) -> list[Pick]:
    alone = len(active) == 1
    eligible = active if alone else [m for m in active if m.character_id != last_speaker]
    picks = [Pick(m.character_id, "named in the last message")
             for m in _named_in(eligible, last_message)]
    chosen = {p.character_id for p in picks}
    eligible = list(eligible)
    shuffle(eligible)
    for member in eligible:
        # a roll equal to the talkativeness activates, as SillyTavern's `talkativeness >= roll`
        if member.character_id not in chosen and draw() <= member.talkativeness:
            picks.append(Pick(member.character_id,
                              f"talkativeness {member.talkativeness:g}"))
            chosen.add(member.character_id)
    if not picks:
        chatty = [m for m in eligible if m.talkativeness > 0]
        pool = chatty or active  # SillyTavern's fallback pool may hold the last speaker
        chosen_one = pool[min(int(draw() * len(pool)), len(pool) - 1)]
        picks.append(Pick(chosen_one.character_id, "nobody drawn: chosen at random"))
    return picks


_WORD = re.compile(r"\w+")


def _named_in(members: list[Member], text: str) -> list[Member]:
    """As SillyTavern: a member is named when its whole name or any word of it is a word of the
    message ("Mira, look" names "Mira Voss"); a CJK name, one long word, by its whole name."""
    lowered = text.casefold()
    first_at: dict[str, int] = {}
    for word in _WORD.finditer(lowered):
        first_at.setdefault(word.group(), word.start())
    found = []
    for member in members:
        name = member.name.casefold().strip()
        if not name:
            continue
        hits = [at for at in [lowered.find(name), *(first_at.get(w, -1)
                                                    for w in _WORD.findall(name))] if at >= 0]
        if hits:
            found.append((min(hits), member))
    return [m for _, m in sorted(found, key=lambda f: f[0])]


def talkativeness_of(value: object) -> float:
    """A card's talkativeness (SillyTavern keeps it as a string "0.5"), clamped to 0..1."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return DEFAULT_TALKATIVENESS
    return min(max(number, 0.0), 1.0) if number == number else DEFAULT_TALKATIVENESS
