"""A `/pattern/flags` world-info key read as JavaScript's RegExp reads it, where Python's
`regex` engine reads the same text otherwise (SillyTavern 1.12.6's `parseRegexFromString`
hands the pattern and the flags to `new RegExp`)."""

from __future__ import annotations

import regex

# What JavaScript knows only with its `u` flag (`\u{1F600}`), and a pair of UTF-16 halves,
# which JavaScript matches as the one character they make up (its strings are UTF-16).
CODE_POINT = regex.compile(r"\\u\{([0-9A-Fa-f]{1,6})\}")
SURROGATES = regex.compile(r"\\u(D[89AB][0-9A-Fa-f]{2})\\u(D[C-F][0-9A-Fa-f]{2})",
                           regex.IGNORECASE)


def js_flags_valid(letters: str) -> bool:
    """`new RegExp(p, "ii")` throws, so SillyTavern reads such a key as plain text."""
    return len(set(letters)) == len(letters)


def js_pattern(source: str, *, unicode: bool) -> str:
    """`source` rewritten so the `regex` engine matches what JavaScript's RegExp does, for the
    forms Python reads otherwise: `[^]` (any character), `\\p{…}` (a Unicode class only with
    the `u` flag, else the letter p), `\\u{…}` (a code point with `u`) and a `\\uD83D\\uDE00`
    pair (one character)."""
    if "\\" not in source and "[^]" not in source:
        return source
    source = SURROGATES.sub(lambda m: "\\U%08X" % (
        0x10000 + ((int(m.group(1), 16) - 0xD800) << 10) + int(m.group(2), 16) - 0xDC00),
        source)
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
            # Without `u`, JavaScript's `\p` is an escaped p: `\p{L}` is the text "p{L}".
            out.append(letter if letter in "pP" and not unicode else char + letter)
            index += 2
            continue
        if char == "[" and not in_class:
            if source.startswith("[^]", index):  # JavaScript: any character, newlines too
                out.append(r"[\s\S]")
                index += 3
                continue
            in_class = True
        elif char == "]" and in_class:
            in_class = False
        out.append(char)
        index += 1
    return "".join(out)
