"""No "in message -1" and no raw positions in what a user reads (issue 33): why a lore entry
fired says which message in words ("the newest message", "the 3rd newest message") and names
the entry a recursion came from by its title; "Test this text" says "in the text"; a chat
import's report names a skipped message as "the 3rd message", not by a line number. In English
and 中文."""

from __future__ import annotations

import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from chat.inspector.notes import trace_notes_named
from chat.inspector.reasons import lore_reason_named
from library.lore.services import lorebook_save

pytestmark = pytest.mark.django_db

RAW_PLACE = re.compile(r"message -\d|entry lore:|#\d|\bline \d|entries\[\d")


@pytest.mark.parametrize("reason, english, chinese", [
    ("key 'harbour' in message -1", "key 'harbour' in the newest message", "最新一条消息"),
    ("key 'harbour' in message -2 (ignores the budget)",
     "key 'harbour' in the 2nd newest message (ignores the budget)", "倒数第 2 条消息"),
    ("key 'harbour' in message -3", "key 'harbour' in the 3rd newest message", "倒数第 3 条消息"),
    ("key 'harbour' in message -11", "key 'harbour' in the 11th newest message", "倒数第 11 条"),
    ("key 'harbour' in message -22", "key 'harbour' in the 22nd newest message", "倒数第 22 条"),
    ("key 'pier' in entry lore:lore_harbour:7",
     "key 'pier' in the entry “The old pier” (recursion)", "条目“The old pier”"),
    ("key 'pier' in entry lore:lore_gone:9", "key 'pier' in another entry (recursion)",
     "另一个条目"),
])
def test_why_an_entry_fired_says_which_message_and_entry_in_words(reason, english, chinese):
    titles = {"lore:lore_harbour:7": "The old pier"}
    assert lore_reason_named(reason, titles) == english
    with translation.override("zh-hans"):
        worded = lore_reason_named(reason, titles)
    assert chinese in worded and not RAW_PLACE.search(worded), worded


def _book(store) -> str:
    return lorebook_save(store, data={"name": "Harbour", "entries": [
        {"uid": 1, "keys": ["harbour"], "content": "The harbour is old.", "comment": "Harbour",
         "enabled": True, "constant": False, "priority": 100, "position": "before_char",
         "depth": 4},
        {"uid": 2, "keys": ["old"], "content": "The pier rots.", "comment": "The old pier",
         "enabled": True, "constant": False, "priority": 90, "position": "before_char",
         "depth": 4}]})


@pytest.mark.parametrize("language, said", [("en", "key 'harbour' in the text"),
                                            ("zh-hans", "关键词 'harbour' 出现在这段文字中")])
def test_test_this_text_says_the_key_is_in_the_text(alice_client, store, language, said):
    alice_client.cookies["django_language"] = language
    book = _book(store)
    html = alice_client.post(f"/library/lorebooks/{book}/test",
                             {"text": "They sail into the harbour."}).content.decode()
    shown = re.sub(r"<[^>]+>", "", html).replace("&#x27;", "'")
    assert said in shown, shown
    assert not RAW_PLACE.search(shown), shown


CHAT = [{"user_name": "Ann", "character_name": "Kael", "create_date": "2024-10-05T05:01:00Z"},
        {"name": "Kael", "is_user": False, "mes": "Welcome.", "send_date": "2024-10-05T05:01:00Z"},
        {"name": "Ann", "is_user": True, "mes": "Hello.", "send_date": "2024-10-05T05:02:00Z"},
        {"name": "Kael", "is_user": False, "mes": "", "send_date": "2024-10-05T05:03:00Z"},
        {"name": "Ann", "is_user": True, "mes": "Again.", "send_date": "2024-10-05T05:04:00Z"}]


@pytest.mark.parametrize("language, said", [("en", "The 3rd message: the message is empty"),
                                            ("zh-hans", "第 3 条消息： 这条消息是空的")])
def test_a_chat_imports_report_names_the_skipped_message_by_its_place_in_words(
        alice_client, instance, language, said):
    alice_client.cookies["django_language"] = language
    data = "".join(json.dumps(line) + "\n" for line in CHAT).encode()
    html = alice_client.post(f"/instances/{instance}/import_chat",
                             {"file": SimpleUploadedFile("chat.jsonl", data)},
                             follow=True).content.decode()
    report = html[html.index('id="import-report"'):html.index("</details>", html.index(
        'id="import-report"'))]
    shown = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", report))
    assert said in shown.replace(" :", ":"), shown
    assert not RAW_PLACE.search(shown), shown


class _Namer:
    """LoreNamer's answers for a book the test does not write."""

    def book(self, book_id: str) -> str:
        return {"lore_harbour": "Harbour"}.get(book_id, "a lorebook no longer there")

    def entry(self, book_id: str, uid: str) -> str:
        return {"7": "The old pier"}.get(uid, "an entry no longer there")


@pytest.mark.parametrize("language, winner, problem", [
    ("en", "group 'docks' won by entry “The old pier” (by order)",
     "lorebook “Harbour” entry “The old pier”: the regex key '/(x/' is not used: bad"),
    ("zh-hans", "分组 'docks' 由条目 “The old pier” 胜出（按顺序）",
     "世界书 “Harbour” 条目 “The old pier”：正则关键词 '/(x/' 未被使用：bad")])
def test_the_inspector_names_a_groups_winner_and_a_problems_entry_by_title(
        language, winner, problem):

    trace = {"lore": {"problems": [
        "lorebook lore_harbour entry 7: regex key '/(x/' is not used: bad"]}}
    dropped = [{"uid": 8, "entry": "The new pier", "reason": "group 'docks' won by entry 7 "
                "(order); would have fired: key 'pier' in message -1"}]
    fired = [{"uid": 7, "entry": "The old pier",
              "reason": "key 'pier' in message -1 (won group 'docks' of 2 by order)"}]
    with translation.override(language):
        notes = trace_notes_named(trace, dropped, lore_fired=fired, namer=_Namer())
    assert winner in notes["lore_dropped"][0]["reason"], notes
    assert notes["lore_problems"] == [problem]
    for text in (notes["lore_dropped"][0]["reason"], *notes["lore_problems"]):
        assert not RAW_PLACE.search(text) and "lore_harbour" not in text and " 7" not in text
