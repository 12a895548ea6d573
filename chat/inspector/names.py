"""Names for the prompt inspector: the chat, its lorebooks and their entries as a player knows
them (title, book name, entry comment or keys), never their ids (issue 33 item 4); the prompt's
sections and the turn's timings in the reader's language, each with its id beside it for the
author who looks for it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext, gettext_lazy, pgettext_lazy

from chat.groups.members import members_of
from chat.inspector.sources import sources_listed, sources_note_named
from library.selectors import ChatCharacters
from personalab.lib.filestore.store import FileStore
from personalab.lib.store_errors import StoreError
from personalab.lib.worded_forms import form_named

KEYS_SHOWN = 3  # an entry without a comment is named by its first few keys

# A kept copy's file name holds when it was taken: history/sess_001.20261202T223007138372Z.jsonl
_COPY_STAMP = re.compile(r"\.(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)\d*Z\.jsonl\Z")


def copy_taken_at(source: object) -> str | None:
    """When the copy a trace's messages were read from was kept (ISO, UTC), from its name:
    the page says that time where it showed the file's path, an id to a player."""
    match = _COPY_STAMP.search(source) if isinstance(source, str) else None
    return "{}-{}-{}T{}:{}:{}Z".format(*match.groups()) if match else None

# The template's sections (chat/prompt_templates/*.json) and those the turn adds around them.
SECTION_NAMES = {
    "main_prompt": gettext_lazy("Main prompt"),
    "user_persona": gettext_lazy("Your persona"),
    "base_persona": gettext_lazy("Character description"),
    "personality": gettext_lazy("Personality"),
    "scenario": gettext_lazy("Scenario"),
    "evolved_persona": gettext_lazy("Character as the story changed them"),
    "world_setting": gettext_lazy("Setting"),
    "examples": gettext_lazy("Example dialogues"),
    "outline": gettext_lazy("Story outline"),
    "instruction": gettext_lazy("Progress instruction"),
    "pinned": gettext_lazy("Never forget"),
    "biography": gettext_lazy("Biography"),
    "director_reminder": gettext_lazy("Director's reminder"),
    "recalled": gettext_lazy("Recalled events"),
    "recaps": gettext_lazy("Story so far"),
    "post_history": gettext_lazy("After the conversation"),
    "conversation": gettext_lazy("Conversation"),
    "new_chat": gettext_lazy("New chat line"),
    "continue_nudge": gettext_lazy("Continue nudge"),
    "group_nudge": gettext_lazy("Group nudge"),
    "block:authors_note": gettext_lazy("Author's note"),
    "block:depth_prompt": gettext_lazy("Character's note"),
    "block:persona_description": gettext_lazy("Persona description"),
    "block:group_members": gettext_lazy("Group members"),
}
REGION_NAMES = {"head": pgettext_lazy("prompt region", "head"),
                "middle": pgettext_lazy("prompt region", "middle"),
                "tail": pgettext_lazy("prompt region", "tail")}
TIMING_NAMES = {
    "load_ms": gettext_lazy("Reading the chat"),
    "recall_ms": gettext_lazy("Recall"),
    "director_ms": gettext_lazy("Director"),
    "assemble_ms": gettext_lazy("Building the prompt"),
    "first_token_ms": gettext_lazy("First token"),
    "llm_ms": gettext_lazy("The model's reply"),
    "total_ms": gettext_lazy("Total"),
}


# The notes the prompt's assembly writes beside a section (chat/prompt/), part by part ("; "
# between parts), in the reader's language; a part not listed here is shown as written.
NOTE_PARTS = {
    "before_char": gettext_lazy("before the character"),
    "after_char": gettext_lazy("after the character"),
    "em_top": gettext_lazy("above the example dialogues"),
    "em_bottom": gettext_lazy("below the example dialogues"),
    "after_history": gettext_lazy("after the conversation"),
    "SillyTavern's new chat line, before the history":
        gettext_lazy("SillyTavern's new chat line, before the history"),
    "SillyTavern's continue nudge": gettext_lazy("SillyTavern's continue nudge"),
    "SillyTavern's group nudge": gettext_lazy("SillyTavern's group nudge"),
}
NOTE_FORMS = [
    (re.compile(r"(?P<kept>\d+) messages, (?P<omitted>\d+) omitted"),
     gettext_lazy("%(kept)s messages, %(omitted)s left out")),
    (re.compile(r"(?P<n>\d+) message\(s\) larger than the whole budget left out"),
     gettext_lazy("%(n)s message(s) larger than the whole budget left out")),
    (re.compile(r"(?P<kept>\d+) of (?P<all>\d+) summary lines kept \(the newest\)"),
     gettext_lazy("%(kept)s of %(all)s summary lines kept (the newest)")),
    (re.compile(r"the message before the newest cut in the middle to (?P<kept>\d+) of its "
                r"(?P<all>\d+) tokens"),
     gettext_lazy("the message before the newest cut in the middle to %(kept)s of its "
                  "%(all)s tokens")),
    (re.compile(r"mes_example: (?P<kept>\d+) of (?P<all>\d+) blocks kept"),
     gettext_lazy("%(kept)s of %(all)s example blocks kept")),
    (re.compile(r"depth (?P<depth>\d+), role (?P<role>system|user|assistant)"),
     gettext_lazy("depth %(depth)s, role %(role)s")),
    (re.compile(r"one message, part (?P<part>\d+) of (?P<all>\d+)"),
     gettext_lazy("sent as one message with the others at this depth and role, part "
                  "%(part)s of %(all)s")),
]
# The message roles in the words the prompt-blocks card uses (the same msgids).
NOTE_NAMES = {"role": {"system": gettext_lazy("system"), "user": gettext_lazy("user"),
                       "assistant": gettext_lazy("assistant")}}


def section_names() -> dict[str, str]:
    """Every fixed section's name in the reader's language, by id (the chat page's prompt-size
    bar names its parts with these)."""
    return {name: str(label) for name, label in SECTION_NAMES.items()}


def trace_sections_named(sections: list[dict[str, Any]], lore: list[dict[str, Any]], *,
                         sources: Mapping[str, str] | None = None) -> list[dict[str, Any]]:
    """Each section with `label` (its name for a reader) and `region_label`; a lore entry's
    block is named by its book and entry (`lore`: the fired entries as trace_lore_named names
    them), another block by the name its author gave it; `sources`: recall's sources by name
    (recall_sources_named), listed one by one in `recalled_from`."""
    entries = {f"block:lore:{e.get('lorebook_id')}:{e.get('uid')}": f"{e['book']} · {e['entry']}"
               for e in lore}
    return [{**s, "label": _section_label(str(s.get("name") or ""), entries),
             "region_label": str(REGION_NAMES.get(s.get("region"), s.get("region") or "")),
             **_note_and_sources(str(s.get("note") or ""), sources or {})}
            for s in sections]


def _note_and_sources(note: str, sources: Mapping[str, str]) -> dict[str, Any]:
    rest, recalled_from = sources_listed(note, sources)
    return {"note": note_named(rest, sources=sources), "recalled_from": recalled_from}


def note_named(note: str, *, sources: Mapping[str, str] | None = None) -> str:
    """A section's note, part by part, in the reader's language."""
    return "; ".join(_note_part(part, sources or {}) for part in note.split("; ")) if note else ""


def _note_part(part: str, sources: Mapping[str, str]) -> str:
    recalled = sources_note_named(part, sources)
    if recalled is not None:
        return recalled
    if part in NOTE_PARTS:
        return str(NOTE_PARTS[part])
    named = form_named(part, NOTE_FORMS, NOTE_NAMES)
    if named is not None:
        return named
    return part


def _section_label(name: str, entries: dict[str, str]) -> str:
    if name in SECTION_NAMES:
        return str(SECTION_NAMES[name])
    if name in entries:
        return gettext("World info: %(entry)s") % {"entry": entries[name]}
    if name.startswith("block:lore:"):
        return gettext("World info entry")
    if name.startswith("block:"):
        return gettext("Prompt block: %(name)s") % {"name": name.removeprefix("block:")}
    return name


def trace_timings_named(timings: dict[str, Any]) -> list[dict[str, Any]]:
    """The turn's timings as rows: `label`, `name` (the id) and `value`, milliseconds marked."""
    return [{"name": name, "label": str(TIMING_NAMES.get(name, name)), "value": value,
             "ms": name.endswith("_ms")} for name, value in timings.items()]


def trace_chat_name(store: FileStore, instance_id: str) -> str:
    """The chat's own name, else its characters' names."""
    try:
        state = store.instance_state_read(instance_id)
    except StoreError:
        return gettext("this chat")
    name = str(state.get("name") or "").strip()
    if name:
        return name
    members = members_of(store, state, ChatCharacters(store, state=state))
    return " & ".join(m.name for m in members) or gettext("this chat")


def _entry_label(entry: dict[str, Any]) -> str:
    keys = entry.get("keys") or entry.get("key") or []
    keys = [str(k) for k in keys] if isinstance(keys, list) else [str(keys)]
    return (str(entry.get("comment") or "").strip()
            or ", ".join(k for k in keys[:KEYS_SHOWN] if k)
            or gettext("an entry without keys"))


class LoreNamer:
    """Lorebooks and their entries by the names an author gave them, each book read once:
    `book(id)` its name, `entry(book id, uid)` the entry's comment or first keys."""

    def __init__(self, store: FileStore):
        self.store = store
        self.books: dict[str, dict[str, Any]] = {}

    def _read(self, book_id: str) -> dict[str, Any]:
        if book_id not in self.books:
            try:
                self.books[book_id] = self.store.lorebook_read(book_id)
            except (StoreError, ValueError):
                self.books[book_id] = {}
        return self.books[book_id]

    def book(self, book_id: str) -> str:
        return (str(self._read(book_id).get("name") or "").strip()
                or gettext("a lorebook no longer there"))

    def entry(self, book_id: str, uid: str) -> str:
        found = next((e for e in self._read(book_id).get("entries") or []
                      if isinstance(e, dict) and str(e.get("uid")) == str(uid)), None)
        return _entry_label(found) if found else gettext("an entry no longer there")


def trace_lore_named(store: FileStore, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each fired entry with `book` (its lorebook's name) and `entry` (its comment, or its
    first keys) for the page to show in place of `lorebook_id #uid`."""
    namer = LoreNamer(store)
    return [{**entry, "book": namer.book(str(entry.get("lorebook_id") or "")),
             "entry": _entry_label(entry)} for entry in entries]
