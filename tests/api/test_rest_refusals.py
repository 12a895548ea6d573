"""REST refusals name what is wrong: a body field of the wrong type, an unknown or another
account's id, a turn or session that never was; nothing is changed and no server path is shown.
(First found by driving a fresh clone from outside with a bearer token only, SPEC §7/§10.)"""

from __future__ import annotations

import json

import pytest

from chat.models import ApiToken


def _call(client, user, method, url, body=None):
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(user)}"}
    data = json.dumps(body) if body is not None else ""
    return getattr(client, method)(url, data, content_type="application/json", **auth)


def _fields(response) -> dict:
    return response.json()["error"]["fields"]


@pytest.mark.django_db
@pytest.mark.parametrize("value", ["yes", 1, "false"])
def test_archived_that_is_not_true_or_false_is_refused_and_the_instance_stays_as_it_was(
        client, alice, instance, value):
    response = _call(client, alice, "put", f"/api/v1/instances/{instance}", {"archived": value})
    assert response.status_code == 400
    assert "archived" in _fields(response)
    detail = _call(client, alice, "get", f"/api/v1/instances/{instance}").json()
    assert detail.get("archived") in (None, False)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["temperature", "seed", "max_tokens"])
def test_a_generation_setting_sent_as_a_list_is_refused_not_silently_removed(
        client, alice, instance, name):
    url = f"/api/v1/instances/{instance}"
    good = {"temperature": 0.7, "seed": 7, "max_tokens": 300}[name]
    assert _call(client, alice, "put", url, {"generation": {name: good}}).status_code == 200
    response = _call(client, alice, "put", url, {"generation": {name: []}})
    assert response.status_code == 400
    assert f"generation.{name}" in _fields(response)
    assert _call(client, alice, "get", url).json()["generation"][name] == good


@pytest.mark.django_db
def test_an_empty_stop_list_still_clears_the_stop_strings(client, alice, instance):
    url = f"/api/v1/instances/{instance}"
    _call(client, alice, "put", url, {"generation": {"stop": ["\nTom:"]}})
    response = _call(client, alice, "put", url, {"generation": {"stop": []}})
    assert response.status_code == 200
    assert "stop" not in response.json()["generation"]


@pytest.mark.django_db
@pytest.mark.parametrize("kind,key", [("characters", "character_id"),
                                      ("backgrounds", "background_id"),
                                      ("lorebooks", "lorebook_id")])
@pytest.mark.parametrize("value", [[], {}, 0, False])
def test_an_asked_for_id_of_the_wrong_type_is_refused_naming_it(client, alice, store, kind, key,
                                                               value):
    before = sorted(p.name for p in (store.root / kind).glob("*")) if (
        store.root / kind).exists() else []
    response = _call(client, alice, "post", f"/api/v1/{kind}", {key: value, "name": "Zed"})
    assert response.status_code == 400
    assert key in _fields(response)
    after = sorted(p.name for p in (store.root / kind).glob("*")) if (
        store.root / kind).exists() else []
    assert after == before


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["characters", "backgrounds", "lorebooks"])
@pytest.mark.parametrize("value", [[], {}, 0])
def test_a_visibility_of_the_wrong_type_is_refused_naming_it(client, alice, kind, value):
    response = _call(client, alice, "post", f"/api/v1/{kind}", {"name": "Zed",
                                                                 "visibility": value})
    assert response.status_code == 400
    assert "visibility" in _fields(response)


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["characters", "backgrounds"])
def test_lorebook_ids_that_are_an_object_are_refused_naming_them(client, alice, kind):
    response = _call(client, alice, "post", f"/api/v1/{kind}", {"name": "Zed",
                                                                 "lorebook_ids": {}})
    assert response.status_code == 400
    assert "lorebook_ids" in _fields(response)


@pytest.mark.django_db
def test_an_unknown_character_background_or_persona_in_a_body_names_its_field(
        client, alice, instance, character):
    cases = [
        ("post", "/api/v1/instances", {"character_id": "char_nope"}, "character_id"),
        ("post", "/api/v1/instances", {"character_ids": [character, "char_nope"]},
         "character_ids"),
        ("post", "/api/v1/instances", {"character_id": character, "background_id": "bg_nope"},
         "background_id"),
        ("post", "/api/v1/instances", {"character_id": character, "persona_id": "p_nope"},
         "persona_id"),
        ("post", f"/api/v1/instances/{instance}/background", {"background_id": "bg_nope"},
         "background_id"),
        ("post", f"/api/v1/instances/{instance}/members", {"character_id": "char_nope"},
         "character_id"),
        ("post", "/api/v1/chat", {"instance_id": "inst_nope", "query": "hi"}, "instance_id"),
    ]
    for method, url, body, field in cases:
        response = _call(client, alice, method, url, body)
        assert response.status_code == 404, (url, body)
        assert field in _fields(response), (url, body, response.json())


@pytest.mark.django_db
def test_another_accounts_instance_in_a_chat_body_is_404_naming_only_the_field(
        client, alice, bob, instance):
    response = _call(client, bob, "post", "/api/v1/chat", {"instance_id": instance,
                                                           "query": "hi"})
    assert response.status_code == 404
    assert "instance_id" in _fields(response)
    assert "Alserqi" not in response.content.decode()


@pytest.mark.django_db
def test_current_response_of_an_unknown_session_names_no_server_path(client, alice, instance,
                                                                     data_dir):
    response = _call(client, alice, "get",
                     f"/api/v1/instances/{instance}/sessions/sess_404/current_response")
    assert response.status_code == 404
    body = response.content.decode()
    assert str(data_dir) not in body and ".jsonl" not in body
    assert "sess_404" in response.json()["error"]["message"]


@pytest.mark.django_db
def test_current_response_of_a_turn_that_never_was_is_404_naming_turn(client, alice, instance,
                                                                      store):
    store.session_append(instance, "sess_001", {"role": "user", "content": "hi", "turn": 1})
    url = f"/api/v1/instances/{instance}/sessions/sess_001/current_response"
    # The reply to the newest player line (or the next one) may still come: pending.
    assert _call(client, alice, "get", f"{url}?turn=1").json()["status"] == "pending"
    assert _call(client, alice, "get", f"{url}?turn=2").json()["status"] == "pending"
    response = _call(client, alice, "get", f"{url}?turn=999")
    assert response.status_code == 404
    assert "turn" in _fields(response)


@pytest.mark.django_db
def test_a_missing_data_file_is_named_from_the_data_folder_down(client, alice, instance, store,
                                                              data_dir):
    (store.root / "instances" / instance / "instance_state.json").unlink()
    response = _call(client, alice, "get", f"/api/v1/instances/{instance}")
    assert response.status_code in (404, 500)
    message = response.json()["error"]["message"]
    assert str(data_dir) not in message
    assert f"instances/{instance}/instance_state.json" in message


@pytest.mark.django_db
def test_export_of_an_unknown_session_is_404_naming_the_session(client, alice, instance):
    response = _call(client, alice, "get",
                     f"/api/v1/instances/{instance}/sessions/sess_404/export?format=md")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "session 'sess_404' not found"


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/api/v1/conversations?participants=BAD%20ID",
                                 "/api/v1/conversations?participants=char_a,player:",
                                 "/api/v1/participants/BAD..X/conversations",
                                 "/api/v1/participants/player:a%20b/conversations"])
def test_a_participant_id_that_cannot_be_one_is_400_naming_the_field(client, alice, url):
    response = _call(client, alice, "get", url)
    assert response.status_code == 400
    assert set(_fields(response)) & {"participants", "participant_id"}


@pytest.mark.django_db
@pytest.mark.parametrize("method,path,body,field", [
    ("put", "authors_note", {"text": "n", "depth": True}, "depth"),
    ("put", "authors_note", {"text": "n", "frequency": "3"}, "frequency"),
    ("post", "sessions/sess_001/swipe", {"turn": True, "alternative": 0}, "turn"),
    ("post", "persona/restore", {"version": True}, "version"),
])
def test_a_number_sent_as_true_or_as_text_is_refused_naming_the_field(client, alice, instance,
                                                                      method, path, body, field):
    response = _call(client, alice, method, f"/api/v1/instances/{instance}/{path}", body)
    assert response.status_code == 400
    assert field in _fields(response)


@pytest.mark.django_db(transaction=True)
def test_another_accounts_trace_is_404_without_naming_their_instance(client, alice, bob,
                                                                     instance, use_stub):
    trace_id = _call(client, alice, "post", "/api/v1/chat",
                     {"instance_id": instance, "query": "hi"}).json()["trace_id"]
    response = _call(client, bob, "get", f"/api/v1/traces/{trace_id}")
    assert response.status_code == 404
    assert instance not in response.content.decode()
    assert response.json()["error"]["message"] == f"trace {trace_id!r} not found"


@pytest.mark.django_db
@pytest.mark.parametrize("body,code", [({}, "missing_field"), ({"query": "  "}, "bad_request")])
def test_chat_without_a_query_names_the_query_field(client, alice, instance, store, body, code):
    response = _call(client, alice, "post", "/api/v1/chat", {"instance_id": instance, **body})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code and list(error["fields"]) == ["query"]
    session = store.instance_state_read(instance)["current_session_id"]
    assert [line for line in store.session_read(instance, session).lines
            if line.get("role") == "user"] == []


def test_current_response_for_turn_zero_or_below_is_400_naming_turn(alice_client, instance):
    response = alice_client.get(
        f"/api/v1/instances/{instance}/sessions/sess_001/current_response?turn=-1")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"turn": "at least 1"}


def test_a_missing_memory_item_is_named_in_english(client, alice, instance):
    response = _call(client, alice, "delete", f"/api/v1/instances/{instance}/recaps/abc")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "there is no item 'abc'"
