"""The settings page's tools: "Test connection" lists the models of the typed base URL (with the
key rules of a turn) or says in a sentence why it failed, and each section restores only its
own defaults."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from tests.pages.settings_form import SETTINGS_FORM
from tests.stub_llm import refused_url


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


def test_test_connection_lists_the_models_of_the_typed_base_url(staff_client, store, stub_llm):
    response = staff_client.post("/settings/test_connection",
                                 {"llm.base_url": stub_llm.base_url, "llm.api_key": "sk-typed"})
    page = response.content.decode()
    assert response.status_code == 200
    assert '<option value="stub-model">stub-model</option>' in page
    assert stub_llm.authorizations == ["Bearer sk-typed"]
    assert not store.module_path("llm").exists()  # a test saves nothing


def test_test_connection_never_sends_the_env_key_to_another_base_url(staff_client, stub_llm,
                                                                     settings):
    settings.OPENAI_BASE_URL = "http://llm.internal:8000/v1"
    settings.OPENAI_API_KEY = "sk-env"
    staff_client.post("/settings/test_connection", {"llm.base_url": stub_llm.base_url})
    assert stub_llm.authorizations and "sk-env" not in stub_llm.authorizations[0]

    stub_llm.reset()
    settings.OPENAI_BASE_URL = stub_llm.base_url
    response = staff_client.post("/settings/test_connection", {"llm.base_url": ""})
    assert "stub-model" in response.content.decode()
    assert stub_llm.authorizations == ["Bearer sk-env"]  # the env's own endpoint gets its key


def test_test_connection_failures_are_sentences(staff_client, stub_llm):
    url = refused_url()
    response = staff_client.post("/settings/test_connection", {"llm.base_url": url})
    assert response.status_code == 502
    assert f"Could not connect to {url}: check the address" in response.content.decode()

    response = staff_client.post("/settings/test_connection",
                                 {"llm.base_url": stub_llm.base_url.removesuffix("/v1") + "/nope"},
                                 HTTP_HX_REQUEST="true")
    assert response.status_code == 200  # htmx swaps it in
    assert "Connection failed: LLM service returned 404" in response.content.decode()

    response = staff_client.post("/settings/test_connection", {"llm.base_url": "not a url"})
    assert response.status_code == 400
    assert "The base URL" in response.content.decode()


def test_test_connection_without_any_endpoint_explains_the_offline_demo(staff_client,
                                                                        settings):
    settings.OPENAI_BASE_URL = ""
    settings.OPENAI_API_KEY = ""
    response = staff_client.post("/settings/test_connection", {"llm.base_url": ""})
    assert response.status_code == 400
    assert "offline demo" in response.content.decode()


def test_only_staff_may_test_the_connection(client, alice, stub_llm):
    client.force_login(alice)
    response = client.post("/settings/test_connection", {"llm.base_url": stub_llm.base_url})
    assert response.status_code == 403 and not stub_llm.authorizations
    assert 'data-testid="llm-test"' not in client.get("/settings/").content.decode()


@pytest.mark.parametrize("section, reset, kept", [
    ("thresholds", lambda s: s.config_read()["thresholds"]["summary_last_n_turns"] == 5,
     lambda s: s.config_read()["limits"]["max_total_tokens"] == 150000),
    ("limits", lambda s: s.config_read()["limits"]["max_total_tokens"] == 100000,
     lambda s: s.config_read()["thresholds"]["summary_last_n_turns"] == 9),
    ("preferences",
     lambda s: s.config_read()["preferences"]["summary_order"] == "summary_first",
     lambda s: s.module_read("history")["page_size"] == 321),
    ("memory", lambda s: s.module_read("memory")["recap_every_n_rounds"] == 5,
     lambda s: s.module_read("history")["page_size"] == 321),
    ("history", lambda s: s.module_read("history")["page_size"] == 100,
     lambda s: s.module_read("memory")["recap_every_n_rounds"] == 42),
    ("llm", lambda s: s.module_read("llm")["base_url"] == "" and not s.module_read("llm")["api_key"],
     lambda s: s.config_read()["preferences"]["summary_order"] == "last_n_first"),
])
def test_each_section_restores_only_its_own_defaults(staff_client, store, section, reset, kept):
    assert staff_client.post("/settings/", SETTINGS_FORM).status_code == 302
    assert not reset(store)
    response = staff_client.post("/settings/", {"reset": section}, follow=True)
    assert "Defaults restored for" in response.content.decode()
    assert reset(store) and kept(store)


def test_every_section_has_a_reset_button_that_asks_first(staff_client):
    page = staff_client.get("/settings/").content.decode()
    for section in ("thresholds", "limits", "preferences", "director", "memory", "history",
                    "llm"):
        button = page.split(f'data-testid="reset-{section}"')[1].split(">")[0]
        assert "data-confirm=" in button  # static/page.js asks (no inline script: CSP)


def test_restore_all_and_unknown_sections(staff_client, store):
    staff_client.post("/settings/", SETTINGS_FORM)
    page = staff_client.post("/settings/", {"reset": "nope"}, follow=True).content.decode()
    assert "that settings section is unknown" in page
    assert store.module_read("history")["page_size"] == 321
    staff_client.post("/settings/", {"reset": "all"})
    assert store.module_read("history")["page_size"] == 100
    assert store.config_read()["limits"]["max_total_tokens"] == 100000
    assert store.module_read("llm")["model"] == ""


CONTROLS = ("input", "select", "textarea", "button")


class _Controls(HTMLParser):
    """Each form control of the settings form, with whether a disabled fieldset holds it."""

    def __init__(self) -> None:
        super().__init__()
        self.fieldsets: list[bool] = []
        self.controls: list[tuple[str, bool]] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "fieldset":
            self.fieldsets.append("disabled" in attributes)
        elif tag in CONTROLS and attributes.get("type") != "hidden":
            name = attributes.get("name") or attributes.get("data-testid") or tag
            self.controls.append((name, any(self.fieldsets)))

    def handle_endtag(self, tag):
        if tag == "fieldset" and self.fieldsets:
            self.fieldsets.pop()


def test_a_player_sees_every_section_read_only_and_cannot_change_any(client, alice, store):
    client.force_login(alice)
    page = client.get("/settings/").content.decode()
    form = page.split('id="settings-form"')[1].split("</form>")[0]
    parser = _Controls()
    parser.feed(form)
    sections = {name.split(".")[0] for name, _ in parser.controls if "." in name}
    assert sections == {"thresholds", "limits", "preferences", "director", "memory", "history",
                        "llm", "prompt"}
    assert [name for name, disabled in parser.controls if not disabled] == []
    assert "reset-" not in form and 'type="submit"' not in form
    before = (store.config_read(), store.module_read("history"), store.module_read("llm"))
    for posted in (SETTINGS_FORM, {"reset": "all"}, {"reset": "history"}):
        response = client.post("/settings/", posted, follow=True)
        assert "Only staff accounts may change the settings." in response.content.decode()
    assert (store.config_read(), store.module_read("history"), store.module_read("llm")) == before
