"""What a group speaker's prompt weighs of the session lines before its turn's stretch.

A turn reads only the newest lines its window can hold; the lines before are tallied through
the line index (personalab/lib/filestore/lines_before.py), which counts each message's own
text. A group's prompt sends the others' lines renamed for the speaker ("Ann: …",
chat/groups/prompt.py), and a tokenizer does not count "Ann: " + text as "Ann: " and text apart,
so here those lines are weighed as the speaker's prompt shows them: the very functions the
prompt uses, run on the lines themselves. A line without a macro shows the same for a speaker
every turn, so its weight is carried on from the last turn of that speaker (only the lines the
stretch has left behind since are parsed); the lines that may hold a macro (few, already parsed
by the tally) are weighed again each turn, since a member's card may have changed. What is
carried is also kept beside the session file (personalab/lib/filestore/kept_tally.py) once it
covers lines enough, so a new process's first round goes on from there instead of parsing
every older line again for each speaker (bench/long_chat.py --restart). A tally that starts far
back (the first round in the process that imported the chat) is made for each unmuted member in
the one pass over the lines, so the round's later speakers go on from there.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chat.groups.members import members_of
from chat.groups.prompt import lines_for_speaker, unnamed_lines_by
from chat.groups.scene import lines_with_own_macros, unnamed_name
from library.selectors import character_for_chat_optional
from personalab.lib.filestore.kept_tally import kept_tallies_read, kept_tally_write
from personalab.lib.filestore.session_read import LinesBefore
from personalab.lib.filestore.store import FileStore
from personalab.lib.lines import line_prompt_usable
from personalab.lib.tokens import count_tokens, tokenizer_name

Shown = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


@dataclass(frozen=True)
class _Held:
    first: int  # the tally is of the lines before this position
    edge: tuple[int, int]  # the line index's (end, crc) of the line before it
    tokens: int  # the shown contents' tokens of the messages without a macro before it
    speakers: frozenset[str]  # whose replies lie before it
    kept: int = 0  # the `first` of the copy kept beside the file (0: none)


_HELD = 64  # a few ints each
_held: OrderedDict[tuple[Any, ...], _Held] = OrderedDict()
_held_lock = threading.Lock()
_NONE = _Held(0, (0, 0), 0, frozenset())
# The kept copy is written again once the tally moved this many lines past it: a new process
# parses at most these per speaker, and a turn of a few lines writes nothing.
KEEP_EVERY = 256
_PIECE_LINES = 4096
# Lines `shown` is tried on: a change in how a group's prompt names lines changes what they
# give, and with it the key a kept tally is found under (one written by other code is unused).
_PROBE = ({"role": "user", "content": "a", "name": "P"}, {"role": "user", "content": "b"},
          {"role": "assistant", "content": "c", "name": "Q"},
          {"role": "assistant", "content": "d", "name": "R"},
          {"role": "assistant", "content": "e"})


@dataclass(frozen=True)
class GroupBefore:
    lines_before: LinesBefore  # message_tokens as the speaker's prompt weighs them
    speakers: frozenset[str]  # whose replies lie before the stretch (their own macros)


@dataclass(frozen=True)
class SpeakerView:
    """How one speaker's prompt shows the lines: `shown`, and everything it depends on for a
    line without a macro (`key`: the speaker, the names it falls back on)."""
    shown: Shown
    key: tuple[Any, ...]


@dataclass(frozen=True)
class _Found:
    whole_key: tuple[Any, ...]
    kept_key: Callable[[], str]
    shown: Shown
    held: _Held


def group_lines_before(source: Any, before: LinesBefore, *, shown: Shown,
                       key: tuple[Any, ...],
                       others: Callable[[], list[SpeakerView]] = list) -> GroupBefore | None:
    """`before` (the lines at positions [0, len(source)) of `source`, a
    session_stretch.LinesSource) with its messages' tokens counted as `shown` (what the prompt
    makes of a list of lines for this speaker, its macros filled as the prompt fills them)
    shows them. `key`: everything `shown` depends on for a line without a macro (the speaker,
    the names it falls back on). `others`: the other speakers' views; when this speaker's
    tally starts far back (a first round after an import), theirs that start at the same line
    are made in the same pass, so the round parses the older lines once, not once per speaker.
    None: the file no longer holds what was read."""
    first = len(source)
    found = [_found(source, SpeakerView(shown, key))]
    start = found[0].held.first
    if first - start >= KEEP_EVERY:
        found += [other for other in (_found(source, view) for view in others())
                  if other.held.first == start and other.whole_key != found[0].whole_key]
    # The lines between the last tally's edge and this one's: added, or (a regenerate reads
    # one line further back) taken back out. Whose replies they hold stay in `speakers`: a
    # line taken back lies in the stretch, whose own replies the prompt reads anyway.
    weighed = _span_weighed(source, *sorted((start, first)), shown=[f.shown for f in found])
    if weighed is None:
        return None
    weights, speakers = weighed
    helds = [_carried(source, one, first, weight, speakers) for one, weight in zip(found, weights)]
    tokens = helds[0].tokens + _weighed(shown(list(before.macro_messages)))
    return GroupBefore(dataclasses.replace(before, message_tokens=tokens), helds[0].speakers)


def _found(source: Any, view: SpeakerView) -> _Found:
    """The tally carried for `view` (held in this process, else kept beside the file), none
    when the file no longer holds the line it ends at."""
    whole_key = (os.path.abspath(source.path), tokenizer_name(), *view.key)
    with _held_lock:
        held = _held.get(whole_key)
    kept_key = functools.partial(_kept_key, whole_key[1:], view.shown)
    if held is None:
        held = _kept_read(source, kept_key())
    if source.edge(held.first) != held.edge:
        held = _NONE
    return _Found(whole_key, kept_key, view.shown, held)


def _carried(source: Any, found: _Found, first: int, weight: int,
             speakers: frozenset[str]) -> _Held:
    """`found`'s tally moved to `first` by the `weight` of the lines between, held (and kept
    beside the file once it moved KEEP_EVERY lines past the kept copy)."""
    held = found.held
    held = _Held(first, source.edge(first),
                 held.tokens + (weight if first >= held.first else -weight),
                 held.speakers | speakers, held.kept)
    if first - held.kept >= KEEP_EVERY:
        held = _kept_write(source, found.kept_key(), held)
    with _held_lock:
        _held[found.whole_key] = held
        _held.move_to_end(found.whole_key)
        while len(_held) > _HELD:
            _held.popitem(last=False)
    return held


def _span_weighed(source: Any, start: int, stop: int, *,
                  shown: list[Shown]) -> tuple[list[int], frozenset[str]] | None:
    """The weight of the lines without a macro at [start, stop) as each of `shown` shows them,
    and whose replies they hold, a piece at a time: a first tally of 100,000 lines held them
    all (and their shown copies) at once, and each of Python's full collections walked them all
    again."""
    weights, speakers = [0] * len(shown), frozenset[str]()
    for piece in range(start, stop, _PIECE_LINES):
        parsed = source.lines(piece, min(piece + _PIECE_LINES, stop))
        if parsed is None:
            return None
        lines, macro = parsed
        plain = [line for line, flagged in zip(lines, macro) if not flagged]
        # A line shown alike to several speakers (a player's "Ann: …") is counted once: the
        # tokenizer's own cache holds fewer texts than a large first tally passes it.
        counted: dict[str, int] = {}
        for n, one in enumerate(shown):
            weights[n] += _weighed(one(plain), counted)
        speakers |= _speakers(lines)
    return weights, speakers


def _kept_key(key: tuple[Any, ...], shown: Shown) -> str:
    probe = [(line.get("role"), line.get("content")) for line in shown(list(_PROBE))]
    return hashlib.sha256(json.dumps([list(key), probe], default=str).encode()).hexdigest()


def _kept_read(source: Any, kept_key: str) -> _Held:
    entry = kept_tallies_read(source.path).get(kept_key)
    try:
        first, end, crc, tokens = (int(entry[name]) for name in ("first", "end", "crc", "tokens"))
        speakers = frozenset(str(speaker) for speaker in entry["speakers"])
    except (TypeError, KeyError, ValueError):
        return _NONE
    return _Held(first, (end, crc), tokens, speakers, first)


def _kept_write(source: Any, kept_key: str, held: _Held) -> _Held:
    end, crc = held.edge
    try:
        kept_tally_write(source.path, key=kept_key, entry={
            "first": held.first, "end": end, "crc": crc, "tokens": held.tokens,
            "speakers": sorted(held.speakers)})
    except OSError:
        return held  # a cache: the next turn tries again
    return dataclasses.replace(held, kept=held.first)


def group_before_for_speaker(store: FileStore, *, state: dict[str, Any],
                             character: dict[str, Any], speaker_id: str,
                             persona: dict[str, Any], source: Any,
                             before: LinesBefore, every_named: bool = False
                             ) -> GroupBefore | None:
    """group_lines_before for `speaker_id` (playing `character`) in the group chat of
    `state`, its lines shown as chat/play/context.py's prompt shows them to that speaker; the
    other unmuted members' tallies made in the same pass when it starts far back."""
    unnamed_by, unnamed = unnamed_lines_by(state), unnamed_name(store, state)
    view = functools.partial(_speaker_view, store, state=state, persona=persona,
                             unnamed_by=unnamed_by, unnamed=unnamed)
    own = view(character=character, speaker_id=speaker_id, every_named=every_named)

    def others() -> list[SpeakerView]:
        # Each as its own turn's context reads it (chat/play/context.py). One withheld raises
        # there, and must not fail this speaker's turn; it and one missing (an empty card) are
        # left to their own turns.
        members = [(member.character_id, character_for_chat_optional(
                        store, state=state, character_id=member.character_id))
                   for member in members_of(store, state)
                   if member.character_id != speaker_id and not member.muted]
        return [view(character=other, speaker_id=other_id)
                for other_id, other in members if other]

    return group_lines_before(source, before, shown=own.shown, key=own.key, others=others)


def _speaker_view(store: FileStore, *, state: dict[str, Any], character: dict[str, Any],
                  speaker_id: str, persona: dict[str, Any], unnamed_by: str | None,
                  unnamed: str, every_named: bool = False) -> SpeakerView:
    speaker_name = character.get("name") or ""

    def shown(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return lines_for_speaker(
            lines_with_own_macros(store, state=state, lines=lines, character=character,
                                  speaker_id=speaker_id, persona=persona),
            speaker_id=speaker_id, player_name=persona["name"], speaker_name=speaker_name,
            unnamed_by=unnamed_by, unnamed_name=unnamed, every_named=every_named)

    # An impersonation's view (every line named) weighs apart; a turn's key is as before.
    return SpeakerView(shown, (speaker_id, speaker_name, persona["name"], unnamed_by, unnamed,
                               *(("every_named",) if every_named else ())))


def _weighed(lines: list[dict[str, Any]], counted: dict[str, int] | None = None) -> int:
    """The contents' tokens of the messages among `lines` a prompt may send (summary lines
    are rendered each turn, so the tally keeps them apart), as chat/prompt/tally.py counts;
    `counted`: the counts of texts already counted, added to."""
    counted = {} if counted is None else counted
    total = 0
    for line in lines:
        if line_prompt_usable(line) and line.get("type") != "summary":
            content = line["content"]
            if content not in counted:
                counted[content] = count_tokens(content)
            total += counted[content]
    return total


def _speakers(lines: list[dict[str, Any]]) -> frozenset[str]:
    return frozenset(str(line["speaker"]) for line in lines
                     if line.get("role") == "assistant" and line.get("speaker"))
