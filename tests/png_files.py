"""PNG files built in the tests without an image library: a 1 x 1 picture with any extra chunks, a
card's text chunk, a solid picture of a given size, and what a PNG says of itself; and the bytes
of a 1 x 1 RGBA picture (PNG_1PX)."""

from __future__ import annotations

import base64
import json
import struct
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_1PX = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082")


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def tiny_png(*extra_chunks: bytes) -> bytes:
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (PNG_SIGNATURE + chunk(b"IHDR", header) + chunk(b"IDAT", pixels)
            + b"".join(extra_chunks) + chunk(b"IEND", b""))


def text_chunk(keyword: str, card: dict) -> bytes:
    payload = base64.b64encode(json.dumps(card, ensure_ascii=False).encode("utf-8"))
    return chunk(b"tEXt", keyword.encode() + b"\x00" + payload)


def png_texts(png: bytes) -> dict[str, str]:
    texts, offset = {}, 8
    while offset < len(png):
        length, kind = struct.unpack(">I4s", png[offset:offset + 8])
        body = png[offset + 8:offset + 8 + length]
        if kind == b"tEXt":
            keyword, _, text = body.partition(b"\x00")
            texts[keyword.decode()] = text.decode("latin-1")
        offset += 12 + length
    return texts


def png_bytes(width: int, height: int) -> bytes:
    """A solid PNG (no image library needed)."""
    rows = b"".join(b"\x00" + b"\x80\x40\x20" * width for _ in range(height))
    return (PNG_SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def png_size(data: bytes) -> tuple[int, int]:
    return struct.unpack(">II", data[16:24])
