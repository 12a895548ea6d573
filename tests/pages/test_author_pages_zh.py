"""The author's editors in 中文 leave no English word behind: the lorebook's filter and entry
states, the character card's note, scripts and talkativeness fields."""

from __future__ import annotations

import pytest

from library.character_services import character_save
from library.lore.services import lorebook_save
from tests.pages.page_text import visible_text

pytestmark = pytest.mark.django_db(transaction=True)


def _shown(client, url: str) -> list[str]:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert response.status_code == 200
    return [piece.strip() for piece in visible_text(response.content.decode())]


def test_the_lorebook_editor_names_entry_states_and_filters_in_chinese(alice_client, alice,
                                                                       store):
    lorebook = lorebook_save(store, user=alice, data={"name": "Dust lore", "entries": [
        {"uid": 1, "keys": ["well"], "content": "The well is dry.", "enabled": False},
        {"uid": 2, "keys": ["dune"], "content": "Dunes move.", "constant": True}]})
    shown = _shown(alice_client, f"/library/lorebooks/{lorebook}/")
    assert [word for word in ("all", "disabled", "constant") if word in shown] == []
    assert {"全部", "停用", "常驻"} <= set(shown)
    new_book = _shown(alice_client, "/library/lorebooks/new")
    assert "2（SillyTavern 的默认值）" in new_book
    # What a newcomer would not know: depth counts only "at a depth"; what order decides.
    assert any(piece.startswith("深度只在位置为“按深度插入”时起作用") for piece in new_book)


def test_the_character_cards_advanced_fields_are_labelled_in_chinese(alice_client, alice, store):
    character = character_save(store, data={"name": "Ash", "base_persona": "A walker."},
                               character_id=None, user=alice)
    shown = "\n".join(_shown(alice_client, f"/library/characters/{character}/"))
    for english in ("Character's Note", "Talkativeness in group chats",
                    "Regex scripts: find and replace"):
        assert english not in shown
    assert "角色注释" in shown and "群聊中的发言频率" in shown
    assert "即 SillyTavern 的描述" in shown and "每次回复都会发送" in shown  # field help
    assert "system" not in shown.split("\n") and "系统" in shown.split("\n")  # the note's role
