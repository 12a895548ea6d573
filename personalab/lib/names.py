"""Labels that tell same-named things apart in a picker.

Two imports of one card give two characters of the same name; renaming them is the user's
choice, not ours. A label is the name alone while it is unique, and "name (id)" when another
item has the same name (compared without case and outer spaces): the id is what the library
list and the item's own page show beside the name, so the user can match the two.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable


def _key(name: str) -> str:
    return " ".join(name.split()).casefold()


def labels_distinct(items: Iterable[tuple[str, str]]) -> dict[str, str]:
    """{id: label} for (id, name) pairs."""
    pairs = list(items)
    counts = Counter(_key(name) for _, name in pairs)
    return {item_id: f"{name.strip()} ({item_id})" if counts[_key(name)] > 1 else name
            for item_id, name in pairs}
