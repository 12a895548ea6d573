"""The card's Character's Note (extensions.depth_prompt) and talkativeness, seen and edited on the
character page and through REST, used by the next turn and given back by the export."""

from __future__ import annotations

import asyncio
import json

import pytest
from django.urls import reverse

from chat.models import ApiToken
from chat.play.turn import turn_run
from chat.services.instance_settings import instance_update
from chat.services.instances import instance_create
from library.card_formats.card_import import character_import_card
from library.card_formats.export import character_export_card
from tests.library.browser_forms import character_form_submitted
from tests.library.card_samples import big_card
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _imported(store, alice) -> str:
    return character_import_card(store, user=alice, data=json.dumps(big_card()).encode(),
                                 filename="mira.json")


def _exported_extensions(store, character_id) -> dict:
    return json.loads(character_export_card(store, character_id=character_id, fmt="json",
                                            spec="v3"))["data"]["extensions"]


@pytest.fixture
def auth(alice):
    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}


def _put(client, auth, character_id, body):
    return client.put(f"/api/v1/characters/{character_id}", json.dumps(body),
                      content_type="application/json", **auth)


def test_the_page_shows_the_note_and_an_edit_reaches_the_prompt_and_the_export(
        alice_client, alice, store, background, use_stub):
    character_id = _imported(store, alice)
    url = reverse("character_edit", args=[character_id])
    submitted = character_form_submitted(alice_client.get(url).content.decode())
    assert submitted["depth_prompt"] == ["She limps."]
    assert submitted["depth_prompt_depth"] == ["4"] and submitted["depth_prompt_role"] == ["system"]
    assert submitted["talkativeness"] == ["0.5"]

    submitted.update(depth_prompt=["She hides a letter from {{user}}."], depth_prompt_depth=["0"],
                     depth_prompt_role=["user"], talkativeness=["0.9"])
    assert alice_client.post(url, submitted).status_code == 302
    extensions = _exported_extensions(store, character_id)
    assert extensions["depth_prompt"] == {"prompt": "She hides a letter from {{user}}.",
                                          "depth": 0, "role": "user"}
    assert extensions["talkativeness"] == 0.9
    assert extensions["other_app"] == {"keep": [1, 2, 3]}

    instance_id = instance_create(store, owner=alice, character_id=character_id,
                                  background_id=background)
    # The big card's description alone is over the default 16,384-token window.
    instance_update(store, user=alice, instance_id=instance_id,
                    generation={"context_tokens": 65536})
    use_stub.script(Reply("Mm."))

    async def emit(event):
        pass

    asyncio.run(turn_run(store, instance_id=instance_id, user_text="hello", emit=emit))
    sent = use_stub.requests[-1]["messages"]
    # Depth 0 as the user: its own message after the last one, the player's name put in (the
    # card's post-history instructions follow it as a system message).
    note = next(i for i, m in enumerate(sent) if "She hides a letter from" in m["content"])
    assert sent[note]["role"] == "user" and sent[note - 1] == {"role": "user", "content": "hello"}
    assert "{{user}}" not in sent[note]["content"]


def test_an_emptied_note_is_removed_and_talkativeness_emptied_falls_back(
        alice_client, alice, store):
    character_id = _imported(store, alice)
    url = reverse("character_edit", args=[character_id])
    submitted = character_form_submitted(alice_client.get(url).content.decode())
    submitted.update(depth_prompt=[""], talkativeness=[""])
    assert alice_client.post(url, submitted).status_code == 302
    extensions = _exported_extensions(store, character_id)
    assert "depth_prompt" not in extensions and "talkativeness" not in extensions
    submitted = character_form_submitted(alice_client.get(url).content.decode())
    assert submitted["depth_prompt"] == [""] and submitted["talkativeness"] == [""]


def test_a_bad_depth_on_the_page_is_refused_naming_it_and_keeps_what_was_typed(
        alice_client, alice, store):
    character_id = _imported(store, alice)
    path = store.character_dir(character_id) / "definition.json"
    before = path.read_bytes()
    url = reverse("character_edit", args=[character_id])
    submitted = character_form_submitted(alice_client.get(url).content.decode())
    submitted.update(depth_prompt=["A new note."], depth_prompt_depth=["1000"])
    response = alice_client.post(url, submitted)
    page = response.content.decode()
    assert response.status_code == 400 and "depth" in page and "0 to 999" in page
    assert character_form_submitted(page)["depth_prompt"] == ["A new note."]  # what was typed stays
    assert path.read_bytes() == before


def test_rest_put_edits_the_note_and_refuses_a_bad_depth_or_role_naming_the_field(
        client, auth, alice, store):
    character_id = _imported(store, alice)
    response = _put(client, auth, character_id,
                    {"depth_prompt": {"prompt": "Wary of boats.", "depth": 2,
                                      "role": "assistant"}, "talkativeness": 0.25})
    assert response.status_code == 200
    extensions = response.json()["card"]["data"]["extensions"]
    assert extensions["depth_prompt"] == {"prompt": "Wary of boats.", "depth": 2,
                                          "role": "assistant"}
    assert extensions["talkativeness"] == 0.25

    # Only the text sent: depth and role stay.
    _put(client, auth, character_id, {"depth_prompt": {"prompt": "Wary of the sea."}})
    assert _exported_extensions(store, character_id)["depth_prompt"] == {
        "prompt": "Wary of the sea.", "depth": 2, "role": "assistant"}

    path = store.character_dir(character_id) / "definition.json"
    before = path.read_bytes()
    for body, field in [({"depth_prompt": {"prompt": "x", "depth": -1}}, "depth_prompt.depth"),
                        ({"depth_prompt": {"prompt": "x", "depth": "deep"}},
                         "depth_prompt.depth"),
                        ({"depth_prompt": {"prompt": "x", "role": "narrator"}},
                         "depth_prompt.role"),
                        ({"depth_prompt": "x"}, "depth_prompt"),
                        ({"talkativeness": 1.5}, "talkativeness"),
                        ({"talkativeness": "often"}, "talkativeness")]:
        response = _put(client, auth, character_id, body)
        assert response.status_code == 400, body
        assert field in response.json()["error"]["fields"], body
    assert path.read_bytes() == before

    response = _put(client, auth, character_id, {"depth_prompt": None, "talkativeness": None})
    assert response.status_code == 200
    extensions = _exported_extensions(store, character_id)
    assert "depth_prompt" not in extensions and "talkativeness" not in extensions


def test_a_character_without_a_card_gets_a_note(alice_client, store, character):
    url = reverse("character_edit", args=[character])
    submitted = character_form_submitted(alice_client.get(url).content.decode())
    submitted.update(depth_prompt=["Remembers every debt."], depth_prompt_depth=["3"])
    assert alice_client.post(url, submitted).status_code == 302
    assert _exported_extensions(store, character)["depth_prompt"] == {
        "prompt": "Remembers every debt.", "depth": 3, "role": "system"}


def test_the_openapi_schema_documents_the_note_and_talkativeness(client):
    schema = client.get("/api/v1/openapi.json").json()
    fields = schema["components"]["schemas"]["CharacterIn"]["properties"]
    assert fields["depth_prompt"]["properties"]["depth"]["maximum"] == 999
    assert fields["depth_prompt"]["properties"]["role"]["enum"] == ["system", "user",
                                                                    "assistant"]
    assert fields["talkativeness"]["maximum"] == 1
