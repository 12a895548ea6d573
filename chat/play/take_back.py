"""Regenerate and continue inside a turn: whose reply is redone, and the last reply taken back so
the new one replaces it (chat/play/context.py calls these while it loads a turn; whether there
is a reply to redo at all is decided once, in chat/play/redo.py)."""

from __future__ import annotations

import copy
from typing import Any

from chat.groups.members import is_group
from chat.groups.speakers import Pick
from chat.history_manager.base import reply_versions
from chat.import_export.chat_formats import SHOWN_SWIPE
from chat.play.turn_records import TurnContext
from director.services import plot_state_before_followed
from personalab.lib.filestore.session_read import SessionRead
from personalab.lib.filestore.store import FileStore
from personalab.lib.participants import member_ids
from personalab.lib.store_errors import StoreError


class RedoRefused(ValueError):
    """Regenerate / continue cannot redo the last reply (none there, or its speaker left)."""


def redo_speaker(instance_state: dict[str, Any], read: SessionRead, action: str) -> Pick | None:
    """Regenerate and continue redo the reply of whoever said the last line, not a newly
    chosen speaker; a reply by a member who has since left cannot be redone."""
    last = read.lines[-1] if read.lines else {}
    speaker = last.get("speaker") if last.get("role") == "assistant" else None
    if not isinstance(speaker, str) or not speaker:
        return None
    if speaker not in member_ids(instance_state):
        raise RedoRefused(f"{last.get('name') or speaker} has left this conversation; "
                          f"their reply cannot be redone ({action})")
    if not is_group(instance_state) and speaker == instance_state.get("character_id"):
        return None
    return Pick(character_id=speaker, reason=action)


def reply_follows_its_turn(lines: list[dict[str, Any]], turn: object) -> bool:
    """Whether a reply of `turn` comes after `lines` ending in another reply of that turn (a
    group round's later reply): the round's director miss was its first reply's to count."""
    last = next((line for line in reversed(lines) if line.get("role")), None)
    return last is not None and last.get("role") == "assistant" and last.get("turn") == turn


def reply_take_back(store: FileStore, ctx: TurnContext, read: SessionRead, *,
                          keep_as_alternative: bool) -> None:
    """Regenerate / continue: the last assistant line is replaced by a new streaming line.
    The replacement is made when the new line starts (AssistantLineWriter with replace_from:
    one tail change, the old line kept as its backup), so a turn refused before the request
    leaves the reply where it was."""
    if not read.lines or read.lines[-1].get("role") != "assistant":
        raise RedoRefused("there is no reply to regenerate or continue")
    last = read.lines[-1]
    previous_user = next((line for line in reversed(read.lines[:-1])
                          if line.get("role") == "user"), None)
    if previous_user is None:
        raise RedoRefused("the last reply has no user message before it")
    ctx.turn = last.get("turn", read.last_turn)
    ctx.user_text = previous_user["content"]
    ctx.lines = list(read.lines[:-1])
    restored = _plot_state_before(store, ctx.instance_id, ctx.instance_state,
                                  last.get("trace_id"))
    if restored is not None:
        ctx.instance_state["plot_state"] = restored
        ctx.plot_state_before = copy.deepcopy(restored)
        store.instance_state_write(ctx.instance_id, ctx.instance_state)
    if keep_as_alternative:
        # Every version keeps its place; the new reply comes after them all, as the newest.
        ctx.reply_extra = {**ctx.reply_extra, "alternatives": reply_versions(last)}
    else:
        ctx.continue_from = last.get("content", "")
        # The same reply goes on: its versions and what an imported chat kept of it (its own
        # name, date, extra and other fields) stay with it, as SillyTavern's continue keeps them.
        kept = ("alternatives", "alternative_position", "swipe_info", "carried", "extra",
                "send_date", "name", SHOWN_SWIPE)
        ctx.reply_extra.update({k: last[k] for k in kept
                                if k in last and k not in ctx.reply_extra}, continued=True)
    ctx.replace_from = read.first_index + len(read.lines) - 1
    ctx.redo = "regenerate" if keep_as_alternative else "continue"


def _plot_state_before(store: FileStore, instance_id: str, state: dict[str, Any],
                       trace_id: str | None) -> dict | None:
    if not trace_id:
        return None
    try:
        trace = store.trace_read(instance_id, trace_id)
    except (StoreError, ValueError):
        return None
    return plot_state_before_followed(store, state=state, trace=trace)
