"""A summarized chat in a small window: the new session starts with the summary lines, then the
last turns; filled from the newest message back, a 2,048-token window with a long card used to
send only the last turns, so the character forgot everything summarized. The summary lines the
window cannot hold give way, the newest kept, sharing the conversation's room with the messages."""

from __future__ import annotations

import json

import pytest

from chat.services.instances import instance_create
from library.character_services import character_save
from personalab.lib.tokens import count_tokens
from tests.stub_llm import Reply

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("model_lengths_forgotten")]

FILLER = ("The lantern swings over the wet cobbles while the tide comes in slowly and the gulls "
          "argue over the nets by the old harbour wall. ")


def long_text(tokens: int) -> str:
    text = ""
    while count_tokens(text) < tokens:
        text += FILLER
    return text


def chat(client, auth, instance: str, text: str):
    return client.post("/api/v1/chat", {"instance_id": instance, "query": text},
                       content_type="application/json", **auth)


def prompt_tokens(request: dict) -> int:
    return sum(count_tokens(m["content"]) + 4 for m in request["messages"]) + 3


@pytest.fixture
def small_window_chat(client, auth, store, alice, background, use_stub):
    store.module_write("prompt", {**store.module_read("prompt"), "locale": "en"})
    character = character_save(store, user=alice, character_id=None, data={
        "name": "Mira", "base_persona": long_text(900), "greeting": "", "visibility": "private"})
    instance = instance_create(store, owner=alice, character_id=character,
                               background_id=background)
    put = client.put(f"/api/v1/instances/{instance}", {"generation": {"context_tokens": 2048}},
                     content_type="application/json", **auth)
    assert put.status_code == 200
    for n in range(6):
        use_stub.script(Reply(f"reply {n}: " + long_text(60)))
        assert chat(client, auth, instance, f"turn {n}: " + long_text(40)).status_code == 200
    return instance


def summarize(client, auth, use_stub, instance: str) -> list[str]:
    """The summary lines the model gave, each part of the chat asked answering three."""
    parts = [[f"Event {3 * part + n}: Ann told Mira that her sister Lorelei keeps bees at "
              f"Harrowgate {3 * part + n}, behind the mill, and Mira promised to remember it."
              for n in range(3)] for part in range(4)]
    use_stub.script(*[Reply(json.dumps({"events": [{"summary": fact, "plot": "1"}
                                                   for fact in facts]})) for facts in parts])
    response = client.post(f"/api/v1/instances/{instance}/summarize", **auth)
    assert response.status_code == 200, response.content
    asked = len(parts) - len(use_stub.scripted())
    use_stub.reset()
    return [fact for facts in parts[:asked] for fact in facts]


def test_a_summarized_chat_in_a_small_window_keeps_its_newest_summary_lines(
        client, auth, use_stub, small_window_chat):
    facts = summarize(client, auth, use_stub, small_window_chat)

    response = chat(client, auth, small_window_chat, "Do you remember my sister?")

    assert response.status_code == 200, response.content
    request = use_stub.requests[-1]
    assert prompt_tokens(request) + request["max_tokens"] <= 2048
    text = "\n".join(m["content"] for m in request["messages"])
    kept = [n for n, fact in enumerate(facts) if fact in text]
    assert kept, "no summary line reached the prompt"
    assert kept == list(range(kept[0], len(facts)))  # the newest, in order
    assert "Do you remember my sister?" in text
    # The messages still have at least the room the summaries take.
    trace = client.get(f"/api/v1/traces/{response.json()['trace_id']}", **auth).json()
    conversation = next(s for s in trace["sections"] if s["name"] == "conversation")
    assert f"{len(kept)} of {len(facts)} summary lines kept (the newest)" in conversation["note"]
    # The prompt inspector shows them as sent.
    shown = "\n".join(str(m.get("content")) for m in trace["messages"])
    assert facts[-1] in shown and facts[0] not in shown


def test_the_summary_lines_note_reads_in_chinese():
    from django.utils import translation

    from chat.inspector.names import note_named

    with translation.override("zh-hans"):
        assert note_named("3 of 12 summary lines kept (the newest)") == "保留了 12 条摘要中最新的 3 条"
