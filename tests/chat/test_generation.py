"""Generation settings: validated field by field, account defaults under instance overrides,
sent to the model only when set; SillyTavern presets import."""

from __future__ import annotations

import asyncio

import pytest

from chat.play.turn import turn_run
from chat.services.errors import InstanceUpdateError
from chat.services.generation import generation_defaults_read, generation_defaults_update
from chat.services.instance_settings import instance_update
from library.character_services import character_save
from personalab.lib.generation import GenerationError, generation_from_st_preset, generation_update

pytestmark = pytest.mark.django_db(transaction=True)


def _turn(store, instance_id: str, text: str = "hello") -> None:
    async def emit(event):
        pass

    asyncio.run(turn_run(store, instance_id=instance_id, user_text=text, emit=emit))


def test_only_the_settings_that_were_set_are_sent(store, alice, instance, use_stub):
    _turn(store, instance)
    sent = use_stub.requests[-1]
    assert not {"top_p", "stop", "seed"} & set(sent)
    # Always sent: the reply share of the context window and SillyTavern's temperature.
    assert (sent["max_tokens"], sent["temperature"]) == (1024, 1.0)

    generation_defaults_update(store, user=alice, changes={"temperature": 1.1, "top_p": 0.9})
    instance_update(store, user=alice, instance_id=instance, generation={
        "temperature": 0.7, "max_tokens": 300, "stop": ["\nUser:"], "seed": 42,
        "presence_penalty": 0.5})
    _turn(store, instance)
    sent = use_stub.requests[-1]
    assert (sent["temperature"], sent["top_p"], sent["max_tokens"], sent["stop"], sent["seed"],
            sent["presence_penalty"]) == (0.7, 0.9, 300, ["\nUser:"], 42, 0.5)
    assert "frequency_penalty" not in sent

    instance_update(store, user=alice, instance_id=instance, generation={"temperature": None})
    _turn(store, instance)
    assert use_stub.requests[-1]["temperature"] == 1.1  # back to the account default


def test_bad_values_are_refused_field_by_field_and_change_nothing(store, alice, instance):
    before = store.instance_state_read(instance)
    with pytest.raises(InstanceUpdateError) as refused:
        instance_update(store, user=alice, instance_id=instance, name="Renamed", generation={
            "temperature": 3, "max_tokens": "lots", "stop": [1], "mirostat": 5})
    assert set(refused.value.fields) == {"generation.temperature", "generation.max_tokens",
                                         "generation.stop", "generation.mirostat"}
    assert "between 0 and 2" in refused.value.fields["generation.temperature"]
    assert store.instance_state_read(instance) == before


def test_name_and_archived_are_kept_in_the_instance_file(store, alice, instance):
    instance_update(store, user=alice, instance_id=instance, name="  Night shift ",
                    archived=True)
    state = store.instance_state_read(instance)
    assert (state["name"], state["archived"]) == ("Night shift", True)
    with pytest.raises(InstanceUpdateError) as refused:
        instance_update(store, user=alice, instance_id=instance, archived="yes")
    assert set(refused.value.fields) == {"archived"}


def test_another_account_cannot_change_an_instance(store, bob, instance):
    from chat.services.errors import NotFound

    with pytest.raises(NotFound):
        instance_update(store, user=bob, instance_id=instance, generation={"temperature": 1})


def test_a_sillytavern_openai_preset_imports_its_sampling_settings():
    preset = {"temperature": 0.85, "top_p": 0.95, "openai_max_tokens": 420,
              "presence_penalty": 0.1, "frequency_penalty": 0.2, "seed": -1,
              "top_k": 0, "prompts": [{"identifier": "main", "content": "..."}],
              "stream_openai": True}
    assert generation_from_st_preset(preset) == {
        "temperature": 0.85, "top_p": 0.95, "max_tokens": 420, "presence_penalty": 0.1,
        "frequency_penalty": 0.2}
    with pytest.raises(GenerationError) as refused:
        generation_from_st_preset({"temperature": "hot", "openai_max_tokens": 0})
    assert set(refused.value.fields) == {"temperature", "max_tokens"}
    with pytest.raises(GenerationError):
        generation_from_st_preset(["not", "a", "preset"])


@pytest.mark.parametrize("changes, field", [
    ({"top_p": 1.5}, "top_p"),
    ({"seed": 1.5}, "seed"),
    ({"temperature": True}, "temperature"),
    ({"frequency_penalty": float("nan")}, "frequency_penalty"),
    ({"stop": ["x" * 201]}, "stop"),
    ({"stop": ["s"] * 17}, "stop"),
])
def test_each_setting_is_checked(changes, field):
    with pytest.raises(GenerationError) as refused:
        generation_update({}, changes)
    assert list(refused.value.fields) == [field]


def test_a_stop_string_alone_becomes_a_list_and_empty_values_unset():
    assert generation_update({"seed": 3}, {"stop": "END", "seed": None}) == {"stop": ["END"]}


def test_the_chat_page_form_saves_settings_and_names_a_wrong_field(alice_client, store,
                                                                   instance):
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert 'id="generation-form"' in page
    url = f"/instances/{instance}/generation"
    response = alice_client.post(url, {"temperature": "0.6", "max_tokens": "250",
                                       "stop": "\\nUser:\r\nEND", "seed": ""})
    assert response.status_code == 200
    assert store.instance_state_read(instance)["generation"] == {
        "temperature": 0.6, "max_tokens": 250, "stop": ["\nUser:", "END"]}

    response = alice_client.post(url, {"temperature": "warm", "max_tokens": "250"})
    assert response.status_code == 400
    assert 'data-field="temperature"' in response.content.decode()
    assert store.instance_state_read(instance)["generation"]["temperature"] == 0.6


def test_the_form_is_not_reachable_for_another_account(client, bob, instance):
    client.force_login(bob)
    assert client.post(f"/instances/{instance}/generation", {"temperature": "1"}).status_code \
        == 404


def _api(client, alice):
    from chat.models import ApiToken

    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}


def test_rest_put_changes_an_instance_and_get_shows_it(client, alice, store, instance):
    auth = _api(client, alice)
    url = f"/api/v1/instances/{instance}"
    response = client.put(url, {"name": "Night shift", "generation": {
        "temperature": 0.7, "max_tokens": 300, "stop": ["\nUser:"]}},
        content_type="application/json", **auth)
    assert response.status_code == 200, response.content
    shown = client.get(url, **auth).json()
    assert shown["name"] == "Night shift"
    assert shown["generation"] == {"temperature": 0.7, "max_tokens": 300, "stop": ["\nUser:"]}

    client.put("/api/v1/generation", {"generation": {"seed": 7, "temperature": 1.2}},
               content_type="application/json", **auth)
    assert client.get(url, **auth).json()["generation_effective"] == {
        "seed": 7, "temperature": 0.7, "max_tokens": 300, "stop": ["\nUser:"]}


def test_rest_refusals_are_400_naming_each_field(client, alice, store, instance):
    auth = _api(client, alice)
    before = store.instance_state_read(instance)
    response = client.put(f"/api/v1/instances/{instance}", {"generation": {
        "temperature": 9, "seed": "x"}}, content_type="application/json", **auth)
    assert response.status_code == 400
    assert set(response.json()["error"]["fields"]) == {"generation.temperature",
                                                       "generation.seed"}
    response = client.put(f"/api/v1/instances/{instance}", {"archived": "perhaps"},
                          content_type="application/json", **auth)
    assert response.status_code == 400 and "archived" in response.json()["error"]["fields"]
    assert store.instance_state_read(instance) == before


def test_rest_imports_a_sillytavern_preset_into_an_instance(client, alice, store, instance):
    auth = _api(client, alice)
    client.put(f"/api/v1/instances/{instance}", {"generation": {"seed": 5}},
               content_type="application/json", **auth)
    preset = {"temperature": 0.9, "openai_max_tokens": 512, "top_p": 1, "seed": -1,
              "prompts": [], "wi_format": "{0}"}
    response = client.post(f"/api/v1/instances/{instance}/generation/preset", preset,
                           content_type="application/json", **auth)
    assert response.status_code == 200, response.content
    assert response.json()["generation"] == {"temperature": 0.9, "max_tokens": 512,
                                             "top_p": 1.0}


def test_rest_put_picks_a_persona_of_ones_own_only(client, alice, bob, store, instance):
    from library.personas.services import persona_create

    mine = persona_create(store, owner=alice, data={"name": "Ann", "description": "A medic."})
    theirs = persona_create(store, owner=bob, data={"name": "Bo", "description": "A thief."})
    auth = _api(client, alice)
    url = f"/api/v1/instances/{instance}"
    response = client.put(url, {"persona_id": theirs}, content_type="application/json", **auth)
    assert response.status_code == 400 and "persona_id" in response.json()["error"]["fields"]
    assert client.put(url, {"persona_id": mine}, content_type="application/json",
                      **auth).status_code == 200
    assert store.instance_state_read(instance)["persona_id"] == mine
    client.put(url, {"persona_id": None}, content_type="application/json", **auth)
    assert store.instance_state_read(instance)["persona_id"] is None


def test_the_home_page_form_saves_account_defaults_field_by_field(alice_client, store, alice):
    page = alice_client.get("/").content.decode()
    assert 'id="account-generation"' in page
    response = alice_client.post("/generation/defaults", {"temperature": "1.3", "seed": "11"})
    assert response.status_code == 200
    assert generation_defaults_read(store, user=alice) == {"temperature": 1.3, "seed": 11}
    response = alice_client.post("/generation/defaults", {"top_p": "2"})
    assert response.status_code == 400 and 'data-field="top_p"' in response.content.decode()
    assert generation_defaults_read(store, user=alice)["temperature"] == 1.3


def test_stop_strings_have_their_macros_filled_as_sillytaverns_custom_ones(
        store, alice, instance, use_stub):
    # custom_stopping_strings_macro, on by default: "\n{{user}}:" stops at the player's name.
    instance_update(store, user=alice, instance_id=instance,
                    generation={"stop": ["\n{{user}}:", "<BOT> says", "###"]})
    _turn(store, instance)
    assert use_stub.requests[-1]["stop"] == ["\nUser:", "Alserqi says", "###"]


def test_a_stop_string_its_macros_fill_long_is_cut(store, alice, character, instance, use_stub):
    # A card field (or a 100,000-character variable) in a stop string was sent whole and read
    # for its start at the reply's end, quadratic in its length: 16 of 100,000 characters took
    # 11 s of CPU for each reply, and each streamed piece of an impersonation.
    character_save(store, user=alice, character_id=character, data={
        "name": "Alserqi", "base_persona": "废土" * 10_000, "greeting": "", "tags": "",
        "visibility": "shared"})
    instance_update(store, user=alice, instance_id=instance,
                    generation={"stop": ["{{description}}", "###"]})
    _turn(store, instance)
    assert use_stub.requests[-1]["stop"] == ["废土" * 1000, "###"]  # 2,000: an instruct marker's
