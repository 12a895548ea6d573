"""Labels that tell same-named things apart in a picker.

Two imports of one card give two characters of the same name; renaming them is the user's
choice, not ours. A label is the name alone while it is unique. When another item has the same
name (compared without case and outer spaces), the label adds what a person can recognise: the
caller's hints for those items, in its order of preference (for a character: whose it is, the
first words of its description, its tags, whether it has a picture, when it was changed). Each
item gets the first hint no other item of that name shares (else the first two no other shares
together). Items nothing else tells apart (two imports of one card in one second) are
numbered, "Mira (1)", "Mira (2)", in the order they were made (their ids' order): a player reads
no ids.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence

# ids of same-named items -> {id: hint texts, the same kinds in the same order; "" = unknown}
Hints = Callable[[list[str]], dict[str, Sequence[str]]]


def name_key(name: str) -> str:
    """What two names are compared by: without case and outer or doubled spaces."""
    return " ".join(name.split()).casefold()


def _group_labels(group: list[str], names: dict[str, str],
                  hints: dict[str, Sequence[str]]) -> dict[str, str]:
    """Labels for the items of one same-named group: each item's first hint no other item has,
    else the first two no other has together, else a number (counted once per kind, not per
    pair of items: a library can hold a hundred imports of one card)."""
    given = {item_id: list(hints.get(item_id, ())) for item_id in group}
    width = max(map(len, given.values()))
    rows = {item_id: values + [""] * (width - len(values)) for item_id, values in given.items()}
    singles = [Counter(row[kind] for row in rows.values()) for kind in range(width)]
    pairs: dict[tuple[int, int], Counter] = {}
    labels, untold = {}, []
    for item_id in group:
        own = rows[item_id]
        kinds = [kind for kind in range(width) if own[kind]]
        hint = next((own[kind] for kind in kinds if singles[kind][own[kind]] == 1), "")
        for first, second in ([] if hint else itertools.combinations(kinds, 2)):
            together = pairs.get((first, second))
            if together is None:
                together = pairs[first, second] = Counter(
                    (row[first], row[second]) for row in rows.values())
            if together[own[first], own[second]] == 1:
                hint = f"{own[first]} · {own[second]}"
                break
        if hint:
            labels[item_id] = f"{names[item_id]} · {hint}"
        else:
            untold.append(item_id)
    for number, item_id in enumerate(sorted(untold, key=_made_order), start=1):
        labels[item_id] = f"{names[item_id]} ({number})"
    return labels


def labels_distinct(items: Iterable[tuple[str, str]], *,
                    hints: Hints | None = None) -> dict[str, str]:
    """{id: label} for (id, name) pairs; `hints` is asked once, only about same-named items."""
    names = {item_id: name.strip() for item_id, name in items}
    groups: dict[str, list[str]] = defaultdict(list)
    for item_id, name in names.items():
        groups[name_key(name)].append(item_id)
    shared = [item_id for group in groups.values() if len(group) > 1 for item_id in group]
    found = hints(shared) if hints and shared else {}
    labels = {}
    for group in groups.values():
        if len(group) == 1:
            labels[group[0]] = names[group[0]]
        else:
            labels.update(_group_labels(group, names, found))
    return labels


def _made_order(item_id: str) -> tuple[int, str]:
    # "char_mira" < "char_mira_2" < "char_mira_10": a later twin's id gets a longer suffix
    return len(item_id), item_id
