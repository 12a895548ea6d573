"""The tests' database waits for a writer as the app's does (tests/conftest.py): SQLite's
shared-cache memory database, pytest-django's default, failed a reader or a second writer at
once with "database table is locked" while another thread wrote, and tests that start chats
from several threads failed so on a loaded machine."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection, transaction

pytestmark = pytest.mark.django_db(transaction=True)


def _writing(username: str, written: threading.Event, release: threading.Event,
             failures: list[BaseException]) -> threading.Thread:
    """A thread that adds a user and holds its transaction open until `release`."""
    def write() -> None:
        try:
            with transaction.atomic():
                User.objects.create(username=username)
                written.set()
                release.wait(10)
        except BaseException as error:  # noqa: BLE001 — reported by the test
            failures.append(error)
            written.set()
        finally:
            connection.close()

    thread = threading.Thread(target=write)
    thread.start()
    return thread


def test_a_read_while_another_thread_writes_sees_what_was_there():
    User.objects.create(username="before")
    written, release, failures = threading.Event(), threading.Event(), []
    writer = _writing("during", written, release, failures)
    try:
        assert written.wait(10)
        assert sorted(User.objects.values_list("username", flat=True)) == ["before"]
    finally:
        release.set()
        writer.join()
    assert failures == []
    assert sorted(User.objects.values_list("username", flat=True)) == ["before", "during"]


def test_a_second_writer_waits_for_the_first_instead_of_failing():
    written, release, failures = threading.Event(), threading.Event(), []
    first = _writing("first", written, release, failures)
    assert written.wait(10)
    second_written, second_release = threading.Event(), threading.Event()
    second_release.set()
    second = _writing("second", second_written, second_release, failures)
    assert not second_written.wait(0.3)  # it waits on the first's transaction
    release.set()
    first.join()
    second.join()
    assert failures == []
    assert sorted(User.objects.values_list("username", flat=True)) == ["first", "second"]
