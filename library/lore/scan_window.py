"""How many of the newest messages a turn hands the world-info scan: as deep as any linked
book or entry reads, SillyTavern's min-activations steps included. Framework-free."""

from __future__ import annotations

from typing import Any

from library.lore.defaults import book_scan_depth
from library.lore.keys import entry_number, setting


def _entry_depth(entry: Any) -> int:
    # An imported card keeps an entry's own depth in `extensions.scan_depth` (SillyTavern's
    # convertCharacterBook reads it there), a world file's import in `scan_depth`.
    if not isinstance(entry, dict):
        return 0
    return entry_number(setting(entry, "scan_depth", "scan_depth", None, "scanDepth"), 0)


def lore_scan_window(lorebooks: list[dict[str, Any]]) -> int | None:
    """The newest messages `lorebook_match` needs to see (None: every one, for min activations
    without a max depth). Min activations run as lorebook_match runs them, on the books'
    largest minimum and max depth; SillyTavern 1.12.6's last step reads one message past the
    max depth, so that message is handed over too."""
    deepest = 0
    for book in lorebooks:
        entries = book.get("entries")
        depths = [_entry_depth(entry) for entry in entries] if isinstance(entries, list) else []
        deepest = max(deepest, book_scan_depth(book), *depths)
    if max([entry_number(book.get("min_activations"), 0) for book in lorebooks] or [0]) > 0:
        depth_max = max(entry_number(book.get("min_activations_depth_max"), 0)
                        for book in lorebooks)
        if depth_max <= 0:
            return None
        deepest = max(deepest, depth_max + 1)
    return deepest
