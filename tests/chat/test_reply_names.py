"""A reply that runs on into the player's line (or another member's) stops there, and the
speaker's own `Name:` goes, as SillyTavern's cleanUpMessage leaves a reply; an impersonation
stops at the character's line (personalab/lib/reply_names.py). Real turns against the stub."""

from __future__ import annotations

import asyncio

import pytest

from chat.services.instance_settings import instance_update
from tests.group_turns import session_lines, turn_said
from tests.stub_llm import Reply
from tests.text_turns import turn

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_reply_stops_at_the_players_line_and_loses_its_own_name(store, instance, use_stub):
    use_stub.script(Reply("Alserqi: Pay up.\nUser: No."), Reply("Fine."))
    asyncio.run(turn_said(store, instance, "Hi."))
    assert session_lines(store, instance)[-1]["content"] == "Pay up."
    asyncio.run(turn_said(store, instance, "And?"))
    assert {"role": "assistant", "content": "Pay up."} in use_stub.requests[-1]["messages"]


def test_in_a_group_a_reply_stops_at_another_members_line(store, group, use_stub):
    use_stub.script(Reply("Alserqi: I go.\nBrenna: I stay."), Reply("Brenna: I fix it."))
    asyncio.run(turn_said(store, group, "Split up."))
    assert [line["content"] for line in session_lines(store, group)[-2:]] == [
        "I go.", "I fix it."]


def test_an_impersonation_stops_at_the_characters_line(alice_client, store, instance,
                                                       use_stub):
    use_stub.script(Reply("User: I will pay.\nAlserqi: Good."))
    response = alice_client.post("/api/v1/chat", {"instance_id": instance,
                                                  "mode": "impersonate"},
                                 content_type="application/json")
    assert response.json()["answer_text"] == "I will pay."


@pytest.mark.parametrize(("said", "kept"), [
    ("  Pay up.  \nNow.\t\n\n", "Pay up.\nNow."),  # "Trim spaces", and each line's end
    ("Pay up.\n##", "Pay up."),  # the start of the player's own stop string it was cut in
    ("Pay up.\nUse", "Pay up."),  # the start of the player's line
])
def test_a_reply_is_trimmed_as_sillytavern_trims_it(store, alice, instance, use_stub, said,
                                                    kept):
    instance_update(store, user=alice, instance_id=instance, generation={"stop": ["###"]})
    use_stub.script(Reply(said))
    asyncio.run(turn_said(store, instance, "Hi."))
    assert session_lines(store, instance)[-1]["content"] == kept


def test_a_continued_reply_keeps_its_start_and_loses_its_trailing_space(store, instance,
                                                                        use_stub):
    use_stub.script(Reply("Pay up."), Reply(" Now.  \n\n"))
    asyncio.run(turn_said(store, instance, "Hi."))
    turn(store, instance, "", continue_reply=True)
    assert session_lines(store, instance)[-1]["content"] == "Pay up. Now."


def test_a_reply_is_stored_with_its_markdown_fixed(store, instance, use_stub, alice_client):
    # "Auto-fix Markdown", on by default in SillyTavern: no space inside a pair of marks, in a
    # reply and in an impersonation alike.
    use_stub.script(Reply("* smiles * Pay up."), Reply("* nods * Fine."))
    asyncio.run(turn_said(store, instance, "Hi."))
    assert session_lines(store, instance)[-1]["content"] == "*smiles* Pay up."
    response = alice_client.post("/api/v1/chat", {"instance_id": instance,
                                                  "mode": "impersonate"},
                                 content_type="application/json")
    assert response.json()["answer_text"] == "*nods* Fine."
