"""A user's regex written for JavaScript (a SillyTavern world-info key, a regex script's find
pattern) read as JavaScript's RegExp reads it, where Python's `regex` engine reads the same
text otherwise. Here, below library, since lore keys and regex scripts both use it."""

from __future__ import annotations

import regex

from personalab.lib.regex_faults import RegexFault, pattern_fault

# What JavaScript knows only with its `u` flag (`\u{1F600}`), and a pair of UTF-16 halves,
# which JavaScript matches as the one character they make up (its strings are UTF-16).
CODE_POINT = regex.compile(r"\\u\{([0-9A-Fa-f]{1,6})\}")
SURROGATES = regex.compile(r"\\u(D[89AB][0-9A-Fa-f]{2})\\u(D[C-F][0-9A-Fa-f]{2})",
                           regex.IGNORECASE)
NAMED_BACKREFERENCE = regex.compile(r"\\k<([A-Za-z_][A-Za-z0-9_]{0,99})>")
HAS_NAMED_GROUP = regex.compile(r"\(\?<[A-Za-z_]")
# JavaScript's \s (Python's knows U+001C-1F and U+0085 too, and not U+FEFF).
JS_SPACES = (r"\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
             r"\ufeff")
# Escapes Python reads as anchors and JavaScript (without `u`) as the letter itself.
_PLAIN_LETTERS = "AZ"
# JavaScript's line terminators: `^` and `$` with the m flag stop at each, Python's at \n only.
_LINE_START = r"(?:^|(?<=[\r\u2028\u2029]))"
_LINE_END = r"(?:$|(?=[\r\u2028\u2029]))"
# Groups JavaScript's RegExp knows; `(?i:…)` is current browsers' modifiers (Chrome 125,
# Firefox 132). Any other `(?` (Python's `(?i)`, `(?P<…>`, `(?>…)`, `(?#…)`) makes it throw.
_JS_GROUPS = ("(?:", "(?=", "(?!", "(?<=", "(?<!")
_JS_NAMED_GROUP = regex.compile(r"\(\?<[A-Za-z_$]")
_JS_MODIFIERS = regex.compile(r"\(\?[ims]{0,3}(?:-[ims]{1,3})?:")
_INLINE_FLAGS = regex.compile(r"\(\?[A-Za-z]{0,20}(?:-[A-Za-z]{0,20})?\)")
_COUNTED_REPEAT = regex.compile(r"\{[0-9]{1,20}(?:,[0-9]{0,20})?\}")
# Outside the Basic Multilingual Plane: two UTF-16 halves each in JavaScript's strings.
_ASTRAL = regex.compile("[\U00010000-\U0010FFFF]")


class JsRefused(ValueError):
    """A pattern JavaScript's RegExp throws on (SillyTavern then skips the script, or reads
    the key as text) though Python's engine would run it; `kind` and `at` as RegexFault's."""

    def __init__(self, kind: str, at: int):
        super().__init__(f"JavaScript refuses this regex ({kind} at {at})")
        self.kind = kind
        self.at = at


def js_refusal(source: str) -> JsRefused | None:
    """Why JavaScript's RegExp throws on `source` where Python's engine does not: a flag inside
    the pattern (`(?i)`), a group only Python knows (`(?P<n>…)`, `(?>…)`), a possessive repeat
    (`a++`); or None."""
    index, in_class, after_repeat = 0, False, 0  # 1: right after a repeat, 2: a lazy one
    while index < len(source):
        char = source[index]
        if char == "\\":
            index, after_repeat = index + 2, 0
            continue
        if in_class:
            in_class = char != "]"
            index += 1
            continue
        counted = _COUNTED_REPEAT.match(source, index) if char == "{" else None
        if char == "(" and source.startswith("(?", index):
            if not (source.startswith(_JS_GROUPS, index) or _JS_NAMED_GROUP.match(source, index)
                    or _JS_MODIFIERS.match(source, index)):
                flags = _INLINE_FLAGS.match(source, index)
                if flags:
                    return JsRefused("js_inline_flag", flags.end() - 1)
                return JsRefused("js_group", min(index + 2, len(source) - 1))
            index, after_repeat = index + 2, 0
            continue
        if char in "*+?" or counted:
            if after_repeat == 1 and char == "+":
                return JsRefused("nothing_to_repeat", index)
            after_repeat = 2 if after_repeat == 1 and char == "?" else int(after_repeat == 0)
            index = counted.end() if counted else index + 1
            continue
        in_class = char == "["
        index, after_repeat = index + 1, 0
    return None


def js_utf16(text: str) -> str:
    """`text` as JavaScript holds it: each character past U+FFFF as its two UTF-16 halves, so
    a pattern without the u flag matches halves as the browser does (`.` takes one)."""
    if text.isascii() or _ASTRAL.search(text) is None:
        return text
    return _ASTRAL.sub(lambda found: _halves(ord(found.group(0))), text)


def _halves(point: int) -> str:
    point -= 0x10000
    return chr(0xD800 + (point >> 10)) + chr(0xDC00 + (point & 0x3FF))


def js_utf16_offset(text: str, index: int) -> int:
    """Where `index` (a character of `text`) is in JavaScript's count of UTF-16 units."""
    before = text[:index]
    return index if before.isascii() else index + len(_ASTRAL.findall(before))


# SillyTavern's escaping of a macro's value put into a find regex (substituteRegex 2): its
# control characters as escapes (so a multi-line persona stays on the pattern's one line) and
# each character a pattern reads otherwise after a backslash.
_MACRO_CONTROLS = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v", "\f": "\\f",
                   "\0": "\\0"}
_MACRO_SPECIALS = frozenset(".^$*+?{}[]\\/|()")


def js_macro_escaped(value: str) -> str:
    """`value` as SillyTavern escapes a macro's value for a find regex."""
    return "".join(_MACRO_CONTROLS.get(char) or ("\\" + char if char in _MACRO_SPECIALS
                                                 else char) for char in value)


def js_flags_valid(letters: str) -> bool:
    """`new RegExp(p, "ii")` throws, so SillyTavern reads such a key as plain text."""
    return len(set(letters)) == len(letters)


def js_pattern(source: str, *, unicode: bool, multiline: bool = False,
               utf16: bool = False) -> str:
    """`source` rewritten so the `regex` engine matches what JavaScript's RegExp does, for the
    forms Python reads otherwise: `[^]` (any character) and `[]` (none), `\\p{…}` (a Unicode
    class only with the `u` flag, else the letter p), `\\u{…}` (a code point with `u`), a
    `\\uD83D\\uDE00` pair (one character), `\\k<name>` (a back-reference when the pattern names
    a group, else the letter k), and `$` (the very end, not also before a last newline; with
    `multiline`, `^` and `$` at \\r and U+2028/2029 as well as \\n), `\\s` (JavaScript's
    spaces), `\\cJ` (a control character), and without `u` `\\A`, `\\Z` (letters) and `{,2}`
    (text). `utf16` (without `u`): for text given through js_utf16, a character past U+FFFF
    written in the pattern is its two halves too. Raises JsRefused (js_refusal)."""
    refused = js_refusal(source) if "(" in source or "+" in source else None
    if refused is not None:
        raise refused
    if utf16 and not unicode:
        return _js_pattern(js_utf16(source), unicode=False, multiline=multiline)
    return _js_pattern(SURROGATES.sub(lambda m: "\\U%08X" % (
        0x10000 + ((int(m.group(1), 16) - 0xD800) << 10) + int(m.group(2), 16) - 0xDC00),
        source), unicode=unicode, multiline=multiline)


def _js_pattern(source: str, *, unicode: bool, multiline: bool) -> str:
    if not any(c in source for c in "\\[${") and not (multiline and "^" in source):
        return source
    named = unicode or HAS_NAMED_GROUP.search(source) is not None
    out, index, in_class = [], 0, False
    while index < len(source):
        char = source[index]
        if char == "\\" and index + 1 < len(source):
            letter = source[index + 1]
            point = CODE_POINT.match(source, index) if unicode and letter == "u" else None
            if point and int(point.group(1), 16) <= 0x10FFFF:
                out.append("\\U%08X" % int(point.group(1), 16))
                index = point.end()
                continue
            reference = NAMED_BACKREFERENCE.match(source, index) \
                if letter == "k" and not in_class else None
            if reference and named:
                out.append(f"(?P={reference.group(1)})")
                index = reference.end()
                continue
            if letter == "c" and index + 2 < len(source) and source[index + 2].isascii() \
                    and source[index + 2].isalpha():  # \cJ: a control character
                out.append("\\x%02x" % (ord(source[index + 2]) % 32))
                index += 3
                continue
            if letter in "sS" and not in_class:
                out.append(f"[{'^' if letter == 'S' else ''}{JS_SPACES}]")
                index += 2
                continue
            if letter == "s":  # in a class; a \S there stays Python's (close enough)
                out.append(JS_SPACES)
                index += 2
                if source.startswith("-", index) and not source.startswith("-]", index):
                    out.append(r"\-")  # `[\s-x]`: JavaScript's "-" is a character there
                    index += 1
                continue
            # Without `u`, JavaScript's `\p` is an escaped p: `\p{L}` is the text "p{L}"; and
            # without a named group `\k` is the letter k.
            plain = (letter in "pP" and not unicode) or (letter == "k" and not named) or (
                letter in _PLAIN_LETTERS and not unicode)
            out.append(letter if plain else char + letter)
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            if source.startswith("[^]", index):  # JavaScript: any character, newlines too
                out.append(r"[\s\S]")
                index += 3
                continue
            if source.startswith("[]", index):  # JavaScript: an empty class, never matches
                out.append("(?!)")
                index += 2
                continue
            in_class = True
            out.append(char)
            if source.startswith("[^", index):  # so "^" is not read as an anchor below
                out.append("^")
                index += 1
            index += 1
            continue
        elif char == "{" and source.startswith("{,", index) and not unicode:
            out.append("\\{")  # JavaScript reads "{,2}" as text, Python as a repeat
            index += 1
            continue
        elif char == "$":
            out.append(_LINE_END if multiline else r"\Z")
            index += 1
            continue
        elif char == "^" and multiline:
            out.append(_LINE_START)
            index += 1
            continue
        out.append(char)
        index += 1
    return "".join(out)


def js_pattern_fault(written: str, *, flags: int, unicode: bool,
                     multiline: bool = False) -> RegexFault | None:
    """pattern_fault of `written` as js_pattern rewrites it, placed in `written` as its author
    wrote it: the rewrite moves what follows a `\\s` or a `$`, so the place is the one the
    written pattern has for the same fault, else none (the sentence then names no spot)."""
    try:
        source = js_pattern(written, unicode=unicode, multiline=multiline)
    except JsRefused as exc:  # Python's own fault first, when it refuses it too (`(?z)`)
        return pattern_fault(written, flags) or RegexFault(exc.kind, exc.at)
    fault = pattern_fault(source, flags)
    if fault is None or fault.at is None:
        return fault
    own = pattern_fault(written, flags)
    if own is not None and own.kind == fault.kind:
        return own
    return RegexFault(fault.kind, None, fault.numbers)
