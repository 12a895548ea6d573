"""Differences between SPEC §7/§10 and the running app, found by driving a fresh clone from
outside (REST with a bearer token only): each test is one of them."""

from __future__ import annotations

import asyncio
import io
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
def test_bootstrap_after_a_rebuilt_index_gives_back_the_admin_the_files_name(
        client, data_dir, django_user_model):
    """README: delete the database, `migrate && reindex`, then `make run` (bootstrap) — reindex
    recreates the demo's owner "admin" without a password; bootstrap crashed on it."""
    from django.core.management import call_command

    from library.index_rows import user_for_username

    user_for_username("admin")
    call_command("bootstrap", stdout=io.StringIO())
    admin = django_user_model.objects.get(username="admin")
    assert admin.is_superuser and admin.is_staff
    password = (data_dir / ".admin_password").read_text().strip()
    assert admin.check_password(password)


@pytest.mark.django_db
def test_bootstrap_never_takes_over_an_account_named_admin_that_has_a_password(
        data_dir, django_user_model):
    from django.core.management import call_command

    django_user_model.objects.create_user("admin", password="their-own-password")
    out = io.StringIO()
    call_command("bootstrap", stdout=out)
    admin = django_user_model.objects.get(username="admin")
    assert not admin.is_superuser and admin.check_password("their-own-password")
    assert "createsuperuser" in out.getvalue()


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


@pytest.mark.django_db(transaction=True)
def test_a_lorebook_made_private_again_no_longer_reaches_another_accounts_chat(
        client, alice, bob, character):
    book = _call(client, alice, "post", "/api/v1/lorebooks", {
        "name": "Alice's secrets", "visibility": "shared",
        "entries": [{"keys": [], "constant": True, "content": "THE-VAULT-CODE-IS-7731",
                     "enabled": True}]}).json()
    lorebook_id = book.get("lorebook_id") or book["id"]
    chat = _call(client, bob, "post", "/api/v1/instances",
                 {"character_id": character}).json()["instance_id"]
    assert _call(client, bob, "put", f"/api/v1/instances/{chat}",
                 {"lorebook_ids": [lorebook_id]}).status_code == 200

    def prompt_of_a_turn() -> str:
        trace_id = _call(client, bob, "post", "/api/v1/chat",
                         {"instance_id": chat, "query": "hello"}).json()["trace_id"]
        return json.dumps(_call(client, bob, "get", f"/api/v1/traces/{trace_id}").json())

    assert "THE-VAULT-CODE-IS-7731" in prompt_of_a_turn()  # shared: bob's chat reads it
    assert _call(client, alice, "put", f"/api/v1/lorebooks/{lorebook_id}",
                 {**book, "visibility": "private"}).status_code == 200
    assert "THE-VAULT-CODE-IS-7731" not in prompt_of_a_turn()


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
def test_the_chat_command_plays_a_groups_round_naming_each_speaker(store, alice, character,
                                                                  capsys):
    """SPEC §7 `chat INSTANCE_ID "text"` and §10 groups: every member who answers is named,
    as the WebSocket and REST rounds do (the command played one unnamed reply)."""
    from django.core.management import call_command

    from chat.services.instances import instance_create
    from library.character_services import character_save

    brenna = character_save(store, data={"name": "Brenna", "greeting": ""}, user=alice)
    group = instance_create(store, owner=alice, character_ids=[character, brenna],
                            reply_order="everyone")
    out = io.StringIO()
    call_command("chat", group, "Both of you, report.", stdout=out)
    printed = capsys.readouterr().out + out.getvalue()
    assert "Alserqi:" in printed and "Brenna:" in printed
    assert printed.count(" · trace trc_") == 2
    replies = [m for m in store.session_read(group, "sess_001").messages
               if m["role"] == "assistant" and m.get("turn", 0) > 0]
    assert [m["speaker"] for m in replies] == [character, brenna]


@pytest.mark.django_db(transaction=True)
def test_the_chat_command_answers_as_the_speaker_asked_for(store, alice, character, capsys):
    from django.core.management import call_command

    from chat.services.instances import instance_create
    from library.character_services import character_save

    brenna = character_save(store, data={"name": "Brenna", "greeting": ""}, user=alice)
    group = instance_create(store, owner=alice, character_ids=[character, brenna])
    call_command("chat", group, "Brenna only.", "--speaker", brenna, stdout=io.StringIO())
    replies = [m for m in store.session_read(group, "sess_001").messages
               if m["role"] == "assistant" and m.get("turn", 0) > 0]
    assert [m["speaker"] for m in replies] == [brenna]


def _sse_events(response) -> list[tuple[str, dict]]:
    async def read() -> bytes:
        return b"".join([chunk async for chunk in response.streaming_content])

    body = asyncio.run(read()).decode()
    events, name = [], None
    for line in body.splitlines():
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            events.append((name, json.loads(line[5:])))
    return events


@pytest.mark.django_db(transaction=True)
def test_regenerate_and_continue_have_rest_endpoints_like_the_pages_buttons(
        client, alice, bob, instance, store, use_stub):
    """SPEC §10: every page action has a REST endpoint with the same permission checks; ↻ and →
    were WebSocket-only."""
    from tests.stub_llm import Reply

    use_stub.script(Reply("first"), Reply("second"), Reply(" and more"))
    _call(client, alice, "post", "/api/v1/chat", {"instance_id": instance, "query": "hi"})
    assert _call(client, bob, "post",
                 f"/api/v1/instances/{instance}/regenerate").status_code == 404
    regenerated = _call(client, alice, "post", f"/api/v1/instances/{instance}/regenerate")
    assert regenerated.status_code == 200
    assert regenerated.json()["answer_text"] == "second"
    assert regenerated.json()["trace_id"].startswith("trc_")
    events = _sse_events(_call(client, alice, "post",
                               f"/api/v1/instances/{instance}/continue?stream=true"))
    assert events[-1][0] == "done" and any(name == "token" for name, _ in events)
    last = store.session_read(instance, "sess_001").messages[-1]
    assert last["content"].startswith("second") and last["content"].endswith("and more")
    assert [a["content"] for a in last.get("alternatives", [])] == ["first"]


@pytest.mark.django_db(transaction=True)
def test_regenerate_when_the_chat_ends_with_the_players_line_asks_for_the_missing_reply(
        client, alice, instance, store, use_stub):
    from tests.stub_llm import Reply

    use_stub.script(Reply("at last"))
    store.session_append(instance, "sess_001", {"role": "user", "content": "anyone?", "turn": 1})
    response = _call(client, alice, "post", f"/api/v1/instances/{instance}/regenerate")
    assert response.status_code == 200 and response.json()["answer_text"] == "at last"
    assert [m["content"] for m in store.session_read(instance, "sess_001").messages[-2:]] == [
        "anyone?", "at last"]
