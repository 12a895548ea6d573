"""Counts on the pages read with the page's digit grouping ("Imported 50,000 messages", not
"50000"), in English and in 中文 alike, as the page's scripts write theirs
(Intl.NumberFormat): the import report, the history manager, the library's tiles, the prompt
inspector."""

from __future__ import annotations

import datetime

import pytest
from django.utils import formats, translation

from chat.pages.import_report import import_report_key
from chat.services.session_import import session_import
from library.lore.services import lorebook_create
from tests.chat.long_chats import st_chat

pytestmark = pytest.mark.django_db

REPORT = {"source": "st", "messages": 50000, "session_id": "sess_001", "speakers": [],
          "players": [], "play_as": [], "regroup": [], "notes": [], "warnings": [],
          "skipped": [{"line": n, "reason": "the line is not valid JSON"} for n in range(1200)],
          "counts": {"user": 25000, "assistant": 24999, "narrator": 1200, "narrator_sent": 0,
                     "hidden": 1500, "summary": 0}}


def _page(client, path: str, language: str) -> str:
    client.cookies["django_language"] = language
    return client.get(path).content.decode()


def test_a_chinese_page_groups_thousands_as_its_scripts_do_and_keeps_its_dates():
    with translation.override("zh-hans"):
        assert formats.number_format(50000, force_grouping=True) == "50,000"
        assert formats.date_format(datetime.date(2024, 9, 5)) == "2024年9月5日"


@pytest.mark.parametrize(("language", "said"), [
    ("en", ["Imported 50,000 messages from SillyTavern", "25,000 from the player, 24,999 from "
            "characters", "1,200 narrator lines", "1,500 hidden from the model",
            "Skipped 1,200 messages", "… and 1,150 more"]),
    ("zh-hans", ["50,000", "25,000", "24,999", "1,200", "1,500", "1,150"]),
])
def test_the_import_report_groups_its_counts(alice_client, instance, language, said):
    session = alice_client.session
    session[import_report_key(instance)] = REPORT
    session.save()
    page = _page(alice_client, f"/instances/{instance}/", language)
    for text in said:
        assert text in page
    assert "50000" not in page and "25000" not in page


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_history_manager_groups_a_long_sessions_message_count(alice_client, instance, store,
                                                                  language):
    session_import(store, instance_id=instance, data=st_chat(1200))
    page = _page(alice_client, f"/instances/{instance}/history/", language)
    assert "1,200" in page and " 1200 " not in page


def test_the_library_groups_a_lorebooks_entry_count(alice_client, alice, store):
    entries = [{"uid": n, "keys": [f"k{n}"], "content": "x"} for n in range(1000)]  # the most a book holds
    lorebook_create(store, owner=alice, data={"name": "Big book", "entries": entries})
    assert "1,000 entries" in _page(alice_client, "/library/", "en")


def test_a_chinese_import_report_is_punctuated_in_chinese(alice_client, instance):
    """Its parts were joined by ", " and ended with "." in both languages: "玩家 42 条，角色 42 条,
    旁白 0 条, 对模型隐藏 0 条."."""
    session = alice_client.session
    session[import_report_key(instance)] = REPORT
    session.save()
    page = _page(alice_client, f"/instances/{instance}/", "zh-hans")
    line = page.split('<details class="import-report"', 1)[1].split("<p>", 1)[1].split("</p>")[0]
    assert ", " not in line and line.endswith("。"), line  # 25,000: no space after its comma
