"""The prompt's own words follow the language the character is written in (setting "auto", the
default): an English SillyTavern card is not framed in Chinese section titles."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from chat.play.turn import turn_run
from chat.services.instances import instance_create
from library.character_services import character_save
from personalab.lib.prompt_language import locale_pick

pytestmark = pytest.mark.django_db(transaction=True)


def test_auto_picks_the_language_of_the_characters_texts():
    assert locale_pick("auto", "Mira", "A mechanic from the dunes.", "*waves*") == "en"
    assert locale_pick("auto", "阿尔", "废土黑帮老大。", "") == "zh"
    assert locale_pick("auto", "ミラ", "砂漠の整備士です。", None) == "en"  # Japanese: kana
    assert locale_pick("auto", None, "", 42) == "en"
    assert locale_pick("en", "阿尔", "废土黑帮老大。") == "en"  # a choice made wins
    assert locale_pick(None, "Mira") == "zh"  # an older prompt.json without the key


def _instance(store, alice, name: str, persona: str) -> str:
    character = character_save(store, data={"name": name, "base_persona": persona,
                                            "greeting": "", "tags": ""},
                               character_id=None, user=alice)
    return instance_create(store, owner=alice, character_id=character, background_id=None)


async def _sent(store, alice, use_stub, *, name: str, persona: str) -> str:
    instance = await sync_to_async(_instance)(store, alice, name, persona)

    async def emit(event):
        return None

    await turn_run(store, instance_id=instance, user_text="Hello?", emit=emit)
    return "\n".join(str(m["content"]) for m in use_stub.requests[-1]["messages"])


async def test_an_english_card_gets_an_english_prompt_and_a_chinese_one_a_chinese_prompt(
        store, alice, use_stub):
    english = await _sent(store, alice, use_stub, name="Mira", persona="A mechanic.")
    chinese = await _sent(store, alice, use_stub, name="阿尔", persona="废土黑帮老大。")
    assert "=== Current conversation ===" in english and "会话" not in english
    assert "=== 当前会话完整对话 ===" in chinese and "Current conversation" not in chinese


async def test_a_chosen_language_is_used_whatever_the_card(store, alice, use_stub):
    store.module_write("prompt", {**store.module_read("prompt"), "locale": "zh"})
    english = await _sent(store, alice, use_stub, name="Mira", persona="A mechanic.")
    assert "=== 当前会话完整对话 ===" in english


def test_the_settings_page_sets_the_prompt_language_and_refuses_an_unknown_one(client, staff,
                                                                                store):
    client.force_login(staff)
    form = {"thresholds.rag_fallback_threshold": "3", "thresholds.summary_last_n_turns": "5",
            "limits.max_total_tokens": "100000", "limits.middle_section_warning_tokens": "5000",
            "limits.conversation_max_tokens": "100000", "preferences.summary_order": "summary_first"}
    page = client.get("/settings/").content.decode()
    assert 'name="prompt.locale"' in page and '<option value="auto" selected>' in page
    assert client.post("/settings/", {**form, "prompt.locale": "en"}).status_code == 302
    assert store.module_read("prompt")["locale"] == "en"
    response = client.post("/settings/", {**form, "prompt.locale": "fr"})
    assert response.status_code == 400 and 'data-field="prompt.locale"' in response.content.decode()
    assert store.module_read("prompt")["locale"] == "en"
    client.post("/settings/", {"reset": "preferences"})
    assert store.module_read("prompt")["locale"] == "auto"
