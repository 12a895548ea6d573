"""The director (SPEC §4, flow steps 3 and 6) as plain functions: no Django, no files.

`director_prepare_context` runs before the prompt is assembled, `director_process_response`
after the reply is in the session file. The caller reads and writes the files
(director/services.py) and decides the effective threshold.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any, Callable

from personalab.lib.markers import MARKER_STATUSES, find_progress_marker

INSTRUCTION = (
    "如果剧情推进，请在回复中输出标记：[PROGRESS:X:status]"
    "（X为大纲点序号，status为 completed / in_progress / pending）"
)
REFERENCE_LABEL = "剧情经验参考（其他剧情线的类似情节，仅供参考）"
MAX_CURRENT_EVENTS = 15
MAX_REFERENCE_EVENTS = 5
DEFAULT_THRESHOLD = 3

Search = Callable[[str], tuple[list[str], list[str]]]


@dataclass(frozen=True)
class DirectorWords:
    """What the director writes into a prompt, in the prompt's language; the seed's Chinese
    (SPEC §4) unless the caller gives others. `point` names an outline point ({index},
    {content}); `goal`, `reminder` and `hold` hold it ({point}). `hold` replaces `goal` while the
    player holds the beat."""

    instruction: str = INSTRUCTION
    goal: str = "当前目标：{point}"
    reminder: str = "你现在应该推进到{point}"
    point: str = "故事大纲第{index}点：{content}"
    hold: str = "停留在当前情节：{point}（玩家想留在这一幕，不要推进到大纲后面的点）"


SEED_WORDS = DirectorWords()
_FIELD = re.compile(r"\{(index|content|point)\}")


def _worded(words: str, **values: str) -> str:
    # one pass: an outline point's own text may hold "{index}" and stays as written
    return _FIELD.sub(lambda found: values.get(found.group(1), found.group(0)), words)


def plot_state_normalized(plot_state: dict | None) -> dict:
    """The seed's three fields with safe defaults; a hand-edited file must not stop a turn."""
    state = dict(plot_state or {})
    index = state.get("current_plot_index")
    count = state.get("no_update_count")
    state["current_plot_index"] = index if _is_int(index) else 1
    state["no_update_count"] = count if _is_int(count) and count >= 0 else 0
    if state.get("current_status") not in MARKER_STATUSES:
        state["current_status"] = "pending"
    return state


def plot_held(instance_state: dict | None) -> bool:
    """The player's "hold this beat" (instance_state `plot_hold`); a state file from before
    the hold existed, or a hand-edited value that is not true, reads as not held."""
    return (instance_state or {}).get("plot_hold") is True


def outline_points(background: dict | None) -> list[dict]:
    """Points numbered by position, which is what the marker's X refers to."""
    points = (background or {}).get("story_outline") or []
    return [
        {"index": position, "content": str(point.get("content", "")) if isinstance(point, dict)
         else str(point)}
        for position, point in enumerate(points, start=1)
    ]


def plot_position(plot_state: dict, outline_length: int) -> tuple[int, bool]:
    """The current point inside the outline, and whether it had to be moved there (an index
    left over from a longer outline after switching background)."""
    index = plot_state_normalized(plot_state)["current_plot_index"]
    if outline_length <= 0:
        return index, False
    clamped_index = min(max(index, 1), outline_length)
    return clamped_index, clamped_index != index


def outline_with_status(outline: list[dict], plot_state: dict,
                        carried_over: list[int] | None = None) -> list[dict]:
    """`carried_over`: the points whose status came from the outline of the background used
    before a switch (instance_state `carried_over`)."""
    state = plot_state_normalized(plot_state)
    current, _ = plot_position(state, len(outline))
    carried = set(carried_over or [])
    rows = []
    for position, point in enumerate(outline, start=1):
        if position < current:
            status = "completed"
        elif position == current:
            status = state["current_status"]
        else:
            status = "pending"
        rows.append({"index": position, "content": point.get("content", ""), "status": status,
                     "current": position == current, "carried_over": position in carried})
    return rows


def target_point(rows: list[dict], plot_state: dict, held: bool = False) -> dict | None:
    """The point the story should move to: the current one, or the next pending one once the
    current one is completed (a reminder to reach a completed point sends the story back).
    Held: the current one, whatever its status."""
    if not rows:
        return None
    state = plot_state_normalized(plot_state)
    current, _ = plot_position(state, len(rows))
    if state["current_status"] == "completed" and current < len(rows) and not held:
        return rows[current]
    return rows[current - 1]


def instruction_text(target: dict | None, finished: bool,
                     words: DirectorWords = SEED_WORDS, held: bool = False) -> str | None:
    if target is None:
        return None
    if finished:
        return words.instruction
    guidance = words.hold if held else words.goal
    return f"{words.instruction}\n{_worded(guidance, point=reminder_query(target, words))}"


def carried_over_points(plot_state: dict, outline_length: int) -> list[int]:
    """After a background switch, the points of the new outline that already count as
    completed or in progress: that progress was made in the old outline."""
    rows = outline_with_status([{}] * outline_length, plot_state)
    return [row["index"] for row in rows if row["status"] != "pending"]


def outline_finished(plot_state: dict, outline_length: int) -> bool:
    state = plot_state_normalized(plot_state)
    current, _ = plot_position(state, outline_length)
    return (outline_length > 0 and current == outline_length
            and state["current_status"] == "completed")


def effective_threshold(settings: dict, threshold: int | None) -> int:
    value = threshold if _is_int(threshold) else settings.get("rag_fallback_threshold")
    return max(1, value) if _is_int(value) else DEFAULT_THRESHOLD


def director_overview(*, settings: dict, threshold: int | None, instance_state: dict,
                      background: dict | None, words: DirectorWords = SEED_WORDS) -> dict:
    """Everything the director knows about where the story stands, without searching."""
    state = plot_state_normalized(instance_state.get("plot_state"))
    outline = outline_points(background)
    current, clamped = plot_position(state, len(outline))
    carried = instance_state.get("carried_over") or {}
    rows = outline_with_status(outline, state, carried.get("points"))
    limit = effective_threshold(settings, threshold)
    finished = outline_finished(state, len(outline))
    held = plot_held(instance_state)
    target = target_point(rows, state, held)
    return {
        "enabled": bool(settings.get("enabled", True)),
        "outline": rows,
        "instruction": instruction_text(target, finished, words, held),
        "current_index": current,
        "current_point": rows[current - 1] if rows else None,
        "target_point": target,
        "carried_over_from": carried.get("from_background_id") if carried.get("points") else None,
        "current_status": state["current_status"],
        "no_update_count": state["no_update_count"],
        "threshold": limit,
        "finished": finished,
        "clamped": clamped,
        "held": held,
        # held: the nudge toward the next point is what the player asked to go without
        "reminder_due": (bool(rows) and not finished and not held
                         and state["no_update_count"] >= limit),
    }


def director_prepare_context(*, settings: dict, threshold: int | None = None,
                             instance_state: dict, background: dict | None,
                             search: Search | None,
                             words: DirectorWords = SEED_WORDS) -> dict | None:
    """Flow step 3. None when the director is switched off. The reminder does not reset the
    counter: only a reply with a marker does (seed), so a model that keeps drifting is
    reminded every turn."""
    if not settings.get("enabled", True):
        return None
    context = director_overview(settings=settings, threshold=threshold,
                                instance_state=instance_state, background=background, words=words)
    context.pop("enabled")
    due = context.pop("reminder_due")
    context["reminder"] = reminder_build(context["target_point"], search, words) if due else None
    return context


def reminder_query(point: dict, words: DirectorWords = SEED_WORDS) -> str:
    return _worded(words.point, index=str(point["index"]), content=str(point["content"]))


def reminder_build(point: dict, search: Search | None, words: DirectorWords = SEED_WORDS) -> dict:
    query = reminder_query(point, words)
    reminder: dict[str, Any] = {
        "text": _worded(words.reminder, point=query),
        "query": query,
        "current_events": [],
        "reference_events": [],
        "reference_label": REFERENCE_LABEL,
    }
    if search is None:
        reminder["search_error"] = "recall is not available: the reminder names the point only"
        return reminder
    # Recall is a help, not a requirement: a broken event store must not stop the turn.
    try:
        current_events, reference_events = search(query)
    except Exception as exc:  # noqa: BLE001
        reminder["search_error"] = f"recall failed ({type(exc).__name__}: {exc})"
        return reminder
    reminder["current_events"] = [str(e) for e in current_events or []][:MAX_CURRENT_EVENTS]
    reminder["reference_events"] = [str(e) for e in reference_events or []][:MAX_REFERENCE_EVENTS]
    return reminder


def reply_miss_reason(reply: dict) -> str | None:
    """SPEC §4: empty, interrupted and error replies count as "no marker", even when a
    marker made it into the partial text before the stop."""
    if reply.get("error"):
        return "error reply"
    if reply.get("empty") or not str(reply.get("content") or "").strip():
        return "empty reply"
    if reply.get("interrupted"):
        return "interrupted reply"
    return None


def director_process_response(*, settings: dict, plot_state: dict, reply: dict,
                              outline_length: int, counts_miss: bool = True,
                              held: bool = False) -> tuple[dict, dict]:
    """Flow step 6. Returns the new plot_state and a report for the trace. `held` (the
    player's "hold this beat"): a marker for a later point is not applied (the report's
    `held_marker`) and turns without a marker do not count."""
    if not settings.get("enabled", True):
        return copy.deepcopy(plot_state), {"enabled": False}
    state = plot_state_normalized(copy.deepcopy(plot_state))
    found = find_progress_marker(str(reply.get("content") or ""), outline_length)
    report: dict[str, Any] = {"enabled": True, "marker": None, "index": None, "status": None,
                              "rejected": found.rejected, "counted_as_miss": False,
                              "finished": False, "no_outline": outline_length <= 0,
                              "held": held}
    if outline_length <= 0:
        # No outline, nothing to track: counting misses here would fire a reminder the
        # moment a background is chosen.
        report["no_update_count"] = state["no_update_count"]
        return state, report
    miss_reason = reply_miss_reason(reply)
    # Past the outline's last point there is nothing left to make progress on: no miss counts
    # (the counter climbed for ever under "the outline is finished").
    counts_miss = counts_miss and not outline_finished(state, outline_length) and not held
    current, _ = plot_position(state, outline_length)
    if found.found and miss_reason is None and held and found.index > current:
        report["held_marker"] = {"raw": found.raw, "index": found.index, "status": found.status,
                                 "kept_at": current}
        report["miss_reason"] = "held"
    elif found.found and miss_reason is None:
        _marker_apply(state, found.index, found.status)
        report.update(marker=found.raw, index=found.index, status=found.status)
    else:
        if found.found:
            report["rejected"].append({"raw": found.raw, "reason": f"ignored: {miss_reason}"})
        if counts_miss:
            state["no_update_count"] += 1
        report["counted_as_miss"] = counts_miss
        report["miss_reason"] = miss_reason or "no valid marker"
    # Recomputed every turn so a flag left from a shorter outline (before a background
    # switch) does not outlive it.
    if outline_finished(state, outline_length):
        state["finished"] = True
    else:
        state.pop("finished", None)
    report["finished"] = bool(state.get("finished"))
    report["no_update_count"] = state["no_update_count"]
    return state, report


def _marker_apply(state: dict, index: int, status: str) -> None:
    state["current_plot_index"] = index
    state["current_status"] = status
    state["no_update_count"] = 0


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
