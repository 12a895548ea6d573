"""Memory actions over the file store (SPEC §5), one module per job; this module is the app's
service entry, so callers can write `from memory import services as memory`:

- summarize a session                     memory/summarize.py
- the evolved persona and its versions    memory/evolved_persona.py
- pinned ("never forget") prompts         memory/pinned.py
- biography paragraphs                    memory/biography.py
- rolling recaps                          memory/recaps.py (item lists: memory/item_lists.py)
- the author's note                       memory/authors_note.py
- what the actions share                  memory/action_base.py, memory/errors.py

The caller holds the instance lock; nothing here locks. The text files are the truth and Chroma is
rebuilt from them, so a write order is chosen per action so that a failure half way loses nothing
(each module's docstring says its order).
"""

from __future__ import annotations

from memory.authors_note import (
                                 AUTHORS_NOTE_DEFAULT,
                                 AUTHORS_NOTE_FILE,
                                 NOTE_ROLES,
                                 authors_note_read,
                                 authors_note_save,
)
from memory.biography import (
                                 BIOGRAPHY_FILE,
                                 biography_add,
                                 biography_from_persona,
                                 biography_items,
                                 biography_remove,
                                 biography_reorder,
                                 biography_update,
)
from memory.errors import MemoryActionError
from memory.evolved_persona import (
                                 PERSONA_LEDGER,
                                 evolved_persona_read,
                                 memory_update_persona,
                                 persona_member,
                                 persona_restore,
                                 persona_set_manual,
                                 persona_versions,
                                 recent_turn_lines,
)
from memory.pinned import (
                                 PINNED_FILE,
                                 PINNED_MAX_CHARS,
                                 pinned_members,
                                 pinned_override_set,
                                 pinned_overrides_read,
                                 pinned_prompt_effective,
                                 pinned_prompt_set,
)
from memory.recaps import (
                                 RECAPS_FILE,
                                 recap_items,
                                 recap_maybe_roll,
                                 recap_pending,
                                 recap_rebuild,
                                 recap_remove,
                                 recap_reorder,
                                 recap_update,
)
from memory.summarize import memory_summarize, parse_events_json, summary_seed_lines

__all__ = [
    "AUTHORS_NOTE_DEFAULT", "AUTHORS_NOTE_FILE", "BIOGRAPHY_FILE", "NOTE_ROLES", "PERSONA_LEDGER",
    "PINNED_FILE", "PINNED_MAX_CHARS", "RECAPS_FILE", "MemoryActionError", "authors_note_read",
    "authors_note_save", "biography_add", "biography_from_persona", "biography_items",
    "biography_remove", "biography_reorder", "biography_update", "evolved_persona_read",
    "memory_summarize", "memory_update_persona", "parse_events_json", "persona_member",
    "persona_restore", "persona_set_manual", "persona_versions", "pinned_members",
    "pinned_override_set", "pinned_overrides_read", "pinned_prompt_effective",
    "pinned_prompt_set", "recap_items", "recap_maybe_roll", "recap_pending", "recap_rebuild",
    "recap_remove", "recap_reorder", "recap_update", "recent_turn_lines", "summary_seed_lines",
]
