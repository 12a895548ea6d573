"""The director's file-level actions: its settings, applying a reply, switching background.

The effective fallback threshold is config.json `thresholds.rag_fallback_threshold` (the
flow seed reads it there); data/modules/director.json keeps a copy next to the switch, and
`director_settings_write` writes both so they never disagree. Functions that change an
instance expect the caller to hold the instance lock.
"""

from __future__ import annotations

import copy
from typing import Any

from director.logic import (
    carried_over_points,
    director_overview,
    director_process_response,
    outline_points,
    plot_held,
    plot_position,
    plot_state_normalized,
)
from library.selectors import background_for_chat
from personalab.lib.config_schema import config_validate
from personalab.lib.errors import Invalid
from personalab.lib.filestore.jsonfile import read_json
from personalab.lib.filestore.store import FileStore
from personalab.lib.ids import validate_id
from personalab.lib.markers import MARKER_STATUSES
from personalab.lib.outline_follow import outline_texts, plot_state_followed

THRESHOLD_RANGE = (1, 10)


class SettingsInvalid(Invalid):
    """Refused settings, one message per field (SPEC §6: refused field by field)."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("; ".join(f"{name}: {message}" for name, message in errors.items()),
                         fields=errors)
        self.errors = errors


def director_settings_read(store: FileStore) -> dict:
    return store.module_read("director")


def director_threshold(store: FileStore, settings: dict | None = None) -> int:
    """config.json's value wins; the module's copy is the fallback for a config without it."""
    value = store.config_read().get("thresholds", {}).get("rag_fallback_threshold")
    if _is_int(value):
        return value
    value = (settings if settings is not None else director_settings_read(store)).get(
        "rag_fallback_threshold")
    return value if _is_int(value) else 3


def director_settings_validate(settings: dict) -> dict[str, str]:
    errors: dict[str, str] = {}
    if "enabled" in settings and not isinstance(settings["enabled"], bool):
        errors["enabled"] = "must be true or false"
    if "rag_fallback_threshold" in settings:
        value = settings["rag_fallback_threshold"]
        low, high = THRESHOLD_RANGE
        if not _is_int(value):
            errors["rag_fallback_threshold"] = "must be a whole number"
        elif not low <= value <= high:
            errors["rag_fallback_threshold"] = f"must be between {low} and {high}"
    return errors


def director_settings_write(store: FileStore, settings: dict) -> dict:
    """Merge `settings` into the stored ones; nothing is written when any field is refused."""
    errors = director_settings_validate(settings)
    if errors:
        raise SettingsInvalid(errors)
    config = _config_for_update(store)
    merged = {**director_settings_read(store), **settings}
    store.module_write("director", merged)
    threshold = settings.get("rag_fallback_threshold")
    if threshold is not None and config["thresholds"].get("rag_fallback_threshold") != threshold:
        config["thresholds"]["rag_fallback_threshold"] = threshold
        store.config_write(config)
    return merged


def _config_for_update(store: FileStore) -> dict:
    # config_read() hides a broken config.json behind defaults; writing those back would
    # destroy the file someone has to repair, so refuse instead.
    if store.config_path.exists():
        read_json(store.config_path, what="config.json")
    return store.config_read()


def director_apply_reply(store: FileStore, *, instance_id: str, reply: dict,
                         counts_miss: bool = True) -> dict:
    """Flow step 6 on the files: the report says what was found and whether it counted.
    `counts_miss` False: a reply without a marker leaves the miss count as it is (the second
    and later replies of a group round; a marker still counts)."""
    report, state = director_step(store, instance_id=instance_id, reply=reply,
                                  counts_miss=counts_miss)
    if state is not None:
        store.instance_state_write(instance_id, state)
    return report


def director_step(store: FileStore, *, instance_id: str, reply: dict,
                  counts_miss: bool = True) -> tuple[dict, dict | None]:
    """director_apply_reply without its write: the report, and the instance state to write
    (None when nothing changed)."""
    state = store.instance_state_read(instance_id)
    background = background_for_chat(store, state=state)
    old_plot_state = state.get("plot_state")
    new_plot_state, report = director_process_response(
        settings=director_settings_read(store), plot_state=old_plot_state, reply=reply,
        outline_length=len(outline_points(background)), counts_miss=counts_miss,
        held=plot_held(state),
    )
    changed = {"plot_state": new_plot_state} if new_plot_state != old_plot_state else {}
    carried = state.get("carried_over") or {}
    if report.get("index") in (carried.get("points") or []):
        # The story has now reached this point itself.
        points = [p for p in carried["points"] if p != report["index"]]
        changed["carried_over"] = {**carried, "points": points}
    return report, ({**state, **changed} if changed else None)


def instance_switch_background(store: FileStore, *, instance_id: str,
                               background_id: str | None) -> dict[str, Any]:
    """The seed keeps plot_state as it is. An index beyond the new outline is not rewritten:
    the director uses the last point until a marker moves it, and says so (`clamped`).
    Raises InvalidId for a malformed id and MissingFile for an unknown background."""
    state = store.instance_state_read(instance_id)
    outline: list[dict] = []
    if background_id is not None:
        outline = outline_points(store.background_read(validate_id(background_id,
                                                                   kind="background id")))
    plot_state = plot_state_normalized(state.get("plot_state"))
    previous = state.get("background_id")
    carried = carried_over_points(plot_state, len(outline)) if previous != background_id else []
    new_state = {**state, "background_id": background_id}
    if previous != background_id:
        new_state.pop("carried_over", None)
        if carried and previous:
            new_state["carried_over"] = {"from_background_id": previous, "points": carried}
    store.instance_state_write(instance_id, new_state)
    _, clamped = plot_position(plot_state, len(outline))
    return {"background_id": background_id, "previous_background_id": previous,
            "clamped": clamped, "outline_length": len(outline),
            "current_plot_index": plot_state["current_plot_index"]}


def director_plot_set(store: FileStore, *, instance_id: str, index: Any,
                      status: Any = "in_progress") -> dict[str, Any]:
    """The author moves the story by hand (skips a point, goes back to one, marks it done):
    point `index` of the chat's outline becomes the current one with `status`, as a marker
    would have made it; the count of turns without progress starts again, and points carried
    over from a previous background count no more (the author has said where the story is)."""
    state = store.instance_state_read(instance_id)
    length = len(outline_points(background_for_chat(store, state=state)))
    if length == 0:
        raise Invalid("this chat's background has no outline", field="current_plot_index")
    if not _is_int(index) or not 1 <= index <= length:
        raise Invalid(f"must be a point of the outline, 1 to {length}",
                      field="current_plot_index")
    if status not in MARKER_STATUSES:
        raise Invalid(f"must be one of {', '.join(MARKER_STATUSES)}", field="current_status")
    plot_state = {**plot_state_normalized(state.get("plot_state")), "current_plot_index": index,
                  "current_status": status, "no_update_count": 0}
    new_state = {**state, "plot_state": plot_state}
    new_state.pop("carried_over", None)
    store.instance_state_write(instance_id, new_state)
    return plot_state


def director_hold_set(store: FileStore, *, instance_id: str, held: Any) -> bool:
    """The player's "hold this beat": kept beside plot_state, not in it, so that regenerate,
    undo and deleting a reply (which put plot_state back) leave the player's choice alone;
    a plot point set by hand keeps it."""
    if not isinstance(held, bool):
        raise Invalid("must be true or false", field="held")
    state = store.instance_state_read(instance_id)
    if state.get("plot_hold") is not held:
        store.instance_state_write(instance_id, {**state, "plot_hold": held})
    return held


def plot_state_before_followed(store: FileStore, *, state: dict[str, Any],
                               trace: dict[str, Any]) -> dict[str, Any] | None:
    """A turn's trace's `plot_state_before` (what regenerate, a branch or deleting the reply go
    back to), moved from the outline that turn's director saw (its `director_context`) onto the
    chat's outline as it is now: the author may have edited it since
    (docs/decisions/outline-edits-follow-chats.md). None when the trace kept none."""
    before = trace.get("plot_state_before")
    if not isinstance(before, dict):
        return None
    context = trace.get("director_context")
    rows = context.get("outline") if isinstance(context, dict) else None
    if not isinstance(rows, list):
        return copy.deepcopy(before)  # the director was off: the outline then is not known
    then = [str(row.get("content", "")) for row in rows if isinstance(row, dict)]
    now = outline_texts(background_for_chat(store, state=state))
    followed, _ = plot_state_followed({"plot_state": copy.deepcopy(before)}, then, now)
    return followed["plot_state"]


def director_status(store: FileStore, *, instance_id: str) -> dict[str, Any]:
    """For the chat page: where the story stands and whether next turn brings a reminder."""
    state = store.instance_state_read(instance_id)
    settings = director_settings_read(store)
    overview = director_overview(
        settings=settings, threshold=director_threshold(store, settings),
        instance_state=state, background=background_for_chat(store, state=state),
    )
    overview["reminder_next_turn"] = overview.pop("reminder_due") and overview["enabled"]
    overview["background_id"] = state.get("background_id")
    overview["points_done"] = sum(1 for row in overview["outline"] if row["status"] == "completed")
    # "3/5" alone read as if the story stood still while point 4 was under way
    overview["point_in_progress"] = next((row["index"] for row in overview["outline"]
                                          if row["status"] == "in_progress"), None)
    if overview["carried_over_from"]:
        old = background_for_chat(store, state={**state,
                                                "background_id": overview["carried_over_from"]})
        overview["carried_over_from_name"] = old.get("name") or overview["carried_over_from"]
    return overview


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def config_save(store: FileStore, *, changes: dict[str, Any]) -> tuple[dict[str, Any],
                                                                       dict[str, str]]:
    """Validate `changes` against config.json; write only when every field is valid (then
    also the director's copy of the threshold). Returns (config, field errors)."""
    config, errors = config_validate(changes, store.config_read())
    if not errors:
        store.config_write(config)
        director = store.module_read("director")
        director["rag_fallback_threshold"] = config["thresholds"]["rag_fallback_threshold"]
        store.module_write("director", director)
    return config, errors
