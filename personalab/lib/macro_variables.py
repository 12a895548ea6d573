"""SillyTavern's variable macros: `{{setvar::name::value}}`, `{{getvar::name}}`,
`{{addvar::name::n}}`, `{{incvar::name}}`, `{{decvar::name}}` and their `…globalvar` twins.

Framework-free. Values are plain text: a value is stored and given back as written, never
read as macros. Numbers follow SillyTavern 1.12.6 (public/scripts/variables.js): a value that
reads as a JavaScript number comes back as that number ("007" -> "7"), `addvar` adds when both
sides are numbers and appends the text otherwise, `incvar` / `decvar` give the new value,
`setvar` / `addvar` give nothing. How many variables there are, how long a value may grow and
how much text all of one set's names and values hold are bounded: SillyTavern has no bound, and
a card appending a thousand characters to a thousand variables each turn grew a chat's file by
2 MB a turn until, past the file store's 50 MB, it could no longer be read and was lost.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

MAX_VARIABLES = 1000
MAX_VALUE_CHARS = 100_000
MAX_TOTAL_CHARS = 1_000_000  # names and values of one set (a chat's, or an account's globals)

# What JavaScript's Number() reads as a finite decimal number (after trimming). Written so
# that a failed match backtracks in linear time: `\d+\.?\d*` split a run of digits both ways,
# and an imported value of 30,000 digits and a letter held the interpreter 10 s (100,000: about
# two minutes) at each {{getvar}}, every other account's request waiting.
JS_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
KINDS = ("getvar", "setvar", "addvar", "incvar", "decvar")


@dataclass
class MacroVariables:
    """The chat's variables (`local`, over what the chat held before, `base`) and the
    account's global ones (`shared`, over `shared_base`), as the macros of one prompt build
    change them: `local` and `shared` hold only what this build wrote."""

    local: dict[str, str] = field(default_factory=dict)
    shared: dict[str, str] = field(default_factory=dict)
    base: Mapping[str, str] = field(default_factory=dict)
    shared_base: Mapping[str, str] = field(default_factory=dict)
    # Characters each set holds (names and values; key: is_global), counted at its first write.
    sizes: dict[bool, int] = field(default_factory=dict, repr=False)


# Functions rather than methods: the object reaches prompt templates with the other prompt
# variables, and the template sandbox keeps dicts read-only but would let a method be called.
def variable_read(variables: MacroVariables, name: str, *, is_global: bool) -> str:
    written, before = ((variables.shared, variables.shared_base) if is_global
                       else (variables.local, variables.base))
    return written[name] if name in written else str(before.get(name, ""))


def variable_write(variables: MacroVariables, name: str, value: str, *, is_global: bool) -> bool:
    """Store `value`; False (nothing stored) past the bounds."""
    store, before = ((variables.shared, variables.shared_base) if is_global
                     else (variables.local, variables.base))
    new = name not in store and name not in before
    if len(value) > MAX_VALUE_CHARS or (new and len({*store, *before}) >= MAX_VARIABLES):
        return False
    if is_global not in variables.sizes:
        variables.sizes[is_global] = text_chars({**before, **store})
    size = variables.sizes[is_global] + len(value) + (
        len(name) if new else -len(variable_read(variables, name, is_global=is_global)))
    if size > MAX_TOTAL_CHARS and len(value) > len(variable_read(
            variables, name, is_global=is_global)):
        return False
    store[name] = value
    variables.sizes[is_global] = size
    return True


def text_chars(variables: Mapping[str, object]) -> int:
    return sum(len(name) + len(str(value)) for name, value in variables.items())


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


def variables_merged(variables: MacroVariables) -> tuple[dict[str, str], dict[str, str]]:
    """The chat's and the account's variables as this build left them (local, global)."""
    return ({**variables.base, **variables.local}, {**variables.shared_base, **variables.shared})


def variables_as_text(found: object) -> dict[str, str]:
    """Stored or imported variables (SillyTavern keeps numbers as numbers) as the text the
    macros read; values of other kinds (lists, objects, booleans) and names past the bounds
    are left out."""
    if not isinstance(found, dict):
        return {}
    kept, size = {}, 0
    for name, value in list(found.items())[:MAX_VARIABLES]:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = js_number_text(float(value))
        if isinstance(value, str) and len(value) <= MAX_VALUE_CHARS:
            size += len(str(name)) + len(value)
            if size > MAX_TOTAL_CHARS:
                break
            kept[str(name)] = value
    return kept
