"""One account's regex scripts are kept in a file of its own (they were in the file every
account's turns and pages read): at most ACCOUNT_SCRIPTS_MAX_CHARS of them are kept, so one
account's turns never parse more than that (red team, twelfth pass)."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from chat.models import ApiToken
from library.find_replace.services import MODULE, regex_scripts_account_read

pytestmark = pytest.mark.django_db


def _put(client: Client, user, scripts: list[dict], **headers):
    return client.put("/api/v1/regex-scripts", json.dumps({"scripts": scripts}),
                      content_type="application/json",
                      HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(user)}", **headers)


def _script(number: int, **extra) -> dict:
    return {"id": f"s{number}", "scriptName": f"swap {number}", "findRegex": "/teh/g",
            "replaceString": "the", "placement": [1], **extra}


def test_an_accounts_scripts_past_the_room_are_refused_and_the_others_are_kept(
        store, alice, bob, client):
    assert _put(client, alice, [_script(1)]).status_code == 200
    # Each script's replacement within its own bound, a key SillyTavern does not know kept:
    # 20 of them came to 2 MB in the file every account reads.
    heavy = [_script(n, replaceString="长" * 50_000, note="x" * 50_000) for n in range(20)]
    refused = _put(client, bob, heavy, HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert refused.status_code == 400, refused.content
    error = refused.json()["error"]
    assert "一个账户最多保存 1,000,000 个字符的脚本" in error["message"]
    assert error["fields"]["regex_scripts"] == "合计最多 1,000,000 个字符"
    assert regex_scripts_account_read(store, username="bob") == []
    assert [s["id"] for s in regex_scripts_account_read(store, username="alice")] == ["s1"]
    assert not store.module_path(MODULE).exists()  # each account's scripts in a file of its own
    assert _put(client, bob, heavy[:4]).status_code == 200  # 400,000 characters
