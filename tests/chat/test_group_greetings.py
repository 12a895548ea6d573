"""Each member of a group greets as itself: {{char}} in a member's greeting (and in its
alternate greetings) is that member, on the page and in every speaker's prompt."""

from __future__ import annotations

import pytest

from chat.groups.round import conversation_turn
from chat.services.instances import instance_create
from chat.services.members import instance_member_remove
from library.character_services import character_save
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _member(store, alice, name: str) -> str:
    return character_save(store, user=alice, character_id=None, data={
        "name": name, "base_persona": f"{name} keeps the inn.", "visibility": "private",
        "greeting": "*{{char}} waves.* I am {{char}}.",
        "card": {"spec": "chara_card_v2", "data": {
            "alternate_greetings": ["{{char}} nods at {{user}}."]}}})


@pytest.fixture
def ann_and_bob(store, alice):
    ann, bob = _member(store, alice, "Ann"), _member(store, alice, "Bob")
    return instance_create(store, owner=alice, character_ids=[ann, bob]), ann, bob


def test_each_members_greeting_names_that_member_on_the_page(alice_client, ann_and_bob):
    instance_id, _, _ = ann_and_bob
    page = alice_client.get(f"/instances/{instance_id}/").content.decode()
    assert "I am Ann." in page and "I am Bob." in page
    assert page.count("I am Ann.") == 1


async def test_a_members_greeting_keeps_its_name_in_the_other_members_prompt(
        store, ann_and_bob, use_stub):
    instance_id, ann, _ = ann_and_bob
    sent = await _prompt_of(store, use_stub, instance_id=instance_id, speaker=ann)
    assert "Bob: *Bob waves.* I am Bob." in sent
    assert "I am Ann." in sent and "Bob: *Ann waves" not in sent


@pytest.fixture
def ann_bob_and_cy(store, alice):
    """Ann, Bob and Cy greeted; then Cy left the story (its lines stay)."""

    ann, bob, cy = (_member(store, alice, name) for name in ("Ann", "Bob", "Cy"))
    instance_id = instance_create(store, owner=alice, character_ids=[ann, bob, cy])
    instance_member_remove(store, user=alice, instance_id=instance_id, character_id=cy)
    return instance_id, ann, bob


def test_a_member_who_left_still_greets_under_its_own_name_on_the_page(alice_client, ann_bob_and_cy):
    instance_id, _, _ = ann_bob_and_cy
    page = alice_client.get(f"/instances/{instance_id}/").content.decode()
    assert "I am Cy." in page
    assert page.count("I am Ann.") == 1


async def test_a_member_who_left_keeps_its_name_in_the_prompt(store, ann_bob_and_cy, use_stub):
    instance_id, ann, _ = ann_bob_and_cy
    sent = await _prompt_of(store, use_stub, instance_id=instance_id, speaker=ann)
    assert "I am Cy." in sent and "Cy: *Ann waves" not in sent


async def _prompt_of(store, use_stub, *, instance_id: str, speaker: str) -> str:
    """The text of the prompt `speaker`'s reply to a player's line was asked with."""
    use_stub.script(Reply("Hello."))

    async def emit(event):
        pass

    await conversation_turn(store, instance_id=instance_id, user_text="Hi all.", emit=emit,
                            speaker=speaker)
    return "\n".join(m["content"] for m in use_stub.requests[-1]["messages"])


def test_a_v3_cards_group_only_greetings_are_swipes_in_a_group_and_not_alone(store, alice):
    """Character Card V3's `group_only_greetings` are greetings for group chats: a swipe of the
    member's first message in a group scene (as SillyTavern offers them), never in a one-to-one
    chat."""
    nova = character_save(store, user=alice, character_id=None, data={
        "name": "Nova", "base_persona": "An android.", "visibility": "private",
        "greeting": "Hello.", "card": {"spec": "chara_card_v3", "data": {
            "alternate_greetings": ["Hi."], "group_only_greetings": ["Hello, all of you."]}}})
    other = _member(store, alice, "Ann")

    def versions(instance_id: str) -> list[str]:
        state = store.instance_state_read(instance_id)
        lines = store.session_read(instance_id, state["current_session_id"]).lines
        greeting = next(line for line in lines if line.get("speaker", nova) == nova)
        return [greeting["content"], *(a["content"] for a in greeting.get("alternatives", []))]

    assert versions(instance_create(store, owner=alice, character_ids=[nova, other])) == [
        "Hello.", "Hi.", "Hello, all of you."]
    assert versions(instance_create(store, owner=alice, character_id=nova)) == ["Hello.", "Hi."]


async def test_a_players_last_char_message_is_the_last_members_greeting_in_its_own_name(
        store, ann_and_bob, use_stub):
    """{{lastCharMessage}} in the player's line reads Bob's greeting as the page shows it (Bob
    greets last), whoever is asked to answer."""
    instance_id, ann, _ = ann_and_bob
    use_stub.script(Reply("Hello."))

    async def emit(event):
        pass

    await conversation_turn(store, instance_id=instance_id, user_text="[{{lastCharMessage}}]",
                            emit=emit, speaker=ann)
    state = store.instance_state_read(instance_id)
    said = [line for line in store.session_read(instance_id, state["current_session_id"]).lines
            if line.get("role") == "user"][-1]["content"]
    assert said == "[*Bob waves.* I am Bob.]"
