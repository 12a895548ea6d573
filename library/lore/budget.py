"""The world-info token budget, spent loop by loop of the scan as SillyTavern's checkWorldInfo
does. Framework-free.

Each loop's entries are charged in the order the loop takes them (sticky first, then in scan
order: the chat's lore, the character's, the global lore, each by order), each followed by a
newline, on top of the text earlier loops fed to recursion. The entry
that reaches the budget and every later one are left out, and the scan recurses no further, so
an entry the chat fired is never pushed out by one a recursion finds. A lorebook's own
`token_budget` (a PersonaLab setting) caps its entries besides.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from library.lore.keys import setting


def ignores_budget(entry: dict[str, Any]) -> bool:
    return bool(setting(entry, "ignore_budget", "ignore_budget", False, "ignoreBudget"))


@dataclass
class LoreBudget:
    limit: int | None
    count_tokens: Callable[[str], int]
    macros: Callable[[str], str]
    books: dict[str, dict[str, Any]]
    # SillyTavern charges a later loop only the text earlier loops fed to recursion, so an
    # entry that prevents recursion costs nothing once its own loop is over.
    earlier: int = 0
    overflowed: bool = False
    book_used: dict[str, int] = field(default_factory=dict)

    def loop_spend(self, found: list[dict[str, Any]]
                   ) -> tuple[list[dict[str, Any]], list[tuple[dict[str, Any], str]]]:
        """This loop's entries that fit (each with its `tokens`), and those left out with why."""
        kept: list[dict[str, Any]] = []
        left_out: list[tuple[dict[str, Any], str]] = []
        running, fed = 0, 0
        for entry in found:
            text = self.macros(entry.get("content", ""))
            cost = self.count_tokens(f"{text}\n")
            priced = {**entry, "tokens": self.count_tokens(text)}
            if ignores_budget(entry):
                priced["reason"] += " (ignores the budget)"
                kept.append(priced)
                continue
            why = self._over(priced, running, cost)
            if why:
                left_out.append((priced, why))
                continue
            self.book_used[entry["lorebook_id"]] = self._book_spent(entry) + priced["tokens"]
            running += cost
            if not setting(entry, "prevent_recursion", "prevent_recursion", False):
                fed += cost
            kept.append(priced)
        self.earlier += fed
        return kept, left_out

    def _over(self, entry: dict[str, Any], running: int, cost: int) -> str:
        if self.overflowed:
            return f"the world-info budget of {self.limit} tokens was already spent"
        used = self.earlier + running
        if self.limit is not None and used + cost >= self.limit:
            self.overflowed = True
            return f"over the world-info budget ({used} + {cost} ≥ {self.limit} tokens)"
        book_limit = self.books[entry["lorebook_id"]].get("token_budget") or None
        if book_limit is not None and self._book_spent(entry) + entry["tokens"] > book_limit:
            return f"over its lorebook's token_budget of {book_limit}"
        return ""

    def _book_spent(self, entry: dict[str, Any]) -> int:
        return self.book_used.get(entry["lorebook_id"], 0)
