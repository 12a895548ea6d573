"""SillyTavern's variable macros: `{{setvar::name::value}}`, `{{getvar::name}}`,
`{{addvar::name::n}}`, `{{incvar::name}}`, `{{decvar::name}}` and their `…globalvar` twins.

Framework-free. Values are plain text: a value is stored and given back as written, never
read as macros. Numbers follow SillyTavern 1.12.6 (public/scripts/variables.js): a value that
reads as a JavaScript number comes back as that number ("007" -> "7"), `addvar` adds when both
sides are numbers and appends the text otherwise, `incvar` / `decvar` give the new value,
`setvar` / `addvar` give nothing. How many variables and how long a value may grow are bounded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

MAX_VARIABLES = 1000
MAX_VALUE_CHARS = 100_000

# What JavaScript's Number() reads as a finite decimal number (after trimming).
JS_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
KINDS = ("getvar", "setvar", "addvar", "incvar", "decvar")


@dataclass
class MacroVariables:
    """The chat's variables (`local`, over what the chat started with, `base`) and the
    global ones, as the macros of one prompt build change them."""

    local: dict[str, str] = field(default_factory=dict)
    shared: dict[str, str] = field(default_factory=dict)
    base: Mapping[str, str] = field(default_factory=dict)


# Functions rather than methods: the object reaches prompt templates with the other prompt
# variables, and the template sandbox keeps dicts read-only but would let a method be called.
def variable_read(variables: MacroVariables, name: str, *, is_global: bool) -> str:
    if is_global:
        return variables.shared.get(name, "")
    return variables.local[name] if name in variables.local else str(variables.base.get(name, ""))


def variable_write(variables: MacroVariables, name: str, value: str, *, is_global: bool) -> bool:
    """Store `value`; False (nothing stored) past the bounds."""
    store = variables.shared if is_global else variables.local
    if len(value) > MAX_VALUE_CHARS or (name not in store and len(store) >= MAX_VARIABLES):
        return False
    store[name] = value
    return True


def js_number(text: str) -> float | None:
    """`text` as JavaScript's Number() reads a decimal number; None when it reads NaN."""
    stripped = text.strip()
    if not stripped:
        return 0.0
    if JS_NUMBER.fullmatch(stripped):
        return float(stripped)
    return None


def js_number_text(number: float) -> str:
    """`number` as JavaScript's String() writes it."""
    if number != number:
        return "NaN"
    if number in (float("inf"), float("-inf")):
        return "Infinity" if number > 0 else "-Infinity"
    if number == int(number) and abs(number) < 1e21:
        return str(int(number))
    if 1e-6 <= abs(number) < 1e21:
        return format(Decimal(repr(number)), "f")
    mantissa, exponent = repr(number).split("e")
    return f"{mantissa}e{'-' if exponent.startswith('-') else '+'}{exponent.lstrip('+-0')}"


def variable_shown(value: str) -> str:
    """What `{{getvar}}` writes for a stored value (SillyTavern's getLocalVariable)."""
    if not value.strip():
        return value
    number = js_number(value)
    return value if number is None else js_number_text(number)


def _added(current: str, addend: str) -> str:
    current = variable_shown(current)
    number, increment = js_number(current or "0"), js_number(addend)
    if number is None or increment is None:
        return ("" if current in ("", "0") else current) + addend
    return js_number_text(number + increment)


def variable_macro(body: str, variables: MacroVariables) -> str | None:
    """What the variable macro `body` (the text between the braces) writes, its change made
    to `variables`; None when `body` is not a well-formed variable macro or is refused."""
    kind, separator, rest = body.partition("::")
    kind = kind.strip().lower()
    is_global = kind.endswith("globalvar")
    kind = kind[:-len("globalvar")] + "var" if is_global else kind
    if not separator or not rest or kind not in KINDS:
        return None
    if kind in ("getvar", "incvar", "decvar"):
        name = rest.strip()
        current = variable_read(variables, name, is_global=is_global)
        if kind == "getvar":
            return variable_shown(current)
        value = _added(current, "1" if kind == "incvar" else "-1")
        return value if variable_write(variables, name, value, is_global=is_global) else None
    name, separator, value = rest.partition("::")
    if not separator or not value or not name or ":" in name:
        return None
    name = name.strip()
    if kind == "addvar":
        value = _added(variable_read(variables, name, is_global=is_global), value)
    return "" if variable_write(variables, name, value, is_global=is_global) else None
