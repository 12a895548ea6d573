"""A character editor's refused field (talkativeness out of range, a note depth below 0, regex
scripts that are not JSON) is said in the page's language with the field's label; nothing is
saved."""

from __future__ import annotations

import pytest
from django.urls import reverse

CASES = {
    "talkativeness": ({"talkativeness": "7"},
                      "Not saved: Talkativeness in group chats (0 to 1; empty: 0.5): a number "
                      "from 0 to 1",
                      "未保存：群聊中的发言频率（0 到 1；留空：0.5）：须为 0 到 1 之间的数"),
    "note depth": ({"depth_prompt": "A note.", "depth_prompt_depth": "-4",
                    "depth_prompt_role": "system"},
                   "Not saved: Depth (0 = after the last message): a whole number from 0 to 999",
                   "未保存：深度（0 = 最后一条消息之后）：须为 0 到 999 之间的整数"),
    "regex scripts": ({"regex_scripts": "[{bad"},
                      "Not saved: Regex scripts: not valid JSON: Expecting property name",
                      "未保存：正则脚本：不是有效的 JSON：第 1 行第 3 列："
                      "这里应是用双引号括起的属性名"),
}


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("case", CASES)
def test_a_refused_field_is_named_in_the_pages_language(alice_client, store, character,
                                                        language, case):
    posted, english, chinese = CASES[case]
    alice_client.cookies["django_language"] = language
    before = store.character_read(character)
    page = alice_client.post(reverse("character_edit", args=[character]), {
        "name": before["name"], "base_persona": before["base_persona"], "greeting": "",
        "visibility": "shared", **posted})
    assert page.status_code == 400
    assert (english if language == "en" else chinese) in page.content.decode()
    assert store.character_read(character) == before
