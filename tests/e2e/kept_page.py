"""A browser module's page, and a context a test opens with options of its own, kept from one
test to the next instead of made anew.

A chat page loaded in a new page cost about 0.47 s of CPU, in a page already open on one of the
app's pages about 0.21 s (issue 31, docs/testing.md): a new page starts at about:blank in a new
renderer process, and the app's Cross-Origin-Opener-Policy moves the first app page into another
one (which is why sending a page to about:blank between tests saved nothing). So a test's page,
once the test is over, goes to a small page of the app (the reading settings' JSON: the same
policy, no scripts) and waits there for the next test, whose first page then loads in that warm
renderer.

What a test changed on its page is undone first: its init scripts are disposed, its routes and
listeners removed, its viewport and emulated media put back, the tab's sessionStorage cleared
and the mouse sent back to the corner; a context of its own also loses its cookies but the
login's, its localStorage and its permissions. A page a test opened a DevTools session on (touch
or time zone emulation), closed, or that would not leave its last page is not kept: the next
test gets a new one, as every test did before."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

PARKED_PATH = "/api/v1/reading"
# A server a test stopped or left hanging costs the next test a new page, not a minute's wait.
PARK_TIMEOUT_MS = 10_000
# The media a context starts with (Playwright's defaults; context_new sets none of these but
# the colour scheme, kept per context).
MEDIA_AT_START = {"media": "null", "reduced_motion": "no-preference", "forced_colors": "none",
                  "contrast": "no-preference"}


class _PageChanges:
    """What a test did to its page that the next test must not inherit."""

    def __init__(self, page: Page) -> None:
        self.init_scripts: list[Any] = []
        self.listeners: list[tuple[str, Any]] = []
        self.routed = False
        self.media = False
        self.viewport = page.viewport_size
        self.inspected = False  # a DevTools session was opened on it


_kept: dict[int, Page] = {}  # by the id of the context the page belongs to
_changes: dict[int, _PageChanges] = {}  # by the id of the page
_schemes: dict[int, str] = {}  # the colour scheme each context was made with, by its id


def context_watched(context: BrowserContext, *, color_scheme: str = "light") -> None:
    """Note the pages of `context` a test opens a DevTools session on: what it set through it
    (touch, a time zone) cannot be undone here."""
    _schemes[id(context)] = color_scheme
    opened = context.new_cdp_session

    def new_cdp_session(target: Any) -> Any:
        if id(target) in _changes:
            _changes[id(target)].inspected = True
        return opened(target)

    context.new_cdp_session = new_cdp_session


def page_take(context: BrowserContext, opened: Callable[[Page], None]) -> Page:
    """The page the module's last test left, or a new one (given to `opened` first: what it
    sets up stays with the page); what the test changes on it is watched from now."""
    page = _kept.pop(id(context), None)
    if page is None or page.is_closed():
        page = context.new_page()
        opened(page)
    _changes[id(page)] = changes = _PageChanges(page)
    _watch(page, changes)
    return page


def page_leave(page: Page, server_url: str) -> bool:
    """Keep `page` for the module's next test, its changes undone, or close it; whether it
    was kept."""
    changes = _changes.pop(id(page), None)
    _unwatch(page)
    if changes is None or page.is_closed():
        return False
    try:
        kept = not changes.inspected and _undone(page, changes, server_url)
    except Exception:  # noqa: BLE001 — a page that cannot be put back is closed, not kept
        kept = False
    if kept:
        _kept[id(page.context)] = page
    else:
        page.close()
    return kept


def context_emptied(context: BrowserContext, page: Page, cookies: list[dict]) -> bool:
    """`context`, whose kept `page` waits on the parking page, back to a new context's state:
    its cookies those given (the login's), its storage and permissions gone; whether it is."""
    try:
        context.clear_cookies()
        context.add_cookies(cookies)
        context.clear_permissions()
        page.evaluate("() => localStorage.clear()")
    except Exception:  # noqa: BLE001 — a context that cannot be emptied is closed, not kept
        return False
    return True


def _watch(page: Page, changes: _PageChanges) -> None:
    add_init_script, route, on, once = (page.add_init_script, page.route, page.on, page.once)
    emulate_media = page.emulate_media

    def added(*args: Any, **kwargs: Any) -> Any:
        script = add_init_script(*args, **kwargs)
        changes.init_scripts.append(script)
        return script

    def routed(*args: Any, **kwargs: Any) -> Any:
        changes.routed = True
        return route(*args, **kwargs)

    def listened(register: Any) -> Any:
        def listen(event: str, handler: Any) -> Any:
            changes.listeners.append((event, handler))
            return register(event, handler)
        return listen

    def emulated(*args: Any, **kwargs: Any) -> Any:
        changes.media = True
        return emulate_media(*args, **kwargs)

    page.add_init_script, page.route, page.emulate_media = added, routed, emulated
    page.on, page.once = listened(on), listened(once)


def _unwatch(page: Page) -> None:
    for name in ("add_init_script", "route", "on", "once", "emulate_media"):
        page.__dict__.pop(name, None)


def _undone(page: Page, changes: _PageChanges, server_url: str) -> bool:
    """Put the page back as a new one would be, on the parking page; whether it got there."""
    for script in changes.init_scripts:
        script.close()
    for event, handler in changes.listeners:
        page.remove_listener(event, handler)
    if changes.routed:
        page.unroute_all(behavior="ignoreErrors")
    page.goto(f"{server_url}{PARKED_PATH}", timeout=PARK_TIMEOUT_MS)
    if page.url != f"{server_url}{PARKED_PATH}":
        return False
    if changes.media:
        page.emulate_media(**MEDIA_AT_START, color_scheme=_schemes.get(id(page.context), "light"))
    if changes.viewport and page.viewport_size != changes.viewport:
        page.set_viewport_size(changes.viewport)
    page.evaluate("() => sessionStorage.clear()")
    page.mouse.move(0, 0)
    return True
