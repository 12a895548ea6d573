"""Attack: staff (or whoever gets the settings page) points the base URL at a server they control
and collects the server's OPENAI_API_KEY from the Authorization header. The environment's key
goes only to the environment's base URL; another URL gets only a key entered for it."""

from __future__ import annotations

import pytest

from chat.play.turn import turn_run
from personalab.llm_config import llm_settings_from_env

pytestmark = pytest.mark.django_db(transaction=True)

SETTINGS_FORM = {"thresholds.rag_fallback_threshold": "3", "thresholds.summary_last_n_turns": "5",
                 "limits.max_total_tokens": "100000",
                 "limits.middle_section_warning_tokens": "20000",
                 "limits.conversation_max_tokens": "100000",
                 "preferences.summary_order": "summary_first"}


def _elsewhere(base_url: str) -> str:
    """The same stub server under another name: to the app, another endpoint."""
    return base_url.replace("127.0.0.1", "localhost")


async def _turn(store, instance_id):
    async def emit(event):
        pass

    return await turn_run(store, instance_id=instance_id, user_text="hi", emit=emit)


def _save(client, **fields):
    return client.post("/settings/", {**SETTINGS_FORM, **fields})


async def test_env_key_never_reaches_a_base_url_set_on_the_settings_page(store, instance,
                                                                        use_stub, staff, client):
    from asgiref.sync import sync_to_async

    await sync_to_async(client.force_login)(staff)
    response = await sync_to_async(_save)(client, **{"llm.base_url": _elsewhere(use_stub.base_url)})
    assert response.status_code == 302
    await _turn(store, instance)
    assert use_stub.authorizations[-1] != "Bearer test-key"

    await sync_to_async(_save)(client, **{"llm.base_url": _elsewhere(use_stub.base_url),
                                          "llm.api_key": "sk-entered-for-it"})
    await _turn(store, instance)
    assert use_stub.authorizations[-1] == "Bearer sk-entered-for-it"
    page = (await sync_to_async(client.get)("/settings/")).content.decode()
    assert "sk-entered-for-it" not in page and "a key is stored" in page

    await sync_to_async(_save)(client, **{"llm.base_url": use_stub.base_url + "/"})
    await _turn(store, instance)
    assert use_stub.authorizations[-1] == "Bearer test-key"
    assert store.module_read("llm")["api_key"] == ""  # changing the URL forgot the entered key


def test_an_entered_key_stays_with_its_url_until_forgotten(client, staff, store):
    client.force_login(staff)
    _save(client, **{"llm.base_url": "http://llm.example:8080/v1", "llm.api_key": "sk-1"})
    _save(client, **{"llm.base_url": "http://llm.example:8080/v1", "llm.model": "m2"})
    assert store.module_read("llm")["api_key"] == "sk-1"
    _save(client, **{"llm.base_url": "http://llm.example:8080/v1", "llm.api_key_clear": "on"})
    assert store.module_read("llm")["api_key"] == ""


def test_env_key_is_used_when_the_page_names_the_env_url(settings):
    settings.OPENAI_BASE_URL = "http://llm.internal:8000/v1"
    settings.OPENAI_API_KEY = "sk-env"
    same = llm_settings_from_env({"base_url": "HTTP://llm.internal:8000/v1/", "api_key": "x"})
    assert same.api_key == "sk-env"
    other = llm_settings_from_env({"base_url": "http://llm.internal:8001/v1"})
    assert other.api_key == ""
    settings.OPENAI_BASE_URL = ""
    assert llm_settings_from_env({"base_url": "https://api.openai.com/v1"}).api_key == "sk-env"
    assert llm_settings_from_env({"base_url": "https://evil.example/v1"}).api_key == ""


@pytest.mark.parametrize("url", ["ftp://x/v1", "javascript:alert(1)", "not a url", "http://",
                                 "http://user:pw@host/v1", "http://host:99999/v1",
                                 "file:///etc/passwd"])
def test_base_url_must_be_an_http_url_with_the_error_beside_the_field(client, staff, store, url):
    client.force_login(staff)
    response = _save(client, **{"llm.base_url": url})
    assert response.status_code == 400
    assert 'data-field="llm.base_url"' in response.content.decode()
    assert store.module_read("llm")["base_url"] == ""
