"""The outline's next goal is marked done in one click: after a point was done, the next one
offered only "go here", and marking it done took that and then "mark done"."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def _buttons(page: str) -> dict[str, list[str]]:
    """Each point's buttons, by the point's number: ["go", "done"]."""
    rows = re.findall(r"<li class=\"status-[^\"]*\">.*?</li>", page, flags=re.S)
    return {str(number): re.findall(r'data-testid="outline-(go|done)"', row)
            for number, row in enumerate(rows, start=1)}


def test_the_next_goal_offers_mark_done_and_one_post_finishes_it(alice_client, store,
                                                                  instance):
    state = store.instance_state_read(instance)
    store.instance_state_write(instance, {**state, "plot_state": {
        "current_plot_index": 3, "current_status": "completed", "no_update_count": 0}})
    url = f"/instances/{instance}/outline"
    page = alice_client.get(url).content.decode()
    assert _buttons(page) == {"1": ["go"], "2": ["go"], "3": [], "4": ["go", "done"],
                              "5": ["go"]}
    assert 'aria-label="mark done (point 4)"' in page
    after = alice_client.post(url, {"index": "4", "status": "completed"},
                             HTTP_HX_REQUEST="true").content.decode()
    assert store.instance_state_read(instance)["plot_state"]["current_status"] == "completed"
    assert store.instance_state_read(instance)["plot_state"]["current_plot_index"] == 4
    assert _buttons(after)["5"] == ["go", "done"]
