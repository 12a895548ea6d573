"""Players read a session's name, never its id (issue 33 item 3): the chat header says
"conversation 2" where it said "sess_002", and so do the history manager's session list, its
title and what a session continues."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

pytestmark = pytest.mark.django_db


def _shown_text(html: str) -> str:
    """What a reader sees: the text outside tags, scripts and styles (ids stay in attributes)."""
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.DOTALL)
    return re.sub(r"<[^>]*>", " ", html)


def _second_session(store, instance) -> None:
    store.session_create(instance, "sess_002", continued_from="sess_001")
    state = store.instance_state_read(instance)
    store.instance_state_write(instance, {**state, "current_session_id": "sess_002"})


def test_the_chat_header_names_the_session_not_its_id(alice_client, store, instance):
    _second_session(store, instance)
    html = alice_client.get(f"/instances/{instance}/").content.decode()
    head = html[html.index('<header class="chat-head">'):]
    head = _shown_text(head[:head.index("</header>")])
    assert "conversation 2" in head
    assert "sess_" not in head


def test_the_history_manager_names_sessions_not_ids(alice_client, store, instance):
    _second_session(store, instance)
    html = alice_client.get(f"/instances/{instance}/history/").content.decode()
    shown = _shown_text(html)
    assert "conversation 1" in shown and "conversation 2" in shown
    assert "continues conversation 1" in shown
    assert "sess_" not in shown
    assert 'placeholder="Text in this conversation' in html  # the search box says it too


def test_the_import_report_names_the_new_session(alice_client, instance):
    lines = [{"user_name": "You", "character_name": "Kael", "create_date": "2024-10-05T05:01:00Z"},
             {"name": "You", "is_user": True, "mes": "Hello.", "send_date": "2024-10-05T05:01:00Z"},
             {"name": "Kael", "is_user": False, "mes": "Hi.", "send_date": "2024-10-05T05:02:00Z"}]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    page = alice_client.post(f"/instances/{instance}/import_chat",
                             {"file": SimpleUploadedFile("chat.jsonl", data)}, follow=True)
    html = page.content.decode()
    report = _shown_text(html[html.index('id="import-report"'):html.index("</summary>")])
    assert "into conversation 2" in report and "sess_" not in report


@pytest.mark.parametrize("kind", ["characters", "backgrounds"])
def test_an_editor_shows_the_name_not_the_id(alice_client, character, background, kind):
    """The character editor's heading said "Alserqi char_…": an author reads the name only
    (issue 33 item 4; the id stays in the address and the form's attributes)."""
    item = character if kind == "characters" else background
    html = alice_client.get(f"/library/{kind}/{item}/").content.decode()
    heading = _shown_text(html[html.index("<h1>"):html.index("</h1>")])
    assert item not in heading
    assert ("Alserqi" if kind == "characters" else "废土复仇记") in heading


def test_the_summarize_result_names_the_new_conversation(alice_client, instance, monkeypatch):
    """'Summarized into 2 events; new session sess_002.' now names it as the header does."""
    async def summarized(*args, **kwargs):
        return {"events": 2, "new_session_id": "sess_002"}

    monkeypatch.setattr("chat.services.memory_actions.memory_action", summarized)
    shown = _shown_text(alice_client.post(f"/instances/{instance}/memory/summarize",
                                          HTTP_HX_REQUEST="true")
                        .content.decode())
    assert "conversation 2" in shown and "sess_" not in shown


def test_your_own_character_offers_a_copy_not_use_as_my_own(client, alice, bob, character):
    """'Use as my own' showed on items you already own (issue 33, author): the owner is offered
    "Make a copy"; another player still "Use as my own"."""
    client.force_login(alice)
    mine = client.get(f"/library/characters/{character}/").content.decode()
    assert "Make a copy" in mine and "Use as my own" not in mine
    client.force_login(bob)
    theirs = client.get(f"/library/characters/{character}/").content.decode()
    assert "Use as my own" in theirs and "Make a copy" not in theirs


def test_a_deleted_character_is_named_in_the_message(alice_client, character):
    """'Character char_… deleted' named the id; the message names it as the library does."""
    response = alice_client.post(f"/library/characters/{character}/delete", follow=True)
    shown = _shown_text(response.content.decode())
    assert "Character Alserqi deleted" in shown and character not in shown


def test_use_as_my_own_names_the_copy_and_a_refused_edit_names_the_item(client, alice, bob,
                                                                       character, store):
    """'Copied char_x as your own copy char_x_2' and 'character char_x belongs to alice' were
    ids: both name the character now."""
    name = store.character_read(character)["name"]
    client.force_login(bob)
    response = client.post(f"/library/characters/{character}/copy", follow=True)
    shown = _shown_text(response.content.decode())
    assert f"“{name}” is now your own copy" in shown
    response = client.post(f"/library/characters/{character}/delete", follow=True)
    shown = _shown_text(response.content.decode())
    assert f"character {name} belongs to alice" in shown
