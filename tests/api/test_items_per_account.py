"""How much one account, or one chat, may hold (settings PERSONALAB_*_PER_ACCOUNT and
PERSONALAB_SESSIONS_PER_INSTANCE): one more persona, character, background, lorebook or chat
past the limit, or one more session in a chat, is a 403 `limit_reached` that names the limit
and its setting, and writes nothing; another account is not held back."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from chat.models import ApiToken, Instance
from library.models import Background, Character, Lorebook, Persona


@pytest.fixture
def api(client, alice, bob):
    tokens = {user: ApiToken.issue(user) for user in (alice, bob)}

    def call(method, url, body=None, user=alice, language="en"):
        return getattr(client, method)(url, data=json.dumps(body) if body else None,
                                       content_type="application/json",
                                       HTTP_AUTHORIZATION=f"Bearer {tokens[user]}",
                                       HTTP_ACCEPT_LANGUAGE=language)
    return call


KINDS = [("personas", "PERSONALAB_PERSONAS_PER_ACCOUNT", Persona),
         ("characters", "PERSONALAB_CHARACTERS_PER_ACCOUNT", Character),
         ("backgrounds", "PERSONALAB_BACKGROUNDS_PER_ACCOUNT", Background),
         ("lorebooks", "PERSONALAB_LOREBOOKS_PER_ACCOUNT", Lorebook)]


def _refused_by(answer, setting: str, limit: int) -> None:
    assert answer.status_code == 403, answer.content
    error = answer.json()["error"]
    assert error["code"] == "limit_reached"
    assert error["setting"] == setting and error["limit"] == limit
    assert setting in error["message"] and str(limit) in error["message"]


@pytest.mark.parametrize("kind,setting,model", KINDS)
def test_one_more_library_item_past_the_limit_is_refused_and_writes_nothing(
        api, settings, store, alice, bob, kind, setting, model):
    setattr(settings, setting, 2)
    for n in range(2):
        made = api("post", f"/api/v1/{kind}", {"name": f"Item {n}"})
        assert made.status_code == 201, made.content
    folders = sorted((store.root / kind).iterdir())
    _refused_by(api("post", f"/api/v1/{kind}", {"name": "One too many"}), setting, 2)
    assert sorted((store.root / kind).iterdir()) == folders
    assert model.objects.filter(owner=alice).count() == 2
    assert api("post", f"/api/v1/{kind}", {"name": "Bob's"}, user=bob).status_code == 201


def test_a_copy_or_a_card_import_past_the_limit_is_refused_too(api, settings, client, alice,
                                                                character):
    settings.PERSONALAB_CHARACTERS_PER_ACCOUNT = 1
    _refused_by(api("post", f"/api/v1/characters/{character}/copy"),
                "PERSONALAB_CHARACTERS_PER_ACCOUNT", 1)
    card = json.dumps({"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Imported", "description": "", "first_mes": "", "character_book": {
            "entries": [{"keys": ["k"], "content": "lore", "enabled": True}]}}}).encode()
    from django.core.files.uploadedfile import SimpleUploadedFile

    answer = client.post("/api/v1/characters/import",
                         {"file": SimpleUploadedFile("card.json", card)},
                         HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    _refused_by(answer, "PERSONALAB_CHARACTERS_PER_ACCOUNT", 1)
    assert not Lorebook.objects.filter(owner=alice).exists()  # the card's book not left behind


def test_one_more_chat_past_the_limit_is_refused(api, settings, alice, character, background):
    settings.PERSONALAB_INSTANCES_PER_ACCOUNT = 1
    body = {"character_id": character, "background_id": background}
    assert api("post", "/api/v1/instances", body).status_code == 201
    _refused_by(api("post", "/api/v1/instances", body), "PERSONALAB_INSTANCES_PER_ACCOUNT", 1)
    assert Instance.objects.filter(owner=alice).count() == 1


def test_one_more_session_past_the_limit_is_refused_and_nothing_is_archived(
        api, settings, store, instance):
    settings.PERSONALAB_SESSIONS_PER_INSTANCE = 2
    first = store.instance_state_read(instance)["current_session_id"]
    answer = api("delete", f"/api/v1/sessions/{first}?instance_id={instance}")
    assert answer.status_code == 200, answer.content
    second = answer.json()["current_session_id"]
    refused = api("delete", f"/api/v1/sessions/{second}?instance_id={instance}")
    _refused_by(refused, "PERSONALAB_SESSIONS_PER_INSTANCE", 2)
    assert store.session_ids(instance) == [second]


def test_zero_means_no_limit(api, settings):
    settings.PERSONALAB_PERSONAS_PER_ACCOUNT = 0
    for n in range(3):
        assert api("post", "/api/v1/personas", {"name": f"P{n}"}).status_code == 201


@pytest.mark.parametrize("language,words", [
    ("en", "You have 1 personas, the most one account may have "
           "(PERSONALAB_PERSONAS_PER_ACCOUNT): delete one to make another."),
    ("zh-hans", "你已有 1 个人设，这是一个账户最多能有的数量（PERSONALAB_PERSONAS_PER_ACCOUNT）："
                "删除一个才能再建。"),
])
def test_the_personas_page_says_the_limit_in_the_readers_language(
        alice_client, settings, language, words):
    settings.PERSONALAB_PERSONAS_PER_ACCOUNT = 1
    alice_client.cookies["django_language"] = language
    assert alice_client.post(reverse("personas"), {"name": "First"}).status_code == 302
    page = alice_client.post(reverse("personas"), {"name": "Second"})
    assert page.status_code == 400
    assert words in page.content.decode()


def test_the_character_editor_keeps_the_typing_over_the_limit(alice_client, settings, character):
    settings.PERSONALAB_CHARACTERS_PER_ACCOUNT = 1
    page = alice_client.post(reverse("character_new"), {
        "name": "Not yet", "base_persona": "Typed before the refusal.", "greeting": ""})
    assert page.status_code == 403
    assert "PERSONALAB_CHARACTERS_PER_ACCOUNT" in page.content.decode()
    assert "Typed before the refusal." in page.content.decode()


def test_the_api_says_a_limit_in_the_requests_language(api, settings):
    """The pages said a limit in 中文; the API, which a 中文 page's scripts call, said it in
    English (its English stays as written)."""
    settings.PERSONALAB_PERSONAS_PER_ACCOUNT = 1
    assert api("post", "/api/v1/personas", {"name": "Ann"}).status_code == 201
    english = api("post", "/api/v1/personas", {"name": "Bo"}).json()["error"]["message"]
    assert english == ("you have 1 personas, the most one account may have "
                       "(PERSONALAB_PERSONAS_PER_ACCOUNT): delete one to make another")
    chinese = api("post", "/api/v1/personas", {"name": "Bo"}, language="zh-hans")
    assert chinese.json()["error"]["message"] == (
        "你已有 1 个人设，这是一个账户最多能有的数量（PERSONALAB_PERSONAS_PER_ACCOUNT）："
        "删除一个才能再建")
