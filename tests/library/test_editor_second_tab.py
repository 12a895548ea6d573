"""A character or background editor open in two tabs: a save from the tab that was opened
before the other tab's save is refused in words (409), the typing kept on the page and the
other save kept in the file; saving again keeps the author's version. A background's outline
points, saved in place on the same page, do not count as another save."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from library.background_services import background_save
from library.character_services import character_save

SEEN = re.compile(r'name="seen" value="([0-9a-f]+)"')


def _seen(page) -> str:
    return SEEN.search(page.content.decode()).group(1)


def _form(store, character, **changes) -> dict:
    definition = store.character_read(character)
    return {"name": definition["name"], "base_persona": definition.get("base_persona", ""),
            "greeting": definition.get("greeting", ""), "visibility": "shared", **changes}


@pytest.mark.parametrize("language,words", [
    ("en", "Not saved: this was saved elsewhere (another tab or device) since you opened it."),
    ("zh-hans", "未保存：自你打开以来，它已在别处（另一个标签页或设备）保存过。"),
])
def test_a_character_saved_in_another_tab_meanwhile_is_not_undone(
        alice_client, alice, store, character, language, words):
    alice_client.cookies["django_language"] = language
    url = reverse("character_edit", args=[character])
    first_tab = alice_client.get(url)
    character_save(store, character_id=character, user=alice,
                   data=_form(store, character, greeting="The other tab's greeting."))
    refused = alice_client.post(url, {**_form(store, character, name="Renamed here"),
                                      "greeting": "stale greeting", "seen": _seen(first_tab)})
    assert refused.status_code == 409
    assert words in refused.content.decode()
    assert 'value="Renamed here"' in refused.content.decode()  # the typing is still there
    assert store.character_read(character)["greeting"] == "The other tab's greeting."
    again = alice_client.post(url, {**_form(store, character, name="Renamed here"),
                                    "seen": _seen(refused)})
    assert again.status_code == 302
    assert store.character_read(character)["name"] == "Renamed here"


def test_a_background_saved_elsewhere_is_refused_but_its_own_outline_edits_are_not(
        alice_client, alice, store, background):
    url = reverse("background_edit", args=[background])
    page = alice_client.get(url)
    alice_client.post(reverse("background_outline", args=[background]),
                      {"action": "add", "content": "A new last point"})
    form = {"name": "废土复仇记", "world_setting": "2087年。", "visibility": "shared"}
    saved = alice_client.post(url, {**form, "seen": _seen(page)})
    assert saved.status_code == 302
    assert store.background_read(background)["story_outline"][-1]["content"] == "A new last point"
    page = alice_client.get(url)
    background_save(store, background_id=background, user=alice,
                    data={**form, "world_setting": "Another tab's world."})
    refused = alice_client.post(url, {**form, "world_setting": "Mine.", "seen": _seen(page)})
    assert refused.status_code == 409
    assert store.background_read(background)["world_setting"] == "Another tab's world."
