"""The REST refusals written in fixed English below the API (personalab/error_sentences.py),
pydantic's own words for a body that does not fit, and the 413 answered before Django are said
in the request's language (Accept-Language or the language cookie): a 中文 page showed them in
English. The English stays word for word as it was, and `code` with it."""

from __future__ import annotations

import json
import re

import pytest
from django.conf import settings
from django.utils import translation

from personalab.body_limit import (
    ANONYMOUS_MAX_BYTES,
    BodyLimit,
    request_language,
    too_large_reply,
)
from personalab.error_sentences import SENTENCES
from personalab.error_words import KIND_WORDS, error_said
from personalab.lib.worded_forms import PLACEHOLDER
from tests.asgi_exchange import asgi_exchange

SESSION = "/api/v1/instances/{i}/sessions/sess_001"
# (method, path, body, status, code, English as it always read, its 中文)
CASES = [
    ("post", "/api/v1/instances/{i}/history/undo", {"token": "nope"}, 404, "history_refused",
     "there is nothing to undo (already undone or unknown)",
     "没有可以撤销的操作（已经撤销过，或无法识别）"),
    ("put", SESSION + "/messages/0", {"fingerprint": "x", "text": ""}, 400, "history_refused",
     "the text is empty; delete the message instead", "文字为空；要删除请直接删除这条消息"),
    ("put", SESSION + "/messages/0", {"fingerprint": "x"}, 400, "history_refused",
     "give the new text or hidden (or both)", "请给出新文字或 hidden（或两者都给）"),
    ("get", SESSION + "/current_response?turn=0", None, 400, "invalid",
     "turn must be 1 or more", "turn 必须大于或等于 1"),
    ("get", "/api/v1/traces/tr_x?fields=bogus", None, 400, "invalid",
     "fields must be 'sections', 'info' or left out", "fields 必须是 'sections'、'info'，或者不填"),
    ("post", "/api/v1/instances", {}, 400, "missing_field",
     "name a character (character_id or character_ids)",
     "请指定角色（character_id 或 character_ids）"),
    # "characters" as people in a story, not as letters of a text
    ("post", "/api/v1/instances", {"character_ids": [f"char_{n}" for n in range(17)]}, 400,
     "invalid", "at most 16 characters in one chat",
     "一个对话最多 16 个角色"),
    ("put", "/api/v1/instances/{i}", {"bogus": 1}, 400, "unknown_field",
     "unknown field(s): bogus; nothing was saved", "未知字段：bogus；没有保存任何内容"),
    ("get", "/api/v1/instances/{i}/history/undo", None, 405, "method_not_allowed",
     "use POST on this URL", "这个地址请用 POST"),
    # pydantic's words, a field's name kept as the program sent it
    ("get", SESSION + "/current_response?turn=abc", None, 400, "invalid",
     "turn: Input should be a valid integer, unable to parse string as an integer",
     "turn：必须是整数，这段文字读不出整数"),
    ("put", SESSION + "/messages/0", {"fingerprint": "x", "hidden": "maybe"}, 400, "invalid",
     "hidden: Input should be a valid boolean", "hidden：必须是 true 或 false"),
    ("post", SESSION + "/swipe", {}, 400, "missing_field",
     "turn: Field required; alternative: Field required", "turn：必填；alternative：必填"),
    ("put", "/api/v1/prompt_manager", {"blocks": 3}, 400, "invalid",
     "blocks: Input should be a valid list", "blocks：必须是列表"),
    ("put", "/api/v1/reading", [1], 400, "malformed_json",
     "request body must be a JSON object", "请求内容必须是一个 JSON 对象"),
    ("put", "/api/v1/reading", {"font_size": "huge"}, 400, "unknown_field",
     "font_size: unknown field: nothing would store it", "font_size：未知字段：没有地方会保存它"),
]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize(("method", "path", "body", "status", "code", "english", "chinese"),
                         CASES, ids=[case[5][:40] for case in CASES])
def test_a_refusal_of_the_pages_calls_is_said_in_the_requests_language(
        client, auth, instance, language, method, path, body, status, code, english, chinese):
    sent = {"data": json.dumps(body), "content_type": "application/json"} if body is not None \
        else {}
    response = getattr(client, method)(path.replace("{i}", instance), HTTP_ACCEPT_LANGUAGE=language,
                                       **sent, **auth)
    error = response.json()["error"]
    assert (response.status_code, error["code"]) == (status, code)
    assert error["message"] == (english if language == "en" else chinese)


def test_the_language_cookie_chooses_as_for_a_page(client, auth, instance):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    response = client.post(f"/api/v1/instances/{instance}/history/undo", json.dumps(
        {"token": "nope"}), content_type="application/json", HTTP_ACCEPT_LANGUAGE="en", **auth)
    assert response.json()["error"]["message"] == "没有可以撤销的操作（已经撤销过，或无法识别）"


@pytest.mark.parametrize(("language", "words"), [
    ("en", "generation.temperature: must be a number"),
    ("zh-hans", "generation.temperature：必须是数字")])
def test_a_refusal_made_of_its_fields_reasons_is_said_field_by_field(
        client, auth, instance, language, words):
    response = client.put(f"/api/v1/instances/{instance}", json.dumps(
        {"generation": {"temperature": "hot"}}), content_type="application/json",
        HTTP_ACCEPT_LANGUAGE=language, **auth)
    assert response.status_code == 400 and response.json()["error"]["message"] == words


@pytest.mark.parametrize(("language", "words"), [
    ("en", "data/instances/{i}/instance_state.json cannot be read: not valid JSON (Expecting "
           "property name enclosed in double quotes: line 1 column 2 (char 1))"),
    ("zh-hans", "data/instances/{i}/instance_state.json 无法读取：不是有效的 JSON（第 1 行第 2 "
                "列：这里应是用双引号括起的属性名）")])
def test_a_damaged_file_is_named_from_the_data_folder_in_the_requests_language(
        client, auth, instance, store, language, words):
    (store.instance_dir(instance) / "instance_state.json").write_text("{nope")
    response = client.get(f"/api/v1/instances/{instance}", HTTP_ACCEPT_LANGUAGE=language, **auth)
    assert response.status_code == 500
    assert response.json()["error"]["message"] == words.replace("{i}", instance)


def _made(sentence: str) -> str:
    return PLACEHOLDER.sub("7", sentence)


@pytest.mark.parametrize("sentence", SENTENCES)
def test_each_sentence_reads_back_as_written_and_in_chinese(sentence):
    """Its English (every figure a 7) is found whole: word for word in English, in 中文 its
    msgstr with the figures put back."""
    made = _made(sentence)
    with translation.override("en"):
        assert error_said(made) == made
    with translation.override("zh-hans"):
        said = error_said(made)
    assert said != made and re.search("[\u4e00-\u9fff：]", said), made


@pytest.mark.parametrize("kind", sorted(KIND_WORDS))
def test_a_kind_named_in_english_stays_as_written_and_has_its_chinese_word(kind):
    made = f"{kind} 'x_1' not found"
    with translation.override("en"):
        assert error_said(made) == made
    with translation.override("zh-hans"):
        assert error_said(made) == f"找不到{KIND_WORDS[kind]} 'x_1'" != made


def test_a_reason_inside_a_sentence_is_said_too_and_a_kind_by_its_word():
    with translation.override("zh-hans"):
        assert error_said("the turn cannot start: message is empty") == "这一轮无法开始：消息是空的"
        assert error_said("Value error, must be a whole number") == "值有误：必须是整数"
        assert error_said("the lorebook was saved elsewhere since this editor opened it") \
            == "自从打开这个编辑器以来，这本世界书已在别处保存过"
        assert error_said("the background was saved elsewhere since this editor opened it") \
            == "自从打开这个编辑器以来，这个背景已在别处保存过"
        # a more general sentence never takes a more particular one's words
        assert error_said("Input should be greater than 5") == "必须大于 5"
        assert error_said("Input should be 'a', 'b' or 'c'") == "必须是 'a'、'b'或'c' 之一"
    with translation.override("en"):
        assert error_said("Input should be 'a', 'b' or 'c'") == "Input should be 'a', 'b' or 'c'"


@pytest.mark.parametrize("message", [
    "card JSON is invalid: 'data' must be an object", "not a PNG file",
    "the RisuAI chat has no 'data.message' list"])
def test_an_importers_refusal_stays_as_raised_in_english_and_is_said_in_chinese(message):
    """The importers' tables word their page's English anew; the API's English is as raised."""
    with translation.override("en"):
        assert error_said(message) == message
    with translation.override("zh-hans"):
        assert re.search("[\u4e00-\u9fff]", error_said(message))


def test_an_overlong_or_unlisted_message_goes_as_written():
    long = "message is too long (" + "9" * 3000 + " > 7 characters)"
    with translation.override("zh-hans"):
        assert error_said(long) == long
        assert error_said("a sentence no table has") == "a sentence no table has"


def _scope(headers: list[tuple[bytes, bytes]]) -> dict:
    return {"type": "http", "method": "POST", "path": "/api/v1/chat", "raw_path": b"/api/v1/chat",
            "query_string": b"", "scheme": "http", "server": ("testserver", 80),
            "client": ("127.0.0.1", 5000), "http_version": "1.1", "asgi": {"version": "3.0"},
            "headers": [(b"host", b"testserver"),
                        (b"content-length", str(ANONYMOUS_MAX_BYTES + 1).encode()), *headers]}


async def _never_called(scope, receive, send):  # noqa: ANN001 — an ASGI app
    raise AssertionError("the body was let through")


@pytest.mark.parametrize(("headers", "words"), [
    ([(b"accept-language", b"en")], "The request is too large; log in first."),
    ([(b"accept-language", b"zh-CN,zh;q=0.9")], "请求内容太大；请先登录。"),
    ([(b"accept-language", b"en"), (b"cookie", b"django_language=zh-hans")],
     "请求内容太大；请先登录。"),
])
def test_a_body_over_the_limit_is_refused_in_the_requests_language(headers, words):
    start, body = asgi_exchange(BodyLimit(_never_called), _scope(headers), [b"x"])
    error = json.loads(body)["error"]
    assert start["status"] == 413 and error["code"] == "too_large"
    assert error["message"] == words


def test_the_413_page_of_a_form_says_it_and_its_way_back_in_chinese():
    _, page = too_large_reply(2**25, path="/library/import", referer="/library/",
                              language="zh-hans")
    assert "上传的内容超过了本应用接受的 32 MB。" in page.decode()
    assert '<a href="/library/">返回</a>' in page.decode()
    assert request_language(cookie="", accepted="fr, zh-Hans;q=0.5") == "zh-hans"
