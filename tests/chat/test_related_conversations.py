"""The history manager's "related conversations" tab (seed 003 §5 Tab4, §13): pick a
participant, see every conversation of yours it took part in, open one. Never another
account's."""

from __future__ import annotations

import re

import pytest

from chat.services.instances import instance_create
from chat.services.members import instance_member_add

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def scenes(store, alice, bob, character, shared_brenna):
    return {"group": instance_create(store, owner=alice, character_ids=[character, shared_brenna]),
            "alserqi": instance_create(store, owner=alice, character_id=character),
            "brenna": instance_create(store, owner=alice, character_id=shared_brenna),
            "bob": instance_create(store, owner=bob, character_id=shared_brenna)}


def _listed(html: str) -> list[str]:
    part = html[html.index('data-testid="related-conversations"'):]
    return re.findall(r'href="/instances/(inst_\d+)/"', part)


def test_the_tab_lists_the_storys_character_and_its_conversations(alice_client, scenes):
    page = alice_client.get(f"/instances/{scenes['group']}/history/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Related conversations" in html
    assert sorted(_listed(html)) == sorted([scenes["group"], scenes["alserqi"]])
    assert "<bdi>Alserqi</bdi>, <bdi>Brenna</bdi>" in html \
        or "<bdi>Brenna</bdi>, <bdi>Alserqi</bdi>" in html


def test_picking_another_participant_lists_its_conversations_only_yours(
        alice_client, scenes, shared_brenna):
    url = f"/instances/{scenes['group']}/history/related"
    html = alice_client.get(url, {"participant": shared_brenna},
                            HTTP_HX_REQUEST="true").content.decode()
    assert sorted(_listed(html)) == sorted([scenes["group"], scenes["brenna"]])
    assert scenes["bob"] not in html

    mine = alice_client.get(url, {"participant": "player:alice"}).content.decode()
    assert sorted(_listed(mine)) == sorted([scenes["group"], scenes["alserqi"], scenes["brenna"]])
    assert alice_client.get(url, {"participant": "player:bob"}).content.decode().count(
        'href="/instances/inst_') == 0


def test_a_listed_conversation_opens_and_a_new_member_shows_up(alice_client, store, alice,
                                                               scenes, shared_brenna):
    instance_member_add(store, user=alice, instance_id=scenes["alserqi"],
                        character_id=shared_brenna)
    html = alice_client.get(f"/instances/{scenes['group']}/history/related",
                            {"participant": shared_brenna}).content.decode()
    listed = _listed(html)
    assert scenes["alserqi"] in listed
    for instance_id in listed:
        assert alice_client.get(f"/instances/{instance_id}/").status_code == 200


def test_another_account_sees_only_its_own_participants(client, bob, scenes, shared_brenna):
    client.force_login(bob)
    assert client.get(f"/instances/{scenes['group']}/history/related").status_code == 404
    html = client.get(f"/instances/{scenes['bob']}/history/").content.decode()
    assert _listed(html) == [scenes["bob"]]
    assert scenes["group"] not in html and "player:alice" not in html


def test_the_participant_picker_names_each_participant_once(alice_client, scenes, shared_brenna):
    # Alserqi, Brenna and the player each take part in two or three of alice's conversations.
    html = alice_client.get(f"/instances/{scenes['group']}/history/").content.decode()
    part = html[html.index('data-testid="related-conversations"'):]
    options = re.findall(r'<option value="([^"]+)"', part[:part.index("</select>")])
    assert sorted(options) == sorted({"char_alserqi", shared_brenna, "player:alice"})
