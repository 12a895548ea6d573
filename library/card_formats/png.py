"""PNG chunks for character cards, without Pillow: read and write chunks (struct/zlib), read
the card text chunks (`chara`, `ccv3`) with an inflate cap against zip bombs, build a card's
text chunk and a plain-colour picture for a card that has none."""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import zlib
from typing import Any

from library.errors import CardError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CARD_KEYWORDS = ("ccv3", "chara")  # preference order
TEXT_CHUNKS = (b"tEXt", b"zTXt", b"iTXt")

GENERATED_SIZE = (256, 384)
# All card text chunks of one PNG together, inflated. A card with a big lorebook is a few MB;
# SillyTavern writes and reads only uncompressed tEXt, which the 10 MB file limit bounds.
MAX_CARD_TEXT_BYTES = 10 * 2**20
# Chunks in one PNG: an encoder's 8 KB picture chunks make about 1,300 of a 10 MB file. 850,000
# empty ones (10 MB) took 5 s of CPU to import and were kept in the picture, read again by
# every download of the card.
MAX_CHUNKS = 20_000

def png_chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    if not data.startswith(PNG_SIGNATURE):
        raise CardError("not a PNG file")
    chunks = []
    offset = len(PNG_SIGNATURE)
    while offset < len(data):
        if offset + 8 > len(data):
            raise CardError(f"PNG is truncated: chunk header at byte {offset} is cut off")
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        end = offset + 12 + length
        if end > len(data):
            raise CardError(f"PNG is truncated: chunk {kind!r} at byte {offset} runs past the end")
        body = data[offset + 8:offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length:end])
        if zlib.crc32(kind + body) != crc:
            raise CardError(f"PNG is damaged: bad checksum in chunk {kind!r} at byte {offset}")
        chunks.append((kind, body))
        if len(chunks) > MAX_CHUNKS:
            raise CardError(f"PNG has more than {MAX_CHUNKS:,} chunks; refused")
        offset = end
        if kind == b"IEND":
            break
    return chunks


def png_build(chunks: list[tuple[bytes, bytes]]) -> bytes:
    parts = [PNG_SIGNATURE]
    for kind, body in chunks:
        parts.append(struct.pack(">I4s", len(body), kind) + body
                     + struct.pack(">I", zlib.crc32(kind + body)))
    return b"".join(parts)


def _inflate(data: bytes, *, limit: int, what: str) -> bytes:
    """zlib-inflate at most `limit` bytes: a card-sized chunk can hide gigabytes (a zip bomb)."""
    inflater = zlib.decompressobj()
    text = inflater.decompress(data, limit)
    if inflater.unconsumed_tail or (len(text) == limit and not inflater.eof):
        raise CardError(f"PNG {what} inflates past the {MAX_CARD_TEXT_BYTES // 2**20} MB "
                        "limit for card text; refused")
    return text


def _text_chunk_read(kind: bytes, body: bytes, *, limit: int) -> tuple[str, str] | None:
    """(keyword, text) of a tEXt/zTXt/iTXt chunk, None when it cannot be read."""
    keyword, _, rest = body.partition(b"\x00")
    name = keyword.decode("latin-1").lower()
    what = f"{kind.decode('latin-1')} chunk '{name}'"
    try:
        if kind == b"tEXt":
            text = rest.decode("latin-1")
        elif kind == b"zTXt":
            text = _inflate(rest[1:], limit=limit, what=what).decode("latin-1")
        else:
            compressed, rest = rest[0], rest[2:]
            _lang, _, rest = rest.partition(b"\x00")
            _translated, _, rest = rest.partition(b"\x00")
            raw = _inflate(rest, limit=limit, what=what) if compressed else rest
            text = raw.decode("utf-8")
    except (zlib.error, UnicodeDecodeError, IndexError):
        return None
    return name, text


def png_card_texts(chunks: list[tuple[bytes, bytes]]) -> dict[str, str]:
    texts: dict[str, str] = {}
    budget = MAX_CARD_TEXT_BYTES
    for kind, body in chunks:
        if not is_card_chunk(kind, body):
            continue  # other text chunks are never inflated: they are kept as they are
        found = _text_chunk_read(kind, body, limit=max(budget, 1))
        if found:
            texts.setdefault(found[0], found[1])
            budget -= len(found[1])
    return texts


def is_card_chunk(kind: bytes, body: bytes) -> bool:
    if kind not in TEXT_CHUNKS:
        return False
    return body.partition(b"\x00")[0].decode("latin-1").lower() in CARD_KEYWORDS


def _png_solid(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return png_build([(b"IHDR", header), (b"IDAT", zlib.compress(row * height, 9)),
                       (b"IEND", b"")])


def card_image(data: bytes) -> bytes | None:
    """The picture of a PNG card without its card chunks (to keep as the avatar), else None."""
    if not data.startswith(PNG_SIGNATURE):
        return None
    chunks = png_chunks(data)
    return png_build([(kind, body) for kind, body in chunks if not is_card_chunk(kind, body)])

def card_text_chunk(keyword: str, card: dict[str, Any]) -> tuple[bytes, bytes]:
    payload = json.dumps(card, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"tEXt", keyword.encode("latin-1") + b"\x00" + base64.b64encode(payload)


def placeholder_image(name: str) -> bytes:
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    rgb = (64 + digest[0] % 128, 64 + digest[1] % 128, 64 + digest[2] % 128)
    return _png_solid(*GENERATED_SIZE, rgb)
