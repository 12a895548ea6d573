"""A model server that holds less than the window (llama.cpp started with `-c 4096`, whose model
list reports the model's training context): its refusal teaches the window, the turn is asked
again at once with a prompt that fits and answered, and later turns are sent once. Other errors
are not asked again; a server that keeps refusing ends the turn with its words."""

from __future__ import annotations

import pytest

from chat.model_context import model_context_forget
from chat.services.session_import import session_import
from personalab.lib.filestore.store import FileStore
from tests.chat.test_context_window import chat, prompt_tokens, sent_text, st_chat
from tests.stub_llm import Fail, Reply

pytestmark = pytest.mark.django_db(transaction=True)

LLAMA_CPP = "request ({prompt} tokens) exceeds the available context size (4096 tokens)"


@pytest.fixture
def auth(alice):
    from chat.models import ApiToken

    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}


@pytest.fixture(autouse=True)
def _no_remembered_model_lengths():
    model_context_forget()
    yield
    model_context_forget()


@pytest.fixture
def long_chat(store: FileStore, instance: str) -> str:
    store.module_write("memory", {"recaps_enabled": False})  # only the turn asks the model
    session_import(store, instance_id=instance, data=st_chat(400))  # ~10,000 tokens
    return instance


def last_reply(store: FileStore, instance: str, response) -> dict:
    """The reply's line as the session file keeps it."""
    return store.session_read(instance, response.json()["session_id"]).lines[-1]


def test_a_refused_long_prompt_is_asked_again_within_the_server_context_and_answered(
        client, auth, store, long_chat, use_stub):
    use_stub.script(Fail(400, LLAMA_CPP.format(prompt=11_800)), Reply("The key is under the oak."))

    response = chat(client, auth, long_chat, "Where did we hide the key?")

    assert response.status_code == 200, response.content
    assert response.json()["answer_text"] == "The key is under the oak."
    first, second = use_stub.requests
    assert prompt_tokens(first) + first["max_tokens"] > 4096
    # The server counted 11,800 where we count fewer: the window is scaled to its count.
    scale = 11_800 / prompt_tokens(first)
    assert (prompt_tokens(second) + second["max_tokens"]) * scale <= 4096
    assert "Where did we hide the key?" in sent_text(second) and "msg 399:" in sent_text(second)
    assert "msg 200:" not in sent_text(second)
    reply = last_reply(store, long_chat, response)
    assert reply["content"] == "The key is under the oak." and not reply.get("error")
    trace = client.get(f"/api/v1/traces/{response.json()['trace_id']}", **auth).json()
    assert trace["window"]["context_tokens"] < 4096
    assert trace["window"]["source"] == "server refusal"
    learned = [w for w in trace["warnings"] if w["category"] == "context_window_learned"]
    assert learned and "4,096 tokens" in learned[0]["message"]
    assert "context size" in learned[0]["suggestion"]

    use_stub.script(Reply("Still here."))
    again = chat(client, auth, long_chat, "And the map?")

    assert again.json()["answer_text"] == "Still here."
    assert len(use_stub.requests) == 3  # the next turn is sent once, in the learned window
    assert (prompt_tokens(use_stub.requests[-1]) + use_stub.requests[-1]["max_tokens"]) <= 4096


def test_an_openai_style_refusal_without_the_server_count_still_fits_the_limit(
        client, auth, store, long_chat, use_stub):
    use_stub.script(Fail(400, "This model's maximum context length is 8192 tokens. Please "
                              "reduce the length of the messages."), Reply("Fine."))

    response = chat(client, auth, long_chat, "Hello again")

    assert response.json()["answer_text"] == "Fine."
    second = use_stub.requests[-1]
    assert prompt_tokens(second) + second["max_tokens"] <= 8192 * 0.95


def test_an_error_that_is_not_about_length_is_not_asked_again(client, auth, store, long_chat,
                                                                use_stub):
    use_stub.script(Fail(400, "unknown model 'stub-model'"))

    response = chat(client, auth, long_chat, "Hello?")

    assert len(use_stub.requests) == 1
    reply = last_reply(store, long_chat, response)
    assert reply.get("error") and "unknown model" in reply["content"]


def test_a_server_that_keeps_refusing_ends_the_turn_with_its_words(client, auth, store,
                                                                   long_chat, use_stub):
    refusal = Fail(400, "the request exceeds the available context size, try increasing it")
    use_stub.script(refusal, refusal, refusal, refusal)

    response = chat(client, auth, long_chat, "Hello?")

    assert len(use_stub.requests) == 3  # the first request and two smaller windows
    sizes = [prompt_tokens(r) for r in use_stub.requests]
    assert sizes[0] > sizes[1] > sizes[2]  # each refusal without a number halves the window
    reply = last_reply(store, long_chat, response)
    assert reply.get("error") and "exceeds the available context size" in reply["content"]


def test_llama_cpp_started_with_a_small_context_is_asked_what_it_runs_with(
        client, auth, store, long_chat, use_stub):
    """Its model list reports the model's training context; /props the `-c` it runs with."""
    use_stub.models = [{"id": "stub-model", "object": "model", "meta": {"n_ctx_train": 131072}}]
    use_stub.server_info = {"/props": {"default_generation_settings": {"n_ctx": 4096}}}

    response = chat(client, auth, long_chat, "Where did we hide the key?")

    assert response.json()["answer_text"] and not response.json()["error"]
    (request,) = use_stub.requests  # sent once, within what the server holds
    assert prompt_tokens(request) + request["max_tokens"] <= 4096


def test_koboldcpp_context_size_is_the_window_so_nothing_is_cut_without_a_word(
        client, auth, store, long_chat, use_stub):
    use_stub.server_info = {"/api/extra/true_max_context_length": {"value": 8192}}

    chat(client, auth, long_chat, "Where did we hide the key?")

    request = use_stub.requests[-1]
    assert 4096 < prompt_tokens(request) + request["max_tokens"] <= 8192
