"""Members joining, leaving and being muted after a conversation starts: the files, the
conversation indexes, and who answers in the next real round (stub server)."""

from __future__ import annotations

import json
import re

import pytest
from asgiref.sync import sync_to_async

from chat.groups.conversations import conv_key, ledger_read
from chat.models import ConversationParticipant
from chat.services.index import reindex_all
from chat.services.instances import instance_create
from tests.chat.members_api import members_call
from tests.group_turns import session_lines, turn_said
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def brenna(store, alice):
    from library.character_services import character_save

    return character_save(store, user=alice, character_id=None, data={
        "name": "Brenna", "base_persona": "沉默的机械师。", "visibility": "private"})


@pytest.fixture
def solo(store, alice, character):
    return instance_create(store, owner=alice, character_id=character)


def _indexed(store, instance_id):
    rows = ConversationParticipant.objects.filter(instance_id=instance_id)
    ledger = ledger_read(store)
    return ({r.participant_id for r in rows}, {r.conv_key for r in rows},
            {key for key, i in ledger["by_key"] if i == instance_id},
            {p for p, i in ledger["by_participant"] if i == instance_id})


def test_a_member_added_to_a_one_character_story_gets_its_state_and_the_indexes_follow(
        alice_client, store, solo, character, brenna):
    response = members_call(alice_client, solo, "post", body={"character_id": brenna})
    assert response.status_code == 201, response.json()
    participants = response.json()["instance_state"]["participants"]
    assert [p["character_id"] for p in participants] == [character, brenna]
    own = json.loads((store.instance_dir(solo) / "character_states" / f"{brenna}.json").read_text())
    assert own["base_persona"] == "沉默的机械师。"
    everyone = {character, brenna, "player:alice"}
    assert _indexed(store, solo) == (everyone, {conv_key(everyone)}, {conv_key(everyone)},
                                     everyone)
    listed = alice_client.get(f"/api/v1/participants/{brenna}/conversations").json()
    assert solo in [c["instance_id"] for c in listed["conversations"]]

    response = members_call(alice_client, solo, "delete", f"/{brenna}")
    assert response.status_code == 200
    alone = {character, "player:alice"}
    # convKey is the set now; Brenna took part, so the participant index still lists her
    assert _indexed(store, solo) == (everyone, {conv_key(alone)}, {conv_key(alone)}, everyone)
    reindex_all(store)
    assert _indexed(store, solo) == (everyone, {conv_key(alone)}, {conv_key(alone)}, everyone)


def test_bad_member_requests_are_named_and_change_nothing(alice_client, bob, store, solo,
                                                          character, brenna):
    before = store.instance_state_read(solo)
    for method, path, body, field in (
            ("post", "", {"character_id": character}, "character_id"),   # already in
            ("post", "", {"character_id": "../x"}, "character_id"),
            ("post", "", {"character_id": brenna, "talkativeness": 3}, "talkativeness"),
            ("delete", f"/{character}", None, "character_id"),            # the first stays
            ("put", f"/{character}", {"muted": "often"}, "muted")):
        response = members_call(alice_client, solo, method, path, body)
        assert response.status_code == 400, (method, body, response.json())
        assert field in str(response.json()["error"]["fields"]), (body, response.json())
    response = members_call(alice_client, solo, "put", "/char_nobody", {"muted": True})
    assert response.status_code == 404
    assert store.instance_state_read(solo) == before


def test_someone_elses_conversation_or_private_character_cannot_be_joined(
        client, bob, store, solo, character, brenna):
    client.force_login(bob)
    assert members_call(client, solo, "post", body={"character_id": brenna}).status_code == 404
    bobs = instance_create(store, owner=bob, character_id=character)
    response = members_call(client, bobs, "post", body={"character_id": brenna})
    assert response.status_code in (403, 404)
    assert len(store.instance_state_read(bobs)["participants"]) == 1


async def test_an_added_member_answers_the_next_round_and_a_muted_one_waits(
        alice_client, store, solo, character, brenna, use_stub):
    store.module_write("memory", {"recaps_enabled": False})  # a recap request is not a reply
    post = sync_to_async(members_call)
    response = await post(alice_client, solo, "post", "", {"character_id": brenna})
    assert response.status_code == 201
    state = store.instance_state_read(solo)
    store.instance_state_write(solo, {**state, "reply_order": "everyone"})

    use_stub.script(Reply("我在。"), Reply("嗯。"))
    results = await turn_said(store, solo, "都在吗？")
    assert [r.speaker for r in results] == [character, brenna]
    assert "沉默的机械师" in use_stub.requests[-1]["messages"][0]["content"]

    response = await post(alice_client, solo, "put", f"/{brenna}", {"muted": True})
    assert response.status_code == 200
    assert response.json()["instance_state"]["participants"][1]["muted"] is True
    state = store.instance_state_read(solo)
    store.instance_state_write(solo, {**state, "reply_order": "natural"})
    results = await turn_said(store, solo, "Brenna，你说呢？")
    assert brenna not in [r.speaker for r in results]
    # the player's pick still wins over the mute
    results = await turn_said(store, solo, "Brenna？", speaker=brenna)
    assert [r.speaker for r in results] == [brenna]

    response = await post(alice_client, solo, "delete", f"/{brenna}")
    assert response.status_code == 200
    asked = len(use_stub.requests)
    results = await turn_said(store, solo, "Brenna 走了吗？")  # a one-character story again
    assert len(results) == 1 and results[0].speaker in (None, character)
    assert len(use_stub.requests) == asked + 1
    assert "沉默的机械师" not in use_stub.requests[-1]["messages"][0]["content"]
    assert any(line.get("speaker") == brenna for line in session_lines(store, solo))  # her lines stay


def test_a_member_who_comes_back_keeps_its_evolved_persona(alice_client, store, solo, brenna):
    members_call(alice_client, solo, "post", body={"character_id": brenna})
    path = store.instance_dir(solo) / "character_states" / f"{brenna}.json"
    path.write_text(json.dumps({"base_persona": "沉默的机械师。", "evolved_persona": "信任玩家"}))
    members_call(alice_client, solo, "delete", f"/{brenna}")
    members_call(alice_client, solo, "post", body={"character_id": brenna, "talkativeness": 0.9})
    assert json.loads(path.read_text())["evolved_persona"] == "信任玩家"
    assert store.instance_state_read(solo)["participants"][1]["talkativeness"] == 0.9


def test_the_chat_page_drawer_adds_mutes_and_removes_a_member(alice_client, store, solo,
                                                              character, brenna):
    page = alice_client.get(f"/instances/{solo}/").content.decode()
    assert 'data-testid="members-card"' in page and re.search(f'<option value="{brenna}"[^>]*>Brenna', page)
    url = f"/instances/{solo}/members"
    response = alice_client.post(url, {"action": "add", "character_id": brenna})
    assert response.status_code == 200
    assert f'data-member="{brenna}"' in response.content.decode()
    assert [p["character_id"] for p in store.instance_state_read(solo)["participants"]] == [
        character, brenna]

    response = alice_client.post(url, {"action": "change", "character_id": brenna,
                                       "muted": "on", "talkativeness": "0.2"})
    assert response.status_code == 200
    member = store.instance_state_read(solo)["participants"][1]
    assert (member["muted"], member["talkativeness"]) == (True, 0.2)

    response = alice_client.post(url, {"action": "change", "character_id": brenna,
                                       "talkativeness": "loud"})
    assert response.status_code == 400 and 'data-field="talkativeness"' in response.content.decode()
    assert store.instance_state_read(solo)["participants"][1]["talkativeness"] == 0.2
    # what was typed stays in the field beside its error (it went back to the stored value)
    typed = re.search(rf'data-member="{brenna}".*?name="talkativeness"[^>]*value="([^"]*)"',
                      response.content.decode(), re.S)
    assert typed and typed.group(1) == "loud"

    response = alice_client.post(url, {"action": "remove", "character_id": brenna})
    assert response.status_code == 200
    assert len(store.instance_state_read(solo)["participants"]) == 1
    # she took part: still indexed as a participant, but the convKey is the set now
    row = ConversationParticipant.objects.get(instance_id=solo, participant_id=brenna)
    assert row.conv_key == conv_key([character, "player:alice"])


def test_the_drawer_refuses_someone_elses_conversation(client, bob, solo, brenna):
    client.force_login(bob)
    response = client.post(f"/instances/{solo}/members", {"action": "add", "character_id": brenna})
    assert response.status_code == 404


def test_the_first_character_keeps_its_cards_talkativeness_when_a_second_one_joins(
        alice_client, store, solo, character, brenna):
    definition = store.character_read(character)
    definition.setdefault("card", {}).setdefault("data", {})["extensions"] = {
        "talkativeness": "0.8"}  # SillyTavern writes it as a string
    store.character_write(character, definition)
    response = members_call(alice_client, solo, "post", body={"character_id": brenna})
    assert response.status_code == 201, response.json()
    first, second = response.json()["instance_state"]["participants"]
    assert (first["character_id"], first["talkativeness"]) == (character, 0.8)
    assert second["talkativeness"] == 0.5


async def test_lines_from_before_a_member_joined_stay_the_first_characters_in_its_prompt(
        alice_client, store, solo, character, brenna, use_stub):
    use_stub.script(Reply("我是Alserqi，北区是我的。"))
    await turn_said(store, solo, "你是谁？")  # one character: the reply carries no speaker
    assert "speaker" not in session_lines(store, solo)[-1]
    response = await sync_to_async(members_call)(alice_client, solo, "post", "",
                                                 {"character_id": brenna})
    assert response.status_code == 201

    use_stub.script(Reply("……嗯。"))
    results = await turn_said(store, solo, "Brenna，你认识他吗？", speaker=brenna)
    assert [r.speaker for r in results] == [brenna]
    messages = use_stub.requests[-1]["messages"]
    # Brenna's prompt shows Alserqi's old reply as his line of the scene, not as her own words
    assert not any(m["role"] == "assistant" and "北区是我的" in m["content"] for m in messages)
    assert any(m["role"] == "user" and "Alserqi: 我是Alserqi，北区是我的。" in m["content"]
               for m in messages)

    use_stub.script(Reply("说吧。"))
    await turn_said(store, solo, "Alserqi？", speaker=character)
    messages = use_stub.requests[-1]["messages"]
    assert any(m["role"] == "assistant" and m["content"] == "我是Alserqi，北区是我的。"
               for m in messages)


def test_the_history_manager_names_each_characters_line_by_who_said_it(
        alice_client, store, alice, character, brenna):
    import re

    group = instance_create(store, owner=alice, character_ids=[character, brenna])
    session = store.instance_state_read(group)["current_session_id"]
    for turn, (speaker, name, text) in enumerate([(brenna, "Brenna", "……嗯。"),
                                                  (character, "Alserqi", "北区是我的。")]):
        store.session_append(group, session, {"role": "assistant", "content": text,
                                              "turn": turn + 1, "speaker": speaker, "name": name})
    page = alice_client.get(f"/instances/{group}/history/")
    assert page.status_code == 200
    speakers = [who.split("·")[0].strip() for who in
                re.findall(r'<div class="who"><bdi>([^<]*)', page.content.decode())]
    assert speakers == ["Brenna", "Alserqi"]  # Brenna's line was shown as Alserqi's


async def test_who_answers_can_be_changed_after_the_story_started(alice_client, store, solo,
                                                                 character, brenna, use_stub):
    post = sync_to_async(members_call)
    assert (await post(alice_client, solo, "post", "", {"character_id": brenna})).status_code == 201
    put = sync_to_async(alice_client.put)
    response = await put(f"/api/v1/instances/{solo}", {"reply_order": "sometimes"},
                         content_type="application/json")
    assert response.status_code == 400
    assert "reply_order" in response.json()["error"]["fields"]
    assert store.instance_state_read(solo)["reply_order"] == "natural"

    response = await put(f"/api/v1/instances/{solo}", {"reply_order": "everyone"},
                         content_type="application/json")
    assert response.status_code == 200
    assert response.json()["instance_state"]["reply_order"] == "everyone"
    use_stub.script(Reply("我在。"), Reply("嗯。"))
    assert [r.speaker for r in await turn_said(store, solo, "都在吗？")] == [character, brenna]

    # the chat page's members card: manual, then nobody answers until picked
    page = await sync_to_async(alice_client.post)(f"/instances/{solo}/members",
                                                  {"action": "order", "reply_order": "manual"})
    assert page.status_code == 200 and 'value="manual" selected' in page.content.decode()
    assert await turn_said(store, solo, "有人吗？") == []


def test_the_aside_to_list_follows_the_members_drawer_without_a_reload(alice_client, solo,
                                                                       character, brenna):
    def aside_options(html):
        select = html.split('id="aside-speaker"', 1)[1].split("</select>", 1)[0]
        return select.count("<option"), f'value="{brenna}"' in select

    page = alice_client.get(f"/instances/{solo}/").content.decode()
    assert aside_options(page) == (1, False)
    added = alice_client.post(f"/instances/{solo}/members",
                              {"action": "add", "character_id": brenna}).content.decode()
    assert 'id="aside-speaker" data-testid="aside-speaker" hx-swap-oob="true"' in added
    assert aside_options(added) == (2, True)
    removed = alice_client.post(f"/instances/{solo}/members",
                                {"action": "remove", "character_id": brenna}).content.decode()
    assert aside_options(removed) == (1, False)


def _talkative(store, instance_id, by_id):
    state = store.instance_state_read(instance_id)
    participants = [{**p, "talkativeness": by_id[p["character_id"]]}
                    for p in state["participants"]]
    store.instance_state_write(instance_id, {**state, "participants": participants})


async def test_self_responses_let_the_member_who_spoke_last_answer_a_trigger(
        alice_client, store, solo, character, brenna, use_stub):
    post = sync_to_async(members_call)
    assert (await post(alice_client, solo, "post", "", {"character_id": brenna})).status_code == 201
    _talkative(store, solo, {character: 1.0, brenna: 0.0})
    assert [r.speaker for r in await turn_said(store, solo, "你好")] == [character]
    # SillyTavern's default: whoever spoke last waits, so a trigger goes to the other member
    # (drawn by its talkativeness: nobody drawn, SillyTavern's random pick may be anyone)
    _talkative(store, solo, {character: 1.0, brenna: 1.0})
    assert [r.speaker for r in await turn_said(store, solo, None)] == [brenna]
    _talkative(store, solo, {character: 1.0, brenna: 0.0})
    put = sync_to_async(alice_client.put)
    response = await put(f"/api/v1/instances/{solo}", {"allow_self_responses": "yes"},
                         content_type="application/json")
    assert response.status_code in (400, 422)
    response = await put(f"/api/v1/instances/{solo}", {"allow_self_responses": True},
                         content_type="application/json")
    assert response.status_code == 200
    assert response.json()["instance_state"]["allow_self_responses"] is True
    assert [r.speaker for r in await turn_said(store, solo, None)] == [character]
    assert [r.speaker for r in await turn_said(store, solo, None)] == [character]  # again: allowed

    # the chat page's members card holds the same switch
    page = await sync_to_async(alice_client.post)(f"/instances/{solo}/members",
                                                  {"action": "order", "reply_order": "natural"})
    assert page.status_code == 200 and "allow-self-responses" in page.content.decode()
    assert store.instance_state_read(solo)["allow_self_responses"] is False
    page = await sync_to_async(alice_client.post)(
        f"/instances/{solo}/members",
        {"action": "order", "reply_order": "natural", "allow_self_responses": "on"})
    assert 'data-testid="allow-self-responses" checked' in page.content.decode()
    assert store.instance_state_read(solo)["allow_self_responses"] is True
