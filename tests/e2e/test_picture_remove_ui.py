"""The editors' "Remove the picture" calls the REST API the way any client does
(`DELETE /api/v1/<kind>/<id>/picture`): the picture goes at once, the page says so, and
nothing else in the form is touched (issue 33)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.e2e.conftest import Server
from tests.e2e.page_api import api_call, persona_make
from tests.png_files import png_bytes

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]


def _remove_in_editor(page: Page, url: str) -> list[str]:
    """Click "Remove the picture"; the REST calls the page made."""
    calls: list[str] = []
    page.on("request", lambda request: calls.append(f"{request.method} {request.url}")
            if "/api/v1/" in request.url else None)
    page.goto(url)
    assert page.locator("img[data-role=avatar-now]").count() == 1
    page.click("[data-testid=picture-remove-button]")
    page.locator("[data-testid=picture-remove-status]").filter(
        has_text="Picture removed.").wait_for()
    assert page.locator("img[data-role=avatar-now]").count() == 0
    return calls


def test_remove_the_picture_calls_the_rest_api(page: Page, server: Server,
                                               tmp_path: Path) -> None:
    # A character of its own: the demo's is shared by the modules on the shared server.
    character_id = api_call(page, server, "POST", "/characters", {
        "character_id": "char_picture_remove", "name": "Remove Test",
        "base_persona": "Has a picture, for now."})["character_id"]
    (server.data / "characters" / character_id / "avatar.png").write_bytes(png_bytes(2, 3))
    calls = _remove_in_editor(page, f"{server.url}/library/characters/{character_id}/")
    assert any(c.startswith("DELETE ") and c.endswith(f"/api/v1/characters/{character_id}/picture")
               for c in calls), calls
    assert not list((server.data / "characters" / character_id).glob("avatar.*"))

    persona = {"persona_id": persona_make(page, server, "Mira")}
    picture = tmp_path / "mira.png"
    picture.write_bytes(png_bytes(20, 30))
    page.goto(f"{server.url}/library/personas/{persona['persona_id']}/")
    page.set_input_files("input[name=avatar]", str(picture))
    page.locator("[data-role=avatar-preview]:visible").wait_for()
    with page.expect_navigation():
        page.click("#persona-form button[type=submit]")
    calls = _remove_in_editor(page, f"{server.url}/library/personas/{persona['persona_id']}/")
    assert any(c.startswith("DELETE ") and c.endswith(
        f"/api/v1/personas/{persona['persona_id']}/picture") for c in calls), calls
    assert server.store.persona_read(persona["persona_id"])["avatar"] is None
    page.reload()
    assert page.locator("img[data-role=avatar-now]").count() == 0
    assert page.js_errors == []
