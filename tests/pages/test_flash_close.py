"""A notice the server leaves on the next page ("Background switched…") has a × that takes it
away: it stayed on the chat page until the page was left."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.django_db
PAGE_JS = Path(__file__).resolve().parents[2] / "static" / "page.js"


def test_a_notice_on_the_chat_page_can_be_dismissed(alice_client, instance):
    page = alice_client.post(f"/instances/{instance}/background", {"background_id": ""},
                             follow=True).content.decode()
    notice = re.search(r'<ul class="flash"><li class="info">(.*?)</li></ul>', page, re.S)
    assert notice and "Background switched" in notice.group(1)
    assert 'data-flash-close data-testid="flash-close" aria-label="Dismiss"' in notice.group(1)
    chinese = alice_client.post(f"/instances/{instance}/background", {"background_id": ""},
                                follow=True, HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert 'data-testid="flash-close" aria-label="关闭"' in chinese
    assert 'closest("button[data-flash-close]")' in PAGE_JS.read_text()
