"""SillyTavern's seeded draws, so a chat moved from it keeps what its `{{pick}}` chose there:
its `getStringHash` (cyrb53 over UTF-16 units, `public/scripts/utils.js`) and one draw of the
seedrandom library's ARC4 generator (`Math.seedrandom(seed)()`, RC4 with its first 256 bytes
dropped, 52 bits a draw). Framework-free; written from the algorithms, checked against
SillyTavern's own files run by Node (tests/lib/test_st_random.py)."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

_MASK32 = 0xFFFFFFFF
_WIDTH = 256
_START_DENOM = float(_WIDTH ** 6)
_SIGNIFICANCE = float(2 ** 52)
_OVERFLOW = float(2 ** 53)


def _imul(a: int, b: int) -> int:
    """JavaScript's Math.imul, on and to unsigned 32 bits."""
    return (a * b) & _MASK32


def _utf16_units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[i] | data[i + 1] << 8 for i in range(0, len(data), 2)]


def st_string_hash(text: str, seed: int = 0) -> int:
    """SillyTavern's getStringHash: a 53-bit number."""
    h1, h2 = (0xDEADBEEF ^ seed) & _MASK32, (0x41C6CE57 ^ seed) & _MASK32
    for unit in _utf16_units(text):
        h1 = _imul(h1 ^ unit, 2654435761)
        h2 = _imul(h2 ^ unit, 1597334677)
    h1 = _imul(h1 ^ (h1 >> 16), 2246822507) ^ _imul(h2 ^ (h2 >> 13), 3266489909)
    h2 = _imul(h2 ^ (h2 >> 16), 2246822507) ^ _imul(h1 ^ (h1 >> 13), 3266489909)
    return 4294967296 * (2097151 & h2) + (h1 & _MASK32)


# A long text's hash, kept: the loop runs in Python (a 200 KB card field took 0.14 s) and the
# same card fields and lore are read at every turn. Keyed by a digest, not by the text.
_LONG_TEXT = 4096
_KEPT_HASHES = 512
_kept: OrderedDict[bytes, int] = OrderedDict()
_kept_lock = threading.Lock()


def st_text_hash(text: str) -> int:
    """st_string_hash of `text`, kept for long texts."""
    if len(text) < _LONG_TEXT:
        return st_string_hash(text)
    key = hashlib.blake2b(text.encode("utf-16-le", "surrogatepass"), digest_size=16).digest()
    with _kept_lock:
        if key in _kept:
            _kept.move_to_end(key)
            return _kept[key]
    value = st_string_hash(text)
    with _kept_lock:
        _kept[key] = value
        while len(_kept) > _KEPT_HASHES:
            _kept.popitem(last=False)
    return value


class _Arc4:
    def __init__(self, key: list[int]):
        key = key or [0]
        state = list(range(_WIDTH))
        j = 0
        for i in range(_WIDTH):
            j = (j + key[i % len(key)] + state[i]) & 0xFF
            state[i], state[j] = state[j], state[i]
        self.state, self.i, self.j = state, 0, 0
        self.take(_WIDTH)  # RC4-drop[256]

    def take(self, count: int) -> int:
        state, i, j, value = self.state, self.i, self.j, 0
        for _ in range(count):
            i = (i + 1) & 0xFF
            t = state[i]
            j = (j + t) & 0xFF
            state[i], state[j] = state[j], t
            value = value * _WIDTH + state[(state[i] + state[j]) & 0xFF]
        self.i, self.j = i, j
        return value


def st_seeded_random(seed: int) -> float:
    """`new Math.seedrandom(seed)()` for a whole-number seed: a float in [0, 1)."""
    # seedrandom keys a number as its text and a NUL; each char code's low byte is a key byte.
    arc4 = _Arc4([ord(char) & 0xFF for char in f"{seed}\0"])
    numerator, denominator, extra = float(arc4.take(6)), _START_DENOM, 0
    while numerator < _SIGNIFICANCE:
        numerator = (numerator + extra) * _WIDTH
        denominator *= _WIDTH
        extra = arc4.take(1)
    while numerator >= _OVERFLOW:
        numerator /= 2
        denominator /= 2
        extra >>= 1
    return (numerator + extra) / denominator


def st_pick_index(count: int, *, chat_hash: int, text_hash: int, offset: int) -> int:
    """Which of `count` choices SillyTavern's {{pick}} takes: seeded by the chat's hash, the
    hash of the text as it was given (before any macro was filled) and the macro's place."""
    seed = st_string_hash(f"{chat_hash}-{text_hash}-{offset}")
    return int(st_seeded_random(seed) * count)
