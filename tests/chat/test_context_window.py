"""The context window: a chat longer than the window keeps being answered, its newest messages
in a prompt that fits the window, the oldest left out (and the trace says so); every request
carries max_tokens; only fixed sections too big for the window refuse a turn. A model server
that holds less than the window (llama.cpp started with `-c 4096`, whose model list reports the
model's training context; KoboldCpp) is asked what it runs with, and its refusal of a longer
prompt teaches the window: the turn is asked again at once and answered. Other errors are not
asked again; a server that keeps refusing ends the turn with its words."""

from __future__ import annotations

import json

import pytest

from chat.play import context as turn_context
from chat.play import model_context
from chat.play.model_context import model_context_forget
from chat.services.instances import instance_create
from chat.services.session_import import session_import
from library.character_services import character_save
from memory.summaries.recaps import RECAPS_FILE
from personalab.lib.filestore.store import FileStore
from tests.chat.long_chats import WORDS, chat_post, prompt_tokens, sent_text, st_chat
from tests.stub_llm import Fail, Reply

pytestmark = [pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("model_lengths_forgotten")]


def test_a_chat_bigger_than_the_window_is_answered_with_its_newest_messages(
        client, auth, store, instance, use_stub):
    put = client.put(f"/api/v1/instances/{instance}", {"generation": {"context_tokens": 2048}},
                     content_type="application/json", **auth)
    assert put.status_code == 200
    assert put.json()["generation_effective"]["context_tokens"] == 2048
    session_import(store, instance_id=instance, data=st_chat(400))  # ~10,000 tokens

    response = chat_post(client, auth, instance, "What now?")

    assert response.status_code == 200, response.content
    request = use_stub.requests[-1]
    assert request["max_tokens"] == 512  # a quarter of a small window
    assert request["temperature"] == 1.0
    assert prompt_tokens(request) + request["max_tokens"] <= 2048
    text = sent_text(request)
    assert "What now?" in text and "msg 399:" in text and "msg 398:" in text
    assert "msg 0:" not in text and "msg 100:" not in text
    trace = client.get(f"/api/v1/traces/{response.json()['trace_id']}", **auth).json()
    window = trace["window"]
    assert window["context_tokens"] == 2048 and window["reply_tokens"] == 512
    assert window["dropped_messages"] > 300
    kept = sum(1 for n in range(400) if f"msg {n}:" in text)
    assert window["dropped_messages"] == 400 - kept
    assert window["first_kept_turn"] is not None
    # The window full of the newest messages is the window working, not a limit coming near.
    assert "total_near_limit" not in [w["category"] for w in response.json()["warnings"]]


def test_fixed_sections_too_big_for_the_window_refuse_the_turn_naming_them(
        client, auth, store, alice, background, use_stub):
    character = character_save(store, user=alice, character_id=None, data={
        "name": "Mira", "base_persona": WORDS * 300, "greeting": "", "visibility": "private"})
    instance = instance_create(store, owner=alice, character_id=character,
                               background_id=background)
    client.put(f"/api/v1/instances/{instance}", {"generation": {"context_tokens": 2048}},
               content_type="application/json", **auth)

    response = chat_post(client, auth, instance, "Hello?")

    assert response.status_code == 422
    error = response.json()["error"]
    assert error["code"] == "prompt_too_long"
    assert "base_persona" in error["message"] and "“Context size”" in error["message"]
    assert "2,048-token context window" in error["message"]
    # what can help, not the template's "summarize the session", which cannot
    assert error["message"].startswith("The prompt needs") and "summarize" not in error["message"]
    assert "summarizing cannot help" in error["message"]
    assert not use_stub.requests


def test_a_chinese_prompts_refusal_is_said_in_the_requests_language(
        client, auth, store, alice, background, use_stub):
    """The refusal naming what to shorten is in the language the request asks for, whole (it
    was English after a Chinese one, then the prompt's language whatever the reader's)."""
    store.module_write("prompt", {**store.module_read("prompt"), "locale": "zh"})
    character = character_save(store, user=alice, character_id=None, data={
        "name": "米拉", "base_persona": "灯塔看守人。" * 1500, "greeting": "", "visibility": "private"})
    instance = instance_create(store, owner=alice, character_id=character,
                               background_id=background)
    client.put(f"/api/v1/instances/{instance}", {"generation": {"context_tokens": 2048}},
               content_type="application/json", **auth)

    message = client.post("/api/v1/chat", {"instance_id": instance, "query": "你好？"},
                          content_type="application/json", HTTP_ACCEPT_LANGUAGE="zh-hans",
                          **auth).json()["error"]["message"]
    assert "上下文窗口 2,048 个 token" in message and "“上下文大小”" in message
    assert message.startswith("即使只保留最新一条消息") and "汇总也无济于事" in message
    assert "The prompt" not in message and "context window" not in message

    english = client.post("/api/v1/chat", {"instance_id": instance, "query": "你好？"},
                          content_type="application/json", HTTP_ACCEPT_LANGUAGE="en",
                          **auth).json()["error"]["message"]
    assert english.startswith("The prompt needs") and "2,048-token context window" in english
    assert "最新一条消息" not in english and "上下文" not in english


def test_a_10000_message_sillytavern_chat_answers_its_next_turn_within_the_default_window(
        client, auth, store, instance, use_stub):
    session_import(store, instance_id=instance, data=st_chat(10_000))

    response = chat_post(client, auth, instance, "Do you still know me?")

    assert response.status_code == 200, response.content
    request = use_stub.requests[-1]
    assert request["max_tokens"] == 1024
    assert prompt_tokens(request) + request["max_tokens"] <= 16_384
    assert prompt_tokens(request) > 12_000  # the window is used, not a handful of lines
    assert "msg 9999:" in sent_text(request) and "msg 0:" not in sent_text(request)


def test_the_context_length_the_model_server_reports_is_the_default_window(
        client, auth, store, instance, use_stub):
    use_stub.models = [{"id": "stub-model", "object": "model", "context_length": 4096}]
    session_import(store, instance_id=instance, data=st_chat(400))

    response = chat_post(client, auth, instance, "And now?")

    request = use_stub.requests[-1]
    assert request["max_tokens"] == 1024
    assert prompt_tokens(request) + request["max_tokens"] <= 4096
    trace = client.get(f"/api/v1/traces/{response.json()['trace_id']}", **auth).json()
    assert trace["window"]["context_tokens"] == 4096
    assert trace["window"]["source"] == "model list"


def test_the_players_line_is_written_before_the_model_server_is_asked_its_context(
        client, auth, store, instance, use_stub, monkeypatch):
    # a turn reads its session before writing the player's line: a slow or gone server's
    # question (up to ASK_TIMEOUT) must come after that write, not hold it
    use_stub.models = [{"id": "stub-model", "object": "model", "context_length": 4096}]
    asked_with_line = []

    def models_read(settings, *, timeout):
        session = store.session_read(instance, store.instance_state_read(instance)[
            "current_session_id"])
        asked_with_line.append(any(line.get("content") == "Who is there?"
                                   for line in session.lines))
        return use_stub.models

    monkeypatch.setattr(model_context, "models_read", models_read)
    response = chat_post(client, auth, instance, "Who is there?")

    assert response.status_code == 200
    assert asked_with_line == [True]
    trace = client.get(f"/api/v1/traces/{response.json()['trace_id']}", **auth).json()
    assert trace["window"]["context_tokens"] == 4096


@pytest.mark.parametrize("locale, recap, question, said", [
    ("en", "Ann and Mira hid the key.", "Where is the key?",
     "(Turns 1–150 are summarized above; the conversation below starts at turn {kept}. "
     "Turns 151–{gap} are not shown.)"),
    ("zh", "两人藏好了钥匙。", "钥匙在哪？",
     "（第 1–150 轮已在上文概括，下面的对话从第 {kept} 轮开始。第 151–{gap} 轮未列出。）"),
])
def test_the_prompt_says_which_turns_the_recaps_cover_and_where_the_conversation_starts(
        client, auth, store, instance, use_stub, locale, recap, question, said):
    """In the prompt's language (the Chinese prompt's note was English)."""
    store.module_write("prompt", {**store.module_read("prompt"), "locale": locale})
    session_id = session_import(store, instance_id=instance, data=st_chat(400))[0]
    store.memory_json_write(instance, RECAPS_FILE, {"items": [
        {"id": "recap_1", "text": recap, "from_turn": 1, "to_turn": 150,
         "session_id": session_id, "created_at": "2026-01-01T00:00:00Z"}],
        "pending_summaries": []})
    client.put(f"/api/v1/instances/{instance}", {"generation": {"context_tokens": 2048}},
               content_type="application/json", **auth)

    response = chat_post(client, auth, instance, question)

    assert response.status_code == 200, response.content
    text = sent_text(use_stub.requests[-1])
    trace = client.get(f"/api/v1/traces/{response.json()['trace_id']}", **auth).json()
    kept = trace["window"]["first_kept_turn"]
    assert recap in text
    assert said.format(kept=kept, gap=kept - 1) in text
    assert ("summarized above" in text) == (locale == "en")


def test_twenty_long_recaps_in_a_small_window_are_held_to_their_share_and_the_turn_answered(
        client, auth, store, instance, use_stub):
    """A long chat's recaps grow (20 of them, 2,000+ tokens); in a 2,048-token window they
    refused every turn, summarize or not. They are held to half the memory share (the newest
    kept), and the turn is answered; the note before the conversation names the turns the
    recaps sent cover (it named those of every recap)."""
    store.module_write("prompt", {**store.module_read("prompt"), "locale": "en"})
    session_id = session_import(store, instance_id=instance, data=st_chat(400))[0]
    store.memory_json_write(instance, RECAPS_FILE, {"items": [
        {"id": f"recap_{n}", "text": f"Recap {n}: " + WORDS * 8, "from_turn": 10 * n + 1,
         "to_turn": 10 * n + 10, "session_id": session_id, "created_at": "2026-01-01T00:00:00Z"}
        for n in range(20)], "pending_summaries": []})
    client.put(f"/api/v1/instances/{instance}", {"generation": {"context_tokens": 2048}},
               content_type="application/json", **auth)

    response = chat_post(client, auth, instance, "Where is the key?")

    assert response.status_code == 200, response.content
    trace = client.get(f"/api/v1/traces/{response.json()['trace_id']}", **auth).json()
    recaps = next(s for s in trace["sections"] if s["name"] == "recaps")
    assert 0 < recaps["tokens"] <= 2048 // 4 // 2
    text = sent_text(use_stub.requests[-1])
    assert "Recap 19:" in text and "Recap 0:" not in text  # the newest kept
    first = min(n for n in range(20) if f"Recap {n}:" in text)
    assert f"(Turns {10 * first + 1}–200 are summarized above;" in text


def test_rolling_recaps_are_on_by_default_with_a_model_and_off_offline(store, instance,
                                                                       use_stub, settings):
    from chat.selectors import memory_settings_effective

    assert memory_settings_effective(store)["recaps_enabled"] is True
    settings.OPENAI_BASE_URL = settings.OPENAI_API_KEY = ""
    assert memory_settings_effective(store)["recaps_enabled"] is False
    store.module_write("memory", {"recaps_enabled": True})  # a setting either way
    assert memory_settings_effective(store)["recaps_enabled"] is True


# --- a server that holds less than the window ---------------------------------------------

LLAMA_CPP = "request ({prompt} tokens) exceeds the available context size (4096 tokens)"


@pytest.fixture
def long_chat(store: FileStore, instance: str) -> str:
    # Only the turn asks the model; recall stays as the other tests here have it.
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    session_import(store, instance_id=instance, data=st_chat(400))  # ~10,000 tokens
    return instance


def last_reply(store: FileStore, instance: str, response) -> dict:
    """The reply's line as the session file keeps it."""
    return store.session_read(instance, response.json()["session_id"]).lines[-1]


def test_a_refused_long_prompt_is_asked_again_within_the_server_context_and_answered(
        client, auth, store, long_chat, use_stub):
    use_stub.script(Fail(400, LLAMA_CPP.format(prompt=11_800)), Reply("The key is under the oak."))

    response = chat_post(client, auth, long_chat, "Where did we hide the key?")

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
    again = chat_post(client, auth, long_chat, "And the map?")

    assert again.json()["answer_text"] == "Still here."
    assert len(use_stub.requests) == 3  # the next turn is sent once, in the learned window
    assert (prompt_tokens(use_stub.requests[-1]) + use_stub.requests[-1]["max_tokens"]) <= 4096


def test_an_openai_style_refusal_without_the_server_count_still_fits_the_limit(
        client, auth, store, long_chat, use_stub):
    use_stub.script(Fail(400, "This model's maximum context length is 8192 tokens. Please "
                              "reduce the length of the messages."), Reply("Fine."))

    response = chat_post(client, auth, long_chat, "Hello again")

    assert response.json()["answer_text"] == "Fine."
    second = use_stub.requests[-1]
    assert prompt_tokens(second) + second["max_tokens"] <= 8192 * 0.95


def test_an_error_that_is_not_about_length_is_not_asked_again(client, auth, store, long_chat,
                                                                use_stub):
    use_stub.script(Fail(400, "unknown model 'stub-model'"))

    response = chat_post(client, auth, long_chat, "Hello?")

    assert len(use_stub.requests) == 1
    reply = last_reply(store, long_chat, response)
    assert reply.get("error") and "unknown model" in reply["content"]


def test_a_server_that_keeps_refusing_ends_the_turn_with_its_words(client, auth, store,
                                                                   long_chat, use_stub):
    refusal = Fail(400, "the request exceeds the available context size, try increasing it")
    use_stub.script(refusal, refusal, refusal, refusal)

    response = chat_post(client, auth, long_chat, "Hello?")

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

    response = chat_post(client, auth, long_chat, "Where did we hide the key?")

    assert response.json()["answer_text"] and not response.json()["error"]
    (request,) = use_stub.requests  # sent once, within what the server holds
    assert prompt_tokens(request) + request["max_tokens"] <= 4096


def test_koboldcpp_context_size_is_the_window_so_nothing_is_cut_without_a_word(
        client, auth, store, long_chat, use_stub):
    use_stub.server_info = {"/api/extra/true_max_context_length": {"value": 8192}}

    chat_post(client, auth, long_chat, "Where did we hide the key?")

    request = use_stub.requests[-1]
    assert 4096 < prompt_tokens(request) + request["max_tokens"] <= 8192


def test_ollama_loaded_model_context_is_the_window_so_nothing_is_cut_without_a_word(
        client, auth, store, long_chat, use_stub):
    """Ollama's OpenAI endpoint cuts a longer prompt without a word; /api/ps says the context
    the loaded model runs with (its name there carries the tag "latest")."""
    use_stub.server_info = {"/api/ps": {"models": [
        {"name": "other:7b", "model": "other:7b", "context_length": 2048},
        {"name": "stub-model:latest", "model": "stub-model:latest", "context_length": 6144}]}}

    chat_post(client, auth, long_chat, "Where did we hide the key?")

    request = use_stub.requests[-1]
    assert 4096 < prompt_tokens(request) + request["max_tokens"] <= 6144


def test_ollama_model_not_loaded_takes_its_modelfile_num_ctx_or_ollamas_default(
        client, auth, store, long_chat, use_stub):
    use_stub.server_info = {"/api/ps": {"models": []},
                            "/api/show": {"parameters": "stop \"<|im_end|>\"\nnum_ctx    8192"}}
    chat_post(client, auth, long_chat, "Where did we hide the key?")
    request = use_stub.requests[-1]
    assert 4096 < prompt_tokens(request) + request["max_tokens"] <= 8192

    model_context_forget()
    use_stub.server_info = {"/api/ps": {"models": []}, "/api/show": {"parameters": ""}}
    chat_post(client, auth, long_chat, "And the map?")
    request = use_stub.requests[-1]
    assert prompt_tokens(request) + request["max_tokens"] <= 4096  # Ollama's default, assumed


def test_ollama_default_is_not_kept_once_the_loaded_model_says_more(
        client, auth, store, long_chat, use_stub, monkeypatch):
    """The assumed default is asked again soon: once the first turn has loaded the model,
    /api/ps gives the context it really runs with."""
    monkeypatch.setattr(model_context, "GUESS_SECONDS", 0.0)
    use_stub.server_info = {"/api/ps": {"models": []}}
    chat_post(client, auth, long_chat, "Where did we hide the key?")
    assert prompt_tokens(use_stub.requests[-1]) + use_stub.requests[-1]["max_tokens"] <= 4096

    use_stub.server_info = {"/api/ps": {"models": [
        {"name": "stub-model:latest", "model": "stub-model:latest", "context_length": 12288}]}}
    chat_post(client, auth, long_chat, "Where did we hide the key?")  # the guess has lapsed
    request = use_stub.requests[-1]
    assert 8192 < prompt_tokens(request) + request["max_tokens"] <= 12288


def test_lm_studio_loaded_context_is_the_window(client, auth, store, long_chat, use_stub):
    """LM Studio's OpenAI model list says no context; its own API says what the model was
    loaded with (`max_context_length` is the model's training context, not what it holds)."""
    use_stub.server_info = {"/api/v0/models/stub-model": {
        "id": "stub-model", "state": "loaded", "max_context_length": 131072,
        "loaded_context_length": 6144}}

    chat_post(client, auth, long_chat, "Where did we hide the key?")

    request = use_stub.requests[-1]
    assert 4096 < prompt_tokens(request) + request["max_tokens"] <= 6144


def test_a_message_larger_than_the_window_is_passed_over_and_the_older_ones_still_sent(
        client, auth, store, instance, use_stub):
    client.put(f"/api/v1/instances/{instance}", {"generation": {"context_tokens": 4096}},
               content_type="application/json", **auth)
    session_import(store, instance_id=instance, data=st_chat(6))
    refused = chat_post(client, auth, instance,
                        "Here is the whole story I wrote. " + "word " * 3900)
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "prompt_too_long"

    response = chat_post(client, auth, instance, "ok, forget that. Where were we?")

    assert response.status_code == 200, response.content
    text = next(sent_text(r) for r in use_stub.requests if "Where were we?" in sent_text(r))
    assert "msg 0:" in text and "msg 5:" in text and "word word" not in text
    # The rolling recap of those turns is fitted to the window too, the long message shortened.
    recaps = [r for r in use_stub.requests if "word word" in sent_text(r)]
    assert recaps and all(prompt_tokens(r) <= 4096 - 512 for r in recaps)
    # Sent (KoboldCpp's own default cut recaps short), within what the window leaves.
    assert all(1024 <= r["max_tokens"] <= 4096 - prompt_tokens(r) for r in recaps)
    trace = client.get(f"/api/v1/traces/{response.json()['trace_id']}", **auth).json()
    conversation = next(s for s in trace["sections"] if s["name"] == "conversation")
    assert "1 message(s) larger than the whole budget left out" in conversation["note"]


def test_a_line_alone_over_the_limit_is_refused_before_its_prompt_is_built(
        client, auth, store, instance, use_stub, monkeypatch):
    """Tenth red-team pass: recall, lore and the prompt's fitting ran first, for nothing."""
    built, prepare = [], turn_context.context_prepare
    monkeypatch.setattr(turn_context, "context_prepare",
                        lambda *args, **kwargs: built.append(args) or prepare(*args, **kwargs))
    client.put(f"/api/v1/instances/{instance}", {"generation": {"context_tokens": 4096}},
               content_type="application/json", **auth)
    refused = chat_post(client, auth, instance, "word " * 3900)
    assert refused.status_code == 422, refused.content
    error = refused.json()["error"]
    assert error["code"] == "prompt_too_long"
    assert error["message"].startswith(
        "Your message alone is 3,901 tokens, more than the 4,096-token context window less "
        "1,024 for the reply (3,072): shorten it or send it in parts, or raise")
    assert not built and not use_stub.requests
    chat_post(client, auth, instance, "word " * 3000)  # it fits alone: the whole prompt decides
    assert built


@pytest.mark.parametrize("persona_words", [40, 60])
def test_recall_gives_way_to_the_recent_chat_in_a_small_window(
        client, auth, store, alice, background, use_stub, memory_on, persona_words):
    """A 2,048-token window, a persona of 600–900 tokens, a long imported chat and a question
    recall answers: recall took its whole share (437 tokens), leaving the conversation the
    newest message or two, and with the larger persona refused the turn naming "recalled"
    among what the prompt always holds. Recall now shares the room with the recent chat."""
    from django.core.management import call_command

    character = character_save(store, user=alice, character_id=None, data={
        "name": "Mira", "base_persona": WORDS * persona_words, "greeting": "",
        "visibility": "private"})
    instance = instance_create(store, owner=alice, character_id=character,
                               background_id=background)
    session_import(store, instance_id=instance, data=st_chat(120))  # more than the window
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    call_command("reindex", "--memory")
    client.put(f"/api/v1/instances/{instance}", {"generation": {"context_tokens": 2048}},
               content_type="application/json", **auth)
    use_stub.script(Reply("Yes."))

    response = chat_post(client, auth, instance,
                         "Do you remember the lantern over the wet cobbles?")

    assert response.status_code == 200, response.content
    trace = client.get(f"/api/v1/traces/{response.json()['trace_id']}", **auth).json()
    tokens = {section["name"]: section["tokens"] for section in trace["sections"]}
    assert 0 < tokens["recalled"] <= tokens["conversation"]
    assert prompt_tokens(use_stub.requests[-1]) <= 2048 - 512


def test_a_room_smaller_than_each_older_message_still_answers_with_the_newest(
        client, auth, store, alice, background, use_stub):
    """A 4,096-token window, a 2,500-token card and a role-play chat of 300-token messages: every
    older message was larger than the conversation's room, each was passed over as a pasted text
    would be, the whole session was then counted as unread and every turn refused."""
    character = character_save(store, user=alice, character_id=None, data={
        "name": "Mira", "base_persona": WORDS * 170, "greeting": "", "visibility": "private"})
    instance = instance_create(store, owner=alice, character_id=character,
                               background_id=background)
    records = json.loads(st_chat(0))
    lines = [json.dumps({**records, "chat_metadata": {}})] + [json.dumps({
        "name": "Ann" if n % 2 == 0 else "Mira", "is_user": n % 2 == 0, "is_system": False,
        "send_date": "May 12, 2024 5:41pm", "mes": f"msg {n}: " + WORDS * 20, "extra": {}})
        for n in range(400)]
    session_import(store, instance_id=instance, data="\n".join(lines).encode() + b"\n")
    client.put(f"/api/v1/instances/{instance}", {"generation": {"context_tokens": 4096}},
               content_type="application/json", **auth)

    response = chat_post(client, auth, instance, "Go on.")

    assert response.status_code == 200, response.content
    request = use_stub.requests[-1]
    assert prompt_tokens(request) + request["max_tokens"] <= 4096
    assert "Go on." in sent_text(request)
