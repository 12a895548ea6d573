"""The background outline editor's refusals (an empty point, a point another tab removed) are
said in the page's language, with the outline shown as it is now."""

from __future__ import annotations

import pytest
from django.urls import reverse


@pytest.mark.parametrize("language,empty,lost", [
    ("en", "Outline point: required",
     "There is no outline point 9: the outline has changed since this page showed it."),
    ("zh-hans", "大纲点：必填", "没有第 9 个大纲点：自本页显示以来大纲已改变。"),
])
def test_outline_refusals_are_in_the_pages_language(alice_client, background, store, language,
                                                    empty, lost):
    alice_client.cookies["django_language"] = language
    url = reverse("background_outline", args=[background])
    before = store.background_read(background)["story_outline"]
    added = alice_client.post(url, {"action": "add", "content": "  "})
    assert added.status_code == 200
    assert empty in added.content.decode()
    removed = alice_client.post(url, {"action": "delete", "position": "9"})
    assert lost in removed.content.decode()
    assert "发现背叛者的线索" in removed.content.decode()  # the outline as it is
    assert store.background_read(background)["story_outline"] == before


@pytest.mark.parametrize("language,words", [
    ("en", "Not saved: outline point 2 was changed elsewhere (another tab or device) since this "
           "page showed it."),
    ("zh-hans", "未保存：自本页显示以来，第 2 个大纲点已在别处（另一个标签页或设备）改变。"),
])
def test_a_point_another_tab_moved_is_not_overwritten_by_this_tabs_edit(
        alice_client, background, store, language, words):
    alice_client.cookies["django_language"] = language
    url = reverse("background_outline", args=[background])
    shown = store.background_read(background)["story_outline"][1]["content"]
    alice_client.post(url, {"action": "up", "position": "2", "shown": shown})  # the other tab
    moved = [p["content"] for p in store.background_read(background)["story_outline"]]
    for action in ("edit", "delete", "down"):
        refused = alice_client.post(url, {"action": action, "position": "2", "shown": shown,
                                          "content": "this tab's text"})
        assert words in refused.content.decode()
        assert [p["content"] for p in store.background_read(background)["story_outline"]] == moved
    kept = alice_client.post(url, {"action": "edit", "position": "1", "shown": shown,
                                   "content": "this tab's text, where the point is now"})
    assert kept.status_code == 200 and "changed elsewhere" not in kept.content.decode()
    assert store.background_read(background)["story_outline"][0]["content"].startswith("this tab")
