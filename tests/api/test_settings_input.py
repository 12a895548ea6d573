"""Attacks on the settings: "²" or "١٢" where a number goes, and deeply nested JSON in a config
body. Each gets a 400 (or the form's error beside the field), never a 500, and nothing is saved."""

from __future__ import annotations

import json

import pytest

from personalab.lib.config_schema import config_validate, whole_number


def _nested(depth: int) -> dict:
    value: dict = {}
    for _ in range(depth):
        value = {"x": value}
    return value


@pytest.mark.parametrize("value", ["²", "١٢", "５", "1_0", "٣", " ", "1e3", "NaN"])
def test_non_ascii_digits_in_config_get_400_naming_the_field(client, staff, store, value):
    client.force_login(staff)
    response = client.put("/api/v1/config",
                          json.dumps({"thresholds": {"rag_fallback_threshold": value}}),
                          content_type="application/json")
    assert response.status_code == 400
    assert "thresholds.rag_fallback_threshold" in response.json()["error"]["fields"]
    assert not store.config_path.exists()


@pytest.mark.parametrize("body", [
    {"thresholds": {"rag_fallback_threshold": _nested(400)}},
    {"thresholds": _nested(400)},
    {"deep": _nested(400)},
    {"thresholds": 5},
])
def test_deeply_nested_or_misshapen_config_gets_400(client, staff, store, body):
    client.force_login(staff)
    response = client.put("/api/v1/config", json.dumps(body), content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["fields"]
    assert not store.config_path.exists()


def test_hand_edited_config_with_a_section_that_is_not_an_object_can_be_repaired():
    config, errors = config_validate({"thresholds": {"rag_fallback_threshold": 4,
                                                     "summary_last_n_turns": 5}},
                                     {"thresholds": 7, "limits": {}})
    assert config["thresholds"]["rag_fallback_threshold"] == 4
    assert set(errors) == {"limits.max_total_tokens", "limits.middle_section_warning_tokens",
                           "limits.conversation_max_tokens", "preferences.summary_order",
                           "preferences.conversation_load_all"}


@pytest.mark.parametrize("raw, number", [("12", 12), (" 12 ", 12), ("12.0", 12), ("-3", -3),
                                         ("²", None), ("١٢", None), ("12.5", None), ("", None),
                                         ("inf", None), ("9" * 400, None)])
def test_form_numbers_are_ascii_whole_numbers(raw, number):
    assert whole_number(raw) == number


@pytest.mark.parametrize("value", ["²", "١٢", "9" * 400])
def test_settings_form_shows_the_error_beside_the_field(client, staff, store, value):
    client.force_login(staff)
    form = {"thresholds.rag_fallback_threshold": value, "thresholds.summary_last_n_turns": "5",
            "limits.max_total_tokens": "100000", "limits.middle_section_warning_tokens": "5000",
            "limits.conversation_max_tokens": "100000", "preferences.summary_order": "summary_first",
            "history.page_size": value}
    response = client.post("/settings/", form)
    assert response.status_code == 400
    page = response.content.decode()
    assert 'data-field="thresholds.rag_fallback_threshold"' in page
    assert 'data-field="history.page_size"' in page
    assert not store.config_path.exists()
