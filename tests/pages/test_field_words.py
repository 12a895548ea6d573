"""What is wrong with a field is said in the reader's language (issue 33): the validators'
sentences ("must be a whole number", "must be between 0 and 100") read 必须是整数 in 中文 on
the lorebook editor and in the API's `fields`; English stays exactly as it was."""

from __future__ import annotations

import pytest
from django.utils import translation

from library.field_words import field_words
from library.lore.lorebook import lorebook_validate
from library.lore.services import lorebook_save

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize(("sentence", "chinese"), [
    ("must be a whole number", "必须是整数"),
    ("must be between 0 and 100", "必须在 0 到 100 之间"),
    ("must be true or false", "必须是 true 或 false"),
    ("required", "必填"),
    ("must be text of at most 1,000 characters", "必须是最多 1,000 个字符的文字"),
    ("must be one of before_char, after_char", "必须是以下之一：before_char, after_char"),
    ("must be one of: chat, text", "必须是以下之一：chat, text"),
    ("at most 20000 characters", "最多 20000 个字符"),
    ("must be empty or a whole number from -1 to 10,000", "必须留空，或是 -1 到 10,000 之间的整数"),
    ("uid 3 is used by another entry", "编号 3 已被另一个条目使用"),
    ("at most 50 scripts", "最多 50 个脚本"),
    ("must be 'private' or 'shared'", "必须是私有或共享"),
])
def test_each_validator_sentence_reads_in_chinese(sentence, chinese):
    with translation.override("zh-hans"):
        assert field_words(sentence) == chinese
    with translation.override("en"):
        assert field_words(sentence) == sentence


def test_every_sentence_the_lorebook_validator_gives_is_in_the_table():
    wrong = {"name": 5, "scan_depth": "deep", "token_budget": -3, "recursive": "yes",
             "entries": [{"uid": 1, "keys": 3, "content": 4, "priority": "x", "depth": 10**9,
                          "position": "nowhere", "probability": 200, "enabled": "on",
                          "character_filter": {"names": "x", "isExclude": 1}},
                         {"uid": 1, "keys": ["a"]}, "not an entry"]}
    with pytest.raises(Exception) as refused:
        lorebook_validate(wrong)
    fields = refused.value.field_errors
    assert len(fields) >= 10
    with translation.override("zh-hans"):
        untranslated = {name: text for name, text in fields.items() if field_words(text) == text}
    assert untranslated == {}


def test_the_editor_and_the_api_say_it_in_chinese(alice_client, alice, store):
    lorebook_id = lorebook_save(store, user=alice, data={"name": "Dust", "entries": [
        {"uid": 1, "keys": ["well"], "content": "Dry."}]})
    page = alice_client.post(f"/library/lorebooks/{lorebook_id}/", {
        "name": "Dust", "uid": "1", "e1_keys": "well", "e1_content": "Dry.",
        "e1_selective_logic": "and_any", "e1_position": "before_char", "e1_depth": "4",
        "e1_role": "system", "e1_priority": "often", "e1_probability": "250"},
        HTTP_ACCEPT_LANGUAGE="zh-CN")
    html = page.content.decode()
    assert page.status_code == 400
    assert "必须是整数" in html and "必须在 0 到 100 之间" in html
    assert "must be a whole number" not in html
    answer = alice_client.put(f"/api/v1/lorebooks/{lorebook_id}", {
        "name": "Dust", "entries": [{"uid": 1, "keys": ["well"], "priority": "often"}]},
        content_type="application/json", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert answer.json()["error"]["fields"]["entries[0].priority"] == "必须是整数"
    english = alice_client.put(f"/api/v1/lorebooks/{lorebook_id}", {
        "name": "Dust", "entries": [{"uid": 1, "keys": ["well"], "priority": "often"}]},
        content_type="application/json")
    assert english.json()["error"]["fields"]["entries[0].priority"] == "must be a whole number"
