"""Small context windows (Ollama's 4,096, KoboldCpp's 8k) with a long card and a long chat: the
memory sections that grow with the chat (rolling recaps, biography, the director's reminder)
give way to the recent conversation instead of refusing the turn or leaving the model the
newest message or two."""

from __future__ import annotations

import pytest

from chat.prompt.give_way import memory_given_way
from chat.prompt.inputs import PromptInputs, PromptResult, SectionReport
from chat.prompt.window import window_for
from chat.services.instances import instance_create
from chat.services.session_import import session_import
from library.character_services import character_save
from memory.character.biography import biography_add
from memory.summaries.recaps import RECAPS_FILE
from tests.chat.long_chats import WORDS, chat_post, prompt_tokens, sent_text, st_chat
from tests.stub_llm import Reply

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("model_lengths_forgotten")]


def _long_card_chat(store, alice, background, *, persona_words: int,
                    paragraphs: int = 6, chat_file: bytes | None = None) -> str:
    """A card of `persona_words` × 14 words, a 400-message imported chat, 20 recaps and 6
    biography paragraphs of ~120 tokens each."""
    store.module_write("prompt", {**store.module_read("prompt"), "locale": "en"})
    character = character_save(store, user=alice, character_id=None, data={
        "name": "Mira", "base_persona": WORDS * persona_words, "greeting": "",
        "visibility": "private"})
    instance = instance_create(store, owner=alice, character_id=character,
                               background_id=background)
    session_id = session_import(store, instance_id=instance, data=chat_file or st_chat(400))[0]
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    store.memory_json_write(instance, RECAPS_FILE, {"items": [
        {"id": f"recap_{n}", "text": f"Recap {n}: " + WORDS * 8, "from_turn": n * 10 + 1,
         "to_turn": n * 10 + 10, "session_id": session_id,
         "created_at": f"2026-01-01T00:00:{n:02d}Z"} for n in range(20)],
        "pending_summaries": []})
    for n in range(paragraphs):
        biography_add(store, instance_id=instance, text=f"Paragraph {n}: " + WORDS * 8)
    return instance


def _window(client, auth, instance: str, tokens: int) -> None:
    client.put(f"/api/v1/instances/{instance}", {"generation": {"context_tokens": tokens}},
               content_type="application/json", **auth)


def _sections(client, auth, response) -> dict[str, int]:
    trace = client.get(f"/api/v1/traces/{response.json()['trace_id']}", **auth).json()
    return {section["name"]: section["tokens"] for section in trace["sections"]}


def test_recaps_and_biography_give_way_rather_than_refuse_a_turn_in_a_small_window(
        client, auth, store, alice, background, use_stub):
    """A 4,096-token window, a ~2,000-token card: the card, recaps (510) and biography (394)
    came to more than the prompt's 3,072 tokens, and every turn was refused."""
    instance = _long_card_chat(store, alice, background, persona_words=140)
    _window(client, auth, instance, 4096)
    use_stub.script(Reply("Yes."))

    response = chat_post(client, auth, instance, "What now?")

    assert response.status_code == 200, response.content
    request = use_stub.requests[-1]
    assert prompt_tokens(request) + request["max_tokens"] <= 4096
    text = sent_text(request)
    assert "msg 399:" in text and "msg 398:" in text  # the last exchange, not only the question
    assert "Recap 19:" in text and "Recap 0:" not in text  # the newest recap stays longest


def test_recaps_and_biography_take_no_more_than_the_recent_conversation_in_a_full_window(
        client, auth, store, alice, background, use_stub):
    """An 8,192-token window, a ~4,000-token card: recaps and biography took their whole share
    (2,000 tokens) and left the conversation about 700."""
    instance = _long_card_chat(store, alice, background, persona_words=280)
    _window(client, auth, instance, 8192)
    use_stub.script(Reply("Yes."))

    response = chat_post(client, auth, instance, "What now?")

    assert response.status_code == 200, response.content
    request = use_stub.requests[-1]
    assert prompt_tokens(request) + request["max_tokens"] <= 8192
    tokens = _sections(client, auth, response)
    assert 0 < tokens["recaps"] + tokens["biography"] <= tokens["conversation"] + 64
    assert "Recap 19:" in sent_text(request) and "Paragraph 5:" in sent_text(request)


def test_a_large_window_keeps_every_recap_and_paragraph_its_share_holds(
        client, auth, store, alice, background, use_stub):
    """16,384 tokens (the default): the recaps fill half the memory share (2,048), the
    biography is whole; the conversation has room enough."""
    instance = _long_card_chat(store, alice, background, persona_words=140)
    use_stub.script(Reply("Yes."))

    response = chat_post(client, auth, instance, "What now?")

    assert response.status_code == 200, response.content
    text = sent_text(use_stub.requests[-1])
    assert all(f"Paragraph {n}:" in text for n in range(6))
    assert 1900 < _sections(client, auth, response)["recaps"] <= 2048


def _prompt(*, recalled: int, recaps: int, conversation: int, total: int, limit: int):
    sections = [SectionReport(name, "middle", tokens, 0) for name, tokens in
                (("recalled", recalled), ("recaps", recaps), ("conversation", conversation))]
    return PromptResult(messages=[], sections=sections, total_tokens=total, middle_tokens=0,
                        warnings=[], refused=None, dropped_blocks=[],
                        window={"prompt_limit": limit, "full": True})


def _inputs(window: int, recaps: int):
    return PromptInputs(character_name="Mira", user_name="Ann", base_persona="",
                        evolved_persona="", world_setting="", background_name="",
                        director=None, recalled=[],
                        recaps=[f"Recap {n}: " + WORDS * 8 for n in range(recaps)],
                        window=window_for({"context_tokens": window}, model_tokens=None))


def test_small_talk_recall_shares_the_room_with_the_recaps_instead_of_pushing_them_out():
    """An 8,192-token window: a plain turn recalled 1,873 tokens of lines sharing a word with
    "The fog is thick tonight", and the recaps and the biography gave way to it entirely. Recall
    and they now share the room the conversation leaves, up to half each."""
    prompt = _prompt(recalled=1800, recaps=500, conversation=1900, total=7100, limit=7168)

    assert memory_given_way(_inputs(8192, 5), prompt) is None  # the recaps stay


def test_recaps_give_way_to_what_recall_found_for_the_turn():
    """Recall and the recaps each gave way to the conversation on their own: the recaps grew
    back each time recall shrank, and recall lost passages to them (in a 4,096-token group chat
    with lore, every passage: the line asked about was not sent). The recaps now count what
    recall found."""
    inputs = _inputs(4096, 3)
    prompt = _prompt(recalled=300, recaps=390, conversation=400, total=3000, limit=3072)

    smaller = memory_given_way(inputs, prompt)

    assert smaller is not None and 0 < len(smaller.recaps) < 3
    assert smaller.recaps == inputs.recaps[-len(smaller.recaps):]  # the oldest left first


def test_the_newest_recap_alone_larger_than_its_part_is_cut_not_dropped():
    """A 2,048-token window whose recall took its half: the one recap on file (a Chinese recap
    of 280 tokens) was larger than the recaps' part and left whole, so no recap reached the
    model on most turns of a played Chinese chat. It is cut to its part instead; one too small
    to say anything still leaves."""
    inputs = _inputs(2048, 1)
    prompt = _prompt(recalled=250, recaps=280, conversation=400, total=1500, limit=1536)

    smaller = memory_given_way(inputs, prompt)

    assert smaller is not None and smaller.recaps == inputs.recaps
    assert 48 <= smaller.section_budgets["recaps"] < 280
    squeezed = _prompt(recalled=100, recaps=60, conversation=100, total=1530, limit=1536)
    gone = memory_given_way(inputs, squeezed)
    assert gone is not None and gone.recaps == []


def test_the_reminders_events_leave_first_the_reference_ones_before_this_storys():
    """A due reminder brought 15 events of this story and 5 of other storylines (691 tokens of
    a 4,096-token window's prompt beside a 2,000-token card): its events leave before any recap,
    the other storylines' first, then this story's from the last."""
    inputs = _inputs(4096, 3)
    events = [f"Event {n}: " + WORDS for n in range(15)]
    references = [f"Elsewhere {n}: " + WORDS for n in range(5)]
    inputs = PromptInputs(**{**inputs.__dict__, "director": {"reminder": {
        "text": "Move on.", "current_events": events, "reference_events": references}}})
    prompt = _prompt(recalled=0, recaps=390, conversation=200, total=3300, limit=3072)
    prompt.sections.append(SectionReport("director_reminder", "middle", 700, 0))
    prompt = PromptResult(**{**prompt.__dict__, "refused": "over the limit"})

    smaller = memory_given_way(inputs, prompt)

    reminder = smaller.director["reminder"]
    assert reminder["reference_events"] == [] and 0 < len(reminder["current_events"]) < 15
    assert reminder["current_events"] == events[:len(reminder["current_events"])]
    assert smaller.recaps == inputs.recaps and reminder["text"] == "Move on."
    assert inputs.director["reminder"]["reference_events"] == references  # not changed in place
