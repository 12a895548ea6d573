"""Summarize and Update memory without JavaScript: each drawer button is its form's, the action
runs whole and the chat page comes back saying how it went, a refusal as plainly (with a script,
htmx answers in the drawer: tests/memory/test_group_persona.py)."""

from __future__ import annotations

import asyncio
import json

import pytest

from personalab.lib.participants import member_state_read
from tests.chat.history_files import chat_lines_append
from tests.group_turns import turn_said
from tests.pages.page_forms import page_forms
from tests.pages.page_text import visible_text
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def shown_text(html: str) -> str:
    return " ".join(visible_text(html))


def _form(client, instance_id: str, action: str) -> dict:
    page = client.get(f"/instances/{instance_id}/").content.decode()
    found = [f for f in page_forms(page) if f["url"] == f"/instances/{instance_id}/memory/{action}"]
    assert len(found) == 1, f"no one {action} form"
    return found[0]


def test_update_memory_without_a_script_grows_the_member_picked_and_says_so(
        alice_client, store, group, brenna, use_stub):
    use_stub.script(Reply("我修好了你的车。"))
    asyncio.run(turn_said(store, group, "车怎么样了？", speaker=brenna))
    form = _form(alice_client, group, "update_memory")
    assert set(form["fields"]) == {"csrfmiddlewaretoken", "character_id"}
    use_stub.script(Reply("她开始信任玩家。"))

    done = alice_client.post(form["url"], {**form["fields"], "character_id": brenna})

    assert done.status_code == 302 and done["Location"] == f"/instances/{group}/#memory-card"
    state = store.instance_state_read(group)
    assert member_state_read(store, group, state, brenna)["evolved_persona"] == "她开始信任玩家。"
    shown = shown_text(alice_client.get(done["Location"]).content.decode())
    assert "Memory updated: the evolved persona has a new version." in shown


def test_summarize_without_a_script_goes_on_in_the_next_conversation_and_says_so(
        alice_client, store, instance, use_stub):
    chat_lines_append(store, instance, 3)
    form = _form(alice_client, instance, "summarize")
    use_stub.script(Reply(json.dumps({"events": [{"summary": "They met.", "plot": "1"}]})))

    done = alice_client.post(form["url"], form["fields"])

    assert done.status_code == 302
    assert store.instance_state_read(instance)["current_session_id"] == "sess_002"
    shown = shown_text(alice_client.get(done["Location"]).content.decode())
    assert "Summarized into 1 events; the chat goes on in conversation 2." in shown


def test_a_refused_summarize_without_a_script_comes_back_said_in_the_readers_language(
        alice_client, store, instance):
    form = _form(alice_client, instance, "summarize")
    done = alice_client.post(form["url"], form["fields"], HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert done.status_code == 302
    page = alice_client.get(done["Location"], HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert 'class="error"' in page
    english = "The current session has no conversation yet: nothing to summarize."
    assert english not in page and "当前会话还没有对话，无需汇总。" in shown_text(page)
    assert store.instance_state_read(instance)["current_session_id"] == "sess_001"
