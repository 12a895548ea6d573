"""/api/v1/reading (an account's reading settings) and a message's Info (`?fields=info`)."""

from __future__ import annotations

import json

import pytest

from chat.models import ApiToken
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def call(client):
    def send(user, method, url, body=None):
        return getattr(client, method)(url, data=json.dumps(body) if body is not None else None,
                                       content_type="application/json",
                                       HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(user)}")
    return send


def test_reading_settings_start_at_their_defaults(call, alice, store):
    got = call(alice, "get", "/api/v1/reading")
    assert got.status_code == 200
    assert got.json() == {"text_size": "100", "chat_width": "full", "message_style": "bubbles",
                          "timestamps": True, "message_numbers": False, "theme": "default",
                          "font": "sans", "accent": "", "time_zone": ""}


def test_a_change_keeps_the_other_settings_and_is_the_accounts_own(call, alice, bob, store):
    call(alice, "put", "/api/v1/reading", {"text_size": "130", "timestamps": False})
    changed = call(alice, "put", "/api/v1/reading", {"message_style": "document"})
    assert changed.status_code == 200
    assert changed.json() == {"text_size": "130", "chat_width": "full",
                              "message_style": "document", "timestamps": False,
                              "message_numbers": False, "theme": "default", "font": "sans",
                              "accent": "", "time_zone": ""}
    assert call(alice, "get", "/api/v1/reading").json()["text_size"] == "130"
    assert call(bob, "get", "/api/v1/reading").json()["text_size"] == "100"


@pytest.mark.parametrize("body, field", [
    ({"text_size": "200"}, "text_size"), ({"text_size": 130}, "text_size"),
    ({"chat_width": "huge"}, "chat_width"), ({"timestamps": "yes"}, "timestamps"),
    ({"message_numbers": 1}, "message_numbers"), ({"blur": "on"}, "blur"),
    ({"theme": "neon"}, "theme"), ({"theme": "Night"}, "theme"), ({"font": "comic"}, "font"),
    ({"font": "https://fonts.example/a.woff2"}, "font"),
    ({"accent": "red"}, "accent"), ({"accent": "#fff"}, "accent"), ({"accent": "#12345g"}, "accent"),
    ({"accent": "#123456; background:url(x)"}, "accent"), ({"accent": 0x123456}, "accent"),
    # tests/lib/test_macros.py tries more names that are no zone (a folder, too long)
    ({"time_zone": "../../etc/passwd"}, "time_zone"), ({"time_zone": 8}, "time_zone"),
])
def test_a_wrong_value_is_refused_naming_it_and_nothing_is_saved(call, alice, store, body, field):
    refused = call(alice, "put", "/api/v1/reading", {"message_style": "flat", **body})
    assert refused.status_code == 400
    assert field in refused.json()["error"]["fields"]
    assert call(alice, "get", "/api/v1/reading").json()["message_style"] == "bubbles"


def test_the_browsers_time_zone_is_kept_and_can_be_emptied(call, alice, store):
    kept = call(alice, "put", "/api/v1/reading", {"time_zone": "Asia/Shanghai"})
    assert kept.status_code == 200 and kept.json()["time_zone"] == "Asia/Shanghai"
    assert call(alice, "put", "/api/v1/reading", {"time_zone": ""}).json()["time_zone"] == ""


def test_an_unknown_time_zone_is_refused_in_the_readers_language(client, alice, store):
    refused = client.put("/api/v1/reading", data=json.dumps({"time_zone": "Mars/Olympus"}),
                         content_type="application/json", HTTP_ACCEPT_LANGUAGE="zh-hans",
                         HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    assert refused.status_code == 400
    assert "不是已知的时区" in refused.json()["error"]["fields"]["time_zone"]


def test_a_value_edited_by_hand_into_the_file_reads_as_its_default(call, alice, store):
    store.module_write("reading", {"accounts": {"alice": {"text_size": "999",
                                                          "message_numbers": True,
                                                          "time_zone": "Mars/Olympus"}}})
    got = call(alice, "get", "/api/v1/reading").json()
    assert got["text_size"] == "100" and got["message_numbers"] is True
    assert got["time_zone"] == ""


def test_the_pages_carry_the_accounts_reading_settings(call, alice, alice_client, instance):
    call(alice, "put", "/api/v1/reading", {"text_size": "115", "chat_width": "narrow",
                                           "message_style": "flat", "timestamps": False,
                                           "message_numbers": True})
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    for attribute in ('data-reading-text-size="115"', 'data-reading-chat-width="narrow"',
                      'data-reading-message-style="flat"', 'data-reading-timestamps="off"',
                      'data-reading-message-numbers="on"'):
        assert attribute in page


def test_the_pages_carry_the_kept_time_zone_for_the_browser_to_compare(call, alice, alice_client,
                                                                      client, instance):
    call(alice, "put", "/api/v1/reading", {"time_zone": "Asia/Shanghai"})
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert 'data-reading-time-zone="Asia/Shanghai"' in page
    assert 'data-reading-url="/api/v1/reading"' in page
    client.logout()  # a page without an account has no zone to keep
    login = client.get("/login/")
    assert login.status_code == 200 and "data-reading-time-zone" not in login.content.decode()


def test_a_theme_and_a_font_are_kept_and_carried_by_the_pages(call, alice, alice_client,
                                                              instance):
    changed = call(alice, "put", "/api/v1/reading", {"theme": "night", "font": "serif"})
    assert changed.status_code == 200
    assert changed.json()["theme"] == "night" and changed.json()["font"] == "serif"
    assert call(alice, "get", "/api/v1/reading").json()["text_size"] == "100"
    for url in (f"/instances/{instance}/", "/settings/"):
        page = alice_client.get(url).content.decode()
        assert 'data-reading-theme="night"' in page and 'data-reading-font="serif"' in page
    settings_page = alice_client.get("/settings/").content.decode()
    assert '<option value="night" selected>' in settings_page
    assert '<option value="serif" selected>' in settings_page


def test_ones_own_accent_colour_is_kept_carried_by_the_pages_and_cleared(call, alice, bob,
                                                                        alice_client, instance):
    changed = call(alice, "put", "/api/v1/reading", {"accent": "#FFFF00"})
    assert changed.status_code == 200 and changed.json()["accent"] == "#ffff00"
    assert call(bob, "get", "/api/v1/reading").json()["accent"] == ""
    for url in (f"/instances/{instance}/", "/settings/", "/library/"):
        assert 'data-reading-accent="#ffff00"' in alice_client.get(url).content.decode()
    assert 'name="accent" value="#ffff00"' in alice_client.get("/settings/").content.decode()
    cleared = call(alice, "put", "/api/v1/reading", {"accent": ""})
    assert cleared.json()["accent"] == "" and cleared.json()["theme"] == "default"


def test_an_accent_edited_by_hand_into_a_stylesheet_reads_as_the_themes(call, alice, store):
    store.module_write("reading", {"accounts": {"alice": {"accent": "#000;} body{display:none"}}})
    assert call(alice, "get", "/api/v1/reading").json()["accent"] == ""


def test_a_replys_info_says_when_which_model_its_tokens_and_how_long(call, alice, instance,
                                                                    use_stub):
    use_stub.script(Reply("One two three four five."))
    trace_id = call(alice, "post", "/api/v1/chat",
                    {"instance_id": instance, "query": "Hello"}).json()["trace_id"]
    info = call(alice, "get", f"/api/v1/traces/{trace_id}?fields=info")
    assert info.status_code == 200
    body = info.json()
    assert body["model"] and body["provider"] and body["turn"] == 1
    assert body["created_at"] and body["finished_at"] and body["unfinished"] is False
    assert 0 < body["reply_tokens"] < body["prompt_tokens"]
    assert body["total_ms"] >= body["llm_ms"] >= 0 and body["first_token_ms"] is not None
    assert "sections" not in body and "messages" not in body


def test_another_accounts_reply_info_is_not_found(call, alice, bob, instance, use_stub):
    use_stub.script(Reply("Mine."))
    trace_id = call(alice, "post", "/api/v1/chat",
                    {"instance_id": instance, "query": "Hello"}).json()["trace_id"]
    assert call(bob, "get", f"/api/v1/traces/{trace_id}?fields=info").status_code == 404


def test_an_account_without_staff_rights_can_change_its_reading_on_the_settings_page(
        alice_client):
    """The rest of the page is read-only for such an account (a disabled fieldset); the
    reading form stands outside it, so its fields work."""
    page = alice_client.get("/settings/").content.decode()
    form = page.index('data-testid="reading-form"')
    locked = page.index("<fieldset class=\"plain\" disabled>")
    assert form < page.index('name="message_style"') < page.index("</form>", form) < locked
