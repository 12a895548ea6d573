"""REST API: status codes, bearer tokens, SSE, sessions, traces, isolation."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from chat.models import ApiToken
from tests.rest_client import bearer_caller

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def token(alice):
    return ApiToken.issue(alice)


@pytest.fixture
def api(client, token):
    def call(method, url, body=None, **extra):
        payload = json.dumps(body) if isinstance(body, (dict, list)) else body
        return getattr(client, method)(url, data=payload, content_type="application/json",
                                       HTTP_AUTHORIZATION=f"Bearer {token}", **extra)
    return call


def test_create_and_list_instances(api, character, background):
    created = api("post", "/api/v1/instances",
                  {"character_id": character, "background_id": background})
    assert created.status_code == 201
    listed = api("get", "/api/v1/instances").json()["instances"]
    assert [row["instance_id"] for row in listed] == [created.json()["instance_id"]]


def test_chat_returns_the_answer_and_the_trace(api, instance, use_stub):
    use_stub.script(Reply := __import__("tests.stub_llm", fromlist=["Reply"]).Reply("你好，我在。"))
    response = api("post", "/api/v1/chat", {"instance_id": instance, "query": "你好"})
    assert response.status_code == 200
    body = response.json()
    assert body["answer_text"] == "你好，我在。" and body["turn"] == 1
    assert body["session_id"] == "sess_001" and body["warnings"] == []
    trace = api("get", f"/api/v1/traces/{body['trace_id']}").json()
    assert trace["reply"]["content"] == "你好，我在。"
    assert trace["sections"] and trace["messages"]
    current = api("get", f"/api/v1/instances/{instance}/sessions/sess_001/current_response?turn=1")
    assert current.json()["content"] == "你好，我在。"
    assert current.json()["status"] == "complete"


def test_the_light_trace_has_the_budget_figures_and_not_the_conversation(api, instance, store,
                                                                         use_stub):
    """The chat page's budget bar asks `?fields=sections`: on a long chat that is a few KB
    where the whole trace (every message sent) is far larger; the whole form is unchanged."""
    from tests.stub_llm import Reply

    for turn in range(1, 201):
        store.session_append(instance, "sess_001", {"role": "user", "turn": turn,
                                                    "content": f"Question {turn}. " * 20})
        store.session_append(instance, "sess_001", {"role": "assistant", "turn": turn,
                                                    "content": f"Answer {turn}. " * 40})
    use_stub.script(Reply("Still here."))
    trace_id = api("post", "/api/v1/chat", {"instance_id": instance, "query": "Go on"}).json()[
        "trace_id"]
    whole = api("get", f"/api/v1/traces/{trace_id}")
    light = api("get", f"/api/v1/traces/{trace_id}?fields=sections")
    assert light.status_code == 200 and whole.json()["messages"][-1]["content"] == "Go on"
    figures, full = light.json(), whole.json()
    assert "messages" not in figures and "reply" not in figures
    assert figures["total_tokens"] == full["total_tokens"] > 0
    assert figures["max_total_tokens"] == full["max_total_tokens"]
    # The bar's 100 % is what the prompt could hold: the model's window less the reply when
    # that is below the server's cap (a turn is refused there), not the cap.
    assert figures["prompt_limit"] == full["window"]["prompt_limit"]
    assert figures["prompt_limit"] < full["max_total_tokens"]
    conversation = next(s for s in figures["sections"] if s["name"] == "conversation")
    assert conversation["tokens"] > 1000 and "text" not in conversation
    assert [(s["name"], s["region"], s["tokens"]) for s in figures["sections"]] == [
        (s["name"], s["region"], s["tokens"]) for s in full["sections"]]
    assert len(light.content) * 20 < len(whole.content)
    bad = api("get", f"/api/v1/traces/{trace_id}?fields=messages")
    assert bad.status_code == 400 and "fields" in bad.json()["error"]["fields"]


async def test_chat_streams_server_sent_events(async_client, instance, use_stub, token):
    from tests.stub_llm import Reply

    use_stub.script(Reply("one two three", chunk_size=4))
    response = await async_client.post(
        "/api/v1/chat", data=json.dumps({"instance_id": instance, "query": "hi", "stream": True}),
        content_type="application/json", headers={"Authorization": f"Bearer {token}"})
    assert response["Content-Type"] == "text/event-stream"
    body = b"".join([chunk async for chunk in response.streaming_content]).decode()
    events = [block.split("\n") for block in body.strip().split("\n\n")]
    kinds = [lines[0].removeprefix("event: ") for lines in events]
    # Pieces already in the file when a push goes out travel together, so count text, not events.
    assert kinds[-1] == "done" and "token" in kinds
    tokens = [json.loads(lines[1].removeprefix("data: "))["content"]
              for lines in events if lines[0] == "event: token"]
    assert "".join(tokens) == "one two three"


def _sse_events(body: str) -> list[tuple[str, dict]]:
    blocks = [block.split("\n") for block in body.strip().split("\n\n")]
    return [(lines[0].removeprefix("event: "), json.loads(lines[1].removeprefix("data: ")))
            for lines in blocks]


async def test_sse_ends_with_an_error_event_when_the_turn_fails_unexpectedly(
        async_client, instance, use_stub, token, monkeypatch, store):
    from tests.stub_llm import Reply

    def broken_director(*args, **kwargs):
        raise RuntimeError("a bug after the reply streamed")

    monkeypatch.setattr("chat.play.turn.director_step", broken_director)
    use_stub.script(Reply("kept text", chunk_size=4))
    response = await async_client.post(
        "/api/v1/chat", data=json.dumps({"instance_id": instance, "query": "hi", "stream": True}),
        content_type="application/json", headers={"Authorization": f"Bearer {token}"})
    body = b"".join([chunk async for chunk in response.streaming_content]).decode()
    events = _sse_events(body)
    assert [kind for kind, _ in events].count("error") == 1
    kind, error = events[-1]
    assert kind == "error" and error["code"] == "internal" and "RuntimeError" in error["message"]
    assert "".join(data["content"] for kind, data in events if kind == "token") == "kept text"
    assert store.session_read(instance, "sess_001").messages[-1]["content"] == "kept text"


async def test_sse_ends_with_an_error_event_when_the_turn_is_refused(
        async_client, instance, token, store):
    lock = store.instance_lock(instance).acquire()
    try:
        response = await async_client.post(
            "/api/v1/chat",
            data=json.dumps({"instance_id": instance, "query": "hi", "stream": True}),
            content_type="application/json", headers={"Authorization": f"Bearer {token}"})
        body = b"".join([chunk async for chunk in response.streaming_content]).decode()
    finally:
        lock.release()
    [(kind, error)] = _sse_events(body)
    # the code for a program, the words for a person (the chat page's, in the request's language)
    assert kind == "error" and error["code"] == "busy"
    assert "another change holds this chat" in error["message"]


@pytest.mark.parametrize("body, status, code", [
    ("{not json", 400, "malformed_json"),
    ("[1]", 400, "malformed_json"),
    ({"query": "hi"}, 400, "missing_field"),
    ({"instance_id": "../etc", "query": "hi"}, 400, "invalid_id"),
    ({"instance_id": "inst_999", "query": "hi"}, 404, "not_found"),
    ({"instance_id": "inst_001", "query": ""}, 400, "bad_request"),
])
def test_chat_errors_are_json_with_the_right_status(api, instance, body, status, code):
    response = api("post", "/api/v1/chat", body)
    assert response.status_code == status
    assert response.json()["error"]["code"] == code


def test_oversized_message_is_413(api, instance, settings):
    settings.PERSONALAB_MAX_MESSAGE_CHARS = 50
    response = api("post", "/api/v1/chat", {"instance_id": instance, "query": "x" * 51})
    assert response.status_code == 413


def test_busy_instance_is_409(api, instance, store):
    lock = store.instance_lock(instance).acquire()
    try:
        response = api("post", "/api/v1/chat", {"instance_id": instance, "query": "hi"})
    finally:
        lock.release()
    assert response.status_code == 409 and response.json()["error"]["code"] == "busy"


def test_over_limit_is_422_in_the_requests_language_and_the_trace_keeps_the_seed_message(
        api, instance, store):
    config = store.config_read()
    config["limits"]["max_total_tokens"] = 10000
    store.config_write(config)
    alone = api("post", "/api/v1/chat", {"instance_id": instance, "query": "长" * 12000})
    assert alone.status_code == 422
    assert alone.json()["error"]["message"].startswith("Your message alone is 12,0")
    # A line that fits alone is judged by the whole prompt, and that refusal has a trace.
    response = api("post", "/api/v1/chat", {"instance_id": instance, "query": "长" * 9990})
    assert response.status_code == 422
    error = response.json()["error"]
    assert error["message"].startswith("The prompt is over the limit (")
    trace = store.trace_read(instance, error["trace_id"])
    assert "请执行汇总或调整配置" in trace["refused"]
    chinese = api("post", "/api/v1/chat", {"instance_id": instance, "query": "长" * 9990},
                  HTTP_ACCEPT_LANGUAGE="zh-hans").json()["error"]["message"]
    assert chinese.startswith("提示词超过了上限（")


def test_no_credentials_is_401_and_a_bad_token_too(client, instance):
    assert client.get("/api/v1/instances").status_code == 401
    response = client.get("/api/v1/instances", HTTP_AUTHORIZATION="Bearer nope")
    assert response.status_code == 401 and response.json()["error"]["code"] == "unauthorized"


def test_another_users_instance_trace_and_session_are_404(client, bob, instance, api):
    trace_id = api("post", "/api/v1/chat", {"instance_id": instance, "query": "hi"}
                   ).json()["trace_id"]
    bob_token = ApiToken.issue(bob)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {bob_token}"}
    assert client.get(f"/api/v1/instances/{instance}", **auth).status_code == 404
    assert client.get(f"/api/v1/traces/{trace_id}", **auth).status_code == 404
    assert client.get("/api/v1/sessions/sess_001", **auth).status_code == 404
    assert client.post("/api/v1/chat", json.dumps({"instance_id": instance, "query": "x"}),
                       content_type="application/json", **auth).status_code == 404
    assert client.get("/api/v1/instances", **auth).json()["instances"] == []


def test_session_summary_and_delete_archives(api, instance, store):
    api("post", "/api/v1/chat", {"instance_id": instance, "query": "hi"})
    summary = api("get", "/api/v1/sessions/sess_001").json()
    assert summary["message_count"] == 2 and summary["recent_messages"][0]["content"] == "hi"
    deleted = api("delete", "/api/v1/sessions/sess_001").json()
    assert deleted["success"] is True and deleted["current_session_id"] == "sess_002"
    archived = list((store.sessions_dir(instance) / "archive").glob("sess_001.*.jsonl"))
    assert len(archived) == 1 and "hi" in archived[0].read_text()


def test_session_api_needs_csrf_for_cookie_clients(client, alice, instance):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    response = strict.post("/api/v1/chat", json.dumps({"instance_id": instance, "query": "x"}),
                           content_type="application/json")
    assert response.status_code == 403


def test_only_staff_may_change_the_config(api, store):
    assert api("get", "/api/v1/config").json() == store.config_read()
    for method, url, body in (("put", "/api/v1/config", {"thresholds": {
            "rag_fallback_threshold": 9}}), ("post", "/api/v1/config/reset", None)):
        response = api(method, url, body)
        assert response.status_code == 403 and response.json()["error"]["code"] == "forbidden"
    assert not store.config_path.exists()


def test_config_put_validates_every_field_and_writes_nothing_on_error(client, staff, store):
    client.force_login(staff)
    bad = client.put("/api/v1/config", json.dumps({
        "thresholds": {"rag_fallback_threshold": 11}, "limits": {"max_total_tokens": 9999}}),
        content_type="application/json")
    assert bad.status_code == 400
    fields = bad.json()["error"]["fields"]
    assert set(fields) == {"thresholds.rag_fallback_threshold", "limits.max_total_tokens"}
    assert not store.config_path.exists()
    good = client.put("/api/v1/config", json.dumps({"thresholds": {"rag_fallback_threshold": 10}}),
                      content_type="application/json")
    assert good.status_code == 200 and store.config_read()["thresholds"][
        "rag_fallback_threshold"] == 10
    reset = client.post("/api/v1/config/reset")
    assert reset.json()["thresholds"]["rag_fallback_threshold"] == 3


@pytest.mark.parametrize("field, low, high", [
    ("thresholds.rag_fallback_threshold", 1, 10),
    ("thresholds.summary_last_n_turns", 1, 20),
    ("limits.max_total_tokens", 10000, 200000),
    ("limits.middle_section_warning_tokens", 1000, 50000),
])
def test_config_boundaries(client, staff, field, low, high):
    client.force_login(staff)
    section, key = field.split(".")
    for value, ok in ((low, True), (high, True), (low - 1, False), (high + 1, False)):
        response = client.put("/api/v1/config", json.dumps({section: {key: value}}),
                              content_type="application/json")
        assert (response.status_code == 200) is ok, (field, value, response.content)
    client.post("/api/v1/config/reset")


def test_characters_and_backgrounds_crud(api, instance):
    created = api("post", "/api/v1/characters", {"name": "Mira", "base_persona": "a medic"})
    assert created.status_code == 201
    character_id = created.json()["character_id"]
    assert api("put", f"/api/v1/characters/{character_id}", {"greeting": "hi"}
               ).json()["greeting"] == "hi"
    assert api("delete", f"/api/v1/characters/{character_id}").status_code == 200
    assert api("get", f"/api/v1/characters/{character_id}").status_code == 404
    in_use = api("delete", "/api/v1/characters/char_alserqi")
    # The sentence names the chats as the player knows them; the ids are in `instance_ids`.
    assert in_use.status_code == 409 and "inst_001" in in_use.json()["error"]["instance_ids"]
    assert "Alserqi" in in_use.json()["error"]["message"]
    bg = api("post", "/api/v1/backgrounds", {"name": "Sea", "story_outline": ["a", "b"]})
    assert api("get", f"/api/v1/backgrounds/{bg.json()['background_id']}"
               ).json()["story_outline"][1] == {"index": 2, "content": "b"}


def test_switch_background_keeps_plot_state(api, instance, store):
    store_state = store.instance_state_read(instance)
    bg = api("post", "/api/v1/backgrounds", {"name": "Short", "story_outline": ["only"]}).json()
    result = api("post", f"/api/v1/instances/{instance}/background",
                 {"background_id": bg["background_id"]})
    assert result.status_code == 200
    state = store.instance_state_read(instance)
    assert state["background_id"] == bg["background_id"]
    assert state["plot_state"] == store_state["plot_state"]
    assert api("post", f"/api/v1/instances/{instance}/background",
               {"background_id": None}).status_code == 200
    assert store.instance_state_read(instance)["background_id"] is None



def test_switch_background_of_another_account_is_404_and_a_missing_field_is_named(
        api, client, instance, store, bob):
    before = store.instance_state_read(instance)
    bob_auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(bob)}"}
    refused = client.post(f"/api/v1/instances/{instance}/background",
                          json.dumps({"background_id": None}), content_type="application/json",
                          **bob_auth)
    assert refused.status_code == 404
    missing = api("post", f"/api/v1/instances/{instance}/background", {})
    assert missing.status_code == 400 and "background_id" in missing.json()["error"]["fields"]
    assert store.instance_state_read(instance) == before


def test_create_api_token_command(alice, capsys):
    call_command("create_api_token", "alice")
    token = capsys.readouterr().out.strip()
    assert token.startswith("pl_") and ApiToken.objects.filter(
        token_hash=ApiToken.hash(token)).exists()


def _call(client, user, method, url, body=None):
    return bearer_caller(client, user)(method, url, body)


@pytest.mark.django_db
def test_the_instance_list_shows_each_ones_name_archived_flag_and_characters(
        client, alice, instance, character, store):
    from library.character_services import character_save

    other = character_save(store, data={"name": "Brenna"}, user=alice)
    _call(client, alice, "put", f"/api/v1/instances/{instance}",
          {"name": "Night of fog", "archived": True})
    group = _call(client, alice, "post", "/api/v1/instances",
                  {"character_ids": [character, other]}).json()["instance_id"]
    rows = {row["instance_id"]: row
            for row in _call(client, alice, "get", "/api/v1/instances").json()["instances"]}
    assert (rows[instance]["name"], rows[instance]["archived"]) == ("Night of fog", True)
    assert rows[instance]["character_ids"] == [character]
    assert (rows[group]["name"], rows[group]["archived"]) == ("", False)
    assert rows[group]["character_ids"] == [character, other]
