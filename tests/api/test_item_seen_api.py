"""PUT /api/v1/characters/{id} and /backgrounds/{id} with the `seen` GET showed: a save made
since (REST or the editor page) is refused with 409 `changed` and nothing is written, as the
editor page refuses a tab opened before another save."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse


@pytest.mark.parametrize("kind,field", [("characters", "base_persona"),
                                        ("backgrounds", "world_setting")])
def test_a_put_with_an_old_seen_is_refused_and_writes_nothing(api, character, background,
                                                              kind, field):
    item_id = character if kind == "characters" else background
    url = f"/api/v1/{kind}/{item_id}"
    shown = api("get", url).json()
    assert shown["seen"]
    first = api("put", url, {field: "first client", "seen": shown["seen"]})
    assert first.status_code == 200, first.content
    late = api("put", url, {field: "second client", "seen": shown["seen"]})
    assert late.status_code == 409, late.content
    assert late.json()["error"]["code"] == "changed"
    assert api("get", url).json()[field] == "first client"
    again = api("put", url, {field: "second client", "seen": first.json()["seen"]})
    assert again.status_code == 200, again.content
    assert api("get", url).json()[field] == "second client"


def test_a_put_without_seen_saves_as_before(api, character):
    answer = api("put", f"/api/v1/characters/{character}", {"base_persona": "no seen"})
    assert answer.status_code == 200, answer.content


def test_a_get_body_sent_back_whole_saves_and_stores_no_seen(api, store, background):
    url = f"/api/v1/backgrounds/{background}"
    shown = api("get", url).json()
    answer = api("put", url, {**shown, "world_setting": "round trip"})
    assert answer.status_code == 200, answer.content
    assert answer.json()["seen"] != shown["seen"]
    assert "seen" not in store.background_read(background)


def test_a_page_save_since_the_get_is_refused_too(api, alice_client, store, character):
    url = f"/api/v1/characters/{character}"
    shown = api("get", url)
    page = alice_client.get(reverse("character_edit", args=[character]))
    seen = re.search(r'name="seen" value="([0-9a-f]+)"', page.content.decode()).group(1)
    assert seen == shown.json()["seen"]
    definition = store.character_read(character)
    saved = alice_client.post(reverse("character_edit", args=[character]), {
        "name": definition["name"], "base_persona": "from the page", "greeting": "",
        "visibility": "shared", "seen": seen})
    assert saved.status_code == 302
    late = api("put", url, {"base_persona": "from REST", "seen": shown.json()["seen"]})
    assert late.status_code == 409
    assert store.character_read(character)["base_persona"] == "from the page"


def test_seen_that_is_not_text_is_a_400_by_name(api, character):
    answer = api("put", f"/api/v1/characters/{character}", {"seen": 5})
    assert answer.status_code == 400
    assert "seen" in answer.json()["error"]["fields"]
