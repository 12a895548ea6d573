"""Id validation: every id that reaches a path goes through here first."""

from __future__ import annotations

import itertools
import re
import secrets
from typing import Iterator

from personalab.lib.errors import Invalid

ID_PATTERN = re.compile(r"^[a-z0-9_][a-z0-9_-]{0,63}$")


class InvalidId(Invalid, ValueError):
    code = "invalid_id"

    def __init__(self, message: str, *, field: str | None = None) -> None:
        super().__init__(message, field=field)


def validate_id(value: object, *, kind: str = "id") -> str:
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        shown = repr(value)[:80]
        raise InvalidId(
            f"invalid {kind} {shown}: use 1-64 characters of a-z, 0-9, '_' and '-', "
            "not starting with '-'",
            field=kind.replace(" ", "_"),
        )
    return value


def is_valid_id(value: object) -> bool:
    return isinstance(value, str) and bool(ID_PATTERN.fullmatch(value))


def next_numbered_id(prefix: str, existing: set[str] | list[str], *, width: int = 3) -> str:
    """`sess_003` after `sess_001`, `sess_002`: the seed's readable numbering."""
    numbers = [
        int(name[len(prefix) + 1 :])
        for name in existing
        if name.startswith(prefix + "_") and name[len(prefix) + 1 :].isdigit()
    ]
    return f"{prefix}_{max(numbers, default=0) + 1:0{width}d}"


def random_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(6)}"


def slug_id(prefix: str, text: str, existing: set[str]) -> str:
    """A readable id from a name (`char_alserqi`), made unique against `existing`."""
    return next(c for c in slug_candidates(prefix, text) if c not in existing)


# Numbered suffixes of one name before random ones: a deleted item's id is never given again,
# so one account making and deleting items of a name would otherwise use up its numbered ids
# (the store tries 1,000) and every account's new item of that name would be refused.
NUMBERED_SUFFIXES = 100


def slug_candidates(prefix: str, text: str) -> Iterator[str]:
    """`char_alserqi`, `char_alserqi_2`, … `char_alserqi_100`, then random suffixes."""
    slug = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:40]
    base = validate_id(f"{prefix}_{slug}" if slug else random_id(prefix))
    yield base
    yield from suffixed_candidates(base)


def suffixed_candidates(item_id: str) -> Iterator[str]:
    """`x_2`, `x_3`, … `x_100`, then `x_` and 12 random hex digits, the base shortened so each
    stays a valid id (at most 64 characters)."""
    for n in itertools.count(2):
        suffix = f"_{n}" if n <= NUMBERED_SUFFIXES else f"_{secrets.token_hex(6)}"
        yield f"{item_id[:64 - len(suffix)]}{suffix}"


def numbered_candidates(prefix: str, existing: set[str] | list[str]) -> Iterator[str]:
    """The next numbered id, then the ones after it (another worker may take the first)."""
    first = int(next_numbered_id(prefix, existing)[len(prefix) + 1:])
    for n in itertools.count(first):
        yield f"{prefix}_{n:03d}"
