"""SillyTavern's utility prompts edited where the prompt manager is (the chat drawer, the
settings page's default) and through the REST API: SillyTavern 1.12.6's defaults are served
beside a chat's own lines, a line saved is what the next turn sends, and one left out of the
next save (the page's "Restore default") is back to the default. Real turns against the stub."""

from __future__ import annotations

import pytest

from tests.chat.mira_cards import EXAMPLES_CARD
from tests.text_turns import english, solo_create, turn

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_api_serves_sillytaverns_defaults_and_a_restored_line_follows_them(
        store, alice, alice_client, use_stub):
    english(store)
    instance_id = solo_create(store, alice, EXAMPLES_CARD)
    url = f"/api/v1/instances/{instance_id}/prompt_manager"
    manager = alice_client.get(url).json()
    assert manager["utility"] == {}
    assert manager["utility_defaults"]["group_nudge_prompt"] == \
        "[Write the next reply only as {{char}}.]"
    assert manager["utility_defaults"]["personality_format"] == \
        "[{{char}}'s personality: {{personality}}]"
    assert manager["utility_defaults"]["scenario_format"] == \
        "[Circumstances and context of the dialogue: {{scenario}}]"
    assert manager["utility_defaults"]["impersonation_prompt"].startswith(
        "[Write your next reply from the point of view of {{user}}")

    saved = alice_client.put(url, {"utility": {"personality_format": "Mood: {{personality}}",
                                               "new_chat_prompt": ""}},
                             content_type="application/json")
    assert saved.status_code == 200, saved.content
    turn(store, instance_id)
    sent = use_stub.requests[-1]["messages"]
    assert "Mood: calm" in sent[0]["content"]
    assert not any(m["content"] == "[Start a new Chat]" for m in sent)

    restored = alice_client.put(url, {"utility": {"new_chat_prompt": ""}},
                                content_type="application/json").json()
    assert restored["utility"] == {"new_chat_prompt": ""}
    turn(store, instance_id, "Again.")
    assert "[Mira's personality: calm]" in use_stub.requests[-1]["messages"][0]["content"]


def test_the_drawer_and_the_settings_page_offer_every_utility_line(store, alice,
                                                                   alice_client):
    english(store)
    instance_id = solo_create(store, alice, EXAMPLES_CARD)
    keys = ("new_chat_prompt", "new_group_chat_prompt", "new_example_chat_prompt",
            "continue_nudge_prompt", "group_nudge_prompt", "impersonation_prompt",
            "personality_format", "scenario_format", "continue_prefill")
    for url in (f"/instances/{instance_id}/", "/settings/"):
        page = alice_client.get(url).content.decode()
        assert 'data-testid="utility-prompts"' in page
        assert all(f'data-testid="utility-{key}"' in page for key in keys), url
        assert "Restore default" in page and "({{group}}: the members)" in page


def test_a_chinese_chat_is_served_the_chinese_lines_it_sends(store, alice, alice_client,
                                                             use_stub):
    # The page shows (and "Restore default" puts back) what the chat's turns send: in a
    # Chinese prompt, its own lines (until 2026-12-03 SillyTavern's English ones).
    store.module_write("prompt", {"locale": "zh", "user_name": "Ann"})
    instance_id = solo_create(store, alice, EXAMPLES_CARD)
    defaults = alice_client.get(f"/api/v1/instances/{instance_id}/prompt_manager").json()[
        "utility_defaults"]
    turn(store, instance_id)
    sent = use_stub.requests[-1]["messages"]
    main = defaults["chat_main_prompt"].replace("{{char}}", "Mira").replace("{{user}}", "Ann")
    assert sent[0]["content"].startswith(main) and "虚构聊天" in main
    assert any(m["content"] == defaults["new_chat_prompt"] == "[开始新的对话]" for m in sent)
