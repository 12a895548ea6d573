"""A SillyTavern chat shows here what SillyTavern shows (1.12.x, public/script.js and its chat
import, src/endpoints/chats.js), and goes back out so that SillyTavern reads it the same: each
swipe's reasoning and date, an empty reply's swipes, a player's swipes, Chub's messages, a
group member's hidden reply, a header naming nobody."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.history_manager.base import reply_versions
from chat.import_export.chat_formats import chat_import
from chat.import_export.import_check import import_players, import_speakers
from chat.import_export.st_chat_export import chat_export_jsonl
from tests.chat.st_chat_records import HEADER, USER, jsonl


def records_of(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode("utf-8").split("\n") if line]


SWIPED = {"name": "Mira", "is_user": False, "is_system": False,
          "send_date": "2024-05-12T17:44:02.118Z", "mes": "B",
          "extra": {"api": "openai", "reasoning": "B's thoughts"},
          "swipes": ["A", "B", "C"], "swipe_id": 1,
          "swipe_info": [{"send_date": f"2024-05-12T17:4{i}:00.000Z",
                          "extra": {"api": "openai", "reasoning": f"{'ABC'[i]}'s thoughts"}}
                         for i in range(3)]}


@pytest.mark.django_db(transaction=True)
def test_a_swiped_to_imported_swipe_shows_its_own_reasoning_and_date(client, auth, instance,
                                                                      store):
    """Until 2026-12-03 swipe A showed no reasoning and no time here (SillyTavern: A's)."""
    session_id = client.post(f"/api/v1/instances/{instance}/import_chat",
                             {"file": SimpleUploadedFile("chat.jsonl", jsonl(
                                 [HEADER, USER, SWIPED]))}, **auth).json()["session_id"]

    def flipped(alternative: int) -> dict:
        answer = client.post(f"/api/v1/instances/{instance}/sessions/{session_id}/swipe",
                             {"turn": 1, "alternative": alternative},
                             content_type="application/json", **auth)
        assert answer.status_code == 200, answer.content
        return store.session_read(instance, session_id).lines[-1]

    first = flipped(0)
    assert (first["content"], first["reasoning"]) == ("A", "A's thoughts")
    assert first["timestamp"] == "2024-05-12T17:40:00Z"
    third = flipped(1)  # the others are B, C now: index 1 is C
    assert (third["content"], third["reasoning"]) == ("C", "C's thoughts")
    assert third["timestamp"] == "2024-05-12T17:42:00Z"


def test_a_chub_chat_comes_in_as_sillytavern_flattens_it():
    """Chub's messages hold their text and swipes as {"message": …}; SillyTavern's import
    flattens them (flattenChubChat). Until 2026-12-03 each such message was skipped here."""
    reply = {"name": "Mira", "is_user": False, "mes": {"message": "B", "id": 7},
             "swipes": [{"message": "A"}, {"message": "B"}], "swipe_id": 1}
    said = {"name": "Ann", "is_user": True, "mes": {"message": "hi"}}
    imported = chat_import(jsonl([HEADER, said, reply]))
    assert not imported.skipped
    user, answer = imported.lines
    assert (user["content"], answer["content"]) == ("hi", "B")
    assert [v["content"] for v in reply_versions(answer)] == ["A", "B"]


def test_a_header_naming_nobody_unused_takes_the_names_from_the_messages():
    """SillyTavern after 1.12 writes `"user_name": "unused"` in every chat's header; until
    2026-12-03 a chat of greetings alone asked to play as "unused"."""
    unused = {"user_name": "unused", "character_name": "unused", "chat_metadata": {}}
    greeting = {"name": "Mira", "is_user": False, "mes": "Hello."}
    imported = chat_import(jsonl([unused, greeting]))
    assert (import_players(imported), import_speakers(imported)) == ([], ["Mira"])
    nameless = {"is_user": True, "mes": "Hi."}  # no name: the header's player is not guessed
    assert chat_import(jsonl([unused, nameless, greeting])).header["user_name"] == "User"
    exported = records_of(chat_export_jsonl(lines=imported.lines, user_name="Ann",
                                            character_name="Mira", created_at="",
                                            header=imported.original_header))[0]
    assert {key: exported[key] for key in unused} == unused  # written back as it came


def test_a_players_message_continued_in_sillytavern_keeps_its_swipes_on_a_round_trip():
    """SillyTavern's continue on a player's message writes `swipes: [mes]`, `swipe_id: 0`
    beside its swipe_info; until 2026-12-03 the export dropped them and kept the swipe_info."""
    said = {**USER, "swipes": [USER["mes"]], "swipe_id": 0,
            "swipe_info": [{"send_date": USER["send_date"], "extra": {}}]}
    imported = chat_import(jsonl([HEADER, said]))
    exported = records_of(chat_export_jsonl(lines=imported.lines, user_name="Ann",
                                            character_name="Mira", created_at="",
                                            header=imported.original_header))
    assert exported == [HEADER, said]
    edited = [{**imported.lines[0], "content": "Good news.", "edited": True}]
    again = records_of(chat_export_jsonl(lines=edited, user_name="Ann", character_name="Mira",
                                         created_at="", header=HEADER))[1]
    assert (again["mes"], again["swipes"], again["swipe_id"]) == ("Good news.", ["Good news."], 0)


def test_an_empty_reply_with_a_swipe_that_says_something_is_kept_with_its_swipes():
    """SillyTavern shows it empty and swipes to the others; until 2026-12-03 the import
    skipped it, and its swipes were lost. An empty message without such a swipe still is."""
    empty = {"name": "Mira", "is_user": False, "mes": "", "swipes": ["", "B"], "swipe_id": 0}
    bare = {"name": "Mira", "is_user": False, "mes": " ", "swipes": [" ", ""], "swipe_id": 0}
    imported = chat_import(jsonl([HEADER, USER, empty, USER, bare]))
    assert [s["line"] for s in imported.skipped] == [5]  # the file's 5th line
    reply = imported.lines[1]
    assert [v["content"] for v in reply_versions(reply)] == ["", "B"]


def test_each_reply_version_made_here_exports_its_reasoning_in_its_swipe_info():
    """SillyTavern's swipe takes the message's extra (its reasoning) from swipe_info; until
    2026-12-03 every entry's extra was {}: a swipe lost its reasoning there and here again."""
    lines = [{"role": "user", "content": "hi", "turn": 1},
             {"role": "assistant", "content": "B", "turn": 1, "reasoning": "why B",
              "trace_id": "tr_2", "alternatives": [
                  {"content": "A", "reasoning": "why A", "trace_id": "tr_1"},
                  {"content": "C", "trace_id": "tr_3"}], "alternative_position": 1}]
    reply = records_of(chat_export_jsonl(lines=lines, user_name="Ann", character_name="Mira",
                                         created_at="2026-01-01T00:00:00Z"))[-1]
    assert [info["extra"] for info in reply["swipe_info"]] == [
        {"reasoning": "why A"}, {"reasoning": "why B"}, {}]
    again = chat_import(jsonl([HEADER, reply])).lines[-1]
    assert [v.get("reasoning") for v in reply_versions(again)] == ["why A", "why B", None]


def test_a_group_members_hidden_reply_stays_that_members_reply():
    """A member who speaks only in a hidden message (SillyTavern's /hide on a group reply,
    which names the member's card in original_avatar) was read as a narrator note here."""
    hidden = {"name": "Kael", "is_user": False, "is_system": True, "mes": "I saw it.",
              "original_avatar": "Kael.png", "force_avatar": "/thumbnail?type=avatar&file=Kael.png"}
    reply = chat_import(jsonl([HEADER, USER, hidden])).lines[-1]
    assert [reply.get(key) for key in ("role", "name", "hidden")] == ["assistant", "Kael", True]
