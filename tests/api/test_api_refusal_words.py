"""REST's other turns (regenerate, continue, aside, impersonate) and the JSON answers' warnings
are worded in the request's language (Accept-Language or the language cookie), as the chat
turn and the WebSocket are: they came in fixed English whatever the reader asked for. `code`
and `category` stay as they are for programs."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.test import override_settings

from chat.models import ApiToken
from tests.stub_llm import Reply

BUSY = {"en": "another change holds this chat", "zh-hans": "另一项更改正占用这个聊天"}
NOT_A_MEMBER = {"en": "nobody is not a character of this story.",
                "zh-hans": "nobody 不是这个故事里的角色。"}
TRUNCATED = {"en": "The reply reached the 40 character limit and was cut there",
             "zh-hans": "回复达到 40 个字符的上限，已在此截断"}


def _post(client, auth, url: str, body: dict | None, language: str):
    return client.post(url, json.dumps(body) if body is not None else "",
                       content_type="application/json", HTTP_ACCEPT_LANGUAGE=language, **auth)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
@pytest.mark.parametrize("how", ["regenerate", "continue", "impersonate"])
def test_a_busy_chats_refusal_is_said_in_the_requests_language(client, auth, instance, store,
                                                                language, how):
    url, body = ((f"/api/v1/instances/{instance}/{how}", None) if how != "impersonate" else
                 ("/api/v1/chat", {"instance_id": instance, "mode": "impersonate"}))
    lock = store.instance_lock(instance).acquire()
    try:
        response = _post(client, auth, url, body, language)
    finally:
        lock.release()
    error = response.json()["error"]
    assert response.status_code == 409 and error["code"] == "busy"
    assert BUSY[language] in error["message"] and "is busy:" not in error["message"]


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_an_aside_to_someone_not_in_the_story_is_refused_in_the_requests_language(
        client, auth, instance, language):
    response = _post(client, auth, "/api/v1/chat",
                     {"instance_id": instance, "mode": "aside", "query": "hi",
                      "speaker": "nobody"}, language)
    error = response.json()["error"]
    assert response.status_code == 400 and error["code"] == "invalid"
    assert error["message"] == error["fields"]["speaker"] == NOT_A_MEMBER[language]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("language", ["en", "zh-hans"])
async def test_a_json_turns_warnings_are_said_in_the_requests_language(async_client, alice,
                                                                       instance, use_stub,
                                                                       language):
    use_stub.script(Reply("长" * 80), Reply("短" * 80))
    token = await sync_to_async(ApiToken.issue)(alice)
    headers = {"Authorization": f"Bearer {token}", "Accept-Language": language}
    with override_settings(PERSONALAB_MAX_REPLY_CHARS=40):
        turn = await async_client.post(
            "/api/v1/chat", data=json.dumps({"instance_id": instance, "query": "讲故事"}),
            content_type="application/json", headers=headers)
        redone = await async_client.post(f"/api/v1/instances/{instance}/regenerate",
                                         content_type="application/json", headers=headers)
    for answer in (turn.json(), redone.json()):
        [warning] = [w for w in answer["warnings"] if w["category"] == "reply_truncated"]
        assert warning["message"] == TRUNCATED[language] and warning["threshold"] == 40
