"""The REST refusals a user meets most (not found, busy, too large, too many imports) come in
the request's language (Accept-Language or the language cookie): they came in fixed English
whatever the reader asked for. English stays word for word, and `code` as it was."""

from __future__ import annotations

import json

import pytest
from django.utils import translation

from personalab.error_words import FORMS, error_fields_said, error_said

ENGLISH = [
    "instance 'inst_9' not found", "session 'sess_9' not found", "trace 'tr_9' not found",
    "character 'char_9' not found", "background 'bg_9' not found",
    "lorebook 'lb_9' not found", "persona 'p_9' not found",
    "'char_9' is not a member of this conversation",
    "session 'sess_001' has no turn 9 (its last is 2)", "no such turn",
    "instance inst_9 is busy: a reply is streaming or another change is running; wait for it to "
    "finish",
    "busy: a reply is streaming or another change is running on this instance; try again when it "
    "has finished",
    "you already have 2 imports running; wait until one finishes, then try again",
    "you already have 1 exports running; wait until one finishes, then try again",
    "request body is too large", "file is larger than 10 MB", "at most 10 MB",
    "no API endpoint at /api/v1/nowhere",
]


def test_each_listed_refusal_is_said_in_chinese_and_stays_as_written_in_english():
    assert len(ENGLISH) == len(FORMS)
    for message in ENGLISH:
        with translation.override("en"):
            assert error_said(message) == message
        with translation.override("zh-hans"):
            said = error_said(message)
        assert said != message and any("\u4e00" <= c <= "\u9fff" for c in said), message


def test_an_unlisted_message_and_a_quoted_quote_go_as_written():
    with translation.override("zh-hans"):
        assert error_said("something else entirely") == "something else entirely"
        assert error_said("instance \"it's\" not found") == "instance \"it's\" not found"
        assert error_fields_said({"turn": "no such turn", "n": "must be a whole number"}) == {
            "turn": "没有这一轮", "n": "必须是整数"}
        # a refusal whose message is a validator's sentence says it as its field does
        assert error_said("must be between 0 and 100") == error_fields_said(
            {"n": "must be between 0 and 100"})["n"] != "must be between 0 and 100"


@pytest.mark.parametrize(("language", "words"), [
    ("en", "instance 'inst_nope' not found"), ("zh-hans", "找不到聊天 'inst_nope'")])
def test_an_unknown_chat_is_not_found_in_the_requests_language(client, auth, language, words):
    response = client.get("/api/v1/instances/inst_nope", HTTP_ACCEPT_LANGUAGE=language, **auth)
    error = response.json()["error"]
    assert response.status_code == 404 and error["code"] == "not_found"
    assert error["message"] == words


@pytest.mark.parametrize(("language", "words"), [
    ("en", "is busy: a reply is streaming"), ("zh-hans", "正忙：回复还在生成")])
def test_a_busy_chats_settings_change_is_refused_in_the_requests_language(
        client, auth, instance, store, language, words):
    lock = store.instance_lock(instance).acquire()
    try:
        response = client.put(f"/api/v1/instances/{instance}", json.dumps({"name": "x"}),
                              content_type="application/json", HTTP_ACCEPT_LANGUAGE=language,
                              **auth)
    finally:
        lock.release()
    error = response.json()["error"]
    assert response.status_code == 409 and error["code"] == "busy"
    assert words in error["message"]


@pytest.mark.parametrize(("language", "words"), [
    ("en", "no API endpoint at /api/v1/nowhere"), ("zh-hans", "没有这个 API 地址：/api/v1/nowhere")])
def test_an_unknown_endpoint_is_said_in_the_requests_language(client, auth, language, words):
    response = client.get("/api/v1/nowhere", HTTP_ACCEPT_LANGUAGE=language, **auth)
    assert response.status_code == 404 and response.json()["error"]["message"] == words
