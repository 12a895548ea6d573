"""A chat's variables ({{setvar}}, {{incvar}}...) saved with the chat and the account's global
ones saved with the account, as SillyTavern saves chat_metadata.variables and its settings."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest
from asgiref.sync import sync_to_async
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from chat.history_manager import edits as history
from chat.history_manager.base import line_fingerprint
from chat.play import turn as turn_module
from chat.play import variables as chat_variables
from chat.play.impersonate import impersonate_plan
from chat.play.turn import turn_run
from chat.services.instances import instance_create
from library.character_services import character_save
from personalab.lib import atomic
from personalab.lib.filestore.variables import (
    account_variables_read,
    session_variables_path,
    session_variables_read,
    session_variables_write,
)
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _card(store, alice, *, persona: str, greeting: str = "Hi.") -> str:
    return character_save(store, user=alice, data={
        "name": "Alserqi", "base_persona": persona, "greeting": greeting})


def _chat(store, owner, background, **card) -> str:
    return instance_create(store, owner=owner, character_id=_card(store, owner, **card),
                           background_id=background)


async def _new_chat(store, owner, background, **card) -> str:
    return await sync_to_async(_chat)(store, owner, background, **card)


async def _turn(store, instance_id, text="", **flags):
    async def emit(event):
        return None

    return await turn_run(store, instance_id=instance_id, user_text=text, emit=emit, **flags)


def _system(stub) -> str:
    return stub.requests[-1]["messages"][0]["content"]


def _local(store, instance_id, session_id="sess_001") -> dict[str, str]:
    found = session_variables_read(store, instance_id=instance_id, session_id=session_id)
    return found["variables"] if found else {}


async def test_a_cards_incvar_counts_up_from_one_turn_to_the_next(
        store, alice, background, use_stub):
    chat = await _new_chat(store, alice, background, persona="Visit number {{incvar::visits}}.")
    await _turn(store, chat, "hello")
    assert "Visit number 1." in _system(use_stub)
    await _turn(store, chat, "again")
    assert "Visit number 2." in _system(use_stub)
    assert _local(store, chat) == {"visits": "2"}


async def test_the_greetings_variables_run_once_when_the_chat_starts(
        store, alice, background, use_stub):
    chat = await _new_chat(store, alice, background,
                           greeting="{{setvar::met::yes}}{{incvar::visits}}", persona="Met: {{getvar::met}}, visits {{getvar::visits}}.")
    assert _local(store, chat) == {"met": "yes", "visits": "1"}
    await _turn(store, chat, "hello")
    await _turn(store, chat, "again")
    assert "Met: yes, visits 1." in _system(use_stub)


async def test_a_players_setvar_is_read_by_the_later_turns(store, alice, background, use_stub):
    chat = await _new_chat(store, alice, background, persona="Mood: {{getvar::mood}}.")
    await _turn(store, chat, "{{setvar::mood::angry}}Leave me alone.")
    assert "Mood: angry." in _system(use_stub)
    assert use_stub.requests[-1]["messages"][-1] == {"role": "user", "content": "Leave me alone."}
    await _turn(store, chat, "Fine.")
    assert "Mood: angry." in _system(use_stub)


async def test_a_regenerate_counts_its_turn_once(store, alice, background, use_stub):
    chat = await _new_chat(store, alice, background, persona="Visit number {{incvar::visits}}.")
    await _turn(store, chat, "hello")
    await _turn(store, chat, regenerate=True)
    await _turn(store, chat, continue_reply=True)
    await _turn(store, chat, regenerate=True)
    assert "Visit number 1." in _system(use_stub)
    assert _local(store, chat) == {"visits": "1"}
    await _turn(store, chat, "next")
    assert "Visit number 2." in _system(use_stub)


async def test_a_prompt_built_for_an_impersonation_changes_no_saved_variable(
        store, alice, background, use_stub):
    chat = await _new_chat(store, alice, background,
                           persona="{{incvar::visits}}{{setglobalvar::g::1}}")
    await _turn(store, chat, "hello")
    saved = session_variables_path(store, instance_id=chat, session_id="sess_001").read_bytes()
    await sync_to_async(impersonate_plan)(store, instance_id=chat)
    assert session_variables_path(
        store, instance_id=chat, session_id="sess_001").read_bytes() == saved
    assert account_variables_read(store, username="alice") == {"g": "1"}


async def test_global_variables_reach_the_accounts_other_chats_and_no_other_account(
        store, alice, bob, background, use_stub):
    reader = "Title: {{getglobalvar::title}}."
    first = await _new_chat(store, alice, background, persona="{{setglobalvar::title::Captain}}")
    second = await _new_chat(store, alice, background, persona=reader)
    theirs = await _new_chat(store, bob, background, persona=reader)
    await _turn(store, first, "hello")
    await _turn(store, second, "hello")
    assert "Title: Captain." in _system(use_stub)
    await _turn(store, theirs, "hello")
    assert "Title: ." in _system(use_stub)
    assert _local(store, first) == {}


async def test_a_branch_and_a_summarized_continuation_keep_the_chats_variables(
        store, alice, background, use_stub):
    chat = await _new_chat(store, alice, background, persona="{{incvar::visits}}")
    await _turn(store, chat, "one")
    await _turn(store, chat, "two")
    read = store.session_read(chat, "sess_001")

    first = read.lines[0]
    branch = history.session_branch(store, instance_id=chat, session_id="sess_001", index=0,
                                    fingerprint=line_fingerprint(first))
    assert _local(store, chat, branch["session_id"]) == {"visits": "2"}
    store.session_create(chat, "sess_009", continued_from="sess_001")
    assert _local(store, chat, "sess_009") == {"visits": "2"}
    store.session_create(chat, "sess_010")
    assert _local(store, chat, "sess_010") == {}


async def test_turns_of_several_chats_at_once_each_count_a_global_variable(
        store, alice, background, use_stub, monkeypatch):
    # Each turn read the value before another's write: 40 turns in 4 chats counted 21.
    saved = turn_module.turn_variables_save

    def slow_save(*args, **kwargs):
        time.sleep(0.02)  # a loaded machine's pause between a turn's read and its write
        saved(*args, **kwargs)

    monkeypatch.setattr(turn_module, "turn_variables_save", slow_save)
    card = await sync_to_async(_card)(store, alice, persona="Hit {{incglobalvar::hits}}.")
    chats = [await sync_to_async(instance_create)(store, owner=alice, character_id=card,
                                                  background_id=background) for _ in range(4)]

    async def three_turns(chat):
        for _ in range(3):
            await _turn(store, chat, "again")

    await asyncio.gather(*(three_turns(chat) for chat in chats))
    assert account_variables_read(store, username="alice") == {"hits": "12"}


def test_chats_started_at_once_each_count_their_greetings_global_variable(
        store, alice, background, monkeypatch):
    card = _card(store, alice, persona="A host.", greeting="Guest {{incglobalvar::guests}}.")
    filled = chat_variables.macros_replace

    def slow_fill(*args, **kwargs):
        time.sleep(0.02)  # a loaded machine's pause between the read and the write
        return filled(*args, **kwargs)

    monkeypatch.setattr(chat_variables, "macros_replace", slow_fill)

    def start():
        try:
            instance_create(store, owner=alice, character_id=card, background_id=background)
        finally:
            connection.close()

    threads = [threading.Thread(target=start) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert account_variables_read(store, username="alice") == {"guests": "4"}


def test_a_write_killed_before_its_rename_leaves_the_old_variables(store, instance,
                                                                    monkeypatch):
    session_variables_write(store, instance_id=instance, session_id="sess_001",
                            variables={"visits": "1"})

    def killed(source, target):
        raise KeyboardInterrupt  # the process dies between the temp file and the rename

    monkeypatch.setattr(atomic.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        session_variables_write(store, instance_id=instance, session_id="sess_001",
                                variables={"visits": "2"})
    monkeypatch.undo()
    assert _local(store, instance) == {"visits": "1"}


HEADER = {"user_name": "Ann", "character_name": "Mira", "create_date": "2024-5-12 @17h 41m",
          "chat_metadata": {"variables": {"visits": 4, "mood": "calm"}}}
GREETING = {"name": "Mira", "is_user": False, "is_system": False,
            "send_date": "May 12, 2024 5:41pm", "mes": "The harbor is quiet.", "extra": {}}


def _jsonl(records) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode("utf-8")


def _exported_metadata(client, auth, instance_id, session_id):
    exported = client.get(f"/api/v1/instances/{instance_id}/sessions/{session_id}/export"
                          "?format=jsonl", **auth)
    return json.loads(exported.content.decode().split("\n")[0])["chat_metadata"]


async def test_an_imported_chat_goes_on_counting_and_exports_its_variables(
        client, auth, store, alice, background, use_stub):
    chat = await _new_chat(store, alice, background,
                           persona="Visit {{incvar::visits}}, {{getvar::mood}}.")

    def upload():
        return client.post(f"/api/v1/instances/{chat}/import_chat",
                           {"file": SimpleUploadedFile("c.jsonl", _jsonl([HEADER, GREETING]))},
                           **auth).json()["session_id"]

    session_id = await sync_to_async(upload)()
    assert await sync_to_async(_exported_metadata)(client, auth, chat, session_id) == \
        HEADER["chat_metadata"]  # untouched until the chat changes them
    await _turn(store, chat, "hello")
    assert "Visit 5, calm." in _system(use_stub)
    metadata = await sync_to_async(_exported_metadata)(client, auth, chat, session_id)
    assert metadata["variables"] == {"visits": "5", "mood": "calm"}


def test_the_api_shows_and_clears_a_chats_variables(client, auth, store, instance, bob):
    session_variables_write(store, instance_id=instance, session_id="sess_001",
                            variables={"mood": "angry"})
    url = f"/api/v1/instances/{instance}/variables"
    assert client.get(url, **auth).json() == {"session_id": "sess_001",
                                              "local": {"mood": "angry"}, "global": {}}
    cleared = client.delete(url, **auth)
    assert cleared.status_code == 200 and cleared.json()["local"] == {}
    assert _local(store, instance) == {}
    client.force_login(bob)
    assert client.get(url).status_code == 404
    assert client.delete(url).status_code == 404


async def test_a_replys_own_setvar_sets_nothing(store, alice, background, use_stub):
    chat = await _new_chat(store, alice, background, persona="Mood: {{getvar::mood}}.")
    use_stub.script(Reply("{{setvar::mood::sly}}Sure."), Reply("ok"))
    await _turn(store, chat, "hello")
    await _turn(store, chat, "and?")
    assert "Mood: ." in _system(use_stub)  # SillyTavern sends a reply's macros as written


def test_the_chat_page_shows_the_variables_and_clears_them(alice_client, store, instance):
    session_variables_write(store, instance_id=instance, session_id="sess_001",
                            variables={"mood": "<b>angry</b>"})
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert 'data-testid="variables-local"' in page and "&lt;b&gt;angry&lt;/b&gt;" in page
    card = alice_client.post(f"/instances/{instance}/variables", {"scope": "local"},
                             HTTP_HX_REQUEST="true")
    assert card.status_code == 200 and "variables-local" not in card.content.decode()
    assert _local(store, instance) == {}
    alice_client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/"})
    assert "变量" in alice_client.get(f"/instances/{instance}/variables").content.decode()


async def test_a_players_getvar_keeps_the_value_it_read_when_sent(
        store, alice, background, use_stub):
    # SillyTavern's sendMessageAsUser fills the message's macros once and stores what it gave.
    chat = await _new_chat(store, alice, background, persona="Visit number {{incvar::visits}}.")
    await _turn(store, chat, "hello")
    await _turn(store, chat, "I have been here {{getvar::visits}} times, {{char}}.")
    sent = "I have been here 1 times, Alserqi."
    assert use_stub.requests[-1]["messages"][-1] == {"role": "user", "content": sent}
    await _turn(store, chat, "again")
    assert {"role": "user", "content": sent} in use_stub.requests[-1]["messages"]
    stored = [line for line in store.session_read(chat, "sess_001").lines
              if line.get("role") == "user"]
    assert stored[1]["content"] == sent and stored[1]["macros_filled"] is True
    assert "macros_filled" not in stored[2]



async def test_an_edited_message_is_filled_as_it_is_saved_with_the_chats_variables(
        store, alice, background, use_stub):
    # SillyTavern's updateMessage stores substituteParams(text): an edit's {{getvar}} reads the
    # chat's variables then, its {{setvar}} writes them, and the text keeps what it gave.

    chat = await _new_chat(store, alice, background, persona="Visit number {{incvar::visits}}.")
    await _turn(store, chat, "hello")
    lines = store.session_read(chat, "sess_001").lines
    index = next(i for i, line in enumerate(lines) if line.get("role") == "user")
    done = await sync_to_async(history.message_edit)(
        store, instance_id=chat, session_id="sess_001", index=index,
        fingerprint=line_fingerprint(lines[index]),
        text="{{setvar::mood::calm}}Visit {{getvar::visits}}, {{char}}.")
    assert done["line"]["content"] == "Visit 1, Alserqi." and done["line"]["macros_filled"]
    assert _local(store, chat) == {"visits": "1", "mood": "calm"}
    await _turn(store, chat, "next")
    assert {"role": "user", "content": "Visit 1, Alserqi."} in use_stub.requests[-1]["messages"]
