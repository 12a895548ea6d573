"""Each character of a conversation keeps its own evolved persona and persona versions (issue 15
item 1): "Update memory", manual edits and restores act for the member named, over REST and on
the persona page; a one-character story's files keep their format."""

from __future__ import annotations

import asyncio
import json

import pytest
from django.urls import reverse

from chat.services.instances import instance_create
from chat.services.members import instance_member_add, instance_member_remove
from personalab.lib.participants import member_state_read
from tests.group_turns import turn_said
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def group(store, alice, character, brenna, background):
    return instance_create(store, owner=alice, character_ids=[character, brenna],
                           background_id=background, reply_order="list")


def _versions_file(store, instance_id):
    path = store.memory_dir(instance_id) / "persona_versions.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_update_memory_grows_only_the_named_members_persona(as_alice, store, group, character,
                                                            brenna, use_stub):
    use_stub.script(Reply("我修好了你的车。"))
    asyncio.run(turn_said(store, group, "Brenna，车怎么样了？", speaker=brenna))
    use_stub.script(Reply("Brenna 变得愿意和玩家说话了。"))

    response = as_alice("post", f"/api/v1/instances/{group}/update_memory?character_id={brenna}")

    assert response.status_code == 200, response.content
    assert response.json()["character_id"] == brenna
    prompt = json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)
    assert "Brenna" in prompt and "沉默的机械师" in prompt  # her own base persona was sent
    mine = as_alice("get", f"/api/v1/instances/{group}/persona?character_id={brenna}").json()
    assert mine["evolved_persona"] == "Brenna 变得愿意和玩家说话了。"
    assert mine["base_persona"] == "沉默的机械师，左手是义肢。"
    assert [v["version"] for v in mine["versions"]] == [1]
    first = as_alice("get", f"/api/v1/instances/{group}/persona").json()
    assert first["character_id"] == character
    assert first["evolved_persona"] == "" and first["versions"] == []
    assert store.character_state_read(group)["evolved_persona"] == ""


def test_versions_are_numbered_and_restored_per_character(as_alice, store, group, character,
                                                          brenna):
    base = f"/api/v1/instances/{group}/persona"
    as_alice("put", base, {"text": "Alserqi one"})
    as_alice("put", base, {"text": "Brenna one", "character_id": brenna})
    as_alice("put", base, {"text": "Brenna two", "character_id": brenna})
    as_alice("put", base, {"text": "Alserqi two", "character_id": character})

    restored = as_alice("post", f"{base}/restore", {"version": 1, "character_id": brenna})

    assert restored.status_code == 200 and restored.json()["version"] == 3
    mine = as_alice("get", f"{base}?character_id={brenna}").json()
    assert [v["evolved_persona"] for v in mine["versions"]] == [
        "Brenna one", "Brenna two", "Brenna one"]
    assert mine["evolved_persona"] == "Brenna one"
    theirs = as_alice("get", base).json()
    assert [v["evolved_persona"] for v in theirs["versions"]] == ["Alserqi one", "Alserqi two"]
    assert theirs["evolved_persona"] == "Alserqi two"
    assert {r["character_id"] for r in _versions_file(store, group)} == {character, brenna}


def test_a_character_that_is_not_a_member_is_a_400_naming_the_field(as_alice, store, group):
    for method, url, body in [
            ("get", f"/api/v1/instances/{group}/persona?character_id=nobody", None),
            ("put", f"/api/v1/instances/{group}/persona", {"text": "x", "character_id": "nobody"}),
            ("post", f"/api/v1/instances/{group}/persona/restore",
             {"version": 1, "character_id": "nobody"}),
            ("post", f"/api/v1/instances/{group}/update_memory?character_id=nobody", None)]:
        response = as_alice(method, url, body)
        assert response.status_code == 400, (url, response.content)
        assert "character_id" in response.json()["error"]["fields"]
    assert not (store.memory_dir(group) / "persona_versions.jsonl").exists()


def test_a_one_character_storys_version_file_keeps_its_format(as_alice, store, instance):
    as_alice("put", f"/api/v1/instances/{instance}/persona", {"text": "grown"})
    records = _versions_file(store, instance)
    assert [sorted(r) for r in records] == [["created_at", "evolved_persona", "source", "version"]]


def test_the_first_members_versions_stay_its_own_when_it_leaves_and_returns(
        as_alice, store, alice, instance, character, brenna):
    as_alice("put", f"/api/v1/instances/{instance}/persona", {"text": "Alserqi before the group"})
    instance_member_add(store, user=alice, instance_id=instance, character_id=brenna)
    instance_member_remove(store, user=alice, instance_id=instance, character_id=character)

    now_first = as_alice("get", f"/api/v1/instances/{instance}/persona").json()
    assert now_first["character_id"] == brenna and now_first["versions"] == []

    instance_member_add(store, user=alice, instance_id=instance, character_id=character)
    back = as_alice("get", f"/api/v1/instances/{instance}/persona?character_id={character}").json()
    assert back["evolved_persona"] == "Alserqi before the group"
    assert [v["evolved_persona"] for v in back["versions"]] == ["Alserqi before the group"]


def test_the_persona_page_picks_a_member_and_saves_its_own_version(alice_client, store, group,
                                                                  brenna):
    page = alice_client.get(f"/instances/{group}/persona/?character={brenna}")
    body = page.content.decode()
    assert page.status_code == 200
    assert 'data-testid="persona-members"' in body and "沉默的机械师" in body

    saved = alice_client.post(f"/instances/{group}/persona/persona_save",
                              {"text": "Brenna, kinder now", "character_id": brenna},
                              HTTP_HX_REQUEST="true")

    assert saved.status_code == 200
    assert "Brenna, kinder now" in saved.content.decode()
    assert store.character_state_read(group)["evolved_persona"] == ""
    assert alice_client.get(f"/instances/{group}/persona/?character=nobody").status_code == 404


def test_the_chat_pages_update_memory_grows_the_member_picked(alice_client, store, group,
                                                               brenna, use_stub):
    page = alice_client.get(reverse("instance", args=[group])).content.decode()
    assert 'data-testid="memory-member"' in page
    use_stub.script(Reply("我修好了你的车。"))
    asyncio.run(turn_said(store, group, "车怎么样了？", speaker=brenna))
    use_stub.script(Reply("她开始信任玩家。"))

    response = alice_client.post(reverse("instance_memory_action",
                                         args=[group, "update_memory"]),
                                 {"character_id": brenna}, HTTP_HX_REQUEST="true")

    assert response.status_code == 200 and "error" not in response.content.decode()
    assert store.character_state_read(group)["evolved_persona"] == ""
    state = store.instance_state_read(group)
    assert member_state_read(store, group, state, brenna)["evolved_persona"] == "她开始信任玩家。"


def test_the_group_persona_page_speaks_chinese(alice_client, store, group, brenna):
    page = alice_client.get(f"/instances/{group}/persona/?character={brenna}",
                            HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "谁的人格" in page and "每个角色都有自己的成长人格和版本。" in page
    assert "使用中：" in page and "(conv_key)" not in page and "(none)" not in page
