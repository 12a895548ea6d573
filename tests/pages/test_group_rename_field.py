"""A group chat's rename field suggests the title the chat shows ("Alserqi & Brenna"), on the
chat page and on the home page, not the first member's name alone."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def _placeholders(page: str) -> list[str]:
    return re.findall(r'placeholder="([^"]*)" data-testid="instance-name"', page)


def test_the_rename_field_of_a_group_suggests_its_members_title(alice_client, group):  # noqa: F811
    chat = alice_client.get(f"/instances/{group}/").content.decode()
    assert _placeholders(chat) == ["Alserqi &amp; Brenna"]
    home = alice_client.get("/").content.decode()
    assert "Alserqi &amp; Brenna" in _placeholders(home)
