"""A SillyTavern chat read through its translate extension keeps the text it showed in
`extra.display_text` (the player's Chinese beside the English sent to the model): the page
shows it in place of the message, as SillyTavern's addOneMessage does, while the message is as
it was imported; the model is still sent the message (outside pass O2: the page showed every
imported message in the other language)."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils.html import escape

from chat.import_export.chat_formats import chat_import_jsonl
from chat.play.regex_scripts import LineDisplay
from library.character_services import character_save
from library.personas.services import persona_first_named

HEADER = {"user_name": "Ann", "character_name": "Mira"}
REPLY = {"name": "Mira", "is_user": False, "mes": "B: the river is cold.",
         "extra": {"display_text": "乙：河水很冷。"},
         "swipes": ["A: the river is wide.", "B: the river is cold."], "swipe_id": 1,
         "swipe_info": [{"send_date": "x", "extra": {"display_text": "甲：河很宽。"}},
                        {"send_date": "x", "extra": {"display_text": "乙：河水很冷。"}}]}


def _lines(*records: dict) -> list[dict]:
    data = "\n".join(json.dumps(r, ensure_ascii=False) for r in (HEADER, *records)) + "\n"
    return chat_import_jsonl(data.encode())[1]


def test_the_page_shows_an_imported_messages_display_text_and_the_prompt_its_text():
    said = {"name": "Ann", "is_user": True, "mes": "Is the river cold?",
            "extra": {"display_text": "河水冷吗？"}}
    user, reply = _lines(said, REPLY)
    shown = [LineDisplay({}).text(line) for line in (user, reply)]
    assert shown == ["河水冷吗？", "乙：河水很冷。"]
    assert (user["content"], reply["content"]) == ("Is the river cold?", "B: the river is cold.")


def test_another_imported_swipe_shows_its_own_display_text():
    [reply] = _lines(REPLY)
    first = reply["alternatives"][0]
    swiped = {**reply, "content": first["content"], "alternative_position": 0,
              "swipe_info": first["swipe_info"]}
    assert LineDisplay({}).text(swiped) == "甲：河很宽。"


def test_an_edited_message_shows_what_was_typed():
    [reply] = _lines(REPLY)
    edited = {**reply, "content": "C: the river froze.", "edited": {"original": "B"}}
    assert LineDisplay({}).text(edited) == "C: the river froze."
    plain = {k: v for k, v in REPLY.items() if k not in ("extra", "swipe_info")}
    assert LineDisplay({}).text(_lines(plain)[0]) == "B: the river is cold."


def test_markup_in_an_imported_display_text_is_text_on_the_chat_page(store, alice,
                                                                     alice_client):
    """Seventh red-team pass: the display text is written into the page as the message is
    (escaped, drawn later by the sanitized Markdown), never as markup."""
    character_id = character_save(store, data={"name": "Mira", "base_persona": "A guide.",
                                               "greeting": ""}, character_id=None, user=alice)
    hostile = '<img src=x onerror="alert(1)"><div data-hx-post="/logout/">x</div>'
    persona_first_named(store, owner=alice, name="Ann")  # not a newcomer: no name asked first
    data = "\n".join(json.dumps(r) for r in (
        HEADER, {**REPLY, "extra": {"display_text": hostile}, "swipes": [], "swipe_info": []}))
    response = alice_client.post("/chats/import", {
        "character_id": character_id, "file": SimpleUploadedFile("c.jsonl", data.encode())},
        follow=True)
    page = response.content.decode()
    assert response.status_code == 200 and escape(hostile) in page
    assert "<img src=x" not in page and "<div data-hx-post" not in page


@pytest.mark.parametrize("odd", [None, 7, ["a"], {"a": 1}, "   ", True])
def test_an_odd_display_text_shows_the_message(odd):
    """Seventh red-team pass: a display text that is not text, or is blank, shows the message
    (no error, nothing of the odd value)."""
    [reply] = _lines({**REPLY, "extra": {"display_text": odd}, "swipes": [], "swipe_info": []})
    assert LineDisplay({}).text(reply) == "B: the river is cold."
