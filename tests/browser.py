"""One headless Chromium per test process, shared by the browser modules (tests/e2e) that run
one after another on it; each module gets a fresh browser context (its own cookies and
storage, as a new profile had). Launching Chromium and Playwright's driver cost about 2 s of
CPU a module (issue 31).

Playwright's sync API marks its event loop as running in the main thread between calls, so
an async or database test after it would fail: the root conftest closes the browser before
any test outside tests/e2e (`chromium_close`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from playwright.sync_api import Browser

# Debian's old headless shell: the same Blink as the full browser without its windowing and
# display compositor, which cost about 40 % more CPU per test on a two-core machine (issue 31).
# It is what Playwright itself runs for headless Chromium; the full browser is used without it.
CHROMIUM_SHELL = Path("/usr/bin/chromium-headless-shell")
CHROMIUM = CHROMIUM_SHELL if CHROMIUM_SHELL.exists() else Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
_open: dict[str, Any] = {}


def chromium_shared() -> Browser:
    """The process's Chromium, launched on first use."""
    if "browser" not in _open:
        from playwright.sync_api import sync_playwright

        manager = sync_playwright()
        playwright = manager.start()
        _open["manager"] = manager
        _open["browser"] = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
    return _open["browser"]


def chromium_close() -> None:
    """Close the shared Chromium and stop Playwright, if they run."""
    browser, manager = _open.pop("browser", None), _open.pop("manager", None)
    try:
        if browser is not None:
            browser.close()
    finally:
        if manager is not None:
            manager.__exit__(None, None, None)
