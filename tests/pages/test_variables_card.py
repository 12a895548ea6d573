"""The chat drawer's variables card: its two clearing buttons look alike, secondary beside
"Refresh" (clearing was the card's one filled button), and each says whole what it clears
("Clear this chat's" stopped short), in English and in 中文 (newcomer F11)."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def _buttons(card: str) -> dict[str, tuple[str, str]]:
    """{value of scope, or "refresh": (class, label)} of the card's buttons."""
    found = re.findall(r'<button ([^>]*)>([^<]*)</button>', card)
    return {(re.search(r'value="(\w+)"', attrs) or re.search(r"()", attrs)).group(1)
            or "refresh": (re.search(r'class="([^"]*)"', attrs).group(1), label.strip())
            for attrs, label in found}


@pytest.mark.parametrize("language, local, common", [
    ("en", "Clear this chat's variables", "Clear global variables"),
    ("zh-CN", "清除本对话的变量", "清除全局变量")])
def test_the_clearing_buttons_are_alike_secondary_and_say_what_they_clear(
        alice_client, instance, language, local, common):
    card = alice_client.get(f"/instances/{instance}/variables",
                            HTTP_ACCEPT_LANGUAGE=language).content.decode()

    buttons = _buttons(card)

    assert buttons["local"] == ("secondary", local)
    assert buttons["global"] == ("secondary", common)
    assert buttons["refresh"][0] == "secondary"
