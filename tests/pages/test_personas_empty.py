"""The personas page before the first persona names the player as the chats do (the account's
name): it said "User" while every chat called the player by the account's name."""

from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_no_personas_yet_names_the_account_as_the_chats_do(alice_client, store, alice):
    page = alice_client.get("/library/personas/").content.decode()
    assert "until you make one, you are “alice”." in page
    chinese = alice_client.get("/library/personas/", HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert "在创建之前，你的名字是“alice”。" in chinese.content.decode()
