"""Where a recalled line or event came from, as the inspector names it for a reader: "summary
of conversation 1, event 2", "conversation 1, turn 2, Alserqi", never the index's ids
(`summary summary_sess_001_1`, `sess_001 #2 assistant`: memory/vectors/index.py `hit_source`,
which the trace keeps as written)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext, gettext_lazy

from chat.play.macros import page_macro_values
from chat.templatetags.sessions import session_label
from personalab.lib.filestore.store import FileStore

EVENT_SOURCE = re.compile(
    r"(?P<kind>summary|plot) (?:summary|plot)_(?P<session>sess_\w{1,100}?)_(?P<index>\d{1,9})")
TURN_SOURCE = re.compile(
    r"(?P<session>\S{1,200}) #(?P<turn>-?\d{1,9}) (?P<role>user|assistant|system)")
EVENT_WORDS = {"summary": gettext_lazy("summary of %(conversation)s, event %(n)s"),
               "plot": gettext_lazy("details of %(conversation)s, event %(n)s")}
SOURCES_PREFIX = "sources: "


def recall_source_named(source: str, *, speaker: str = "",
                        names: Mapping[str, str] | None = None) -> str:
    """`source` as a reader names it (`speaker`: who said a recalled line, when the index
    knows; `names`: the player's and the character's names by role); a form not known here is
    shown as written."""
    event = EVENT_SOURCE.fullmatch(source)
    if event:
        return str(EVENT_WORDS[event["kind"]]) % {
            "conversation": session_label(event["session"]), "n": int(event["index"]) + 1}
    turn = TURN_SOURCE.fullmatch(source)
    if turn:
        who = speaker or (names or {}).get(turn["role"]) or turn["role"]
        return gettext("%(conversation)s, turn %(turn)s, %(speaker)s") % {
            "conversation": session_label(turn["session"]), "turn": turn["turn"], "speaker": who}
    return source


def recall_sources_named(trace: dict[str, Any], *,
                         names: Mapping[str, str] | None = None) -> dict[str, str]:
    """Each source of the turn's recall (its hits and passages) by the name a reader sees."""
    retrievals = trace.get("retrievals") if isinstance(trace.get("retrievals"), dict) else {}
    named: dict[str, str] = {}
    for item in [*(retrievals.get("hits") or []), *(retrievals.get("passages") or [])]:
        if isinstance(item, dict) and isinstance(item.get("source"), str):
            named.setdefault(item["source"], recall_source_named(
                item["source"], speaker=str(item.get("speaker") or ""), names=names))
    return named


def sources_note_named(part: str, sources: Mapping[str, str]) -> str | None:
    """The recalled section's note "sources: a, b" in the reader's language, each source by
    its name; None when `part` is not that note."""
    if not part.startswith(SOURCES_PREFIX):
        return None
    listed = part.removeprefix(SOURCES_PREFIX).split(", ")
    return gettext("recalled from: %(sources)s") % {"sources": "; ".join(
        sources.get(source) or recall_source_named(source) for source in listed)}


def sources_listed(note: str, sources: Mapping[str, str]) -> tuple[str, list[str]]:
    """`note` without its "sources: a, b" part, and those sources by name, one item each (the
    inspector lists them one a line: forty joined in a sentence read as a wall on a phone)."""
    parts = note.split("; ") if note else []
    listed = [p for p in parts if p.startswith(SOURCES_PREFIX)]
    names = [sources.get(source) or recall_source_named(source)
             for part in listed for source in part.removeprefix(SOURCES_PREFIX).split(", ")]
    return "; ".join(p for p in parts if p not in listed), names


def recall_speaker_names(store: FileStore, instance_id: str) -> dict[str, str]:
    """The player's and the character's names now, by role: who said a recalled line the
    index keeps no name for."""
    values = page_macro_values(store, state=store.instance_state_read(instance_id), lines=[])
    return {"user": values.get("user", ""), "assistant": values.get("char", "")}


def recall_hits_named(trace: dict[str, Any], sources: Mapping[str, str]) -> list[dict[str, Any]]:
    """The turn's recalled lines, each with `source_label`: its source by name."""
    retrievals = trace.get("retrievals") if isinstance(trace.get("retrievals"), dict) else {}
    return [{**hit, "source_label": sources.get(str(hit.get("source")), hit.get("source"))}
            for hit in retrievals.get("hits") or [] if isinstance(hit, dict)]
