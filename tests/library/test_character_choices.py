"""Two characters of one name: every picker tells them apart by what the author sees in the
library (whose it is, the first words of its description, its tags, its picture, when it
changed), never by an id while anything else differs, and only when names collide; the
characters keep the names their user gave them."""

from __future__ import annotations

import html
import json
import re
from datetime import timedelta

import pytest
from django.urls import reverse

from chat.services.instances import instance_create
from library import character_labels
from library.card_formats.card_import import character_import_card
from library.character_picker import character_choices
from library.character_services import character_save
from library.models import Character
from personalab.lib.names import labels_distinct

pytestmark = pytest.mark.django_db

CARD = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
    "name": "Doctor Ilse Marr", "description": "A ship's doctor.", "first_mes": "Sit.",
    "personality": "", "scenario": "", "mes_example": "", "tags": [], "extensions": {}}}


SHIP = "“A ship's doctor.”"
NAVY = "“A navy surgeon who left the fleet…”"


def _card(description: str) -> bytes:
    return json.dumps({**CARD, "data": {**CARD["data"], "description": description}}).encode()


@pytest.fixture
def twins(store, alice, character) -> list[str]:
    """Two versions of one card: the second describes her otherwise."""
    return [character_import_card(store, user=alice, data=_card(text), filename="ilse.json")
            for text in ("A ship's doctor.", "A navy surgeon who left the fleet, years ago.")]


def _options(page: str) -> list[str]:
    return [html.unescape(re.sub(r"\s+", " ", text).strip())
            for text in re.findall(r"<option value=\"char_[^\"]*\"[^>]*>([^<]*)</option>", page)]


def _ticks(page: str) -> list[str]:
    return [html.unescape(text.strip()) for text in re.findall(
        r'name="character_ids" value="[^"]*"[^>]*>([^<]*)</label>', page)]


def test_same_names_get_the_first_hint_no_other_shares_and_unique_names_stay_plain():
    asked = []

    def hints(ids):
        asked.extend(ids)
        return {"char_a": ["yours", "“Red”"], "char_b": ["yours", "“Blue”"],
                "char_d": ["by bob", "“Red”"]}

    labels = labels_distinct([("char_a", "Mira"), ("char_b", "mira "), ("char_c", "Cato"),
                              ("char_d", "MIRA")], hints=hints)
    # "yours" and "Red" are each shared with another Mira, the two together are not
    assert labels == {"char_a": "Mira · yours · “Red”", "char_b": "mira · “Blue”",
                      "char_c": "Cato", "char_d": "MIRA · by bob"}
    assert sorted(asked) == ["char_a", "char_b", "char_d"]  # a unique name costs no look-up


def test_items_nothing_else_tells_apart_are_numbered_in_the_order_they_were_made():
    labels = labels_distinct([("char_mira_10", "Mira"), ("char_mira", "Mira"),
                              ("char_mira_2", "Mira")],
                             hints=lambda ids: {i: ["yours", ""] for i in ids})
    assert labels == {"char_mira": "Mira (1)", "char_mira_2": "Mira (2)",
                      "char_mira_10": "Mira (3)"}
    assert labels_distinct([("char_mira_10", "Mira"), ("char_mira", "Mira"),
                            ("char_mira_2", "Mira")]) == labels
    # one told apart by a hint keeps it; the two left are numbered
    told = labels_distinct([("char_a", "Mira"), ("char_b", "Mira"), ("char_c", "Mira")],
                           hints=lambda ids: {"char_a": ["by bob"], "char_b": ["yours"],
                                              "char_c": ["yours"]})
    assert told == {"char_a": "Mira · by bob", "char_b": "Mira (1)", "char_c": "Mira (2)"}


def test_a_shared_character_of_another_account_is_named_by_its_owner(alice_client, store, bob,
                                                                     twins):
    made = character_save(store, data={"name": "Doctor Ilse Marr",
                                       "base_persona": "A ship's doctor.", "greeting": "",
                                       "visibility": "shared"}, user=bob)
    # The three saved in one second, as on a quiet machine: on a loaded one a save in another
    # second told alice's first twin apart by its time alone (the hint before the pairs).
    Character.objects.filter(character_id__in=[*twins, made]).update(
        updated_at=Character.objects.get(character_id=made).updated_at)
    options = [o for o in _options(alice_client.get("/").content.decode()) if "Ilse" in o]
    assert sorted(options) == sorted([f"Doctor Ilse Marr · yours · {SHIP}",
                                      f"Doctor Ilse Marr · {NAVY}", "Doctor Ilse Marr · by bob"])


def test_many_namesakes_are_told_apart_by_whose_and_their_number_reading_no_file(
        store, alice, bob, monkeypatch):
    # bob's 1,000 shared namesakes of alice's character made every account's pickers read
    # 1,000 descriptions and pictures (her home page 0.04 s -> 0.65 s).
    monkeypatch.setattr(character_labels, "HINTED_SAME_NAMES", 2)
    for user in (alice, bob, bob):
        character_save(store, data={"name": "Mira", "base_persona": "A pilot.", "greeting": "",
                                    "visibility": "shared"}, character_id=None, user=user)
    read = []
    monkeypatch.setattr(character_labels, "character_blurb", lambda s, i: read.append(i) or "")
    labels = [row.label for row in character_choices(user=alice) if row.name == "Mira"]
    assert sorted(labels) == ["Mira · by bob 1", "Mira · by bob 2", "Mira · yours"]
    assert not read


def test_two_imports_of_one_card_in_one_second_are_numbered(alice_client, store, alice):
    first, second = (character_import_card(store, user=alice, data=_card("Same."),
                                           filename="ilse.json") for _ in range(2))
    same_second = Character.objects.get(character_id=first).updated_at
    Character.objects.filter(character_id=second).update(updated_at=same_second)
    options = [o for o in _options(alice_client.get("/").content.decode()) if "Ilse" in o]
    assert options == ["Doctor Ilse Marr (1)", "Doctor Ilse Marr (2)"]
    assert first not in "".join(options) and second not in "".join(options)


def test_two_imports_of_one_card_a_few_seconds_apart_are_told_apart_by_the_time(
        alice_client, store, alice):
    first, second = (character_import_card(store, user=alice, data=_card("Same."),
                                           filename="ilse.json") for _ in range(2))
    made = Character.objects.get(character_id=first).updated_at.replace(second=10)
    Character.objects.filter(character_id=first).update(updated_at=made)
    Character.objects.filter(character_id=second).update(updated_at=made + timedelta(seconds=7))
    options = [o for o in _options(alice_client.get("/").content.decode()) if "Ilse" in o]
    assert len(options) == 2 and "char_" not in "".join(options)
    assert [o.rsplit(":", 1)[-1] for o in options] == ["10", "17"]


def test_the_home_pickers_tell_two_versions_of_one_card_apart(alice_client, twins, store):
    page = alice_client.get("/").content.decode()
    expected = [f"Doctor Ilse Marr · {SHIP}", f"Doctor Ilse Marr · {NAVY}"]
    assert [o for o in _options(page) if "Ilse" in o] == expected
    assert "Alserqi" in _options(page)  # a unique name is shown as it is
    assert [t for t in _ticks(page) if "Ilse" in t] == expected
    assert "char_" not in "".join(_options(page) + _ticks(page))
    assert [store.character_read(c)["name"] for c in twins] == ["Doctor Ilse Marr"] * 2


def test_the_character_page_and_the_member_drawer_tell_them_apart(alice_client, twins, store,
                                                                  alice, background):
    first = twins[0]
    page = alice_client.get(reverse("character_edit", args=[first])).content.decode()
    assert f"Doctor Ilse Marr · {NAVY}" in _ticks(page)
    instance_id = instance_create(store, owner=alice, character_id=first,
                                  background_id=background)
    page = alice_client.get(f"/instances/{instance_id}/").content.decode()
    add = page[page.index('aria-label="Character to add"'):]
    add = add[:add.index("</select>")]
    # the instance's own character is not offered; the other version still says which it is
    assert f"Doctor Ilse Marr · {NAVY}" in _options(add) and SHIP not in html.unescape(add)


def test_a_group_with_both_versions_names_each_member_by_its_description(alice_client, twins):
    first, second = twins
    response = alice_client.post("/instances/new?group=1", {
        "character_ids": [first, second], "background_id": "", "reply_order": "natural"})
    assert response.status_code == 302
    page = alice_client.get(response["Location"]).content.decode()
    for select_id in ("aside-speaker", "memory-member"):
        select = page[page.index(f'id="{select_id}"'):]
        select = select[:select.index("</select>")]
        assert _options(select) == [f"Doctor Ilse Marr · {SHIP}",
                                    f"Doctor Ilse Marr · {NAVY}"], select_id
    drawer = html.unescape(page[page.index('data-testid="members-card"'):])
    assert f"<strong><bdi>Doctor Ilse Marr · {NAVY}</bdi></strong>" in drawer
    assert "Doctor Ilse Marr (2)" not in drawer and f"({second})" not in drawer
