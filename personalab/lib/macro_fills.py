"""The last fills of big texts whose macros only read values (`{{user}}`, `{{char}}`,
`{{time}}`): a card's field is filled several times in every turn (its card values, then the
prompt's), the same text with the same values each time. Framework-free; personalab/lib/macros.py
keeps and asks. A fill is given back only for the same text, the same output limit and the same
values of every name the text read, so it is the fill made afresh."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping

KEPT_FROM_CHARS = 65_536  # shorter texts fill in a few ms at most
KEPT_FILLS = 8
_NOTHING = object()

_kept: OrderedDict[tuple[str, int], tuple[tuple[tuple[str, str | None], ...], str]] = \
    OrderedDict()
_lock = threading.Lock()


def macro_fill_kept(text: str, max_chars: int, table: Mapping[str, str]) -> str | None:
    """The kept fill of `text` when every name it read has the same value in `table`."""
    with _lock:
        found = _kept.get((text, max_chars), _NOTHING)
        if found is _NOTHING:
            return None
        _kept.move_to_end((text, max_chars))
    reads, filled = found
    return filled if all(table.get(name) == value for name, value in reads) else None


def macro_fill_keep(text: str, max_chars: int, table: Mapping[str, str], names: set[str],
                    filled: str) -> None:
    """`filled`, the fill of `text` that read `names` (lowercased) of `table`, kept."""
    reads = tuple((name, table.get(name)) for name in sorted(names))
    with _lock:
        _kept[(text, max_chars)] = (reads, filled)
        _kept.move_to_end((text, max_chars))
        while len(_kept) > KEPT_FILLS:
            _kept.popitem(last=False)


def macro_fills_forget() -> None:
    with _lock:
        _kept.clear()
