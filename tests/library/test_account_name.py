"""Before a player makes a persona, `{{user}}` and their messages carry the account's name
(its full name, else its username), not the placeholder "User" (newcomer round, item 2)."""

from __future__ import annotations

from library.selectors import persona_effective


def test_without_a_persona_the_player_is_named_by_their_account(store, alice):
    assert persona_effective(store, owner="alice", persona_id=None)["name"] == "alice"
    alice.first_name, alice.last_name = "Alice", "Liddell"
    alice.save()
    assert persona_effective(store, owner="alice", persona_id=None)["name"] == "Alice Liddell"
    # A chat without an owner keeps the placeholder; a name the admin set still wins.
    assert persona_effective(store, owner=None, persona_id=None)["name"] == "User"
    store.module_write("prompt", {"user_name": "Traveller"})
    assert persona_effective(store, owner="alice", persona_id=None)["name"] == "Traveller"
