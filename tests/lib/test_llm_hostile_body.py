"""A hostile model endpoint answering a call that is not a stream (summaries, memory updates,
recaps, the director) or answering with an error: a body of hundreds of megabytes, a gzip bomb,
a body that trickles forever. Each ends in a clear LLMError within the caps, nothing changed
(the stub server plays the endpoint, through the real openai client)."""

from __future__ import annotations

import pytest

from memory.errors import MemoryActionError
from memory.summaries.summarize import memory_summarize
from personalab.lib.llm import LLMError, LLMSettings, OpenAIProvider
from tests.memory.memory_fakes import FakeIndex, make_instance, snapshot
from tests.stub_llm import BigBody, StubLLM, Trickle

MESSAGES = [{"role": "user", "content": "总结一下"}]


def provider(stub: StubLLM, **limits) -> OpenAIProvider:
    return OpenAIProvider(LLMSettings(base_url=stub.base_url, model="stub-model", timeout=5.0,
                                      **limits))


async def test_a_200_mb_completion_is_refused_once_it_passes_the_cap(stub_llm: StubLLM):
    stub_llm.script(BigBody(200_000_000))
    with pytest.raises(LLMError) as caught:
        await provider(stub_llm, max_body_bytes=1 << 20).complete(MESSAGES, context={})
    assert "larger than 1,048,576 bytes" in caught.value.message
    assert "PERSONALAB_LLM_MAX_BODY_BYTES" in caught.value.message


async def test_a_200_mb_error_body_is_not_read_whole(stub_llm: StubLLM):
    stub_llm.script(BigBody(200_000_000, status=500), BigBody(200_000_000, status=400))
    for _ in range(2):
        with pytest.raises(LLMError) as caught:
            await provider(stub_llm, max_body_bytes=1 << 20).complete(MESSAGES, context={})
        assert "larger than 1,048,576 bytes" in caught.value.message


async def test_a_reply_stream_answered_with_a_huge_error_body_ends_in_a_sentence(
        stub_llm: StubLLM):
    stub_llm.script(BigBody(200_000_000, status=503))
    with pytest.raises(LLMError) as caught:
        async for _ in provider(stub_llm, max_body_bytes=1 << 20).stream(MESSAGES, context={}):
            pass
    assert "larger than 1,048,576 bytes" in caught.value.message


@pytest.mark.parametrize("status", [200, 500])
async def test_a_gzip_bomb_answer_is_refused_unread(stub_llm: StubLLM, status):
    stub_llm.script(BigBody(256 << 20, status=status, gzip=True))
    with pytest.raises(LLMError) as caught:
        await provider(stub_llm).complete(MESSAGES, context={})
    assert "compressed its answer" in caught.value.message


async def test_a_completion_that_trickles_forever_is_stopped_after_the_body_time(
        stub_llm: StubLLM):
    stub_llm.script(Trickle(seconds=10, every=0.05))
    with pytest.raises(LLMError) as caught:
        await provider(stub_llm, body_seconds=0.5).complete(MESSAGES, context={})
    assert "had not ended 0.5s after it began" in caught.value.message


async def test_a_summary_against_an_endless_answer_fails_with_a_sentence_and_changes_nothing(
        stub_llm: StubLLM, tmp_path):
    store = make_instance(tmp_path)
    before = snapshot(tmp_path)
    stub_llm.script(BigBody(200_000_000))
    with pytest.raises(MemoryActionError, match="nothing was changed: the LLM's answer is larger"):
        await memory_summarize(store, instance_id="inst_001", index=FakeIndex(),
                               llm=provider(stub_llm, max_body_bytes=1 << 20))
    assert snapshot(tmp_path) == before

