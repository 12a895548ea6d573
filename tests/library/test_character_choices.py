"""Two imports of one card: every picker tells the two same-named characters apart by their id
(only when names collide), and the characters keep the names their user gave them."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from library.card_import import character_import_card
from personalab.lib.names import labels_distinct

pytestmark = pytest.mark.django_db

CARD = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
    "name": "Doctor Ilse Marr", "description": "A ship's doctor.", "first_mes": "Sit.",
    "personality": "", "scenario": "", "mes_example": "", "tags": [], "extensions": {}}}


@pytest.fixture
def twins(store, alice, character) -> list[str]:
    return [character_import_card(store, user=alice, data=json.dumps(CARD).encode(),
                                  filename="ilse.json") for _ in range(2)]


def _options(html: str) -> list[str]:
    return [re.sub(r"\s+", " ", text).strip()
            for text in re.findall(r"<option value=\"char_[^\"]*\"[^>]*>([^<]*)</option>", html)]


def _ticks(html: str) -> list[str]:
    return [text.strip() for text in re.findall(
        r'name="character_ids" value="[^"]*"[^>]*>([^<]*)</label>', html)]


def test_same_names_get_their_id_and_unique_names_stay_plain():
    labels = labels_distinct([("char_a", "Mira"), ("char_b", "mira "), ("char_c", "Cato")])
    assert labels == {"char_a": "Mira (char_a)", "char_b": "mira (char_b)", "char_c": "Cato"}


def test_the_home_pickers_tell_two_imports_of_one_card_apart(alice_client, twins, store):
    first, second = twins
    html = alice_client.get("/").content.decode()
    expected = [f"Doctor Ilse Marr ({first})", f"Doctor Ilse Marr ({second})"]
    assert [o for o in _options(html) if "Ilse" in o] == expected
    assert "Alserqi" in _options(html)  # a unique name is shown as it is
    assert [t for t in _ticks(html) if "Ilse" in t] == expected
    assert [store.character_read(c)["name"] for c in twins] == ["Doctor Ilse Marr"] * 2


def test_the_character_page_and_the_member_drawer_tell_them_apart(alice_client, twins, store,
                                                                  alice, background):
    from chat.services.instances import instance_create

    first, second = twins
    html = alice_client.get(reverse("character_edit", args=[first])).content.decode()
    assert f"Doctor Ilse Marr ({second})" in _ticks(html)
    instance_id = instance_create(store, owner=alice, character_id=first,
                                  background_id=background)
    html = alice_client.get(f"/instances/{instance_id}/").content.decode()
    add = html[html.index('aria-label="Character to add"'):]
    add = add[:add.index("</select>")]
    # the instance's own character is not offered; the other import still says which it is
    assert f"Doctor Ilse Marr ({second})" in add and first + ")" not in add


def test_a_group_with_both_imports_names_each_member_with_its_id(alice_client, twins):
    first, second = twins
    response = alice_client.post("/instances/new?group=1", {
        "character_ids": [first, second], "background_id": "", "reply_order": "natural"})
    assert response.status_code == 302
    html = alice_client.get(response["Location"]).content.decode()
    for select_id in ("aside-speaker", "memory-member"):
        select = html[html.index(f'id="{select_id}"'):]
        select = select[:select.index("</select>")]
        assert _options(select) == [f"Doctor Ilse Marr ({first})",
                                    f"Doctor Ilse Marr ({second})"], select_id
    drawer = html[html.index('data-testid="members-card"'):]
    assert f"<strong>Doctor Ilse Marr ({second})</strong>" in drawer
