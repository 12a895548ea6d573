"""The trash is kept PERSONALAB_TRASH_DAYS (library/trash_retention.py): `purge_trash` removes
what was deleted before that, only that, and the Deleted items page says how long it is kept."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from library import trash_retention
from library.models import Background

pytestmark = pytest.mark.django_db


def _purge(*args: str) -> str:
    out = StringIO()
    call_command("purge_trash", *args, stdout=out)
    return out.getvalue()


def test_a_fresh_delete_outlives_the_default_purge_and_goes_when_told(
        alice_client, background, store):
    alice_client.post(f"/library/backgrounds/{background}/delete")
    assert _purge().endswith("0 deleted item(s) older than 30 day(s) removed.\n")
    listed = _purge("--older-than-days", "0", "--dry-run")
    assert f"backgrounds/{background}." in listed and "1 deleted item(s)" in listed
    assert "废土复仇记" in alice_client.get("/library/trash/").content.decode()
    assert "1 deleted item(s) older than 0 day(s) removed." in _purge("--older-than-days", "0")
    assert "trash-empty" in alice_client.get("/library/trash/").content.decode()
    assert alice_client.post(f"/library/backgrounds/{background}/restore").status_code == 404
    assert not Background.objects.filter(background_id=background).exists()


def test_more_days_than_the_calendar_holds_removes_nothing_and_says_so(settings, alice_client,
                                                                     background):
    # A million days (keep "for ever", written as a big number) was an OverflowError: the
    # command's traceback, and the server's purge thread ended at its start.
    alice_client.post(f"/library/backgrounds/{background}/delete")
    assert "0 deleted item(s)" in _purge("--older-than-days", "1000000")
    settings.PERSONALAB_TRASH_DAYS = 10**12
    assert "0 deleted item(s)" in _purge()
    assert alice_client.post(f"/library/backgrounds/{background}/restore").status_code == 302


def test_keeping_for_ever_purges_nothing_unless_told(settings, alice_client, background):
    settings.PERSONALAB_TRASH_DAYS = 0
    alice_client.post(f"/library/backgrounds/{background}/delete")
    assert "nothing removed" in _purge()
    assert "trash-days" not in alice_client.get("/library/trash/").content.decode()


def test_the_deleted_items_page_says_how_long_in_chinese_too(alice_client):
    assert "removed for good 30 days after" in alice_client.get("/library/trash/").content.decode()
    alice_client.cookies["django_language"] = "zh-hans"
    page = alice_client.get("/library/trash/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "删除 30 天后会被永久移除" in page


class _Stop(Exception):
    pass


def test_a_server_purges_at_once_then_daily_and_a_failed_day_does_not_end_it(
        settings, store, monkeypatch):
    settings.PERSONALAB_TRASH_DAYS = 30
    purges, sleeps = [], []

    def purge(_store, *, days):
        purges.append(days)
        if len(purges) == 2:
            raise OSError("the data folder is unreadable for now")
        return []

    def sleep(seconds):
        sleeps.append(seconds)
        if len(sleeps) == 3:
            raise _Stop

    monkeypatch.setattr(trash_retention, "trash_purge_old", purge)
    monkeypatch.setattr(trash_retention.time, "sleep", sleep)
    with pytest.raises(_Stop):
        trash_retention.trash_purge_daily(store)
    assert purges == [30, 30, 30] and sleeps == [trash_retention.DAY_SECONDS] * 3
    # kept for ever: the thread ends without a purge
    settings.PERSONALAB_TRASH_DAYS = 0
    trash_retention.trash_purge_daily(store)
    assert len(purges) == 3
