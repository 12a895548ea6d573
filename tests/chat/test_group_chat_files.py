"""SillyTavern group chats in and out of a conversation with several characters: every speaker
kept by name, the group's members recorded, and an imported chat played on with real turns."""

from __future__ import annotations

import json
import re

import pytest
from asgiref.sync import sync_to_async
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.services.instances import instance_create
from library.character_services import character_save
from tests.group_turns import reply_order_set, session_lines, turn_said
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def group(store, alice, character, brenna):  # noqa: F811
    return instance_create(store, owner=alice, character_ids=[character, brenna],
                           reply_order="everyone")


def _export(client, store, instance_id):
    session_id = store.instance_state_read(instance_id)["current_session_id"]
    response = client.get(f"/api/v1/instances/{instance_id}/sessions/{session_id}/export"
                          "?format=jsonl")
    assert response.status_code == 200
    return [json.loads(line) for line in response.content.decode("utf-8").splitlines()]


def _import(client, instance_id, records):
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")
    response = client.post(f"/api/v1/instances/{instance_id}/import_chat",
                           {"file": SimpleUploadedFile("group.jsonl", body)})
    assert response.status_code == 201, response.json()
    return response.json()


async def test_a_group_chat_goes_out_and_back_with_every_speaker(alice_client, store, group,
                                                                 character, brenna,  # noqa: F811
                                                                 use_stub, alice):
    use_stub.script(Reply("我记得你。"), Reply("嗯。"))
    await turn_said(store, group, "你们还记得我吗？")
    before = [(line.get("speaker"), line.get("name"), line["content"])
              for line in session_lines(store, group) if line.get("role") == "assistant"]

    records = await sync_to_async(_export)(alice_client, store, group)
    members = records[0]["chat_metadata"]["personalab_group"]["members"]
    assert [(m["character_id"], m["name"]) for m in members] == [
        (character, "Alserqi"), (brenna, "Brenna")]
    said = [(r["name"], r["mes"]) for r in records[1:] if not r["is_user"]]
    assert ("Alserqi", "我记得你。") in said and ("Brenna", "嗯。") in said
    assert [r["mes"] for r in records[1:] if r["is_user"]] == ["你们还记得我吗？"]

    result = await sync_to_async(_import)(alice_client, group, records)
    assert result["imported"]["members"] == {"Alserqi": character, "Brenna": brenna}
    assert result["imported"]["unmatched_speakers"] == []
    after = [(line.get("speaker"), line.get("name"), line["content"])
             for line in session_lines(store, group) if line.get("role") == "assistant"]
    assert after == before
    assert not any("Brenna" in note for note in result["imported"]["notes"])

    # Into a conversation with Alserqi alone, the report says who is missing and offers to go
    # on as the whole group (Brenna is in the library).
    solo = await sync_to_async(instance_create)(store, owner=alice, character_id=character)
    result = await sync_to_async(_import)(alice_client, solo, records)
    assert "Brenna" in result["imported"]["speakers"]
    assert [note for note in result["imported"]["notes"] if "Brenna" in note
            and "Go on as a group" in note and "Alserqi" not in note]
    assert result["imported"]["regroup"] == ["Alserqi", "Brenna"]


async def test_a_sillytavern_group_chat_imports_and_the_story_goes_on(alice_client, store, group,
                                                                      character,
                                                                      brenna,  # noqa: F811
                                                                      use_stub):
    records = [
        {"user_name": "unused", "character_name": "unused", "create_date": "2024-5-1 @12h00m",
         "chat_metadata": {}},
        {"name": "You", "is_user": True, "is_system": False, "send_date": "2024-5-1 @12h01m",
         "mes": "都到齐了？", "extra": {}},
        {"name": "Alserqi", "is_user": False, "is_system": False,
         "send_date": "2024-5-1 @12h02m", "mes": "到了。", "extra": {},
         "original_avatar": "Alserqi.png"},
        {"name": "Old Joe", "is_user": False, "is_system": False,
         "send_date": "2024-5-1 @12h03m", "mes": "我也在。", "extra": {}},
        {"name": "brenna", "is_user": False, "is_system": False,
         "send_date": "2024-5-1 @12h04m", "mes": "……在。", "extra": {}},
    ]
    result = await sync_to_async(_import)(alice_client, group, records)
    assert result["imported"]["members"] == {"Alserqi": character, "brenna": brenna}
    assert result["imported"]["unmatched_speakers"] == ["Old Joe"]
    replies = [(line.get("speaker"), line["name"], line["content"])
               for line in session_lines(store, group) if line.get("role") == "assistant"]
    assert replies == [(character, "Alserqi", "到了。"), (None, "Old Joe", "我也在。"),
                       (brenna, "brenna", "……在。")]

    # list order carries on after the imported chat's last speaker (Brenna): Alserqi answers,
    # and Alserqi's prompt holds everyone's imported lines by name
    reply_order_set(store, group, "list")
    use_stub.script(Reply("继续。"))
    results = await turn_said(store, group, "那就开始吧")
    assert [r.speaker for r in results] == [character]
    prompt = json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)
    assert "Old Joe: 我也在。" in prompt and "……在。" in prompt


def test_a_one_character_chat_is_imported_as_before(alice_client, store, alice, character):
    solo = instance_create(store, owner=alice, character_id=character)
    result = _import(alice_client, solo, [
        {"user_name": "You", "character_name": "Alserqi", "chat_metadata": {}},
        {"name": "Alserqi", "is_user": False, "mes": "嗯。", "send_date": "2024-5-1 @12h02m"}])
    assert "members" not in result["imported"]
    assert "speaker" not in session_lines(store, solo)[-1]
    records = _export(alice_client, store, solo)
    assert "personalab_group" not in records[0]["chat_metadata"]


async def test_one_members_own_chat_is_exported_from_a_group(alice_client, store, group,
                                                             character, brenna,  # noqa: F811
                                                             use_stub):
    use_stub.script(Reply("我记得你。"), Reply("嗯。"))
    await turn_said(store, group, "你们还记得我吗？")
    session_id = store.instance_state_read(group)["current_session_id"]
    url = f"/api/v1/instances/{group}/sessions/{session_id}/export?format=jsonl"
    response = await sync_to_async(alice_client.get)(f"{url}&character={brenna}")
    assert response.status_code == 200
    records = [json.loads(line) for line in response.content.decode("utf-8").splitlines()]
    assert records[0]["character_name"] == "Brenna"
    assert "personalab_group" not in records[0]["chat_metadata"]
    spoken = [(r["name"], r["mes"]) for r in records[1:] if not r["is_user"] and not r["is_system"]]
    assert spoken == [("Brenna", "……嗯。"), ("Brenna", "嗯。")]  # her greeting, her reply
    noted = [(r["name"], r["mes"]) for r in records[1:] if r["is_system"]]
    assert ("Alserqi", "我记得你。") in noted
    assert [r["mes"] for r in records[1:] if r["is_user"]] == ["你们还记得我吗？"]

    response = await sync_to_async(alice_client.get)(f"{url}&character=char_nobody")
    assert response.status_code == 400 and "character" in response.json()["error"]["fields"]


def test_the_chat_page_links_each_members_own_chat_export(alice_client, store, group, alice,
                                                         character, brenna):  # noqa: F811
    page = alice_client.get(f"/instances/{group}/").content.decode()
    links = dict(re.findall(r'href="([^"]+)" data-export-member="([^"]+)"', page))
    assert sorted(links.values()) == sorted([character, brenna])
    brenna_link = next(url for url, member in links.items() if member == brenna)
    response = alice_client.get(brenna_link.replace("&amp;", "&"))
    assert response.status_code == 200
    assert json.loads(response.content.decode().splitlines()[0])["character_name"] == "Brenna"
    solo = instance_create(store, owner=alice, character_id=character)
    assert "data-export-member" not in alice_client.get(f"/instances/{solo}/").content.decode()


@pytest.mark.parametrize("group", [
    [], "members", {"members": "all"}, {"members": [1, None, ["x"]]},
    {"members": [{"character_id": ["not", "an", "id"], "name": {"n": 1}}]},
    {"members": [{"character_id": "char_far", "name": "N" * 100_000}] * 50},
])
def test_an_uploaded_group_header_of_any_shape_imports_with_a_bounded_note(
        alice_client, store, alice, character, group):
    solo = instance_create(store, owner=alice, character_id=character)
    result = _import(alice_client, solo, [
        {"user_name": "You", "character_name": "Alserqi",
         "chat_metadata": {"personalab_group": group}},
        {"name": "Alserqi", "is_user": False, "mes": "嗯。", "send_date": "2024-5-1 @12h02m"}])
    assert result["imported"]["messages"] == 1
    assert all(len(note) < 3000 for note in result["imported"]["notes"])


@pytest.mark.parametrize("metadata", ["x", 5, [["a", 1]], True])
def test_a_group_chat_whose_chat_metadata_is_not_an_object_imports_and_exports(
        alice_client, store, group, metadata):
    _import(alice_client, group, [
        {"user_name": "Ann", "character_name": "Alserqi", "chat_metadata": metadata},
        {"name": "Ann", "is_user": True, "mes": "hi"},
        {"name": "Brenna", "is_user": False, "mes": "Hm."}])
    records = _export(alice_client, store, group)
    assert [m["name"] for m in records[0]["chat_metadata"]["personalab_group"]["members"]] == [
        "Alserqi", "Brenna"]
    assert [r["mes"] for r in records[1:]] == ["hi", "Hm."]


async def _group_export(alice_client, store, group, use_stub):
    use_stub.script(Reply("我记得你。"), Reply("嗯。"))
    await turn_said(store, group, "你们还记得我吗？")
    return await sync_to_async(_export)(alice_client, store, group)


async def test_go_on_as_a_group_tells_apart_a_character_two_imports_share(
        alice_client, store, alice, group, character, brenna, use_stub):  # noqa: F811
    """The library holds two Brennas: the report and the button name the one the group goes
    on with by the first words of her description, as the pickers do (never by an id)."""
    records = await _group_export(alice_client, store, group, use_stub)
    await sync_to_async(character_save)(store, user=alice, character_id=None, data={
        "name": "Brenna", "base_persona": "another import", "visibility": "private"})
    solo = await sync_to_async(instance_create)(store, owner=alice, character_id=character)
    result = await sync_to_async(_import)(alice_client, solo, records)
    ours = "Brenna · “沉默的机械师，左手是义肢。”"
    assert result["imported"]["regroup"] == ["Alserqi", ours]
    assert [note for note in result["imported"]["notes"]
            if f"lines of {ours} too" in note and "Go on as a group" in note]
    assert brenna not in json.dumps(result["imported"], ensure_ascii=False)
    made = await sync_to_async(lambda: alice_client.post(
        f"/api/v1/instances/{solo}/sessions/{result['session_id']}/regroup").json())()
    state = store.instance_state_read(made["instance_id"])
    assert [p["character_id"] for p in state["participants"]] == [character, brenna]


async def test_an_exported_group_chat_goes_on_as_a_group_from_a_one_character_conversation(
        alice_client, store, alice, group, character, brenna, use_stub):  # noqa: F811
    records = await _group_export(alice_client, store, group, use_stub)
    solo = await sync_to_async(instance_create)(store, owner=alice, character_id=character)
    result = await sync_to_async(_import)(alice_client, solo, records)
    player = next(r["name"] for r in records[1:] if r["is_user"])
    assert player not in result["imported"]["speakers"]
    assert result["imported"]["players"] == [player]

    response = await sync_to_async(alice_client.post)(
        f"/api/v1/instances/{solo}/sessions/{result['session_id']}/regroup")
    assert response.status_code == 201, response.content
    made = response.json()
    state = store.instance_state_read(made["instance_id"])
    assert [p["character_id"] for p in state["participants"]] == [character, brenna]
    assert state["reply_order"] == "everyone"
    assert state["current_session_id"] == made["session_id"]
    said = [(line.get("speaker"), line["content"]) for line in session_lines(store, made["instance_id"])
            if line.get("role") == "assistant"]
    assert said[-2:] == [(character, "我记得你。"), (brenna, "嗯。")]
    assert made["imported"]["members"] == {"Alserqi": character, "Brenna": brenna}
    assert len(store.instance_state_read(solo)["participants"]) == 1  # left as it was

    use_stub.script(Reply("还在。"), Reply("……在。"))
    await turn_said(store, made["instance_id"], "还在吗？")
    after = [line.get("speaker") for line in session_lines(store, made["instance_id"])
             if line.get("role") == "assistant"]
    assert after[-2:] == [character, brenna]


def test_a_group_with_a_character_not_in_the_library_is_not_re_formed(
        alice_client, store, alice, character):
    solo = instance_create(store, owner=alice, character_id=character)
    result = _import(alice_client, solo, [
        {"user_name": "You", "character_name": "Alserqi", "chat_metadata": {"personalab_group": {
            "members": [{"character_id": character, "name": "Alserqi"},
                        {"character_id": "char_far_away", "name": "Pell"}]}}},
        {"name": "Pell", "is_user": False, "mes": "Hm.", "send_date": "2024-5-1 @12h02m"}])
    assert result["imported"]["regroup"] == []
    assert any("not in your library: Pell" in note for note in result["imported"]["notes"])
    response = alice_client.post(
        f"/api/v1/instances/{solo}/sessions/{result['session_id']}/regroup")
    assert response.status_code == 400
    assert "session_id" in response.json()["error"]["fields"]


async def test_the_page_offers_go_on_as_a_group_and_lands_on_the_new_conversation(
        alice_client, store, alice, group, character, use_stub):
    records = await _group_export(alice_client, store, group, use_stub)
    solo = await sync_to_async(instance_create)(store, owner=alice, character_id=character)
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")
    page = (await sync_to_async(alice_client.post)(
        f"/instances/{solo}/import_chat", {"file": SimpleUploadedFile("g.jsonl", body)},
        follow=True)).content.decode()
    assert f'action="/instances/{solo}/regroup"' in page
    session_id = store.instance_state_read(solo)["current_session_id"]
    response = await sync_to_async(alice_client.post)(
        f"/instances/{solo}/regroup", {"session_id": session_id}, follow=True)
    landed = response.redirect_chain[-1][0]
    assert landed != f"/instances/{solo}/" and landed.startswith("/instances/")
    assert "Imported" in response.content.decode()  # the report waits on the new page


def _sillytavern_group_chat(*speakers: str) -> list[dict]:
    records = [{"user_name": "Ann", "character_name": "unused", "create_date": "2024-5-1 @12h00m",
                "chat_metadata": {}},
               {"name": "Ann", "is_user": True, "is_system": False,
                "send_date": "2024-5-1 @12h01m", "mes": "都到齐了？", "extra": {}}]
    for minute, name in enumerate(speakers, start=2):
        records.append({"name": name, "is_user": False, "is_system": False,
                        "send_date": f"2024-5-1 @12h{minute:02d}m", "mes": f"{name}: 到了。",
                        "extra": {}})
    return records


def test_a_sillytavern_group_chat_goes_on_as_a_group_when_its_speakers_are_in_the_library(
        alice_client, store, alice, character, brenna, use_stub):  # noqa: F811
    solo = instance_create(store, owner=alice, character_id=character)
    result = _import(alice_client, solo, _sillytavern_group_chat("Alserqi", "brenna"))
    assert result["imported"]["regroup"] == ["Alserqi", "Brenna"]  # the library's name
    assert [n for n in result["imported"]["notes"] if "lines of Brenna" in n
            and "Go on as a group" in n]
    made = alice_client.post(
        f"/api/v1/instances/{solo}/sessions/{result['session_id']}/regroup").json()
    state = store.instance_state_read(made["instance_id"])
    assert [p["character_id"] for p in state["participants"]] == [character, brenna]
    assert [line.get("speaker") for line in session_lines(store, made["instance_id"])
            if line.get("role") == "assistant"][-2:] == [character, brenna]


@pytest.mark.parametrize("speakers, said", [
    (("Alserqi", "Old Joe"), "not in your library: Old Joe"),
    (("Alserqi", "Twin"), "not in your library: Twin"),  # two characters have that name
])
def test_a_sillytavern_group_chat_with_a_speaker_not_in_the_library_is_not_re_formed(
        alice_client, store, alice, character, speakers, said):
    for _ in range(2):
        character_save(store, user=alice, character_id=None, data={
            "name": "Twin", "base_persona": "", "greeting": ""})
    solo = instance_create(store, owner=alice, character_id=character)
    result = _import(alice_client, solo, _sillytavern_group_chat(*speakers))
    assert result["imported"]["regroup"] == []
    assert [n for n in result["imported"]["notes"] if said in n]
    response = alice_client.post(
        f"/api/v1/instances/{solo}/sessions/{result['session_id']}/regroup")
    assert response.status_code == 400


def test_a_group_chats_speaker_is_never_another_accounts_shared_character_of_that_name(
        alice_client, store, alice, bob, character):
    # bob's shared "Mira" joined alice's group by its name alone (his card, and his later edits
    # of it, playing in her chat); beside her own "Mira" it made the name ambiguous instead.
    solo = instance_create(store, owner=alice, character_id=character)
    character_save(store, user=bob, character_id=None, data={
        "name": "Mira", "base_persona": "", "greeting": "", "visibility": "shared"})
    result = _import(alice_client, solo, _sillytavern_group_chat("Alserqi", "Mira"))
    assert result["imported"]["regroup"] == []
    assert [n for n in result["imported"]["notes"] if "not in your library: Mira" in n]
    character_save(store, user=alice, character_id=None, data={
        "name": "Mira", "base_persona": "", "greeting": ""})
    result = _import(alice_client, solo, _sillytavern_group_chat("Alserqi", "Mira"))
    assert result["imported"]["regroup"] == ["Alserqi", "Mira · yours"]


def test_go_on_as_a_group_names_a_member_listed_by_id_as_the_library_does_and_whose_it_is(
        alice_client, store, alice, bob, character):
    # A member listed by id was offered under the name the file gave it: "Pia" (her own
    # character's name) played bob's shared "Troll", his card and later edits in her chat.
    troll = character_save(store, user=bob, character_id=None, data={
        "name": "Troll", "base_persona": "", "greeting": "", "visibility": "shared"})
    solo = instance_create(store, owner=alice, character_id=character)
    result = _import(alice_client, solo, [
        {"user_name": "You", "character_name": "Alserqi", "chat_metadata": {"personalab_group": {
            "members": [{"character_id": character, "name": "Alserqi"},
                        {"character_id": troll, "name": "Pia"}]}}},
        {"name": "Pia", "is_user": False, "mes": "Hm.", "send_date": "2024-5-1 @12h02m"}])
    assert result["imported"]["regroup"] == ["Alserqi", "Troll · by bob"]
    assert not [n for n in result["imported"]["notes"] if "Pia" in n and "Go on" in n]


def test_a_group_chat_imported_into_its_own_members_names_no_one_missing_when_a_name_is_twice(
        alice_client, store, alice, character, use_stub):
    """A card imported twice (as JSON and as PNG) is two characters of one name; a group chat
    imported into the conversation of one of them and another member is that member's."""
    twins = [character_save(store, user=alice, character_id=None, data={
        "name": "Twin", "base_persona": "", "greeting": ""}) for _ in range(2)]
    both = instance_create(store, owner=alice, character_ids=[character, twins[1]])
    result = _import(alice_client, both, _sillytavern_group_chat("Alserqi", "Twin"))
    assert [n for n in result["imported"]["notes"] if "not in" in n] == []
    assert [line.get("speaker") for line in session_lines(store, both)
            if line.get("role") == "assistant"][-2:] == [character, twins[1]]


async def test_a_group_exported_and_imported_as_a_new_chat_keeps_its_reply_order(
        alice_client, store, group, character, brenna, use_stub):  # noqa: F811
    """An export records how the members took turns (`personalab_group.reply_order`); the new
    scene an import makes of it takes turns the same way."""
    await turn_said(store, group, "都到齐了？")
    exported = await sync_to_async(_export)(alice_client, store, group)
    assert exported[0]["chat_metadata"]["personalab_group"]["reply_order"] == "everyone"
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in exported).encode()
    response = await sync_to_async(alice_client.post)("/api/v1/instances/import", {
        "character_ids": f"{character},{brenna}",
        "file": SimpleUploadedFile("group.jsonl", body)})
    assert response.status_code == 201, response.content
    made = store.instance_state_read(response.json()["instance_id"])
    assert made["reply_order"] == "everyone"


def test_a_group_exported_and_imported_keeps_its_generation_mode(alice_client, store, group,
                                                                 character, brenna):  # noqa: F811
    """The join mode and its prefix / suffix, and whether the last speaker may answer again,
    go out in `personalab_group` and come back with the new scene an import makes
    (SillyTavern's 0 / 1 / 2 read as its modes)."""
    state = store.instance_state_read(group)
    store.instance_state_write(group, {**state, "generation_mode": "append",
                                       "generation_mode_join_prefix": "[{{char}}]",
                                       "allow_self_responses": True})
    exported = _export(alice_client, store, group)
    written = exported[0]["chat_metadata"]["personalab_group"]
    assert (written["generation_mode"], written["generation_mode_join_prefix"],
            written["generation_mode_join_suffix"]) == ("append", "[{{char}}]", "")
    assert written["allow_self_responses"] is True
    written["generation_mode"] = 2
    body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in exported).encode()
    response = alice_client.post("/api/v1/instances/import", {
        "character_ids": f"{character},{brenna}",
        "file": SimpleUploadedFile("group.jsonl", body)})
    assert response.status_code == 201, response.content
    made = store.instance_state_read(response.json()["instance_id"])
    assert (made["generation_mode"], made["generation_mode_join_prefix"]) == (
        "append_muted", "[{{char}}]")
    assert made["allow_self_responses"] is True


def test_a_one_character_chat_offers_no_group(alice_client, store, alice, character,
                                              brenna):  # noqa: F811
    solo = instance_create(store, owner=alice, character_id=character)
    result = _import(alice_client, solo, _sillytavern_group_chat("Brenna", "Brenna"))
    assert result["imported"]["regroup"] == []
    assert not [n for n in result["imported"]["notes"] if "lines of" in n]


def test_an_export_is_named_after_whose_chat_it_is(alice_client, store, group, character,
                                                   brenna, alice):  # noqa: F811
    """Every chat's download was 'sess_001.jsonl'; SillyTavern's are named after the
    character. A name is kept in UTF-8 (filename*) with what no file name may hold left out."""
    session_id = store.instance_state_read(group)["current_session_id"]
    url = f"/api/v1/instances/{group}/sessions/{session_id}/export"

    def named(query):
        return alice_client.get(f"{url}?{query}")["Content-Disposition"]

    number = int(session_id.removeprefix("sess_"))
    assert named("format=jsonl") == (
        f'attachment; filename="Alserqi & Brenna - conversation {number}.jsonl"')
    assert named(f"format=jsonl&character={brenna}") == (
        f'attachment; filename="Brenna - conversation {number}.jsonl"')
    character_save(store, character_id=brenna, data={"name": "莉娜/<Lena>"})
    assert named(f"format=md&character={brenna}") == (
        "attachment; filename*=utf-8''%E8%8E%89%E5%A8%9C%20Lena%20-%20conversation%20"
        f"{number}.md")
    # The page calls it "第 N 段对话" in Chinese; so does the file.
    alice_client.cookies["django_language"] = "zh-hans"
    assert named(f"format=md&character={brenna}").endswith(
        "%20Lena%20-%20%E7%AC%AC%20" f"{number}" "%20%E6%AE%B5%E5%AF%B9%E8%AF%9D.md")
