"""Library actions: every edit writes the file first, then the index row. One module per job;
this module is the app's service entry, so callers can write `from library import services`:

- characters                              library/character_services.py
- backgrounds and their story outline     library/background_services.py
- lorebooks                               library/lorebook_services.py
- the player's personas                   library/persona_services.py
- "use as my own" copies                  library/item_copy.py
- card export (JSON, PNG, CHARX)          library/card_export.py (import: library/card_import.py)
- checking what an author sends           library/fields.py
- the index rows written from the files   library/index_rows.py
- copies other accounts' chats keep       library/item_chats.py
"""

from __future__ import annotations

from library.avatars import AVATAR_MAX_BYTES
from library.background_services import background_delete, background_outline_edit, background_save
from library.card_export import character_export_card
from library.card_import import MAX_CARD_BYTES
from library.character_services import character_avatar_save, character_delete, character_save
from library.errors import LibraryConflict, LibraryError, LibraryForbidden, LibraryNotFound
from library.fields import (
                                          CARD_TEXT_FIELDS,
                                          MAX_CARD_TEXT,
                                          MAX_NAME_CHARS,
                                          MAX_TAG_CHARS,
                                          MAX_TAGS,
                                          MAX_TEXT,
                                          lorebook_ids_checked,
)
from library.index_rows import (
                                          background_index,
                                          character_index,
                                          lorebook_index,
                                          persona_index,
                                          user_for_username,
)
from library.item_chats import chat_copies_keep
from library.item_copy import COPY_KINDS, background_copy, character_copy, lorebook_copy
from library.lorebook_services import lorebook_save
from library.persona_services import (
                                          PERSONA_DESCRIPTION_LIMIT,
                                          VISIBILITIES,
                                          persona_avatar_save,
                                          persona_create,
                                          persona_default_set,
                                          persona_delete,
                                          persona_update,
)

__all__ = [
                                          "AVATAR_MAX_BYTES",
                                          "character_avatar_save",
                                          "CARD_TEXT_FIELDS",
                                          "COPY_KINDS",
                                          "MAX_CARD_BYTES",
                                          "MAX_CARD_TEXT",
                                          "MAX_NAME_CHARS",
                                          "MAX_TAGS",
                                          "MAX_TAG_CHARS",
                                          "MAX_TEXT",
                                          "PERSONA_DESCRIPTION_LIMIT",
                                          "VISIBILITIES",
                                          "LibraryConflict",
                                          "LibraryError",
                                          "LibraryForbidden",
                                          "LibraryNotFound",
                                          "background_copy",
                                          "background_delete",
                                          "background_index",
                                          "background_outline_edit",
                                          "background_save",
                                          "character_copy",
                                          "character_delete",
                                          "character_export_card",
                                          "character_index",
                                          "character_save",
                                          "chat_copies_keep",
                                          "lorebook_copy",
                                          "lorebook_ids_checked",
                                          "lorebook_index",
                                          "lorebook_save",
                                          "persona_avatar_save",
                                          "persona_create",
                                          "persona_default_set",
                                          "persona_delete",
                                          "persona_index",
                                          "persona_update",
                                          "user_for_username",
]
