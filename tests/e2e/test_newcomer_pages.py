"""What a newcomer still marked down on the pages around the chat (newcomer round, brief items
2–6): the player shown as "User", a history page that opens on its session list with related
chats told apart only by date, a connection explained in environment-variable names, and a
character editor that is one long form. The empty "Evolved persona" box that said no word and
the sections a new character opens on are server HTML: tests/pages/test_persona_page.py and
tests/library/test_character_editing.py prove them without a browser."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.e2e.conftest import (
    DESKTOP,
    PHONE,
    Server,
    browser_missing_reason,
    instance_new,
    message_send,
    no_sideways_scroll,
    screenshot_take,
    turn_wait_done,
)
from tests.e2e.page_api import api_call
from tests.stub_llm import Reply

if TYPE_CHECKING:
    from playwright.sync_api import Page

_missing = browser_missing_reason()
if _missing:
    pytest.skip(_missing, allow_module_level=True)

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

# Only at phone width: the settings page and the character editor have no width rule of their
# own (only <main>'s padding under 700 px), so a laptop run proved nothing more.
ONLY_PHONE = pytest.mark.parametrize("size", [PHONE], ids=["phone"])


def _top(page: Page, selector: str) -> float:
    return page.locator(selector).first.bounding_box()["y"]


def test_a_player_without_a_persona_is_user_not_their_login(page: Page, server: Server) -> None:
    """The demo's characters called the player "admin" (docs/decisions/newcomer-name.md)."""
    page.set_viewport_size(PHONE)
    instance_new(page, server)
    server.stub.script(Reply("Welcome, traveller."))
    message_send(page, "Hello.")
    turn_wait_done(page)
    mine = page.locator("[data-testid=message][data-role=user]").last
    assert mine.locator(".who strong").inner_text() == "User"
    assert mine.locator(".avatar").inner_text().strip() == "U"
    # the player's letter has its own colour, whatever the letters
    colour = "el => getComputedStyle(el).backgroundColor"
    theirs = page.locator("[data-testid=message][data-role=assistant] .avatar").last
    assert mine.locator(".avatar").evaluate(colour) != theirs.evaluate(colour)
    assert page.js_errors == []


def test_the_history_page_on_a_phone_starts_with_its_heading_and_names_related_chats(
        page: Page, server: Server) -> None:
    page.set_viewport_size(PHONE)
    server.stub.script(Reply("North it is."), Reply("South it is."))
    for first in ("Take me to the northern wall.", "Which way to the southern sea?"):
        instance_id = instance_new(page, server)
        message_send(page, first)
        turn_wait_done(page)
    page.goto(f"{server.url}/instances/{instance_id}/history/")
    page.wait_for_selector("#related time[data-local]")
    screenshot_take(page, "newcomer_history_390", full_page=False)
    heading = _top(page, "h1")
    assert heading < _top(page, "#history-rows") < _top(page, "h3:text('Sessions')")
    assert heading < _top(page, "[data-testid=related-conversations]")
    names = page.locator("#related .session-list li > a:first-child").all_inner_texts()
    assert "“Take me to the northern wall.”" in names, names
    assert "“Which way to the southern sea?”" in names, names
    no_sideways_scroll(page)
    assert page.js_errors == []


@ONLY_PHONE
def test_the_connection_is_explained_in_plain_words_with_the_env_names_as_a_note(
        page: Page, server: Server, size: dict) -> None:
    page.set_viewport_size(size)
    page.goto(f"{server.url}/settings/")
    for label in ("Server URL", "API key", "Model"):
        assert page.get_by_label(label, exact=True).is_visible(), label
    intro = page.get_by_test_id("connection-intro")
    assert "OPENAI" not in intro.inner_text() and "server" in intro.inner_text()
    for name in ("llm.base_url", "llm.api_key", "llm.model"):
        label = page.locator(f"label:has(input[name='{name}'])").inner_text()
        assert "OPENAI" not in label and "PERSONALAB" not in label, label
    note = page.get_by_test_id("connection-env-note")
    assert "OPENAI_BASE_URL" in note.inner_text() and "PERSONALAB_MODEL" in note.inner_text()
    size_of = "el => parseFloat(getComputedStyle(el).fontSize)"
    assert note.locator("small").evaluate(size_of) < intro.evaluate(size_of)
    screenshot_take(page, f"newcomer_settings_{size['width']}", full_page=False)
    assert page.js_errors == []


@ONLY_PHONE
def test_the_character_editor_folds_its_sections_with_counts_and_saves_everything(
        page: Page, server: Server, size: dict) -> None:
    page.set_viewport_size(size)
    # Its own copy of the demo's character: the demo's is shared by the modules on the shared
    # server, and this test edits the card.
    character_id = api_call(page, server, "POST", "/characters/char_alserqi/copy")["character_id"]
    card = api_call(page, server, "GET", f"/characters/{character_id}")
    api_call(page, server, "PUT", f"/characters/{character_id}", {
        "alternate_greetings": ["The wind turns.", "Dust again."],
        "mes_example": "<START>\n{{char}}: Stay close.\n<START>\n{{char}}: Quiet."})
    before = api_call(page, server, "GET", f"/characters/{character_id}")
    page.goto(f"{server.url}/library/characters/{character_id}/")
    sections = {name: page.get_by_test_id(f"section-{name}")
                for name in ("greetings", "examples", "advanced", "lore", "scripts")}
    assert page.locator("details[data-section=basics]").get_attribute("open") is not None
    for name, section in sections.items():
        assert section.get_attribute("open") is None, name
    count = {name: section.get_by_test_id("section-count").inner_text()
             for name, section in sections.items()}
    assert count["greetings"] == str(int(bool(card.get("greeting"))) + 2)
    assert count["examples"] == "2"
    assert not page.locator("textarea[name=system_prompt]").is_visible()
    no_sideways_scroll(page)
    screenshot_take(page, f"newcomer_character_editor_{size['width']}")
    sections["advanced"].locator("summary").click()
    page.fill("textarea[name=system_prompt]", "Answer as the wasteland would.")
    no_sideways_scroll(page)
    page.click("#character-form button[type=submit]")
    page.wait_for_load_state()
    assert "Character saved." in page.inner_text("body")
    after = api_call(page, server, "GET", f"/characters/{character_id}")
    assert after["card"]["data"]["system_prompt"] == "Answer as the wasteland would."
    for field in ("name", "greeting", "base_persona", "tags", "lorebook_ids"):
        assert after.get(field) == before.get(field), field
    for field in ("alternate_greetings", "mes_example", "post_history_instructions"):
        assert after["card"]["data"].get(field) == before["card"]["data"].get(field), field
    # The section the author opened is still open after the save's reload.
    assert sections["advanced"].get_attribute("open") is not None
    old = (card.get("card") or {}).get("data") or {}
    api_call(page, server, "PUT", f"/characters/{character_id}",
         {"alternate_greetings": old.get("alternate_greetings", []),
          "mes_example": old.get("mes_example", ""), "system_prompt": old.get("system_prompt", "")})
    assert page.js_errors == []


def test_enter_in_a_settings_field_saves_instead_of_asking_to_restore_a_section(
        page: Page, server: Server) -> None:
    """Enter presses a form's first submit button, which was the LLM section's "Restore this
    section's defaults": its question came up for a field of another section, and OK reset
    the connection. The value is sent back unchanged: the server is shared."""
    page.set_viewport_size(DESKTOP)
    page.goto(f"{server.url}/settings/")
    asked: list[str] = []
    page.on("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    field = page.locator("input[name='limits.max_total_tokens']")
    with page.expect_navigation():
        field.press("Enter")
    assert asked == []
    assert "Saved." in page.locator("body").inner_text()
    assert page.js_errors == []


CARD_HEADING_GAPS = """() => [...document.querySelectorAll('.card')].flatMap(card => {
    const first = card.firstElementChild;
    const inner = first && first.tagName === 'DIV' ? first.firstElementChild : null;
    const heading = first && /^H[1-4]$/.test(first.tagName) ? first
        : inner && /^H[1-4]$/.test(inner.tagName) ? inner : null;
    if (!heading || !heading.getClientRects().length) return [];
    const style = getComputedStyle(card);
    const room = parseFloat(style.borderTopWidth) + parseFloat(style.paddingTop);
    return [[heading.textContent.trim().slice(0, 30),
             heading.getBoundingClientRect().top - card.getBoundingClientRect().top - room]];
})"""


WRAPPED_ROW_GAPS = """(buttons) => buttons.flatMap((upper, i) => buttons.slice(i + 1).map(lower => {
    const a = upper.getBoundingClientRect(), b = lower.getBoundingClientRect();
    return b.top >= a.bottom - 1 ? b.top - a.bottom : null;
}).filter(gap => gap !== null))"""


def test_a_heading_that_opens_a_card_sits_at_its_padding_and_wrapped_buttons_keep_apart(
        page: Page, server: Server) -> None:
    """"Start a chat", "Story outline", "Memory", "Export": a heading's own top margin added a
    band as tall as the card's padding over it (laptop). On the same chat page, "Clear this
    chat's variables" and "Clear global variables" are too long for one row of the laptop's
    side panel: the rows they wrap into touched, border on border."""
    page.set_viewport_size(DESKTOP)
    gaps = []
    for path in ("/", "/instances/inst_001/"):
        page.goto(f"{server.url}{path}")
        gaps += page.evaluate(CARD_HEADING_GAPS)
    assert {"Start a chat", "Story outline", "Memory", "Export"} <= {name for name, _ in gaps}
    assert [(name, gap) for name, gap in gaps if abs(gap) > 1] == []
    rows = page.locator("#variables-card form button").evaluate_all(WRAPPED_ROW_GAPS)
    assert rows, "the buttons fit one row: nothing wrapped to measure"
    assert min(rows) >= 4, rows


def test_a_long_name_takes_two_lines_of_the_phones_chat_header(page: Page,
                                                               server: Server) -> None:
    name = "Commander Evangelina Maximiliana Featherstonehaugh-Worthington of the North"
    character = api_call(page, server, "POST", "/characters",
                         {"name": name, "base_persona": "A ranger."})["character_id"]
    instance = api_call(page, server, "POST", "/instances",
                        {"character_id": character})["instance_id"]
    page.set_viewport_size(PHONE)
    page.goto(f"{server.url}/instances/{instance}/")
    title = page.get_by_test_id("chat-title")
    line = title.evaluate("el => parseFloat(getComputedStyle(el).lineHeight)")
    assert title.bounding_box()["height"] <= 2 * line + 1
    assert title.get_attribute("title") == name and title.text_content() == name
    screenshot_take(page, "long_name_header_390", full_page=False)
    assert page.js_errors == []
