"""What a group's memory requests tell the model (the request body the stub receives): the
recap names every member and the player, also for rounds only one member spoke in (it named
the first member "and the other person"), and "Update memory" frames the member whose persona
grows among the others and the player, each line named by its speaker (memory/prompts.py)."""

from __future__ import annotations

import pytest

from chat.services.instances import instance_create
from library.character_services import character_save
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

PLAYER = "User"  # no persona picked (docs/decisions/newcomer-name.md)


@pytest.fixture
def trio(store, alice, character, brenna, background):
    """Alserqi, Brenna and Cato; one round where only Brenna answered the player."""
    cato = character_save(store, user=alice, character_id=None, data={
        "name": "Cato", "base_persona": "A quiet guard.", "visibility": "private"})
    group = instance_create(store, owner=alice, character_ids=[character, brenna, cato],
                            background_id=background, reply_order="list")
    for line in ({"role": "user", "content": "Brenna, is the car fixed?", "name": PLAYER},
                 {"role": "assistant", "content": "Fixed. Drive slow.", "speaker": brenna,
                  "name": "Brenna"}):
        store.session_append(group, "sess_001", {**line, "turn": 1,
                                                 "timestamp": "2025-01-01T10:00:00Z"})
    return group


def test_a_recap_of_rounds_one_member_spoke_in_names_every_member_and_the_player(
        as_alice, store, trio, use_stub):
    store.module_write("memory", {**store.module_read("memory"), "recap_every_n_rounds": 1})
    use_stub.script(Reply("Brenna fixed the car."))

    response = as_alice("post", f"/api/v1/instances/{trio}/recaps/rebuild")

    assert response.status_code == 200, response.content
    system, transcript = (m["content"] for m in use_stub.requests[-1]["messages"])
    assert f"角色「Alserqi」、「Brenna」、「Cato」和玩家「{PLAYER}」" in system
    assert "对方" not in system
    assert f"{PLAYER}: Brenna, is the car fixed?" in transcript
    assert "Brenna: Fixed. Drive slow." in transcript


def test_update_memory_frames_the_member_among_the_others_and_the_player(
        as_alice, store, trio, brenna, use_stub):
    use_stub.script(Reply("Brenna trusts alice with her car now."))

    response = as_alice("post", f"/api/v1/instances/{trio}/update_memory?character_id={brenna}")

    assert response.status_code == 200, response.content
    system, body = (m["content"] for m in use_stub.requests[-1]["messages"])
    assert "角色「Brenna」的成长人格" in system
    assert f"同场的还有「Alserqi」、「Cato」和玩家「{PLAYER}」" in system
    assert "对方" not in system
    assert f"{PLAYER}: Brenna, is the car fixed?" in body and "Brenna: Fixed. Drive slow." in body
