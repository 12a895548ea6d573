"""A lorebook entry's probability as SillyTavern keeps it: a number from 0 to 100, a fraction
kept (world-info.js stores the typed Number and rolls `Math.random() * 100 <= probability`)."""

from __future__ import annotations

import math
from typing import Any


def percent_parsed(raw: str) -> int | float | str:
    """A typed probability: its number (a whole one as an int); anything else stays text, for
    the check to name."""
    try:
        value = float(raw)
    except ValueError:
        return raw
    return int(value) if value.is_integer() else value


def is_percent(value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool)
            and math.isfinite(value) and 0 <= value <= 100)
