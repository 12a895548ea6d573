"""A chat import's notes name a message as a reader counts it, in the page's language (issue
33): "The 4th message: it does not say whether the player wrote it …", never "line 5: no
is_user, guessed from the name"."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from chat.import_export.chat_formats import chat_import
from chat.templatetags.sessions import import_note

pytestmark = pytest.mark.django_db

CHAT = [{"user_name": "Ann", "character_name": "Kael", "create_date": "2024-10-05T05:01:00Z"},
        {"name": "Kael", "is_user": False, "mes": "Welcome.", "send_date": "2024-10-05T05:01:00Z"},
        {"name": "Ann", "is_user": True, "mes": "Hello.", "send_date": "2024-10-05T05:02:00Z"},
        {"name": "Kael", "is_user": False, "mes": "Look.", "send_date": "2024-10-05T05:03:00Z"},
        {"name": "Ann", "mes": "No flag here.", "send_date": "2024-10-05T05:04:00Z"}]


def _data() -> bytes:
    return "".join(json.dumps(line) + "\n" for line in CHAT).encode()


def test_the_note_counts_messages_not_file_lines():
    assert chat_import(_data()).notes == ["message 4: no is_user, guessed from the name"]


@pytest.mark.parametrize("language, said", [
    ("en", ("The 4th message: it does not say whether the player wrote it ('is_user'), so its "
           "speaker's name decided")),
    ("zh-hans", "第 4 条消息： 没有写明是否由玩家所写（'is_user'），因此按说话者的名字判断")])
def test_the_import_report_says_the_note_in_words(alice_client, instance, language, said):
    alice_client.cookies["django_language"] = language
    html = alice_client.post(f"/instances/{instance}/import_chat",
                             {"file": SimpleUploadedFile("chat.jsonl", _data())},
                             follow=True).content.decode()
    report = html[html.index('id="import-report"'):html.index("</details>", html.index(
        'id="import-report"'))]
    shown = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", report)).replace("&#x27;", "'")
    assert said in shown.replace(" :", ":"), shown
    assert "line 5" not in shown and "guessed from the name" not in shown


def test_risuai_notes_read_in_chinese():
    with translation.override("zh-hans"):
        assert import_note("The chat starts with the character's first message, which RisuAI "
                           "keeps outside the chat file (greeting 2 of 3).") == (
            "对话以角色的第一条消息开头（RisuAI 把它放在对话文件之外；第 2 个开场白，共 3 个）。")
        assert import_note("line 2: no is_user, guessed from the name").startswith("第 2 条消息：")
        assert import_note("Something new.") == "Something new."


def test_the_note_naming_the_chats_player_is_said_in_chinese():
    note = ("In this chat the player was Ann, Bo; your new lines are admin's. To go on as them, "
            "press \"Play as\" below, or pick or make that persona under \"You are\".")
    with translation.override("zh-hans"):
        said = import_note(note)
    assert said.startswith("这段聊天里的玩家是 Ann, Bo") and "admin" in said and "扮演" in said
