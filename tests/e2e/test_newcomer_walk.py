"""A newcomer's evening, walked at phone and laptop width, light and dark (issue 33 item 6):
home → library → a character's editor → a new chat → a few turns → persona & memory → history
→ settings. On every page: axe-core finds no serious or critical violation (the character's
editor and settings are the demo's own pages, audited at the same widths by
test_accessibility.py), no page scrolls sideways, and no text a player reads carries an id
(sess_…, inst_…, char_…): names only. Screenshots per page go to tests/e2e/screenshots/walk_*."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page

from tests.e2e.axe_audit import AXE, audit_in_each_scheme
from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    Server,
    message_send,
    network_quiet,
    no_sideways_scroll,
    screenshots_in_each_scheme,
    turn_wait_done,
)

# A server of its own: the walk reads the home page as a newcomer's.
pytestmark = pytest.mark.e2e

ID_SHOWN = re.compile(r"\b(?:sess|inst|char|bg|lore|persona)_[0-9a-z]+")


def _page_check(page: Page, name: str, problems: dict, *, audit: bool = True) -> None:
    """The page as it stands (its requests done: `network_quiet` around what brought it),
    audited light and dark (its colours follow the scheme live) unless `audit` is False: a
    page no different on the walk's server, which test_accessibility.py audits."""
    no_sideways_scroll(page)
    screenshots_in_each_scheme(page, name, full_page=False)
    for scheme, found in (audit_in_each_scheme(page) if audit else {}).items():
        problems[f"{name} ({scheme})"] = found
    if ids := sorted(set(ID_SHOWN.findall(page.inner_text("body")))):
        problems[f"{name} shows ids"] = ids


@pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_newcomers_walk_reads_names_and_passes_axe(page: Page, server: Server,
                                                    size: dict) -> None:
    page.add_init_script(path=str(AXE))
    page.set_viewport_size(size)
    tag = f"walk_{size['width']}"
    problems: dict = {}
    with network_quiet(page):
        page.goto(f"{server.url}/")
    _page_check(page, f"{tag}_1_home", problems)
    if page.get_by_test_id("nav-toggle").is_visible():  # a phone's top bar: links behind ≡
        page.get_by_test_id("nav-toggle").click()
    with network_quiet(page):
        page.click(".topbar a[href='/library/']")
        page.wait_for_url(f"{server.url}/library/")
    _page_check(page, f"{tag}_2_library", problems)
    with network_quiet(page):
        page.locator("a[href^='/library/characters/char_']").first.click()
        page.wait_for_url(re.compile(r"/library/characters/char_"))
    # The walk's server holds only the demo: its editor is char_alserqi's, audited there.
    assert page.url == f"{server.url}/library/characters/char_alserqi/"
    _page_check(page, f"{tag}_3_character_editor", problems, audit=False)
    page.goto(f"{server.url}/")
    # The demo's character, as on a fresh server: on the shared one a module's own may be first.
    page.select_option("form[action='/instances/new'] select[name=character_id]", "char_alserqi")
    with network_quiet(page):
        page.click("form[action='/instances/new'] button[type=submit]")
        page.wait_for_url(re.compile(r"/instances/[^/]+/$"))
        for text in ("Hello there.", "Tell me about the forest."):
            message_send(page, text)
            turn_wait_done(page)
    _page_check(page, f"{tag}_4_chat", problems)
    chat = page.url
    for path, step in ((f"{chat}persona/", "5_persona_memory"), (f"{chat}history/", "6_history"),
                       (f"{server.url}/settings/", "7_settings"),
                       (f"{server.url}/", "8_home_after")):
        with network_quiet(page):
            page.goto(path)
        _page_check(page, f"{tag}_{step}", problems, audit=step != "7_settings")
    assert problems == {}, "\n".join(f"{name}: {found}" for name, found in problems.items())
    assert page.js_errors == []
