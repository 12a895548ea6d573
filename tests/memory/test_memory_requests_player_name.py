"""Summaries, recaps and update-memory name the player in their transcripts as the story does
(the chat's `{{user}}`: the persona picked), and a line said under another persona by that
persona's name: the requests the stub receives labelled every player line "User:"/"用户:"."""

from __future__ import annotations

import pytest

from chat.services.instance_settings import instance_update
from library.personas.services import persona_create
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

EVENTS = '{"events": [{"summary": "Ann asked about the car.", "plot": "The car is fixed."}]}'


def _played_as_ann(store, alice, instance_id: str) -> None:
    """Ann is the chat's persona; one line was said under Bo, one before lines kept a name."""
    ann = persona_create(store, owner=alice, data={"name": "Ann", "description": "A medic."})
    instance_update(store, user=alice, instance_id=instance_id, persona_id=ann)
    lines = [(1, {"role": "user", "content": "Is the car fixed?"}),
             (1, {"role": "assistant", "content": "Fixed. Drive slow."}),
             (2, {"role": "user", "content": "I am Bo now.", "name": "Bo"}),
             (2, {"role": "assistant", "content": "Hello, Bo."})]
    for turn, line in lines:
        store.session_append(instance_id, "sess_001", {**line, "turn": turn,
                                                       "timestamp": "2025-01-01T10:00:00Z"})


def _transcript(use_stub) -> str:
    """Every request's transcript (a recap asks once for each round)."""
    return "\n".join(request["messages"][-1]["content"] for request in use_stub.requests)


@pytest.mark.parametrize("action, answer", [
    ("summarize", EVENTS), ("update_memory", "Alserqi trusts Ann."),
    ("recaps/rebuild", "Ann asked about the car.")])
def test_a_memory_request_names_the_player_as_the_story_does(
        as_alice, store, alice, instance, use_stub, action, answer):
    store.module_write("memory", {**store.module_read("memory"), "recap_every_n_rounds": 1})
    _played_as_ann(store, alice, instance)
    use_stub.script(*[Reply(answer)] * 2)

    response = as_alice("post", f"/api/v1/instances/{instance}/{action}")

    assert response.status_code == 200, response.content
    transcript = _transcript(use_stub)
    assert "Ann: Is the car fixed?" in transcript
    assert "Bo: I am Bo now." in transcript
    assert "Alserqi: Fixed. Drive slow." in transcript
    assert "用户" not in transcript and "User:" not in transcript


def test_a_groups_summary_names_the_player_as_the_story_does(
        as_alice, store, alice, group, use_stub):
    _played_as_ann(store, alice, group)
    use_stub.script(Reply(EVENTS))

    response = as_alice("post", f"/api/v1/instances/{group}/summarize")

    assert response.status_code == 200, response.content
    transcript = _transcript(use_stub)
    assert "Ann: Is the car fixed?" in transcript and "Bo: I am Bo now." in transcript
    assert "用户" not in transcript
