"""The management commands a newcomer runs: `bootstrap` (the admin account of `make run`) and
`chat INSTANCE_ID "text"` (SPEC §7), including a round of a group."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

import pytest


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


@pytest.mark.parametrize("environment, arguments, served", [
    ({"HOST": "0.0.0.0"}, [], "HOST=127.0.0.1 "), ({}, ["HOST=0.0.0.0"], "HOST=0.0.0.0 ")])
def test_make_run_serves_another_address_only_when_told_on_its_command_line(
        environment, arguments, served):
    # `HOST ?=` took the environment's: tcsh sets HOST to the machine's name, some container
    # images to 0.0.0.0, and make run served the chat to the network unasked.
    root = Path(__file__).resolve().parents[2]
    planned = subprocess.run(["make", "-n", "run", *arguments], cwd=root, check=True,
                             capture_output=True, text=True,
                             env={**os.environ, **environment}).stdout
    assert served in next(line for line in planned.splitlines() if "manage.py serve" in line)


@pytest.mark.django_db
def test_the_start_message_stops_showing_the_first_admin_password_once_it_is_changed(
        data_dir, django_user_model):
    # make run printed the first password at every start, also after the admin changed it.
    from chat.management.commands.bootstrap import admin_ensure, login_text

    assert admin_ensure()
    password = (data_dir / ".admin_password").read_text().strip()
    assert password in login_text()
    admin = django_user_model.objects.get(username="admin")
    admin.set_password("a-new-one-of-their-own")
    admin.save()
    assert password not in login_text() and "the password you gave it" in login_text()
