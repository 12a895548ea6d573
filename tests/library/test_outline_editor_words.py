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
