"""A logged-in page in a context of its own, as a device holds it: an author's phone (touched)
or laptop (clicked) in either scheme, or a touch screen of any size in the player's language."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.e2e.conftest import PHONE, Server, context_new, login_ensure, own_context_page

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Page


def author_page_open(server: Server, *, size: dict, scheme: str = "light") -> Iterator[Page]:
    """A logged-in page as an author holds it: a phone's is touched, a laptop's clicked."""
    yield from own_context_page(server, viewport=size, has_touch=size is PHONE,
                                is_mobile=size is PHONE, color_scheme=scheme)


def touch_page_new(server: Server, viewport: dict, *, language: str = "en",
                   **options: object) -> Page:
    """A logged-in page on a touch screen of `viewport` in a new context (the caller closes it),
    its uncaught errors in `page.js_errors`; `options`: more of `context_new`'s."""
    context = context_new(server, viewport=viewport, is_mobile=True, has_touch=True, **options)
    login_ensure(server, context)
    if language != "en":
        context.add_cookies([{"name": "django_language", "value": language, "url": server.url}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    return page
