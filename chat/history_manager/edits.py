"""The history manager's actions on session files: list, page and search, edit, delete, undo,
flipping between a reply's alternatives ("swipes") and branching a new session off a line.

The session file is the truth and every change goes through FileStore.session_tail_replace,
which rewrites the file only from the changed line on and keeps the lines it replaced under
sessions/history/, so no change loses text and a change near the end of a long session costs
what it would in a short one (only the changed line and those after it are read). An edited
line also carries its first original content in "edited". Undo puts the backup's lines back,
and only while nothing else changed the file since (a fingerprint of the file is checked), so
an undo can never drop a line written after the action.

Every change holds the instance lock; a held lock (a reply streaming, another change) is refused
with HistoryBusy instead of waiting. Framework-free: the views map HistoryError.status to HTTP.
"""

from __future__ import annotations

import copy
import secrets
import time
from pathlib import Path
from typing import Any

from chat.history_manager.base import (
    UNDO_FILE,
    VERSION_KEYS,
    Clock,
    HistoryError,
    UndoExpired,
    _file_unchanged,
    _from,
    _from_message_before_last,
    _line_at,
    _lock,
    _session_checked,
    _text_checked,
    history_settings,
    line_fingerprint,
    reply_versions,
    version_position,
)
from chat.history_manager.reads import _last_message_position, _listed_count
from chat.play.regex_scripts import edit_regexed
from chat.play.take_back import reply_follows_its_turn
from chat.play.variables import stored_macros_filled, stored_variables_undo
from chat.services.quotas import session_room_check
from director.services import director_apply_reply, plot_state_before_followed
from memory import runtime as memory_runtime
from memory.summaries.source_changes import (
    memory_source_changed,
    summary_change_of,
    summary_change_undone,
)
from personalab.lib.filestore.jsonfile import utc_now
from personalab.lib.filestore.session_read import SessionRead, read_session_file
from personalab.lib.filestore.sessions import TailChange
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import is_valid_id
from personalab.lib.session_tail import backup_parse
from personalab.lib.store_errors import StoreError

# --- edit, delete, undo --------------------------------------------------------------------


def message_edit(store: FileStore, *, instance_id: str, session_id: str, index: int,
                 fingerprint: str, text: str, clock: Clock = time.time) -> dict[str, Any]:
    """Replace one line's text; the line keeps its first original content in "edited"."""
    text = _text_checked(text)
    lock = _lock(store, instance_id)
    try:
        read = _session_checked(store, instance_id, session_id, pick=_from(index))
        old = _line_at(read, index, fingerprint)
        text = edit_regexed(store, instance_id=instance_id, line=old, text=text)
        written = text
        variable_changes = None
        if old.get("type") != "summary" and ("{{" in text or "<" in text):
            text, variable_changes = stored_macros_filled(
                store, instance_id=instance_id, session_id=session_id, line=old, text=text,
                metadata=read.metadata, lines=read.lines)
        if old.get("content") == text:
            return {"changed": False, "line": old, "undo_token": None}
        first_original = (old["edited"].get("original") if isinstance(old.get("edited"), dict)
                          else old.get("content", ""))
        new = {**old, "content": text, "edited": {"at": utc_now(), "original": first_original}}
        new.pop("macros_filled", None)
        if written != text or "{{" in written:
            new["macros_filled"] = True  # filled as it was saved, never again
        token, expires = _change_with_undo(store, instance_id, session_id, first=index,
                                           lines=[new, *_lines_after(read, index)],
                                           action="edit", clock=clock,
                                           summary_change=summary_change_of(old, new))
        if variable_changes is not None and (variable_changes.local or variable_changes.shared):
            _undo_variables_keep(store, instance_id, token, variable_changes.as_json(),
                                 expires_at=expires)
        _memory_follows(store, instance_id, session_id, old=old, new=new)
    finally:
        lock.release()
    return {"changed": True, "line": new, "undo_token": token, "undo_expires_at": expires,
            "undo_seconds": history_settings(store)["undo_window_seconds"]}


def message_delete(store: FileStore, *, instance_id: str, session_id: str, index: int,
                   fingerprint: str, clock: Clock = time.time) -> dict[str, Any]:
    """Remove one line from the file (the backup keeps it). Deleting the latest reply of the
    current session also takes back what the director counted for it."""
    lock = _lock(store, instance_id)
    try:
        read = _session_checked(store, instance_id, session_id, pick=_from(index))
        old = _line_at(read, index, fingerprint)
        state = store.instance_state_read(instance_id)
        restored = None
        if (old.get("role") == "assistant" and index == _last_message_position(read)
                and state.get("current_session_id") == session_id):
            restored = _plot_state_before(store, instance_id, [old])
        token, expires = _change_with_undo(
            store, instance_id, session_id, first=index, lines=_lines_after(read, index),
            action="delete", clock=clock,
            plot_state=copy.deepcopy(state.get("plot_state")) if restored is not None else None,
            summary_change=summary_change_of(old, None))
        if restored is not None:
            store.instance_state_write(instance_id, {**state, "plot_state": restored})
        _memory_follows(store, instance_id, session_id, old=old, new=None)
    finally:
        lock.release()
    return {"deleted": old, "undo_token": token, "undo_expires_at": expires,
            "undo_seconds": history_settings(store)["undo_window_seconds"],
            "plot_state_restored": restored is not None}


def message_change(store: FileStore, *, instance_id: str, session_id: str, index: int,
                   fingerprint: str, text: str | None = None,
                   hidden: bool | None = None) -> dict[str, Any]:
    """A new text, a hidden flag, or both (the text first; the flag then names the edited
    line by its new fingerprint)."""
    if text is None and hidden is None:
        raise HistoryError("give the new text or hidden (or both)",
                           fields={"text": "text or hidden is required"})
    result: dict[str, Any] = {"changed": False}
    if text is not None:
        result = message_edit(store, instance_id=instance_id, session_id=session_id,
                              index=index, fingerprint=fingerprint, text=text)
        fingerprint = line_fingerprint(result["line"])
    if hidden is not None:
        flagged = message_hide(store, instance_id=instance_id, session_id=session_id,
                               index=index, fingerprint=fingerprint, hidden=hidden)
        result = {**result, "line": flagged["line"],
                  "changed": result["changed"] or flagged["changed"]}
    return result


def message_hide(store: FileStore, *, instance_id: str, session_id: str, index: int,
                 fingerprint: str, hidden: object) -> dict[str, Any]:
    """Hide a message from the model (SillyTavern's ghost / is_hidden) or show it again. The
    line stays in the file and on the page with `hidden: true`, the flag imported hidden lines
    carry; prompts, lore scans, summaries, recaps and recall leave it out. Clicking again
    is the undo. A narrator note hidden stops being sent (one SillyTavern sends) and is
    exported with SillyTavern's `is_system: true`."""
    if not isinstance(hidden, bool):
        raise HistoryError("hidden must be true or false", fields={"hidden": "true or false"})
    lock = _lock(store, instance_id)
    try:
        read = _session_checked(store, instance_id, session_id, pick=_from(index))
        old = _line_at(read, index, fingerprint)
        if old.get("role") not in ("user", "assistant") and old.get("type") != "note":
            raise HistoryError("only messages and narrator notes can be hidden, not summaries",
                               fields={"index": "not a message"})
        if bool(old.get("hidden")) == hidden:
            return {"changed": False, "line": old}
        new = {k: v for k, v in old.items() if k != "hidden"}
        if hidden:
            new["hidden"] = True
        _session_change(store, instance_id, session_id, first=index,
                        lines=[new, *_lines_after(read, index)], action="hide")
    finally:
        lock.release()
    return {"changed": True, "line": new}


def _memory_follows(store: FileStore, instance_id: str, session_id: str, *,
                    old: dict[str, Any], new: dict[str, Any] | None) -> None:
    if memory_source_changed(store, instance_id=instance_id, session_id=session_id, old=old,
                             new=new):
        memory_runtime.schedule_sync(store, instance_id=instance_id)


def _lines_after(read: SessionRead, index: int) -> list[dict[str, Any]]:
    return read.lines[index - read.first_index + 1:]


def _session_change(store: FileStore, instance_id: str, session_id: str, *, first: int,
                    lines: list[dict[str, Any]], action: str) -> TailChange:
    """Every history change: the session's lines from position `first` on become `lines`
    (the replaced ones kept as a backup), then the memory index follows the file, so an
    edited or deleted line's old text is no longer recalled."""
    change = store.session_tail_replace(instance_id, session_id, first=first, lines=lines,
                                        action=action)
    memory_runtime.history_lines_live(store, instance_id=instance_id, session_id=session_id,
                                      backup=change.backup, lines=lines)
    memory_runtime.schedule_sync(store, instance_id=instance_id)
    return change


def _change_with_undo(store: FileStore, instance_id: str, session_id: str, *, first: int,
                      lines: list[dict[str, Any]], action: str, clock: Clock,
                      plot_state: dict | None = None,
                      summary_change: list | None = None) -> tuple[str, float]:
    change = _session_change(store, instance_id, session_id, first=first, lines=lines,
                             action=action)
    window = history_settings(store)["undo_window_seconds"]
    now = clock()
    token = secrets.token_hex(12)
    record = {"instance_id": instance_id, "session_id": session_id, "action": action,
              "backup": change.backup.relative_to(store.instance_dir(instance_id)).as_posix(),
              "file_fingerprint": change.fingerprint,
              "created_at": now, "expires_at": now + window, "plot_state": plot_state,
              "summary_change": summary_change}
    data = _undo_read(store, instance_id)
    data["tokens"] = {key: value for key, value in data["tokens"].items()
                      if value.get("expires_at", 0) >= now}
    data["tokens"][token] = record
    store.memory_json_write(instance_id, UNDO_FILE, data)
    return token, now + window


def _undo_read(store: FileStore, instance_id: str, name: str = UNDO_FILE) -> dict[str, Any]:
    """An undo file's tokens (memory/undo.json, or its variables' sidecar), odd entries left
    out; a damaged file reads as empty."""
    try:
        data = store.memory_json_read(instance_id, name, {"tokens": {}})
    except StoreError:
        return {"tokens": {}}
    if not isinstance(data, dict) or not isinstance(data.get("tokens"), dict):
        return {"tokens": {}}
    data["tokens"] = {k: v for k, v in data["tokens"].items() if isinstance(v, dict)}
    return data


UNDO_VARIABLES_FILE = "undo_variables"  # memory/undo_variables.json, beside memory/undo.json
_KEPT_SECONDS = 3600.0  # an undo window is seconds; entries older than this are dropped


def _undo_variables_keep(store: FileStore, instance_id: str, token: str,
                         changes: dict[str, Any], *, expires_at: float) -> None:
    """What an edit's variable macros changed, kept for its undo in a sidecar of the undo
    file (`{"tokens": {token: {"expires_at", "changes"}}}`); entries long expired go."""
    data = _undo_read(store, instance_id, UNDO_VARIABLES_FILE)
    data["tokens"] = {key: value for key, value in data["tokens"].items()
                      if isinstance(value.get("expires_at"), (int, float))
                      and value["expires_at"] >= expires_at - _KEPT_SECONDS}
    data["tokens"][token] = {"expires_at": expires_at, "changes": changes}
    store.memory_json_write(instance_id, UNDO_VARIABLES_FILE, data)


def _undo_variables_pop(store: FileStore, instance_id: str,
                        token: str) -> dict[str, Any] | None:
    data = _undo_read(store, instance_id, UNDO_VARIABLES_FILE)
    entry = data["tokens"].pop(token, None)
    if entry is None:
        return None
    store.memory_json_write(instance_id, UNDO_VARIABLES_FILE, data)
    changes = entry.get("changes")
    return changes if isinstance(changes, dict) else None


def undo(store: FileStore, *, instance_id: str, token: str,
         clock: Clock = time.time) -> dict[str, Any]:
    """Restore the session file as it was before the action behind `token`. The restore is
    itself a rewrite, so the undone version stays in sessions/history/ too."""
    lock = _lock(store, instance_id)
    try:
        data = _undo_read(store, instance_id)
        record = data["tokens"].get(token) if isinstance(token, str) else None
        if record is None:
            raise HistoryError("there is nothing to undo (already undone or unknown)", status=404)
        if clock() > float(record.get("expires_at", 0)):
            raise UndoExpired(f"the undo window has passed "
                              f"({history_settings(store)['undo_window_seconds']:g} s); "
                              "the previous version is kept in sessions/history/")
        session_id = record["session_id"]
        if not _file_unchanged(store.session_path(instance_id, session_id), record):
            raise HistoryError("the session changed after this action, so it can no longer be "
                               "undone; the previous version is kept in sessions/history/",
                               status=409)
        _backup_restore(store, instance_id, session_id,
                        _backup_path(store, instance_id, record.get("backup")))
        change = record.get("summary_change")
        if (isinstance(change, list) and len(change) == 2
                and summary_change_undone(store, instance_id=instance_id, old_text=str(change[0]),
                                          new_text=change[1])):
            memory_runtime.schedule_sync(store, instance_id=instance_id)
        variable_changes = _undo_variables_pop(store, instance_id, token)
        if variable_changes is not None:
            stored_variables_undo(store, instance_id=instance_id, session_id=session_id,
                                  metadata=store.session_read_head(instance_id,
                                                                   session_id).metadata,
                                  changes=variable_changes)
        if isinstance(record.get("plot_state"), dict):
            state = store.instance_state_read(instance_id)
            store.instance_state_write(instance_id, {**state, "plot_state": record["plot_state"]})
        del data["tokens"][token]
        store.memory_json_write(instance_id, UNDO_FILE, data)
    finally:
        lock.release()
    return {"undone": record["action"], "session_id": session_id}


def _backup_restore(store: FileStore, instance_id: str, session_id: str, backup: Path) -> None:
    """The session as it was before the change `backup` was taken for; the restore is itself
    a change, with its own backup."""
    parsed = backup_parse(backup.read_bytes())
    if parsed is not None:
        header, tail = parsed
        if store.session_tail_restore(instance_id, session_id, offset=header.offset,
                                      tail=tail) is None:
            raise HistoryError("the session file no longer matches this undo", status=409)
    else:  # a whole copy, as older versions kept
        previous = read_session_file(backup)
        store.session_rewrite(instance_id, session_id, [previous.metadata, *previous.lines])
    memory_runtime.files_follow(store, instance_id=instance_id)


def _backup_path(store: FileStore, instance_id: str, relative: object) -> Path:
    folder = (store.sessions_dir(instance_id) / "history").resolve()
    path = (store.instance_dir(instance_id) / str(relative or "")).resolve()
    if path.parent != folder or not path.is_file():
        raise HistoryError("the backup for this undo is missing", status=410)
    return path


# --- branch --------------------------------------------------------------------------------


def session_branch(store: FileStore, *, instance_id: str, session_id: str, index: int,
                   fingerprint: str) -> dict[str, Any]:
    """A new session holding the lines of `session_id` up to and including line `index`, made
    the current one; the source session is left exactly as it was. The plot state goes back to
    what it was before the first reply left out (from its trace), so the director only counts
    what the branch keeps. The caller re-indexes the instance (chat.services.instance_index)."""
    lock = _lock(store, instance_id)
    try:
        read = _session_checked(store, instance_id, session_id)
        _line_at(read, index, fingerprint)
        session_room_check(store, instance_id=instance_id)
        dropped = [line for line in read.lines[index + 1:] if line.get("role") == "assistant"]
        restored = (_plot_state_before(store, instance_id, reply_versions(dropped[0]))
                    if dropped else None)
        state = store.instance_state_read(instance_id)
        new_session_id = store.session_next_id(instance_id)
        # An imported chat's own header goes with its branch, so the branch's export writes
        # back its chat_metadata as SillyTavern's branch keeps it.
        imported = read.metadata.get("imported")
        store.session_create(instance_id, new_session_id, lines=read.lines[:index + 1],
                             branched_from={"session_id": session_id, "index": index},
                             imported=imported if isinstance(imported, dict) else None)
        state["current_session_id"] = new_session_id
        if restored is not None:
            state["plot_state"] = restored
        store.instance_state_write(instance_id, state)
        # Counted as the session list counts it (summaries and narrator lines too).
        branch_count = _listed_count(store.session_read(instance_id, new_session_id))
    finally:
        lock.release()
    return {"session_id": new_session_id, "branched_from": session_id, "index": index,
            "message_count": branch_count,
            "plot_state_restored": restored is not None}


# --- alternatives ("swipes") ----------------------------------------------------------------


def reply_choose_alternative(store: FileStore, *, instance_id: str, session_id: str, turn: int,
                             alternative_index: int) -> dict[str, Any]:
    """Show alternative `alternative_index` (an index into the line's "alternatives") as the
    reply of the last assistant line, keeping every version. In the current session the
    director is re-run so that only the reply finally kept counts: plot_state goes back to the
    trace's plot_state_before, then the chosen reply is applied."""
    lock = _lock(store, instance_id)
    try:
        read = _session_checked(store, instance_id, session_id, pick=_from_message_before_last)
        index = _last_message_position(read)
        line = read.lines[index - read.first_index] if index is not None else {}
        if line.get("role") != "assistant" or line.get("turn") != turn:
            raise HistoryError("only the latest reply can be flipped; reload the page", status=409)
        alternatives = [a for a in line.get("alternatives") or [] if isinstance(a, dict)]
        if not isinstance(alternative_index, int) or not 0 <= alternative_index < len(alternatives):
            raise HistoryError("there is no such alternative for this reply", status=404)
        new = _line_with_version(line, alternative_index)
        state = store.instance_state_read(instance_id)
        director = None
        restored = None
        if state.get("current_session_id") == session_id:
            restored = _plot_state_before(store, instance_id, reply_versions(line))
        _session_change(store, instance_id, session_id, first=index,
                        lines=[new, *_lines_after(read, index)], action="swipe")
        if restored is not None:
            store.instance_state_write(instance_id, {**state, "plot_state": restored})
            director = director_apply_reply(
                store, instance_id=instance_id, reply=new, counts_miss=not reply_follows_its_turn(
                    read.lines[:index - read.first_index], turn))
    finally:
        lock.release()
    return {"line": new, "version": version_position(new) + 1,
            "versions": len(new.get("alternatives", [])) + 1, "director": director,
            "director_reapplied": director is not None}


def _line_with_version(line: dict[str, Any], alternative_index: int) -> dict[str, Any]:
    versions = reply_versions(line)
    position = version_position(line)
    chosen_at = alternative_index if alternative_index < position else alternative_index + 1
    chosen = versions[chosen_at]
    rest = [v for i, v in enumerate(versions) if i != chosen_at]
    base = {k: v for k, v in line.items()
            if k not in VERSION_KEYS and k not in ("alternatives", "alternative_position")}
    return {**base, **chosen, "alternatives": rest, "alternative_position": chosen_at}


def _plot_state_before(store: FileStore, instance_id: str,
                       versions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Every version of a turn starts from the same plot_state (regenerate restores it), so the
    first readable trace among the versions gives it."""
    for version in versions:
        trace_id = version.get("trace_id")
        if not isinstance(trace_id, str) or not is_valid_id(trace_id):
            continue
        try:
            trace = store.trace_read(instance_id, trace_id)
            before = plot_state_before_followed(
                store, state=store.instance_state_read(instance_id), trace=trace)
        except (StoreError, ValueError):
            continue
        if before is not None:
            return before
    return None
