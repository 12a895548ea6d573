"""A card text longer than one prompt section may render (200,000 characters): the turn says
which text is too long and by how much, not "check the template syntax"."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_description_too_long_for_its_section_is_named_with_the_limit(as_alice):
    character = as_alice("post", "/api/v1/characters", {
        "name": "Mira", "base_persona": "lighthouse " * 21_000}).json()["character_id"]
    background = as_alice("post", "/api/v1/backgrounds", {
        "name": "Coast", "world_setting": "A stormy night."}).json()["background_id"]
    chat = as_alice("post", "/api/v1/instances",
                    {"character_id": character, "background_id": background}).json()
    response = as_alice("post", "/api/v1/chat",
                        {"instance_id": chat["instance_id"], "query": "hello"})
    assert response.status_code == 200, response.content
    warnings = response.json()["warnings"]
    assert "template_error" not in [w["category"] for w in warnings]
    (warning,) = [w for w in warnings if w["category"] == "section_too_long"]
    assert warning["field"] == "base_persona" and warning["current_value"] == 231_000
    assert warning["threshold"] == 200_000
    assert "base_persona" in warning["detail"] and "200,000" in warning["detail"]
    assert "left out" in warning["message"] and "Shorten" in warning["suggestion"]

    trace = json.dumps(as_alice("get", f"/api/v1/traces/{response.json()['trace_id']}").json())
    assert "A stormy night." in trace and "lighthouse lighthouse" not in trace  # only it left out
