"""Creates at once that each passed the first look at an account's limit (two tabs, two
workers) are kept up to the limit, never over it: their second look counts and undoes one
create at a time (library/quotas.py). Before, eight lorebooks created at once on two workers
all counted eight rows and all undid themselves, so none was made (tests/scale, a fresh clone
of 2026-12-03)."""

from __future__ import annotations

import contextlib
import threading
import time

import pytest
from django.db import connection
from django.db.models import QuerySet

from chat.models import Instance
from chat.services.instances import instance_create
from chat.services.quotas import instance_room_kept
from library import quotas
from library.character_services import character_save
from library.models import Persona
from library.quotas import library_room_kept
from personalab.lib.errors import LimitReached
from personalab.lib.filestore.variables import account_variables_read

pytestmark = pytest.mark.django_db(transaction=True)


def _persona_row(alice, item_id: str) -> None:
    Persona.objects.create(persona_id=item_id, owner=alice, name=item_id)


def _persona_kept(store, alice, item_id: str) -> None:
    library_room_kept(store, kind="personas", user=alice, item_id=item_id)


def _chat_row(alice, item_id: str) -> None:
    Instance.objects.create(instance_id=item_id, owner=alice, current_session_id="s1",
                            created_at="2026-12-03T09:00:00Z")


def _chat_kept(store, alice, item_id: str) -> None:
    instance_room_kept(store, owner=alice, instance_id=item_id)


KINDS = {"personas": ("PERSONALAB_PERSONAS_PER_ACCOUNT", Persona, _persona_row, _persona_kept),
         "chats": ("PERSONALAB_INSTANCES_PER_ACCOUNT", Instance, _chat_row, _chat_kept)}


@pytest.mark.parametrize("kind", KINDS)
def test_creates_written_at_once_keep_as_many_as_the_limit(store, alice, settings, monkeypatch,
                                                           kind):
    setting, model, row_write, kept = KINDS[kind]
    setattr(settings, setting, 3)
    ids = [f"racer_{n}" for n in range(8)]
    for item_id in ids:  # every create's row is written before any looks again
        row_write(alice, item_id)
    counted = QuerySet.count

    def count_slowly(queryset):  # the others' looks land inside each one's
        found = counted(queryset)
        time.sleep(0.05)
        return found

    monkeypatch.setattr(QuerySet, "count", count_slowly)
    refused: list[str] = []

    def look(item_id: str) -> None:
        try:
            kept(store, alice, item_id)
        except LimitReached:
            refused.append(item_id)
        finally:
            connection.close()

    threads = [threading.Thread(target=look, args=(item_id,)) for item_id in ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert len(refused) == 5
    assert sorted(model.objects.filter(owner=alice).values_list("pk", flat=True)) == sorted(
        set(ids) - set(refused))


def test_a_chat_refused_at_its_second_look_leaves_no_variable_its_greeting_set(
        store, alice, settings, monkeypatch):
    """Seventh red-team pass: a chat start undone by the second look (another start took the
    last place) had already run its greeting's variable macros, so the account's variables
    kept what a chat nobody saw set."""
    character_id = character_save(store, data={
        "name": "Mira", "base_persona": "A guide.",
        "greeting": "Hello.{{setglobalvar::met::yes}}"}, character_id=None, user=alice)
    settings.PERSONALAB_INSTANCES_PER_ACCOUNT = 1
    _chat_row(alice, "other_start")  # the start that took the last place meanwhile
    monkeypatch.setattr("chat.services.instances.instance_room_check", lambda **kwargs: None)
    with pytest.raises(LimitReached):
        instance_create(store, owner=alice, character_id=character_id)
    assert account_variables_read(store, username="alice") == {}
    assert list(Instance.objects.filter(owner=alice).values_list("pk", flat=True)) == [
        "other_start"]


def test_one_accounts_create_in_its_counting_step_holds_no_other_accounts(alice, bob,
                                                                          monkeypatch):
    """Seventh red-team pass: the process's lock around the counting step was one for every
    account, so bob's creates at once (each request its own thread) queued alice's. The
    database's lock is stood in for here: SQLite's serializes every writer anyway, PostgreSQL's
    is on the account's row."""
    monkeypatch.setattr(quotas.transaction, "atomic", contextlib.nullcontext)
    inside, leave = threading.Event(), threading.Event()

    def bobs_slow_step() -> None:
        with quotas.account_creates_one_at_a_time(bob):
            inside.set()
            leave.wait(5)

    holder = threading.Thread(target=bobs_slow_step)
    holder.start()
    assert inside.wait(5)
    entered = threading.Event()

    def alices_step() -> None:
        with quotas.account_creates_one_at_a_time(alice):
            entered.set()

    threading.Thread(target=alices_step).start()
    try:
        assert entered.wait(1)
    finally:
        leave.set()
        holder.join(5)
