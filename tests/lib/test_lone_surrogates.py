"""Half an emoji written as a JSON escape (`"\\ud83d"`, as JavaScript apps such as SillyTavern can
write it) in a session file, an import, a request body, a frame or an LLM chunk. Before, the
parsed text held a lone surrogate that no UTF-8 write accepts: the chat page gave a 500 and every
later turn failed. Now each lone surrogate reads as U+FFFD and everything works."""

from __future__ import annotations

import base64
import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command

from chat.models import ApiToken
from library.card_formats.card_import import character_import_card
from library.lore.services import lorebook_import
from personalab.lib import jsontext
from personalab.lib.jsontext import json_loads, surrogates_replace
from tests.chat.chat_urls import chat_read_urls
from tests.png_files import chunk, tiny_png
from tests.socket_tabs import events_until_done, tab_connect
from tests.stub_llm import Fail, Reply

pytestmark = pytest.mark.django_db(transaction=True)

LONE = "bad \ud83d here"
MENDED = "bad \ufffd here"


@pytest.fixture
def auth(alice):
    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}


def _chat(client, instance_id, auth, query="hi") -> dict:
    response = client.post("/api/v1/chat", json.dumps({"instance_id": instance_id, "query": query}),
                           content_type="application/json", **auth)
    assert response.status_code == 200, response.content
    return response.json()


# the helper ------------------------------------------------------------------

def test_a_pair_stays_the_emoji_and_a_lone_half_becomes_the_replacement_character():
    assert json_loads('"\\ud83d\\ude00"') == "\U0001F600"
    assert json_loads(b'["\\uD83D\\uDE00", "x\\ud83d", "\\ude00y", "\\uDBFFz"]') == [
        "\U0001F600", "x\ufffd", "\ufffdy", "\ufffdz"]
    # json reads bytes with "surrogatepass": a surrogate's own UTF-8 form is mended too.
    assert json_loads(b'"a\xed\xa0\xbdb"') == "a\ufffdb"
    assert json_loads('"raw \ud83d"') == "raw \ufffd"
    assert json_loads('"x\\ud83d"'.encode("utf-16")) == "x\ufffd"


def test_keys_are_mended_and_order_kept():
    parsed = json_loads('{"first": 1, "k\\ud83d": {"\\udc00": ["v\\ud800"]}, "last": 2}')
    assert list(parsed) == ["first", "k\ufffd", "last"]
    assert parsed["k\ufffd"] == {"\ufffd": ["v\ufffd"]}


def test_deep_nesting_is_mended_without_recursion():
    depth = 100_000  # far past Python's recursion limit
    value: list = ["x\ud83d"]
    for _ in range(depth):
        value = [value]
    surrogates_replace(value)
    for _ in range(depth):
        value = value[0]
    assert value == ["x\ufffd"]
    nested = json_loads("[" * 500 + '{"\\ud83d": "\\ude00"}' + "]" * 500)
    for _ in range(500):
        nested = nested[0]
    assert nested == {"\ufffd": "\ufffd"}


def test_no_walk_when_the_text_holds_no_surrogate_escape(monkeypatch):
    walks = []
    monkeypatch.setattr(jsontext, "surrogates_replace", lambda value: walks.append(value) or value)
    text = '{"content": "Привет 😀 \\u00e9 \\\\ \\"q\\"", "n": [1, 2]}'
    assert json_loads(text) == json.loads(text)
    assert json_loads(text.encode()) == json.loads(text)
    assert walks == []
    json_loads('{"content": "\\ud83d"}')
    assert len(walks) == 1


# session files ---------------------------------------------------------------

def test_a_lone_surrogate_line_shows_on_the_chat_page_and_the_next_turn_completes(
        client, alice, store, instance, auth, use_stub):
    client.force_login(alice)
    with store.session_path(instance, "sess_001").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"role": "user", "content": LONE, "turn": 1}) + "\n")
        handle.write(json.dumps({"role": "assistant", "content": "an answer", "turn": 1}) + "\n")

    page = client.get(f"/instances/{instance}/")
    assert page.status_code == 200
    assert MENDED in page.content.decode()

    use_stub.script(Reply("the next reply"))
    reply = _chat(client, instance, auth)
    assert reply["answer_text"] == "the next reply"
    sent = [m["content"] for m in use_stub.requests[-1]["messages"]]
    assert any(MENDED in text for text in sent)
    trace = store.trace_read(instance, reply["trace_id"])
    assert trace
    messages = store.session_read(instance, "sess_001").messages
    assert [m["content"] for m in messages[-4:]] == [MENDED, "an answer", "hi", "the next reply"]
    for url in chat_read_urls(instance, reply["trace_id"]):
        assert client.get(url, **auth).status_code == 200, url


def test_a_lone_surrogate_in_an_llm_chunk_becomes_the_replacement_character(
        client, store, instance, auth, use_stub):
    use_stub.script(Reply(LONE, chunk_size=5))
    reply = _chat(client, instance, auth)
    assert reply["answer_text"] == MENDED
    assert store.session_read(instance, "sess_001").messages[-1]["content"] == MENDED
    assert store.trace_read(instance, reply["trace_id"])


EMOJI = "\U0001F600"
# An emoji cut between two chunks (JavaScript servers cut strings by UTF-16 unit), then half a
# one at the very end of the stream.
SPLIT = (("content", "smile \ud83d"), ("content", "\ude00 and "), ("content", "rain \ud83c"),
         ("content", "\udf27 end"))


@pytest.mark.parametrize("delay", [0.0, 0.03], ids=["one network read", "one read per chunk"])
async def test_an_emoji_split_across_two_llm_chunks_reaches_the_file_and_the_page_whole(
        alice, instance, use_stub, store, delay):
    use_stub.script(Reply("", deltas=SPLIT, delay=delay))
    communicator, connected = await tab_connect(alice, instance)
    assert connected
    try:
        await communicator.send_json_to({"type": "send", "content": "smile?"})
        events = await events_until_done(communicator)
    finally:
        await communicator.disconnect()
    expected = f"smile {EMOJI} and rain \U0001F327 end"
    assert events[-1]["type"] == "done", events[-1]
    assert "".join(e["content"] for e in events if e["type"] == "token") == expected
    assert store.session_read(instance, "sess_001").messages[-1]["content"] == expected


def test_half_an_emoji_ending_the_stream_becomes_the_replacement_character(
        client, store, instance, auth, use_stub):
    use_stub.script(Reply("", deltas=(("content", "cut \ud83d"), ("content", "\ude00 then \ud83d"))))
    reply = _chat(client, instance, auth)
    assert reply["answer_text"] == f"cut {EMOJI} then \ufffd"
    assert store.session_read(instance, "sess_001").messages[-1]["content"] == reply["answer_text"]


def test_an_llm_error_quoting_a_lone_surrogate_is_written_as_the_error_reply(
        client, store, instance, auth, use_stub):
    use_stub.script(*[Fail(500, LONE)] * 3)  # retries included
    reply = _chat(client, instance, auth)
    assert MENDED in reply["answer_text"]
    assert MENDED in store.session_read(instance, "sess_001").messages[-1]["content"]


def test_a_model_list_holding_a_lone_surrogate_is_shown(client, staff, stub_llm):
    client.force_login(staff)
    stub_llm.models = ["stub-model", "odd \ud83d"]
    response = client.post("/settings/test_connection", {"llm.base_url": stub_llm.base_url})
    assert response.status_code == 200
    assert "odd \ufffd" in response.content.decode()


# imports, request bodies, frames ---------------------------------------------------

def test_a_sillytavern_chat_with_a_lone_surrogate_imports(client, instance, store, auth):
    lines = [{"user_name": "Ann", "character_name": "Alserqi", "create_date": "2024-01-01",
              "chat_metadata": {}},
             {"name": "Ann", "is_user": True, "mes": LONE, "send_date": "2024-01-01T10:00:00Z"},
             {"name": "Alserqi", "is_user": False, "mes": "ok \ude00",
              "send_date": "2024-01-01T10:00:05Z"}]
    body = "\n".join(json.dumps(line) for line in lines).encode()
    response = client.post(f"/api/v1/instances/{instance}/import_chat",
                           {"file": SimpleUploadedFile("chat.jsonl", body)}, **auth)
    assert response.status_code == 201, response.content
    session_id = response.json()["session_id"]
    assert [m["content"] for m in store.session_read(instance, session_id).messages] == [
        MENDED, "ok \ufffd"]


def test_an_agnai_chat_with_a_lone_surrogate_imports(client, instance, store, auth):
    agnai = {"name": "night \ud83d", "characterName": "Mira", "messages": [
        {"_id": "m1", "userId": "u1", "handle": "Ann", "msg": LONE},
        {"_id": "m2", "characterId": "c1", "msg": "ok \ude00"}]}
    response = client.post(f"/api/v1/instances/{instance}/import_chat",
                           {"file": SimpleUploadedFile("chat.json", json.dumps(agnai).encode())},
                           **auth)
    assert response.status_code == 201, response.content
    session_id = response.json()["session_id"]
    assert [m["content"] for m in store.session_read(instance, session_id).messages] == [
        MENDED, "ok \ufffd"]


def test_a_rest_character_save_with_a_lone_surrogate_is_kept_mended(
        client, character, store, auth):
    url = f"/api/v1/characters/{character}"
    response = client.put(url, {"base_persona": LONE, "tags": ["t\udc00"]},
                          content_type="application/json", **auth)
    assert response.status_code == 200, response.content
    saved = store.character_read(character)
    assert saved["base_persona"] == MENDED and saved["tags"] == ["t\ufffd"]
    shown = client.get(url, **auth)
    assert shown.status_code == 200 and shown.json()["base_persona"] == MENDED


async def test_a_websocket_message_with_a_lone_surrogate_is_played(alice, instance, use_stub,
                                                                   store):
    use_stub.script(Reply("heard you"))
    communicator, connected = await tab_connect(alice, instance)
    assert connected
    try:
        await communicator.send_json_to({"type": "send", "content": LONE})
        events = await events_until_done(communicator)
    finally:
        await communicator.disconnect()
    assert events[-1]["type"] == "done", events[-1]
    messages = store.session_read(instance, "sess_001").messages
    assert [m["content"] for m in messages[-2:]] == [MENDED, "heard you"]


def _card_file(card: dict, kind: str) -> tuple[bytes, str]:
    text = json.dumps(card)  # ASCII: the lone surrogate as its escape
    if kind == "png":
        return tiny_png(chunk(b"tEXt", b"chara\x00" + base64.b64encode(text.encode()))), "m.png"
    if kind == "charx":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("card.json", text)
        return buffer.getvalue(), "m.charx"
    return text.encode(), "m.json"


@pytest.mark.parametrize("kind", ["json", "png", "charx"])
def test_a_card_with_lone_surrogates_imports(alice, store, kind):
    card = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Mira \ud83d", "description": LONE, "first_mes": "hi", "character_book": {
            "name": "book", "entries": [{"keys": ["k\udc00"], "content": LONE, "enabled": True,
                                         "insertion_order": 1, "extensions": {}}]}}}
    data, filename = _card_file(card, kind)
    character_id = character_import_card(store, user=alice, data=data, filename=filename)
    saved = store.character_read(character_id)
    assert saved["name"] == "Mira \ufffd" and MENDED in saved["base_persona"]


def test_a_lorebook_with_lone_surrogates_imports(alice, store):
    world = {"name": "world \ud83d", "entries": {"0": {
        "uid": 0, "key": ["k\ud83d"], "content": LONE, "comment": "", "disable": False}}}
    lorebook_id = lorebook_import(store, owner=alice, data=json.dumps(world).encode(),
                                  filename="world.json")
    entry = store.lorebook_read(lorebook_id)["entries"][0]
    assert entry["content"] == MENDED and entry["keys"] == ["k\ufffd"]


def test_a_utf16_line_in_a_session_file_is_mended_too(store, instance):
    # A file is screened once for surrogate escapes, as bytes; this line's escape is in UTF-16.
    line = json.dumps({"role": "user", "content": LONE, "turn": 1}).encode("utf-16-le")
    with store.session_path(instance, "sess_001").open("ab") as handle:
        handle.write(line + b"\n")
    assert store.session_read(instance, "sess_001").messages[-1]["content"] == MENDED


def test_the_chat_command_plays_an_argument_that_is_not_utf8(store, instance, use_stub):
    use_stub.script(Reply("heard you"))
    # What Python makes of the bytes `bad \xed here` in argv: a lone surrogate (surrogateescape).
    call_command("chat", instance, b"bad \xed here".decode("utf-8", "surrogateescape"),
                 stdout=io.StringIO())
    messages = store.session_read(instance, "sess_001").messages
    assert [m["content"] for m in messages[-2:]] == [MENDED, "heard you"]


def test_an_unfinished_reply_line_with_a_lone_surrogate_is_completed(
        client, store, instance, auth, use_stub):
    with store.session_path(instance, "sess_001").open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"role": "user", "content": "go on", "turn": 1}) + "\n")
        handle.write('{"role":"assistant","turn":1,"streaming":true,"content":"bad \\ud83d he')
    assert store.session_read(instance, "sess_001").partial["content"] == "bad \ufffd he"

    use_stub.script(Reply("the next reply"))
    reply = _chat(client, instance, auth)
    assert reply["answer_text"] == "the next reply"
    completed = store.session_read(instance, "sess_001").messages[-3]
    assert completed["content"] == "bad \ufffd he" and completed["interrupted"] is True
