"""What a model server's refusal of a too-long prompt says, in each server's words: the context
it holds and the prompt's length as it counted them; other errors are not read as one."""

from __future__ import annotations

import pytest

from personalab.lib.llm_overflow import Overflow, overflow_read


@pytest.mark.parametrize("status, body, message, expected", [
    # OpenAI (and OpenRouter's "This endpoint's maximum context length is …")
    (400, {"message": "This model's maximum context length is 8192 tokens. However, your "
                      "messages resulted in 9012 tokens. Please reduce the length of the "
                      "messages.", "code": "context_length_exceeded"}, "", Overflow(8192, 9012)),
    # vLLM: the requested total includes the completion; the messages' share is the prompt
    (400, {"message": "This model's maximum context length is 4096 tokens. However, you "
                      "requested 5000 tokens (4000 in the messages, 1000 in the completion)."},
     "", Overflow(4096, 4000)),
    # llama.cpp's server, with its fields
    (400, {"code": 400, "message": "request (4476 tokens) exceeds the available context size "
                                   "(4096 tokens)", "type": "exceed_context_size_error",
           "n_prompt_tokens": 4476, "n_ctx": 4096}, "", Overflow(4096, 4476)),
    # an older llama.cpp: no numbers, the turn halves its window
    (400, None, "the request exceeds the available context size, try increasing it",
     Overflow(None, None)),
    # LM Studio
    (400, {"error": "Trying to keep the first 5120 tokens when context the overflows. However, "
                    "the model is loaded with context length of only 4096 tokens, which is not "
                    "enough."}, "", Overflow(4096, None)),
    # an Anthropic-style gateway
    (400, {"message": "prompt is too long: 210000 tokens > 200000 maximum"}, "",
     Overflow(200000, 210000)),
])
def test_each_servers_wording_is_read(status, body, message, expected):
    assert overflow_read(status, body, message) == expected


@pytest.mark.parametrize("status, message", [
    (400, "unknown model 'gpt-9'"),
    (401, "maximum context length is 8192 tokens"),  # not a refusal of the prompt's length
    (429, "too many tokens per minute"),
    (500, "This model's maximum context length is 8192 tokens"),
])
def test_other_errors_are_not_an_overflow(status, message):
    assert overflow_read(status, {"message": message}, message) is None


def test_only_the_start_of_a_huge_error_is_read():
    body = {"message": "maximum context length is 8192 tokens" + " x" * 1_000_000}
    assert overflow_read(400, body, "") == Overflow(8192, None)
