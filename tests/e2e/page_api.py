"""What many browser tests do besides the step they check: call the REST API with the browser's
own session, make a persona or a character, open the chat drawer and its members or reading
card, and wait for a reading setting to be saved and applied."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from tests.e2e.conftest import Server, csrf_token, wait_until

if TYPE_CHECKING:
    from playwright.sync_api import Locator, Page


def api_call(page: Page, server: Server, method: str, path: str,
             body: dict | None = None) -> dict:
    """The REST API with the browser's own session (and its CSRF token), as the page uses it.
    The page need not be on the server: a logged-in context holds the token."""
    token = csrf_token(page, server)
    response = page.request.fetch(
        f"{server.url}/api/v1{path}", method=method,
        data=json.dumps(body) if body is not None else None,
        headers={"X-CSRFToken": token, "Content-Type": "application/json"})
    assert response.ok, response.text()
    return response.json()


def persona_make(page: Page, server: Server, name: str) -> str:
    """A persona of admin's that is not the account's default (an account's first persona
    becomes its default): the modules on the shared server share the account, and one names
    the player by their account when they have no persona."""
    persona = api_call(page, server, "POST", "/personas", {"name": name})["persona_id"]
    api_call(page, server, "PUT", f"/personas/{persona}", {"default": False})
    return persona


def import_name_decline(page: Page) -> None:
    """On a chat import's check page, the newcomer's name the file offers is left empty (a
    "User" import as before): taken, it would make admin a default persona, and the modules on
    the shared server share the account. Shown only while admin has no persona."""
    field = page.get_by_test_id("player-name")
    if field.count():
        field.fill("")


def drawer_open(page: Page) -> None:
    """The chat drawer shown: on a phone it slides in with `visibility: hidden` until its first
    frame, so it is waited for (read in the frame of the click, its text is "": innerText)."""
    toggle = page.locator("[data-testid=drawer-toggle]")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.click()
    page.locator("#drawer").wait_for(state="visible")


def members_card_open(page: Page) -> Locator:
    """The drawer's "Characters in this story" card, opened."""
    drawer_open(page)
    card = page.locator("[data-testid=members-card]")
    if card.get_attribute("open") is None:
        card.locator("summary").click()
    return card


def character_make(page: Page, server: Server, name: str) -> str:
    """A character of the browser's account that greets with its name; its id."""
    return api_call(page, server, "POST", "/characters", {
        "name": name, "base_persona": f"{name} keeps the inn.",
        "greeting": "*{{char}} waves.* I am {{char}}."})["character_id"]


def scout_make(page: Page, server: Server, name: str) -> str:
    """A character of the browser's account with no greeting, its id `char_<name>_start`."""
    character_id = f"char_{name.lower()}_start"  # an id no other module on the shared server makes
    api_call(page, server, "POST", "/characters", {
        "character_id": character_id, "name": name, "base_persona": f"{name}, a scout."})
    return character_id


def reading_card_open(page: Page) -> None:
    """The drawer's reading card, as a player reaches it (☰ Story on a phone)."""
    toggle = page.get_by_test_id("drawer-toggle")
    if toggle.is_visible():
        toggle.click()
    card = page.get_by_test_id("reading-card")
    if card.get_attribute("open") is None:
        card.locator("summary").click()


def reading_wait_saved(page: Page, attribute: str, value: str) -> None:
    """Until the page shows reading setting `attribute` as `value` (its body's
    `data-reading-<attribute>`), which it does once the setting is saved."""
    wait_until(page,
        "([name, value]) => document.body.getAttribute(name) === value",
        arg=[f"data-reading-{attribute}", value])


# The page's WebSockets open only when the test says so, and close when it says so: the chat
# page as a slow phone or network sees it, its first connection still opening while the player
# already presses things, or lost mid-answer (a reconnection is held again).
_SOCKETS_HELD = """(() => {
  const Real = window.WebSocket;
  const held = [];
  const opened = [];
  window.socketsRelease = () => { for (const open of held.splice(0)) open(); };
  window.socketsCut = () => { for (const socket of opened.splice(0)) socket.close(); };
  function Held(url, protocols) {
    let real = null;
    const listeners = [];
    held.push(() => {
      real = new Real(url, protocols);
      opened.push(real);
      for (const [type, handler] of listeners) real.addEventListener(type, handler);
    });
    return {
      get readyState() { return real ? real.readyState : Real.CONNECTING; },
      addEventListener(type, handler) {
        listeners.push([type, handler]);
        if (real) real.addEventListener(type, handler);
      },
      send(data) { real.send(data); },
      close(...args) { if (real) real.close(...args); },
    };
  }
  Object.assign(Held, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  window.WebSocket = Held;
})();"""


def sockets_held(page: Page) -> None:
    """The pages this page loads from now on open their WebSockets at `sockets_release`."""
    page.add_init_script(_SOCKETS_HELD)


def sockets_release(page: Page) -> None:
    page.evaluate("window.socketsRelease()")


def sockets_cut(page: Page) -> None:
    page.evaluate("window.socketsCut()")
