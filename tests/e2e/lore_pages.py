"""A lorebook as the browser tests hand it to the pages and find it there: an entry as
SillyTavern writes it in a world-info file, a 100-entry book imported through the library page,
and one entry's row in the book's editor."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from playwright.sync_api import Locator, Page

    from tests.e2e.conftest import Server


def world_info_entry(uid: int, key: list[str], content: str, **fields) -> dict:
    """One entry as SillyTavern 1.12 writes it in a world-info file."""
    return {"uid": uid, "key": key, "keysecondary": [], "comment": content[:20], "content": content,
            "constant": False, "selective": True, "selectiveLogic": 0, "order": 100,
            "position": 0, "disable": False, "probability": 100, "useProbability": True,
            "depth": 4, "group": "", "groupOverride": False, "groupWeight": 100,
            "scanDepth": None, "caseSensitive": None, "matchWholeWords": None, "role": None,
            "sticky": 0, "cooldown": 0, "delay": 0, "displayIndex": uid, **fields}


def lorebook_import(page: Page, server: Server, tmp_path: Path, name: str, *,
                    broken_key: bool = False, changed: dict[int, dict] | None = None) -> str:
    """A SillyTavern book of 100 entries imported through the library page; its id.
    `broken_key`: entry 99's key is a regex that does not compile, which SillyTavern reads as
    text, so an imported book keeps it. `changed`: more fields of some entries, by uid."""
    entries = {str(uid): world_info_entry(uid, [f"key{uid}", f"place{uid}"],
                                          f"Lore number {uid} of the drowned city.",
                                          comment=f"Entry title {uid:03d}", order=200 - uid)
               for uid in range(100)}
    if broken_key:
        entries["99"]["key"] = ["/(unclosed/"]
    for uid, fields in (changed or {}).items():
        entries[str(uid)].update(fields)
    upload = tmp_path / f"{name}.json"
    upload.write_text(json.dumps({"entries": entries}))
    page.goto(f"{server.url}/library/")
    form = page.locator("form#lorebook-import")
    form.locator("input[name=file]").set_input_files(str(upload))
    form.locator("button[type=submit]").click()
    page.wait_for_url(f"{server.url}/library/lorebooks/*/")
    return page.url.rstrip("/").rsplit("/", 1)[-1]


def lore_row_top(page: Page, uid: int) -> float:
    """Where entry `uid`'s row starts in the window, in px."""
    return page.locator(f"[data-testid=lore-row][data-uid='{uid}']").evaluate(
        "row => row.getBoundingClientRect().top")


def lore_row(page: Page, uid: int) -> Locator:
    """Entry `uid`'s row in the book's editor."""
    return page.locator(f"[data-testid=lore-row][data-uid='{uid}']")
