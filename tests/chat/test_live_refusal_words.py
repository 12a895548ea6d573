"""The WebSocket tells the page its refusals and a turn's warnings in the page's language (the
language cookie, else Accept-Language): a 中文 page read "you are signed out" and "the reply
reached the 4,000 character limit" in English."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.test import override_settings
from django.utils import translation

from chat.live.refusal_words import event_said, refusal_said
from chat.models import ApiToken
from chat.play.reply_limit import truncated_warning
from memory.recall.rag import recall_warning
from memory.runtime import index_or_warning
from memory.summaries.recaps import recap_failed_warning
from tests.socket_tabs import events_until_done, tab_connect
from tests.stub_llm import Reply


@pytest.mark.parametrize(("code", "english", "chinese"), [
    ("signed_out", "You are signed out", "你已退出登录"),
    ("bad_json", "reload the page", "请重新加载页面"),
    ("bad_frame", "reload the page", "请重新加载页面"),
    ("bad_type", "reload the page", "请重新加载页面"),
    ("throttled", "Too many actions on this chat", "操作太多"),
])
def test_the_sockets_own_refusals_are_said_in_the_readers_language(code, english, chinese):
    with translation.override("en"):
        assert english in refusal_said(code, "malformed JSON: Expecting value")
    with translation.override("zh-hans"):
        assert chinese in refusal_said(code, "malformed JSON: Expecting value")


def test_a_busy_chat_and_an_internal_error_are_said_in_chinese():
    with translation.override("zh-hans"):
        assert "回复还在生成" in refusal_said("busy", "a reply is still streaming; stop it or wait")
        assert "回复还在生成" in refusal_said("busy", (
            "instance inst_1 is busy: a reply is streaming or another change is running; "
            "wait for it to finish"))
        said = refusal_said("internal", "internal error: disk on fire")
        assert said.startswith("服务器出错了") and "disk on fire" in said
        assert refusal_said("bad_request", "message is too long (30000 > 20000 characters)") \
            == "消息太长（30000 个字符，最多 20000 个）。"


def test_a_refusal_the_turn_already_worded_goes_as_written():
    refused = "Prompt总长度超过限制（9000 > 8000），请执行汇总或调整配置"
    with translation.override("en"):
        assert refusal_said("prompt_too_long", refused) == refused
        # another account's limit (429 "busy") is not a busy chat: its own words stay
        assert refusal_said("busy", "you already have 2 imports running; wait until one "
                            "finishes").startswith("you already have")


def test_live_warnings_take_the_inspectors_words_and_keep_their_numbers():
    warning = truncated_warning(4000)
    with translation.override("zh-hans"):
        said = event_said(warning)
    assert said["category"] == "reply_truncated" and said["current_value"] == 4000
    assert "4,000" in said["message"] and "the reply reached" not in said["message"]
    assert said["message"] != warning["message"]


def test_a_warning_already_in_the_readers_words_is_kept_whole():
    with translation.override("zh-hans"):
        warning = recap_failed_warning({"from_turn": 1, "to_turn": 1, "message": "overloaded"})
        assert event_said(warning) == warning


def test_recall_that_is_unavailable_is_said_in_english_on_an_english_page(monkeypatch):
    """A broken Chroma store (a corrupt chroma.sqlite3) told an English page "记忆检索暂不可用"."""
    monkeypatch.setattr("memory.runtime.index_for", lambda store: 1 / 0)
    opening = index_or_warning(None)[1]
    searching = recall_warning(RuntimeError("file is not a database"))
    for warning in (opening, searching):
        with translation.override("en"):
            said = event_said(warning)
        assert said["message"].startswith("Recall is not available"), said
        assert "记忆" not in said["message"] + said["suggestion"]
        assert "division by zero" in said["detail"] or "not a database" in said["detail"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("cookie", "said"), [("en", "reload the page"), ("zh-hans", "重新加载页面")])
async def test_a_malformed_frame_is_refused_in_the_pages_language(alice, instance, cookie, said):
    communicator, connected = await tab_connect(alice, instance, cookies=f"django_language={cookie}")
    assert connected
    await communicator.send_to(text_data="{nope")
    refusal = await communicator.receive_json_from()
    await communicator.disconnect()
    assert refusal["code"] == "bad_json" and said in refusal["message"]


@pytest.mark.django_db(transaction=True)
async def test_a_cut_reply_is_told_in_chinese_on_a_chinese_page(alice, instance, use_stub):
    use_stub.script(Reply("长" * 80))
    with override_settings(PERSONALAB_MAX_REPLY_CHARS=40):
        communicator, _ = await tab_connect(alice, instance, cookies="django_language=zh-hans")
        await communicator.send_json_to({"type": "send", "content": "讲个长故事"})
        events = await events_until_done(communicator)
        await communicator.disconnect()
    warning = next(e for e in events if e.get("category") == "reply_truncated")
    assert "the reply reached" not in warning["message"] and "40" in warning["message"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("locale", "cookie", "said", "not_said"), [
    ("zh", "en", "The prompt is over the limit", "超过"),
    ("en", "zh-hans", "超过了上限", "The prompt"),
])
async def test_a_prompt_over_its_limit_is_refused_in_the_pages_language_not_the_prompts(
        alice, instance, store, use_stub, locale, cookie, said, not_said):
    store.module_write("prompt", {**store.module_read("prompt"), "locale": locale})
    config = store.config_read()
    config["limits"]["max_total_tokens"] = 60
    store.config_write(config)
    communicator, _ = await tab_connect(alice, instance, cookies=f"django_language={cookie}")
    await communicator.send_json_to({"type": "send", "content": "hello"})
    events = await events_until_done(communicator)
    await communicator.disconnect()
    refusal = next(e for e in events if e.get("code") == "prompt_too_long")
    assert said in refusal["message"] and not_said not in refusal["message"]
    assert not use_stub.requests


@override_settings(PERSONALAB_MAX_MESSAGE_CHARS=20)
def test_a_rest_turns_refusal_is_said_in_the_requests_language(client, auth, instance):
    """REST gave the turn's fixed English whatever Accept-Language asked for."""
    response = client.post("/api/v1/chat", {"instance_id": instance, "query": "x" * 30},
                           content_type="application/json", HTTP_ACCEPT_LANGUAGE="zh-hans",
                           **auth)
    error = response.json()["error"]
    assert response.status_code == 413 and error["message"] == "消息太长（30 个字符，最多 20 个）。"
    assert error["fields"]["query"] == error["message"]


@pytest.mark.django_db(transaction=True)
async def test_an_sse_turns_refusal_is_said_in_the_requests_language(async_client, alice,
                                                                       instance, store, use_stub):
    store.module_write("prompt", {**store.module_read("prompt"), "locale": "en"})
    config = store.config_read()
    config["limits"]["max_total_tokens"] = 60
    store.config_write(config)
    token = await sync_to_async(ApiToken.issue)(alice)
    response = await async_client.post(
        "/api/v1/chat", data=json.dumps({"instance_id": instance, "query": "hi", "stream": True}),
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}", "Accept-Language": "zh-hans"})
    body = b"".join([chunk async for chunk in response.streaming_content]).decode()
    blocks = [block.split("\n") for block in body.strip().split("\n\n")]
    error = next(json.loads(lines[1].removeprefix("data: ")) for lines in blocks
                 if lines[0] == "event: error")
    assert error["code"] == "prompt_too_long" and "超过了上限" in error["message"]
    assert "The prompt" not in error["message"] and not use_stub.requests


@pytest.mark.django_db(transaction=True)
async def test_an_sse_turns_warning_is_said_in_the_requests_language(async_client, alice,
                                                                       instance, use_stub):
    use_stub.script(Reply("长" * 80))
    token = await sync_to_async(ApiToken.issue)(alice)
    with override_settings(PERSONALAB_MAX_REPLY_CHARS=40):
        response = await async_client.post(
            "/api/v1/chat",
            data=json.dumps({"instance_id": instance, "query": "讲个长故事", "stream": True}),
            content_type="application/json",
            headers={"Authorization": f"Bearer {token}", "Accept-Language": "zh-hans"})
        body = b"".join([chunk async for chunk in response.streaming_content]).decode()
    blocks = [block.split("\n") for block in body.strip().split("\n\n")]
    warning = next(json.loads(lines[1].removeprefix("data: ")) for lines in blocks
                   if lines[0] == "event: warning")
    assert warning["category"] == "reply_truncated" and "40" in warning["message"]
    assert "the reply reached" not in warning["message"].lower()
