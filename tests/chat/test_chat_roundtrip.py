"""SillyTavern and Agnai chats come in and go back out without losing what their authors kept:
chat_metadata, extra, send_date as written, every speaker's name, narrator and hidden lines."""

from __future__ import annotations

import json

import pytest

from chat.history_manager import edits as history
from chat.history_manager.base import line_fingerprint
from chat.import_export.chat_formats import ChatFormatError, chat_import
from chat.import_export.st_chat_export import chat_export_jsonl
from chat.services.session_export import session_export
from tests.chat.st_chat_records import (
    CHAT,
    GREETING,
    HEADER,
    NARRATOR,
    REPLY,
    SECOND_SPEAKER,
    USER,
    jsonl,
)
from tests.png_files import tiny_png
from tests.stub_llm import Reply


def records_of(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode("utf-8").split("\n") if line]


def _export(result) -> bytes:
    return chat_export_jsonl(lines=result.lines, user_name="Someone else",
                             character_name="Other", created_at="2026-01-01T00:00:00Z",
                             header=result.original_header)


def test_import_then_export_gives_back_every_kept_field():
    exported = records_of(_export(chat_import(jsonl(CHAT))))
    assert exported == CHAT


def test_line_separator_inside_a_message_survives_export_and_import():
    result = chat_import(jsonl(CHAT))
    assert result.lines[2]["content"] == "Then say it\u2028plainly."
    again = chat_import(_export(result))
    assert again.lines[2]["content"] == "Then say it\u2028plainly."
    assert len(again.lines) == len(result.lines)


def test_speakers_narrator_and_hidden_lines_are_what_they_were():
    result = chat_import(jsonl(CHAT))
    lines = result.lines
    assert [line.get("name") for line in lines] == [
        "Mira", "Ann", "Mira", "Narrator", "Kael", "Ann", "Mira"]
    assert lines[3]["type"] == "note"
    assert lines[5]["role"] == "user" and lines[5]["hidden"] is True
    assert lines[6]["role"] == "assistant" and lines[6]["hidden"] is True
    assert lines[2]["reasoning"] == "She is wary."
    report = result.report()
    assert report["speakers"] == ["Mira", "Kael"] and report["players"] == ["Ann"]
    assert report["counts"] == {"user": 2, "assistant": 4, "narrator": 1, "narrator_sent": 1,
                                "hidden": 2, "summary": 0}


def test_unreadable_lines_are_skipped_and_reported_with_their_reason():
    data = jsonl([HEADER, USER]) + b'{"name": "Mira", "mes": \n[1, 2]\n' + jsonl([REPLY])
    result = chat_import(data)
    assert [line["content"] for line in result.lines] == [USER["mes"], REPLY["mes"]]
    assert [(s["line"], s["reason"].split(" (")[0]) for s in result.report()["skipped"]] == [
        (3, "not valid JSON"), (4, "expected a JSON object")]


def test_a_file_with_no_message_is_refused_with_the_reason():
    with pytest.raises(ChatFormatError, match="no chat message.*line 1: not valid JSON"):
        chat_import(b"this is not a chat\n")


def test_agnai_chat_imports_with_speakers_and_dates():
    agnai = {"name": "Harbor night", "characterName": "Mira", "messages": [
        {"_id": "m1", "characterId": "c1", "msg": "The harbor is quiet.",
         "createdAt": "2024-05-12T17:41:00.000Z"},
        {"_id": "m2", "userId": "u1", "handle": "Ann", "msg": "I bring news.",
         "createdAt": "2024-05-12T17:43:00.000Z"},
        {"_id": "m3", "characterId": "c1", "msg": "Say it.",
         "createdAt": "2024-05-12T17:44:00.000Z"},
        {"_id": "m4", "characterId": "c1", "msg": ""}]}
    result = chat_import(json.dumps(agnai).encode())
    assert result.source == "agnai"
    assert [(line["role"], line["turn"], line["name"]) for line in result.lines] == [
        ("assistant", 0, "Mira"), ("user", 1, "Ann"), ("assistant", 1, "Mira")]
    assert result.lines[1]["timestamp"] == "2024-05-12T17:43:00Z"
    assert result.report()["skipped"] == [{"line": 4, "reason": "empty message"}]
    exported = records_of(_export(result))
    assert exported[2] == {"name": "Ann", "is_user": True, "is_system": False,
                           "send_date": "2024-05-12T17:43:00Z", "mes": "I bring news.",
                           "extra": {}}


@pytest.fixture
def auth(alice):
    from chat.models import ApiToken

    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}


def _upload(client, auth, instance, data: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return client.post(f"/api/v1/instances/{instance}/import_chat",
                       {"file": SimpleUploadedFile("chat.jsonl", data)}, **auth)


@pytest.mark.django_db(transaction=True)
def test_rest_import_then_export_is_the_same_chat(client, auth, instance, store):
    response = _upload(client, auth, instance, jsonl(CHAT))
    assert response.status_code == 201
    body = response.json()
    assert body["imported"]["speakers"] == ["Mira", "Kael"]
    assert body["imported"]["players"] == ["Ann"]
    exported = client.get(f"/api/v1/instances/{instance}/sessions/{body['session_id']}/export"
                          "?format=jsonl", **auth)
    assert records_of(exported.content) == CHAT


COMMENT = {"name": "Note", "is_user": False, "is_system": True,
           "send_date": "May 12, 2024 5:49pm", "mes": "A comment only the player reads.",
           "extra": {"type": "comment"}}
HIDDEN_NARRATOR = {"name": "Narrator", "is_user": False, "is_system": True,
                   "send_date": "May 12, 2024 5:50pm", "mes": "A narration hidden with /hide.",
                   "extra": {"type": "narrator"}}


@pytest.mark.django_db(transaction=True)
async def test_narrator_lines_reach_the_model_as_sillytavern_sends_them(client, auth, instance,
                                                                        store, use_stub):
    """SillyTavern's /sys writes a narrator line with is_system false and sends it as a system
    message without a name; hidden lines, comments and a /hide'd narrator line stay out."""
    from asgiref.sync import sync_to_async

    from chat.play.turn import turn_run

    await sync_to_async(_upload)(client, auth, instance,
                                 jsonl([*CHAT, COMMENT, HIDDEN_NARRATOR]))

    async def emit(event):
        pass

    await turn_run(store, instance_id=instance, user_text="What now?", emit=emit)
    messages = use_stub.requests[-1]["messages"]
    sent = "\n".join(m["content"] for m in messages)
    assert "I bring news." in sent and "I heard it too." in sent
    assert "(ooc: draft)" not in sent and "A reply kept out of context." not in sent
    assert "A comment only the player reads." not in sent
    assert "A narration hidden with /hide." not in sent
    # Its own message, no "Narrator:" before it, where it stood (a strict template folds a
    # system message after the first into the user side, as it does summaries).
    bell = [m["content"] for m in messages].index("A bell rings somewhere.")
    assert messages[bell]["role"] in ("system", "user")
    assert "Then say it" in messages[bell - 1]["content"]
    assert messages[bell + 1]["content"].endswith("I heard it too.")


@pytest.mark.django_db(transaction=True)
async def test_a_narrator_line_hidden_here_is_no_longer_sent(client, auth, instance, store,
                                                             use_stub):
    from asgiref.sync import sync_to_async

    from chat.history_manager.edits import message_hide
    from chat.play.turn import turn_run

    body = (await sync_to_async(_upload)(client, auth, instance, jsonl(CHAT))).json()
    read = store.session_read(instance, body["session_id"])
    index = next(i for i, line in enumerate(read.lines) if line.get("type") == "note")
    await sync_to_async(message_hide)(store, instance_id=instance, session_id=body["session_id"],
                                      index=index,
                                      fingerprint=line_fingerprint(read.lines[index]),
                                      hidden=True)

    async def emit(event):
        pass

    await turn_run(store, instance_id=instance, user_text="What now?", emit=emit)
    sent = "\n".join(m["content"] for m in use_stub.requests[-1]["messages"])
    assert "I heard it too." in sent and "A bell rings somewhere." not in sent
    exported = records_of((await sync_to_async(client.get)(
        f"/api/v1/instances/{instance}/sessions/{body['session_id']}/export?format=jsonl",
        **auth)).content)
    assert [r["is_system"] for r in exported if r.get("mes") == NARRATOR["mes"]] == [True]


@pytest.mark.django_db(transaction=True)
async def test_a_narrator_line_sillytavern_sends_is_scanned_for_lore(client, auth, instance, store,
                                                                     alice, use_stub):
    """SillyTavern scans what it sends: a /sys line's words fire a lorebook entry; a comment's
    words do not."""
    from asgiref.sync import sync_to_async

    from chat.play.turn import turn_run
    from library.lore.services import lorebook_save

    book = await sync_to_async(lorebook_save)(store, user=alice, data={
        "name": "bells", "scan_depth": 10,
        "entries": [{"uid": 1, "keys": ["bell"], "content": "BELL-LORE: the tower bell."},
                    {"uid": 2, "keys": ["player reads"], "content": "COMMENT-LORE: never."}]})
    state = store.instance_state_read(instance)
    store.instance_state_write(instance, {**state, "lorebook_ids": [book]})
    quiet = {**REPLY, "mes": "Then say it."}
    await sync_to_async(_upload)(client, auth, instance,
                                 jsonl([HEADER, GREETING, USER, quiet, NARRATOR, COMMENT]))

    async def emit(event):
        pass

    await turn_run(store, instance_id=instance, user_text="What now?", emit=emit)
    sent = "\n".join(m["content"] for m in use_stub.requests[-1]["messages"])
    assert "BELL-LORE" in sent and "COMMENT-LORE" not in sent


@pytest.mark.django_db(transaction=True)
def test_import_page_shows_what_came_in_and_ends_on_the_chat(alice_client, instance, store):
    from django.core.files.uploadedfile import SimpleUploadedFile

    data = jsonl(CHAT) + b"{broken\n"
    response = alice_client.post(f"/instances/{instance}/import_chat",
                                 {"file": SimpleUploadedFile("chat.jsonl", data)}, follow=True)
    page = response.content.decode()
    assert response.redirect_chain[-1][0] == f"/instances/{instance}/"
    assert 'id="import-report"' in page and "Kael" in page
    assert "The 8th message: the line is not valid JSON" in page
    assert "A bell rings somewhere." in page and "hidden from the model" in page
    assert "1 narrator line (1 sent to the model, as SillyTavern sends it)" in page
    assert '"is_user"' not in page
    # the report stays on the page (a reload, a page came back to) until it is dismissed
    again = alice_client.get(f"/instances/{instance}/").content.decode()
    assert 'id="import-report"' in again
    dismissed = alice_client.post(f"/instances/{instance}/import_report/dismiss",
                                  follow=True).content.decode()
    assert 'id="import-report"' not in dismissed


@pytest.mark.django_db(transaction=True)
def test_import_page_refuses_a_bad_file_and_says_why(alice_client, instance, store):
    from django.core.files.uploadedfile import SimpleUploadedFile

    before = store.instance_state_read(instance)["current_session_id"]
    response = alice_client.post(f"/instances/{instance}/import_chat",
                                 {"file": SimpleUploadedFile("x.jsonl", b"not a chat\n")},
                                 follow=True)
    assert "no chat message" in response.content.decode()
    assert store.instance_state_read(instance)["current_session_id"] == before


def _exported_header(client, auth, instance, session_id: str) -> dict:
    exported = client.get(f"/api/v1/instances/{instance}/sessions/{session_id}/export"
                          "?format=jsonl", **auth)
    return records_of(exported.content)[0]


@pytest.mark.django_db(transaction=True)
def test_a_chats_authors_note_becomes_the_storys_and_its_edit_goes_back_out(client, auth,
                                                                         instance, store):
    from memory.authors_note import authors_note_read, authors_note_save

    body = _upload(client, auth, instance, jsonl(CHAT)).json()
    assert authors_note_read(store, instance_id=instance) == {
        "text": "Keep it short.", "depth": 4, "frequency": 1, "role": "system"}
    assert any("Keep it short." in note for note in body["imported"]["notes"])
    authors_note_save(store, instance_id=instance, note={
        "text": "Rain all night.", "depth": 2, "frequency": 3, "role": "user"})
    header = _exported_header(client, auth, instance, body["session_id"])
    assert header["chat_metadata"] == {**HEADER["chat_metadata"], "note_prompt": "Rain all night.",
                                       "note_depth": 2, "note_interval": 3, "note_role": 1,
                                       "note_position": 1}


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("position, said", [(0, "after the main prompt"),
                                            (2, "before the main prompt"), (1, None)])
def test_a_note_sillytavern_placed_by_the_main_prompt_is_reported_as_moved(
        client, auth, instance, position, said):
    """SillyTavern's note "after / before the main prompt" goes into the chat here: the
    report said only its depth, as if nothing had moved."""
    header = {**HEADER, "chat_metadata": {**HEADER["chat_metadata"], "note_position": position}}
    body = _upload(client, auth, instance, jsonl([header, *CHAT[1:]])).json()
    [note] = [note for note in body["imported"]["notes"] if "Keep it short." in note]
    if said:
        assert f"SillyTavern placed it {said}; here it goes into the chat at depth 4" in note
    else:
        assert "SillyTavern placed it" not in note


@pytest.mark.django_db(transaction=True)
def test_a_story_with_its_own_note_keeps_it_and_the_report_says_so(client, auth, instance,
                                                                   store):
    from memory.authors_note import authors_note_read, authors_note_save

    own = {"text": "Mira lies about the ship.", "depth": 1, "frequency": 1, "role": "system"}
    authors_note_save(store, instance_id=instance, note=own)
    body = _upload(client, auth, instance, jsonl(CHAT)).json()
    assert authors_note_read(store, instance_id=instance) == own
    assert any("not applied" in note for note in body["imported"]["notes"])


@pytest.mark.django_db(transaction=True)
def test_a_sessions_export_carries_the_storys_authors_note(client, auth, instance, store):
    from memory.authors_note import authors_note_save

    authors_note_save(store, instance_id=instance, note={
        "text": "[Weather: heavy rain]", "depth": 4, "frequency": 1, "role": "system"})
    session_id = store.instance_state_read(instance)["current_session_id"]
    metadata = _exported_header(client, auth, instance, session_id)["chat_metadata"]
    assert (metadata["note_prompt"], metadata["note_depth"], metadata["note_role"]) == (
        "[Weather: heavy rain]", 4, 0)


@pytest.mark.parametrize("metadata", [
    {"note_prompt": ["x"]}, {"note_prompt": "x", "note_depth": "4", "note_role": 9},
    {"note_prompt": "x", "note_interval": 0}, {"note_prompt": "   "}, "text", None])
def test_an_odd_note_in_a_chat_header_reads_as_defaults_or_as_none(metadata):
    from chat.import_export.st_note import note_from_st

    note = note_from_st(metadata)
    assert note is None or note == {"text": "x", "depth": 4, "frequency": 1, "role": "system"}
    assert (note is None) == (not isinstance(metadata, dict) or metadata.get("note_depth") != "4")


@pytest.mark.django_db(transaction=True)
def test_the_import_report_says_who_played_the_chat_when_someone_else_plays_here(
        client, auth, alice, instance, store):
    from library.personas.services import persona_create

    body = _upload(client, auth, instance, jsonl(CHAT)).json()
    assert any("the player was Ann" in note and "You are" in note
               for note in body["imported"]["notes"])
    ann = persona_create(store, owner=alice, data={"name": "Ann", "description": ""})
    store.instance_state_write(instance, {**store.instance_state_read(instance), "persona_id": ann})
    again = _upload(client, auth, instance, jsonl(CHAT)).json()
    assert not any("the player was" in note for note in again["imported"]["notes"])


@pytest.mark.django_db(transaction=True)
def test_a_chats_bound_lorebook_is_read_in_the_story_when_the_library_has_it(
        client, auth, alice, bob, instance, store):
    from library.lore.services import lorebook_create

    # bob's shared "Harbor" was bound: his entries (and later edits) read in alice's story.
    lorebook_create(store, owner=bob, data={"name": "Harbor", "visibility": "shared",
                                            "entries": []})
    body = _upload(client, auth, instance, jsonl(CHAT)).json()  # chat_metadata.world_info: Harbor
    assert any('"Harbor" is not in your library' in note for note in body["imported"]["notes"])
    assert not store.instance_state_read(instance).get("lorebook_ids")
    harbor = lorebook_create(store, owner=alice, data={"name": "Harbor", "entries": [
        {"keys": ["bell"], "content": "The harbor bell rings for the drowned."}]})
    body = _upload(client, auth, instance, jsonl(CHAT)).json()
    assert store.instance_state_read(instance)["lorebook_ids"] == [harbor]
    assert any('"Harbor" is read in this story' in note for note in body["imported"]["notes"])
    _upload(client, auth, instance, jsonl(CHAT))
    assert store.instance_state_read(instance)["lorebook_ids"] == [harbor]  # once


@pytest.mark.django_db(transaction=True)
def test_imported_replies_of_the_character_show_its_picture(alice_client, instance, store):
    """An imported reply carries the speaker's name; when that is this story's character, its
    bubble has the character's picture, like the replies written here (it had initials)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from library.avatars import avatar_write

    character_id = store.instance_state_read(instance)["character_id"]
    avatar_write(store.character_dir(character_id), tiny_png(), "png")
    chat = [{**HEADER, "character_name": "Alserqi"},
            {**GREETING, "name": "Alserqi"}, USER, {**REPLY, "name": "Alserqi"}, SECOND_SPEAKER]
    page = alice_client.post(f"/instances/{instance}/import_chat",
                             {"file": SimpleUploadedFile("chat.jsonl", jsonl(chat))},
                             follow=True).content.decode()
    bubbles = [b.split("</article>")[0] for b in page.split('data-testid="message"')[1:]]
    alserqi = [b for b in bubbles if "<strong><bdi>Alserqi</bdi></strong>" in b]
    kael = [b for b in bubbles if "<strong><bdi>Kael</bdi></strong>" in b]
    assert len(alserqi) == 2 and all(f"/library/characters/{character_id}/avatar.png" in b
                                     for b in alserqi)
    assert kael and "avatar initials" in kael[0]  # another speaker keeps their initial


def test_swipes_made_here_export_with_their_own_dates():
    """issue 32 item 7: a chat exported to SillyTavern keeps each swipe's date."""
    line = {"role": "assistant", "content": "second", "turn": 1,
            "timestamp": "2026-11-28T08:00:00Z", "alternative_position": 1,
            "alternatives": [{"content": "first", "timestamp": "2026-11-28T07:59:00Z"}]}
    data = chat_export_jsonl(lines=[line], user_name="Ann", character_name="Mira",
                             created_at="2026-11-28T07:00:00Z")
    record = [json.loads(row) for row in data.decode().splitlines()][-1]
    assert record["swipes"] == ["first", "second"] and record["swipe_id"] == 1
    assert [info["send_date"] for info in record["swipe_info"]] == [
        "2026-11-28T07:59:00Z", "2026-11-28T08:00:00Z"]


@pytest.mark.django_db(transaction=True)
def test_a_branch_of_an_imported_chat_exports_its_header_and_metadata(client, auth, instance,
                                                                      store):
    """SillyTavern's branch keeps the chat's chat_metadata (its own keys, the note, the bound
    world); so does a branch here (its export's header had an empty chat_metadata)."""
    session_id = _upload(client, auth, instance, jsonl(CHAT)).json()["session_id"]
    lines = store.session_read(instance, session_id).lines
    index = next(i for i, line in enumerate(lines) if line.get("content") == USER["mes"])
    branch = history.session_branch(store, instance_id=instance, session_id=session_id,
                                    index=index, fingerprint=line_fingerprint(lines[index]))
    header = _exported_header(client, auth, instance, branch["session_id"])
    assert header["chat_metadata"] == HEADER["chat_metadata"]
    assert header["user_name"] == HEADER["user_name"]


SWIPED = {"name": "Mira", "is_user": False, "is_system": False,
          "send_date": "2024-05-12T17:44:02.118Z", "mes": "B",
          "extra": {"api": "openai", "model": "gpt-4o-mini"},
          "gen_started": "2024-05-12T17:44:00.001Z", "gen_finished": "2024-05-12T17:44:02.118Z",
          "swipes": ["A", "B", "C"], "swipe_id": 1,
          "swipe_info": [{"send_date": f"2024-05-12T17:4{i}:00.000Z", "extra": {"api": f"v{i}"},
                          "gen_started": "a", "gen_finished": "b"} for i in range(3)]}


def _redo_exported(client, auth, instance, session_id, action):
    assert client.post(f"/api/v1/instances/{instance}/{action}", **auth).status_code == 200
    return records_of(client.get(f"/api/v1/instances/{instance}/sessions/{session_id}/export"
                                 "?format=jsonl", **auth).content)[-1]


@pytest.mark.django_db(transaction=True)
def test_continue_and_regenerate_keep_what_an_imported_reply_and_its_swipes_carried(
        client, auth, instance, store, use_stub):
    """SillyTavern keeps a continued reply's extra, dates and other fields, and each swipe's
    swipe_info entry; here they were dropped and every entry was rewritten with today's date."""
    session_id = _upload(client, auth, instance, jsonl([HEADER, USER, SWIPED])).json()[
        "session_id"]
    use_stub.script(Reply(" and more."))
    continued = _redo_exported(client, auth, instance, session_id, "continue")
    assert continued["mes"] == "B and more." and continued["swipes"] == ["A", "B and more.", "C"]
    for key in ("extra", "gen_started", "gen_finished", "send_date"):
        assert continued[key] == SWIPED[key], key
    assert [continued["swipe_info"][i] for i in (0, 2)] == [SWIPED["swipe_info"][i]
                                                            for i in (0, 2)]

    use_stub.script(Reply("D"))
    regenerated = _redo_exported(client, auth, instance, session_id, "regenerate")
    assert regenerated["swipes"] == ["A", "B and more.", "C", "D"]
    assert regenerated["swipe_id"] == 3
    assert [regenerated["swipe_info"][i] for i in (0, 2)] == [SWIPED["swipe_info"][i]
                                                              for i in (0, 2)]


@pytest.mark.django_db(transaction=True)
def test_a_greetings_swipes_with_sillytaverns_empty_swipe_info_export_as_they_came(
        client, auth, instance, store):
    """SillyTavern writes a greeting with alternate greetings as swipes beside swipe_info []."""
    greeting = {**GREETING, "swipes": ["Hello.", "Hi.", "Hey."], "swipe_id": 0,
                "mes": "Hello.", "swipe_info": []}
    session_id = _upload(client, auth, instance, jsonl([HEADER, greeting, USER])).json()[
        "session_id"]
    exported = records_of(client.get(f"/api/v1/instances/{instance}/sessions/{session_id}/export"
                                     "?format=jsonl", **auth).content)
    assert exported[1] == greeting


@pytest.mark.django_db(transaction=True)
def test_a_reply_flipped_to_another_imported_swipe_exports_that_swipes_date_and_extra(
        client, auth, instance, store):
    """SillyTavern gives a swiped message that swipe's send_date, timings and extra from its
    swipe_info entry; here they stayed the first swipe's, and re-imported, swipe A carried
    swipe B's reasoning. Back on the swipe shown at import, the message's own come back."""
    reasoned = {**SWIPED, "extra": {**SWIPED["extra"], "reasoning": "B's thoughts"}}
    session_id = _upload(client, auth, instance, jsonl([HEADER, USER, reasoned])).json()[
        "session_id"]
    url = f"/api/v1/instances/{instance}/sessions/{session_id}"

    def shown(alternative: int) -> dict:
        flipped = client.post(f"{url}/swipe", {"turn": 1, "alternative": alternative},
                              content_type="application/json", **auth)
        assert flipped.status_code == 200, flipped.content
        return records_of(client.get(f"{url}/export?format=jsonl", **auth).content)[-1]

    first = shown(0)
    assert (first["mes"], first["swipe_id"]) == ("A", 0)
    info = SWIPED["swipe_info"][0]
    assert first["extra"] == info["extra"] and "reasoning" not in first["extra"]
    assert [first[k] for k in ("send_date", "gen_started", "gen_finished")] == [
        info["send_date"], info["gen_started"], info["gen_finished"]]
    back = shown(0)  # the other versions are A's neighbours: index 0 is B again
    assert back["mes"] == "B"
    for key in ("extra", "send_date", "gen_started", "gen_finished"):
        assert back[key] == reasoned[key], key


@pytest.mark.django_db(transaction=True)
def test_a_group_reply_stopped_before_any_text_survives_export_and_import(store, group,
                                                                         character):
    """It is an empty message in the file, which an import skips, unless marked interrupted."""
    store.session_append(group, "sess_001", {"role": "user", "content": "hi", "turn": 1})
    store.session_append(group, "sess_001", {"role": "assistant", "content": "", "turn": 1,
                                             "interrupted": True, "speaker": character})
    data, _ = session_export(store, instance_id=group, session_id="sess_001", fmt="jsonl")
    again = chat_import(data)
    assert not again.skipped
    assert again.lines[-1]["role"] == "assistant" and again.lines[-1]["content"] == ""
    assert again.lines[-1]["interrupted"] is True
    assert records_of(_export(again))[-1]["extra"] == {"personalab_interrupted": True}
