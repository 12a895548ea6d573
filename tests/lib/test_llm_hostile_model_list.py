"""A hostile model endpoint answering the model list (the settings page's "Test connection", the
context length a turn asks for) with hundreds of megabytes, a gzip bomb or a trickle, and any
request with headers sent a byte at a time: each ends in a clear sentence within the caps (the
stub server plays the endpoint, through the real openai client)."""

from __future__ import annotations

import pytest

from chat.play.model_context import model_context_forget, model_context_tokens
from personalab.lib.llm import LLMError, LLMSettings
from personalab.lib.llm_models import llm_models_list
from personalab.lib.llm_providers import provider_for
from tests.stub_llm import BigBody, SlowHeaders, StubLLM, Trickle

MESSAGES = [{"role": "user", "content": "hello"}]


def _settings(stub: StubLLM, **limits) -> LLMSettings:
    return LLMSettings(base_url=stub.base_url, model="stub-model", **limits)


def test_a_64_mb_model_list_is_refused_once_it_passes_the_cap(stub_llm: StubLLM):
    stub_llm.script_models(BigBody(64 << 20))
    with pytest.raises(LLMError) as caught:
        llm_models_list(_settings(stub_llm, max_body_bytes=1 << 20))
    assert "larger than 1,048,576 bytes" in caught.value.message


def test_a_64_mb_error_body_of_the_model_list_is_not_read_whole(stub_llm: StubLLM):
    stub_llm.script_models(BigBody(64 << 20, status=500))
    with pytest.raises(LLMError) as caught:
        llm_models_list(_settings(stub_llm, max_body_bytes=1 << 20))
    assert "larger than 1,048,576 bytes" in caught.value.message


def test_a_gzip_bomb_model_list_is_refused_unread(stub_llm: StubLLM):
    stub_llm.script_models(BigBody(256 << 20, gzip=True))
    with pytest.raises(LLMError) as caught:
        llm_models_list(_settings(stub_llm))
    assert "compressed its answer" in caught.value.message


def test_a_model_list_that_trickles_is_stopped_at_the_check_time(stub_llm: StubLLM):
    stub_llm.script_models(Trickle(seconds=10, every=0.05))
    with pytest.raises(LLMError) as caught:
        llm_models_list(_settings(stub_llm), timeout=1.0)
    assert "did not answer within 1 seconds" in caught.value.message


def test_model_list_headers_that_trickle_are_stopped_at_the_check_time(stub_llm: StubLLM):
    stub_llm.script_models(SlowHeaders(seconds=10, every=0.1))
    with pytest.raises(LLMError) as caught:
        llm_models_list(_settings(stub_llm), timeout=1.0)
    assert "did not answer within 1 seconds" in caught.value.message


def test_a_context_length_behind_a_list_past_the_cap_is_not_read(stub_llm: StubLLM):
    stub_llm.models = [{"id": "stub-model", "context_length": 32768, "pad": "x" * (2 << 20)}]
    model_context_forget()
    try:
        assert model_context_tokens(_settings(stub_llm, max_body_bytes=1 << 20)) is None
        model_context_forget()
        assert model_context_tokens(_settings(stub_llm, max_body_bytes=4 << 20)) == 32768
    finally:
        model_context_forget()


async def test_a_completion_whose_headers_trickle_is_stopped_at_the_headers_deadline(
        stub_llm: StubLLM):
    # Each byte comes well within the 0.5 s read timeout; the headers as a whole do not.
    stub_llm.script(SlowHeaders(seconds=10, every=0.1))
    provider = provider_for(_settings(stub_llm, timeout=0.5, connect_timeout=0.5))
    with pytest.raises(LLMError) as caught:
        await provider.complete(MESSAGES, context={})
    assert "had not sent its answer's headers 1.5s after the request" in caught.value.message


@pytest.mark.parametrize("api", ["chat", "text"])
async def test_a_reply_stream_whose_headers_trickle_ends_in_a_sentence(stub_llm: StubLLM, api):
    stub_llm.script(SlowHeaders(seconds=10, every=0.1))
    provider = provider_for(_settings(stub_llm, timeout=0.5, connect_timeout=0.5,
                                      completion_api=api, instruct_template="chatml"))
    with pytest.raises(LLMError) as caught:
        async for _ in provider.stream(MESSAGES, context={}):
            pass
    assert "had not sent its answer's headers 1.5s after the request" in caught.value.message
