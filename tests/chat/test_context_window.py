"""The context window: a chat longer than the window keeps being answered, its newest messages
in a prompt that fits the window, the oldest left out (and the trace says so); every request
carries max_tokens; only fixed sections too big for the window refuse a turn."""

from __future__ import annotations

import json

import pytest

from chat.model_context import model_context_forget
from chat.services.instances import instance_create
from chat.services.session_import import session_import
from library.character_services import character_save
from personalab.lib.tokens import count_tokens

pytestmark = pytest.mark.django_db(transaction=True)

WORDS = "the lantern swings over the wet cobbles while the tide comes in slowly"


@pytest.fixture
def auth(alice):
    from chat.models import ApiToken

    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}


@pytest.fixture(autouse=True)
def _no_remembered_model_lengths():
    model_context_forget()
    yield
    model_context_forget()


def st_chat(messages: int) -> bytes:
    """A SillyTavern JSONL chat of `messages` messages, `msg N` at the start of each."""
    records = [{"user_name": "Ann", "character_name": "Mira", "create_date": "2024-5-12",
                "chat_metadata": {}}]
    for n in range(messages):
        user = n % 2 == 0
        records.append({"name": "Ann" if user else "Mira", "is_user": user, "is_system": False,
                        "send_date": "May 12, 2024 5:41pm", "mes": f"msg {n}: {WORDS}",
                        "extra": {}})
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def prompt_tokens(request: dict) -> int:
    return sum(count_tokens(m["content"]) + 4 for m in request["messages"]) + 3


def chat(client, auth, instance: str, text: str):
    return client.post("/api/v1/chat", {"instance_id": instance, "query": text},
                       content_type="application/json", **auth)


def sent_text(request: dict) -> str:
    return "\n".join(m["content"] for m in request["messages"])


def test_a_chat_bigger_than_the_window_is_answered_with_its_newest_messages(
        client, auth, store, instance, use_stub):
    put = client.put(f"/api/v1/instances/{instance}", {"generation": {"context_tokens": 2048}},
                     content_type="application/json", **auth)
    assert put.status_code == 200
    assert put.json()["generation_effective"]["context_tokens"] == 2048
    session_import(store, instance_id=instance, data=st_chat(400))  # ~10,000 tokens

    response = chat(client, auth, instance, "What now?")

    assert response.status_code == 200, response.content
    request = use_stub.requests[-1]
    assert request["max_tokens"] == 512  # a quarter of a small window
    assert request["temperature"] == 1.0
    assert prompt_tokens(request) + request["max_tokens"] <= 2048
    text = sent_text(request)
    assert "What now?" in text and "msg 399:" in text and "msg 398:" in text
    assert "msg 0:" not in text and "msg 100:" not in text
    trace = client.get(f"/api/v1/traces/{response.json()['trace_id']}", **auth).json()
    window = trace["window"]
    assert window["context_tokens"] == 2048 and window["reply_tokens"] == 512
    assert window["dropped_messages"] > 300
    kept = sum(1 for n in range(400) if f"msg {n}:" in text)
    assert window["dropped_messages"] == 400 - kept
    assert window["first_kept_turn"] is not None


def test_fixed_sections_too_big_for_the_window_refuse_the_turn_naming_them(
        client, auth, store, alice, background, use_stub):
    character = character_save(store, user=alice, character_id=None, data={
        "name": "Mira", "base_persona": WORDS * 300, "greeting": "", "visibility": "private"})
    instance = instance_create(store, owner=alice, character_id=character,
                               background_id=background)
    client.put(f"/api/v1/instances/{instance}", {"generation": {"context_tokens": 2048}},
               content_type="application/json", **auth)

    response = chat(client, auth, instance, "Hello?")

    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "prompt_too_long"
    assert "base_persona" in error["message"] and "generation.context_tokens" in error["message"]
    assert "2,048-token context window" in error["message"]
    assert not use_stub.requests


def test_a_10000_message_sillytavern_chat_answers_its_next_turn_within_the_default_window(
        client, auth, store, instance, use_stub):
    session_import(store, instance_id=instance, data=st_chat(10_000))

    response = chat(client, auth, instance, "Do you still know me?")

    assert response.status_code == 200, response.content
    request = use_stub.requests[-1]
    assert request["max_tokens"] == 1024
    assert prompt_tokens(request) + request["max_tokens"] <= 16_384
    assert prompt_tokens(request) > 12_000  # the window is used, not a handful of lines
    assert "msg 9999:" in sent_text(request) and "msg 0:" not in sent_text(request)


def test_the_context_length_the_model_server_reports_is_the_default_window(
        client, auth, store, instance, use_stub):
    use_stub.models = [{"id": "stub-model", "object": "model", "context_length": 4096}]
    session_import(store, instance_id=instance, data=st_chat(400))

    response = chat(client, auth, instance, "And now?")

    request = use_stub.requests[-1]
    assert request["max_tokens"] == 1024
    assert prompt_tokens(request) + request["max_tokens"] <= 4096
    trace = client.get(f"/api/v1/traces/{response.json()['trace_id']}", **auth).json()
    assert trace["window"]["context_tokens"] == 4096
    assert trace["window"]["source"] == "model list"


def test_the_prompt_says_which_turns_the_recaps_cover_and_where_the_conversation_starts(
        client, auth, store, instance, use_stub):
    from memory.recaps import RECAPS_FILE

    session_id = session_import(store, instance_id=instance, data=st_chat(400))[0]
    store.memory_json_write(instance, RECAPS_FILE, {"items": [
        {"id": "recap_1", "text": "Ann and Mira hid the key.", "from_turn": 1, "to_turn": 150,
         "session_id": session_id, "created_at": "2026-01-01T00:00:00Z"}],
        "pending_summaries": []})
    client.put(f"/api/v1/instances/{instance}", {"generation": {"context_tokens": 2048}},
               content_type="application/json", **auth)

    response = chat(client, auth, instance, "Where is the key?")

    assert response.status_code == 200, response.content
    text = sent_text(use_stub.requests[-1])
    first = response.json()
    trace = client.get(f"/api/v1/traces/{first['trace_id']}", **auth).json()
    kept = trace["window"]["first_kept_turn"]
    assert "Ann and Mira hid the key." in text
    assert (f"Turns 1–150 are summarized above; the conversation below starts at turn {kept}."
            in text)
    assert f"Turns 151–{kept - 1} are not shown." in text


def test_rolling_recaps_are_on_by_default_with_a_model_and_off_offline(store, instance,
                                                                       use_stub, settings):
    from chat.selectors import memory_settings_effective

    assert memory_settings_effective(store)["recaps_enabled"] is True
    settings.OPENAI_BASE_URL = settings.OPENAI_API_KEY = ""
    assert memory_settings_effective(store)["recaps_enabled"] is False
    store.module_write("memory", {"recaps_enabled": True})  # a setting either way
    assert memory_settings_effective(store)["recaps_enabled"] is True
