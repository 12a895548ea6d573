"""The lorebook editor sends back the version it was shown: a book saved elsewhere since (another
tab, device or author) is not silently overwritten; the refusal keeps what was typed, and a
second save, made knowing, wins."""

from __future__ import annotations

import json
import re

import pytest

from library.lore.services import lorebook_save

pytestmark = pytest.mark.django_db

ENTRY = {"uid": 1, "keys": ["harbour"], "content": "The harbour is old.", "comment": "Harbour",
         "enabled": True, "constant": False, "priority": 100, "position": "before_char",
         "depth": 4}


def _form(page: str) -> dict[str, str]:
    seen = re.search(r'name="seen" value="([0-9a-f]+)"', page)
    return {"name": "Harbour", "uid": "1", "e1_keys": "harbour", "e1_enabled": "on",
            "e1_priority": "100", "e1_depth": "4", "e1_position": "before_char",
            "e1_content": "Rewritten here.", "seen": seen.group(1) if seen else ""}


def test_a_save_over_a_book_saved_elsewhere_is_refused_then_a_second_save_wins(
        alice_client, alice, store):
    book = lorebook_save(store, data={"name": "Harbour", "entries": [ENTRY]}, user=alice)
    url = f"/library/lorebooks/{book}/"
    form = _form(alice_client.get(url).content.decode())
    assert form["seen"]
    elsewhere = store.lorebook_read(book)
    elsewhere["entries"][0]["content"] = "Written in another tab."
    store.lorebook_write(book, elsewhere)
    refused = alice_client.post(url, form)
    assert refused.status_code == 409
    page = refused.content.decode()
    assert "saved elsewhere" in page and "Rewritten here." in page
    assert store.lorebook_read(book)["entries"][0]["content"] == "Written in another tab."
    again = alice_client.post(url, _form(page))
    assert again.status_code == 302
    assert store.lorebook_read(book)["entries"][0]["content"] == "Rewritten here."


def test_a_form_without_the_version_still_saves(alice_client, alice, store):
    book = lorebook_save(store, data={"name": "Harbour", "entries": [ENTRY]}, user=alice)
    form = {**_form(""), "seen": ""}
    assert alice_client.post(f"/library/lorebooks/{book}/", form).status_code == 302
    assert store.lorebook_read(book)["entries"][0]["content"] == "Rewritten here."


def test_a_refused_book_setting_and_entry_field_are_named_beside_their_fields(
        alice_client, alice, store):
    book = lorebook_save(store, data={"name": "Harbour", "entries": [ENTRY]}, user=alice)
    url = f"/library/lorebooks/{book}/"
    form = {**_form(alice_client.get(url).content.decode()), "scan_depth": "deep",
            "e1_probability": "often"}
    refused = alice_client.post(url, form)
    assert refused.status_code == 400
    page = refused.content.decode()
    assert "Not saved: fix the fields marked below." in page and "scan_depth:" not in page
    for field in ("scan_depth", "e1_probability"):
        assert f'data-for="{field}" id="{field}-error"' in page, field
    assert 'name="e1_probability" value="often"' in page  # what was typed, to correct


def test_a_fractional_probability_imports_shows_and_saves_as_sillytavern_keeps_it(
        alice_client, alice, store):
    """SillyTavern's world-info.js stores the probability box's Number (33.5 stays 33.5) and
    rolls unrounded against it; its files carry such values. The editor refused to save one."""
    from library.lore.services import lorebook_import

    world = {"entries": {"0": {"uid": 1, "key": ["harbour"], "content": "Old.",
                               "probability": 33.5, "useProbability": True}}}
    book = lorebook_import(store, owner=alice, data=json.dumps(world).encode(),
                           filename="harbour.json")
    url = f"/library/lorebooks/{book}/"
    page = alice_client.get(url).content.decode()
    assert 'name="e1_probability" value="33.5"' in page
    form = {**_form(page), "e1_probability": "33.5"}
    assert alice_client.post(url, form).status_code == 302  # unchanged: saved as it was
    form = {**_form(alice_client.get(url).content.decode()), "e1_probability": "12.75"}
    assert alice_client.post(url, form).status_code == 302
    assert store.lorebook_read(book)["entries"][0]["probability"] == 12.75
    form = {**_form(alice_client.get(url).content.decode()), "e1_probability": "100.5"}
    refused = alice_client.post(url, form)
    assert refused.status_code == 400 and "must be between 0 and 100" in refused.content.decode()


def test_keys_left_as_shown_are_saved_as_stored(alice_client, alice, store):
    """The box shows a key of spaces alone as a blank line, which the form drops; SillyTavern's
    editor keeps an entry's keys until they are edited, so a save of its text must too."""
    book = lorebook_save(store, data={"name": "Harbour", "entries": [
        {**ENTRY, "keys": ["harbour", " ", ""], "secondary_keys": [" quay"]}]}, user=alice)
    url = f"/library/lorebooks/{book}/"
    form = {**_form(alice_client.get(url).content.decode()), "e1_secondary_keys": "quay"}
    assert alice_client.post(url, form).status_code == 302
    saved = store.lorebook_read(book)["entries"][0]
    assert saved["keys"] == ["harbour", " ", ""] and saved["secondary_keys"] == [" quay"]
    assert saved["content"] == "Rewritten here."
    form = {**_form(alice_client.get(url).content.decode()), "e1_keys": "harbour\nport"}
    assert alice_client.post(url, form).status_code == 302
    assert store.lorebook_read(book)["entries"][0]["keys"] == ["harbour", "port"]
