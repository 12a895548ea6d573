"""SillyTavern's {{firstIncludedMessageId}}: the message id of the oldest chat message the
last generation's prompt held (its `setInContextMessages` marks that message
`lastInContext`, and the macro reads the mark, so a generation sees the previous one's).
Here each turn keeps it per chat session, after its prompt is built, for the next turn's
macros; a session no turn has built a prompt in yet gives "" (SillyTavern's null)."""

from __future__ import annotations

import logging
from typing import Any

from chat.play.turn_records import TurnContext
from personalab.lib.filestore.store import FileStore

log = logging.getLogger(__name__)

FIRST_INCLUDED = "first_included_message"
MACRO = "firstIncludedMessageId"


def first_included_read(store: FileStore, *, instance_id: str, session_id: str) -> str:
    kept = store.memory_json_read(instance_id, FIRST_INCLUDED, {})
    if not isinstance(kept, dict) or kept.get("session_id") != session_id:
        return ""
    index = kept.get("index")
    return str(index) if isinstance(index, int) and not isinstance(index, bool) \
        and index >= 0 else ""


def first_included_keep(store: FileStore, ctx: TurnContext, window: dict[str, Any]) -> None:
    """The oldest message id the turn's prompt sent (its window report), for the next turn;
    an impersonation's prompt, which is not a generation of the chat, leaves it."""
    index = window.get("first_included_message")
    if ctx.dry_run or not isinstance(index, int) or ctx.first_included == str(index):
        return
    try:
        store.memory_json_write(ctx.instance_id, FIRST_INCLUDED,
                                {"session_id": ctx.session_id, "index": index})
    except OSError:
        # A macro's bookkeeping must not stop the turn (a full disk refused the reply here):
        # the next turn reads the mark kept before.
        log.warning("could not keep the first included message of %s", ctx.instance_id,
                    exc_info=True)
