"""Found by walking the running app as a newcomer would: each test is one user-visible slip."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from chat.models import ApiToken

ROOT = Path(__file__).resolve().parents[2]


def _call(client, user, method, url, body=None):
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(user)}"}
    data = json.dumps(body) if body is not None else ""
    return getattr(client, method)(url, data, content_type="application/json", **auth)


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


@pytest.mark.parametrize("database_url", [None, ""], ids=["unset", "empty"])
def test_migrate_creates_a_new_data_folder(tmp_path, database_url):
    """`export DATABASE_URL=` (empty) means the default sqlite index too, not a traceback."""
    data = tmp_path / "fresh" / "data"
    env = {**os.environ, "PERSONALAB_DATA_DIR": str(data),
           "PERSONALAB_SECRET_FILE": str(tmp_path / "secret"),
           "DJANGO_SETTINGS_MODULE": "personalab.settings"}
    env.pop("DATABASE_URL", None)
    if database_url is not None:
        env["DATABASE_URL"] = database_url
    done = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (data / "index.sqlite3").is_file()


@pytest.mark.django_db
def test_pages_name_an_icon_that_exists_so_browsers_do_not_log_a_404(client):
    from django.contrib.staticfiles import finders
    from django.contrib.staticfiles.storage import staticfiles_storage

    page = client.get("/login/").content.decode()
    match = re.search(r'<link rel="icon" href="([^"]+)"', page)
    assert match, "no icon link: the browser asks for /favicon.ico and logs a 404"
    name = match.group(1).removeprefix(staticfiles_storage.base_url)
    assert finders.find(name) is not None



@pytest.mark.django_db
def test_the_personas_list_asks_only_for_avatars_that_exist(client, alice, store):
    from library.persona_services import persona_avatar_save, persona_create
    from tests.library.test_personas import PNG_1PX

    plain = persona_create(store, owner=alice, data={"name": "Plain"})
    pictured = persona_create(store, owner=alice, data={"name": "Pictured"})
    persona_avatar_save(store, actor=alice, persona_id=pictured, data=PNG_1PX)
    client.force_login(alice)
    page = client.get("/library/personas/").content.decode()
    assert f"/library/personas/{pictured}/avatar" in page
    assert f"/library/personas/{plain}/avatar" not in page  # would be a 404 in the console
    assert client.get(f"/library/personas/{pictured}/avatar").status_code == 200


def test_management_commands_do_not_print_the_login_throttles_banner(tmp_path):
    env = {**os.environ, "PERSONALAB_DATA_DIR": str(tmp_path / "data"),
           "PERSONALAB_SECRET_FILE": str(tmp_path / "secret"),
           "DJANGO_SETTINGS_MODULE": "personalab.settings"}
    env.pop("DATABASE_URL", None)
    done = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "AXES" not in done.stdout + done.stderr


def test_current_response_for_turn_zero_or_below_is_400_naming_turn(alice_client, instance):
    response = alice_client.get(
        f"/api/v1/instances/{instance}/sessions/sess_001/current_response?turn=-1")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"turn": "at least 1"}


def test_a_missing_memory_item_is_named_in_english(client, alice, instance):
    response = _call(client, alice, "delete", f"/api/v1/instances/{instance}/recaps/abc")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "there is no item 'abc'"
