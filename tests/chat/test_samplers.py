"""Samplers beyond OpenAI's (issue 32 item 3): top_k, min_p, repetition penalty and logit_bias
are validated, kept as account defaults and instance overrides, and reach a self-hosted
OpenAI-compatible server in the request body; OpenAI's own API is never sent the ones it
refuses. Through real turns against the stub server, which records each request."""

from __future__ import annotations

import asyncio

import pytest

from chat.play.turn import turn_run
from chat.services.errors import InstanceUpdateError
from chat.services.generation import generation_defaults_update
from chat.services.instance_settings import instance_update
from personalab.lib.generation import generation_from_st_preset
from personalab.lib.llm import sampling

pytestmark = pytest.mark.django_db(transaction=True)


def _turn(store, instance_id: str) -> None:
    async def emit(event):
        pass

    asyncio.run(turn_run(store, instance_id=instance_id, user_text="hello", emit=emit))


def test_extra_samplers_reach_a_self_hosted_server(store, alice, instance, use_stub):
    generation_defaults_update(store, user=alice, changes={"top_k": 40, "min_p": 0.05})
    instance_update(store, user=alice, instance_id=instance, generation={
        "repetition_penalty": 1.1, "logit_bias": {"50256": -100}, "min_p": 0.1})
    _turn(store, instance)
    sent = use_stub.requests[-1]
    assert (sent["top_k"], sent["min_p"], sent["repetition_penalty"]) == (40, 0.1, 1.1)
    assert sent["logit_bias"] == {"50256": -100.0}


def test_openais_own_api_is_not_sent_the_samplers_it_refuses():
    context = {"generation": {"top_k": 40, "min_p": 0.1, "repetition_penalty": 1.1,
                              "temperature": 0.8, "logit_bias": {"1": 2}}}
    official = sampling(context, base_url="https://api.openai.com/v1")
    assert official == {"temperature": 0.8, "logit_bias": {"1": 2}}
    assert sampling(context, base_url="")["temperature"] == 0.8 and "top_k" not in sampling(
        context, base_url="")
    local = sampling(context, base_url="http://127.0.0.1:8080/v1")
    assert (local["top_k"], local["min_p"], local["repetition_penalty"]) == (40, 0.1, 1.1)


def test_bad_sampler_values_are_named(store, alice, instance):
    with pytest.raises(InstanceUpdateError) as refused:
        instance_update(store, user=alice, instance_id=instance, generation={
            "top_k": -1, "min_p": 2, "logit_bias": {"word": 5}})
    fields = refused.value.fields
    assert {"generation.top_k", "generation.min_p", "generation.logit_bias"} == set(fields)


def test_a_sillytavern_preset_brings_its_extra_samplers():
    settings = generation_from_st_preset({"temp_openai": 0.9, "top_k_openai": 50,
                                          "min_p_openai": 0.02,
                                          "repetition_penalty_openai": 1.05})
    assert (settings["top_k"], settings["min_p"], settings["repetition_penalty"]) == (
        50, 0.02, 1.05)
