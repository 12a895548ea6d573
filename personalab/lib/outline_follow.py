"""A chat's story step when its background's outline is edited mid-play.

The plot state names its point by position (the data layout's `current_plot_index`), so an
outline point inserted, deleted or moved above it would silently move the story. The point is
followed by its text instead: the k-th point with the current one's text in the old outline is
the k-th with that text in the new one (or the last such, when fewer are left). A point whose
text is no longer in the outline (edited or deleted) keeps its position: the caller says so.
Linear in the outline's length; no Django, no files.
"""

from __future__ import annotations

import copy
from collections import Counter
from typing import Any


def outline_texts(background: dict[str, Any] | None) -> list[str]:
    """The outline's points as text, in order (position i + 1 is point i)."""
    points = (background or {}).get("story_outline") or []
    return [str(point.get("content", "")) if isinstance(point, dict) else str(point)
            for point in points]


def outline_index_followed(before: list[str], after: list[str], index: int) -> int | None:
    """Where point `index` (1-based) of `before` is in `after`; None when its text is gone
    (or `index` was not a point of `before`)."""
    if not 1 <= index <= len(before):
        return None
    text = before[index - 1]
    rank = before[:index].count(text)  # 1 for the first point with this text
    places = [position for position, other in enumerate(after, start=1) if other == text]
    if not places:
        return None
    return places[min(rank, len(places)) - 1]


def plot_state_followed(state: dict[str, Any], before: list[str],
                        after: list[str]) -> tuple[dict[str, Any], bool]:
    """The instance state with its step (and the points carried over from a previous
    background) moved from `before`'s positions to `after`'s. The bool: whether the current
    point was found (False: its position is kept, the author is told)."""
    plot_state = state.get("plot_state") if isinstance(state.get("plot_state"), dict) else {}
    index = plot_state.get("current_plot_index")
    new_state = copy.deepcopy(state)
    found = True
    # An index past the old outline (left by a background switch) plays its last point
    # until a marker moves it: it is left as it is.
    if isinstance(index, int) and not isinstance(index, bool) and 1 <= index <= len(before):
        moved = outline_index_followed(before, after, index)
        found = moved is not None
        if found and moved != index:
            new_state["plot_state"]["current_plot_index"] = moved
    carried = new_state.get("carried_over")
    if isinstance(carried, dict) and isinstance(carried.get("points"), list):
        followed = (outline_index_followed(before, after, point) for point in carried["points"]
                    if isinstance(point, int))
        carried["points"] = sorted({point for point in followed if point is not None})
    return new_state, found


def points_passed_unplayed(before: list[str], after: list[str], index_before: int,
                           index_after: int) -> list[int]:
    """The positions above a chat's point in `after` (it moved from `index_before` to
    `index_after`) that hold a point which was not above it in `before`: one moved up from
    below it, or one added (the outline grew and the text is new). The plot state is a
    position and every point before it counts as done (data layout `current_plot_index`), so
    each of these shows as done though the story never played it. An edited point above
    (same length, a new text) is the point the story passed, and is not listed."""
    above = Counter(before[:max(index_before - 1, 0)])
    below = Counter(before[index_before:])
    known, grew = set(before), len(after) > len(before)
    passed = []
    for position, text in enumerate(after[:max(index_after - 1, 0)], start=1):
        if above[text] > 0:
            above[text] -= 1
        elif below[text] > 0:
            below[text] -= 1
            passed.append(position)
        elif grew and text not in known:
            passed.append(position)
    return passed
