"""☰ Story (and the outline card it reads) says how far the outline is: the points done and
the one under way. "3/5" alone, while point 4 was in progress, read as if the story stood
still on point 3."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def _progress(page: str) -> tuple[str, str, str]:
    shown = re.search(r'data-testid="story-progress" title="([^"]*)">([^<]*)</span>', page)
    card = re.search(r'id="outline" class="outline" data-progress="([^"]*)"', page)
    return shown.group(2), shown.group(1), card.group(1)


def _plot(store, instance, index: int, status: str) -> None:
    state = store.instance_state_read(instance)
    store.instance_state_write(instance, {**state, "plot_state": {
        **state.get("plot_state", {}), "current_plot_index": index, "current_status": status}})


def test_story_shows_the_point_in_progress_beside_the_points_done(alice_client, store,
                                                                  instance):
    url = f"/instances/{instance}/"
    assert _progress(alice_client.get(url).content.decode()) == (
        "0/5", "0 of 5 outline points done", "0/5")
    _plot(store, instance, 4, "in_progress")
    assert _progress(alice_client.get(url).content.decode()) == (
        "3/5 · 4 in progress", "3 of 5 outline points done; point 4 is in progress",
        "3/5 · 4 in progress")
    chinese = alice_client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert _progress(chinese) == ("3/5 · 第 4 点进行中", "大纲 5 点已完成 3 点；第 4 点进行中",
                                  "3/5 · 第 4 点进行中")
    _plot(store, instance, 4, "completed")
    assert _progress(alice_client.get(url).content.decode())[0] == "4/5"


def test_the_drawer_opens_on_the_outline(alice_client, instance):
    """☰ Story names the outline and says its progress: the outline is the drawer's first card
    (it came under six others, a phone's first screen showing none of it)."""
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    drawer = page[page.index('id="drawer"'):]
    first = drawer.index('class="card')
    assert drawer[first:].startswith('class="card" id="outline-card"')
