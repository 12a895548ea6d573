"""KoboldCpp's and llama.cpp's servers behind text completion (issue 32 item 6): the samplers
a player sets reach each server under the name it reads from a `/v1/completions` body
(KoboldCpp 1.76 `transform_genparams`: `rep_pen`, `repetition_penalty` or `repeat_penalty`;
llama.cpp's server README: `repeat_penalty` only; vLLM and text-generation-webui:
`repetition_penalty`). Through a real turn against the stub, which records the body."""

from __future__ import annotations

import pytest

from chat.services.generation import generation_defaults_update
from tests.stub_llm import Reply
from tests.text_turns import english, solo_create, turn

pytestmark = pytest.mark.django_db(transaction=True)

CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    "name": "Kira", "description": "A lamplighter.", "personality": "quiet",
    "scenario": "A foggy street.", "first_mes": "Kira lifts her pole.",
    "alternate_greetings": [], "mes_example": "", "system_prompt": "",
    "post_history_instructions": "", "creator_notes": "", "tags": [], "extensions": {}}}
SET = {"temperature": 0.8, "top_p": 0.9, "top_k": 40, "min_p": 0.05,
       "repetition_penalty": 1.15, "presence_penalty": 0.2, "frequency_penalty": 0.1,
       "seed": 7, "max_tokens": 300}
# The names each server reads from a /v1/completions body, for what was set above.
READS = {
    "koboldcpp": {"temperature": "temperature", "top_p": "top_p", "top_k": "top_k",
                  "min_p": "min_p", "repetition_penalty": "repetition_penalty",
                  "presence_penalty": "presence_penalty", "seed": "seed",
                  "max_tokens": "max_tokens"},
    "llamacpp": {"temperature": "temperature", "top_p": "top_p", "top_k": "top_k",
                 "min_p": "min_p", "repetition_penalty": "repeat_penalty",
                 "presence_penalty": "presence_penalty",
                 "frequency_penalty": "frequency_penalty", "seed": "seed",
                 "max_tokens": "max_tokens"},
    "vllm": {"repetition_penalty": "repetition_penalty", "top_k": "top_k", "min_p": "min_p"},
}


@pytest.mark.parametrize("server", sorted(READS))
def test_each_server_gets_the_samplers_under_the_names_it_reads(store, alice, use_stub,
                                                                settings, server):
    settings.PERSONALAB_COMPLETION_API = "text"
    settings.PERSONALAB_INSTRUCT_TEMPLATE = "chatml"
    english(store)
    generation_defaults_update(store, user=alice, changes=SET)
    instance_id = solo_create(store, alice, CARD)
    use_stub.script(Reply("Kira nods."))
    turn(store, instance_id, "Light the lamp.")
    assert use_stub.paths == ["/completions"]
    body = use_stub.requests[-1]
    read = {ours: body.get(theirs) for ours, theirs in READS[server].items()}
    assert read == {ours: SET[ours] for ours in READS[server]}
    assert body["prompt"].endswith("<|im_start|>assistant\nKira:")


def test_a_sillytavern_text_completion_preset_brings_its_samplers(store, alice, client,
                                                                 use_stub, settings):
    # SillyTavern's Text Completion preset format (its textgen presets): `temp`, `rep_pen`,
    # `freq_pen`, `presence_pen` beside top_p / top_k / min_p, and settings of its own.
    preset = {"temp": 0.7, "temperature_last": True, "top_p": 0.5, "top_k": 40, "min_p": 0.02,
              "rep_pen": 1.2, "rep_pen_range": 0, "freq_pen": 0.1, "presence_pen": 0.3,
              "typical_p": 1, "mirostat_mode": 0, "seed": -1, "sampler_priority": ["top_k"]}
    settings.PERSONALAB_COMPLETION_API = "text"
    settings.PERSONALAB_INSTRUCT_TEMPLATE = "chatml"
    english(store)
    instance_id = solo_create(store, alice, CARD)
    client.force_login(alice)
    response = client.post(f"/api/v1/instances/{instance_id}/generation/preset", preset,
                           content_type="application/json")
    assert response.status_code == 200, response.content
    turn(store, instance_id, "Light the lamp.")
    body = use_stub.requests[-1]
    assert (body["temperature"], body["top_p"], body["top_k"], body["min_p"]) == (
        0.7, 0.5, 40, 0.02)
    assert body["repetition_penalty"] == body["repeat_penalty"] == 1.2
    assert (body["frequency_penalty"], body["presence_penalty"]) == (0.1, 0.3)
