"""Requests a browser test holds back, to see what a page does when an answer comes late or two
come in another order: a route's requests that `hold` picks are kept until the test lets them
go; the others go through. The page's own answers are counted as they come."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page, Request, Response, Route

WAIT_TRIES = 250
WAIT_STEP_MS = 20  # Playwright runs the route handlers and events while the page waits


def page_wait(page: Page, condition: Callable[[], bool], what: str) -> None:
    """Until `condition()` holds (a test-side value the page's events fill), about 5 s at most."""
    for _ in range(WAIT_TRIES):
        if condition():
            return
        page.wait_for_timeout(WAIT_STEP_MS)
    raise AssertionError(what)


class HeldRequests:
    """The requests to `url` (a regular expression) that `hold` picks, the first only when
    `first_only`, kept in `held` until `release`; `stop` lets the route go."""

    def __init__(self, page: Page, url: str, hold: Callable[[Request], bool], *,
                 first_only: bool = False) -> None:
        self.page, self.url, self.hold, self.first_only = page, re.compile(url), hold, first_only
        self.held: list[Route] = []
        self.taken = 0
        page.route(self.url, self._route)

    def _route(self, route: Route) -> None:
        if self.hold(route.request) and not (self.first_only and self.taken):
            self.taken += 1
            self.held.append(route)
        else:
            route.continue_()

    def wait(self, what: str) -> None:
        page_wait(self.page, lambda: bool(self.held), what)

    def release(self) -> None:
        while self.held:
            self.held.pop(0).continue_()

    def stop(self) -> None:
        self.page.unroute(self.url)


def answers_kept(page: Page, picks: Callable[[Response], bool]) -> list[Response]:
    """The page's answers that `picks`, in the order they come (filled as the page waits)."""
    kept: list[Response] = []
    page.on("response", lambda response: kept.append(response) if picks(response) else None)
    return kept
