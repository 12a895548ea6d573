"""A picture's metadata left out before it is kept, the picture itself untouched (never decoded).

A character's, persona's or background's picture is shown to every account that may use it, and
was kept as it came: a phone photo's EXIF (where and when it was taken, the camera's serial), a
PNG's text chunks, XMP, comments (red team, twelfth pass). The page's cropper sends a canvas's
new file, without them; an upload without a script, through the API or inside a card did not.
Left out: JPEG APP1 (EXIF, XMP), APP3-APP13 and APP15 and comments (an EXIF orientation is put
back alone, so a photo stands as taken); PNG ancillary chunks but those that change how it looks
(text, EXIF, time and private chunks go); WebP EXIF and XMP chunks. A file that cannot be read
to its end this way is kept as it came; so is a GIF. Framework-free."""

from __future__ import annotations

import struct

from library.card_formats.png import png_build, png_chunks

# The ancillary PNG chunks that change how the picture looks (colour, transparency, the
# animation of an APNG); the others (text, EXIF, time, private ones of any size) only ride along.
PNG_ANCILLARY_KEPT = {b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"sBIT", b"pHYs", b"bKGD",
                      b"acTL", b"fcTL", b"fdAT", b"cICP", b"mDCV", b"cLLI", b"sPLT", b"hIST"}
# APP0 (JFIF), APP2 (ICC colour profile) and APP14 (Adobe colour transform) change how the
# picture looks; the other application segments and comments only describe it.
JPEG_KEPT_APPS = {0xE0, 0xE2, 0xEE}
_ORIENTATION = 0x0112


def picture_metadata_stripped(data: bytes, kind: str) -> bytes:
    """`data` (a picture of `kind`: png, jpg, gif, webp) without its metadata."""
    strip = {"png": _png, "jpg": _jpeg, "webp": _webp}.get(kind)
    if strip is None:
        return data
    try:
        return strip(data)
    except (ValueError, struct.error, IndexError):
        return data


def _png(data: bytes) -> bytes:
    chunks = png_chunks(data)  # raises CardError (a ValueError) on a damaged file
    return png_build([(k, body) for k, body in chunks
                      if k[:1].isupper() or k in PNG_ANCILLARY_KEPT])


def _jpeg(data: bytes) -> bytes:
    """The segments that draw the picture, to its end (EOI): what follows it, such as a phone's
    second picture (MPF) with an EXIF of its own, goes too."""
    kept, at = [data[:2]], 2
    while True:
        if data[at] != 0xFF:
            raise ValueError("not a JPEG marker")
        marker = data[at + 1]
        if marker == 0xFF:  # a fill byte
            at += 1
            continue
        if marker == 0xD9 or 0xD0 <= marker <= 0xD7 or marker == 0x01:
            kept.append(data[at:at + 2])
            at += 2
            if marker == 0xD9:
                return b"".join(kept)
            continue
        length = struct.unpack(">H", data[at + 2:at + 4])[0]
        segment = data[at:at + 2 + length]
        if length < 2 or len(segment) < 2 + length:
            raise ValueError("a JPEG segment runs past the end")
        if marker == 0xDA:  # a scan: its coded data runs to the next marker
            end = _scan_end(data, at + 2 + length)
            kept.append(data[at:end])
            at = end
            continue
        if marker == 0xE1:
            orientation = _exif_orientation(segment[4:])
            if orientation is not None:
                kept.append(_exif_with_orientation(orientation))
        elif not (0xE0 <= marker <= 0xEF or marker == 0xFE) or marker in JPEG_KEPT_APPS:
            kept.append(segment)
        at += 2 + length


def _scan_end(data: bytes, at: int) -> int:
    """Where a scan's coded data ends: the first 0xFF that is neither a stuffed 0xFF (FF 00)
    nor a restart marker (FF D0-D7)."""
    while True:
        at = data.index(b"\xff", at)  # ValueError: the file ends inside the scan
        following = data[at + 1]
        if following != 0x00 and not 0xD0 <= following <= 0xD7:
            return at
        at += 2


def _exif_orientation(payload: bytes) -> int | None:
    """The Orientation tag of an APP1 EXIF payload's first IFD, None when there is none."""
    if not payload.startswith(b"Exif\x00\x00"):
        return None
    tiff = payload[6:]
    order = {b"II": "<", b"MM": ">"}.get(tiff[:2])
    if order is None:
        return None
    (first,) = struct.unpack(order + "I", tiff[4:8])
    (count,) = struct.unpack(order + "H", tiff[first:first + 2])
    for number in range(min(count, 500)):
        entry = tiff[first + 2 + 12 * number:first + 14 + 12 * number]
        tag, kind = struct.unpack(order + "HH", entry[:4])
        if tag == _ORIENTATION and kind == 3:
            (value,) = struct.unpack(order + "H", entry[8:10])
            return value if 1 <= value <= 8 else None
    return None


def _exif_with_orientation(orientation: int) -> bytes:
    """An APP1 segment of an EXIF that says the orientation alone."""
    tiff = (b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1)
            + struct.pack(">HHIH2x", _ORIENTATION, 3, 1, orientation) + struct.pack(">I", 0))
    payload = b"Exif\x00\x00" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(payload) + 2) + payload


def _webp(data: bytes) -> bytes:
    """The RIFF's chunks but EXIF and XMP; bytes past the RIFF's own length are kept as they
    are, and a file without either is kept whole."""
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        return data
    (riff_size,) = struct.unpack("<I", data[4:8])
    riff_end = min(8 + riff_size, len(data))
    kept, at, dropped = [], 12, False
    while at + 8 <= riff_end:
        kind = data[at:at + 4]
        (size,) = struct.unpack("<I", data[at + 4:at + 8])
        end = at + 8 + size + (size & 1)
        if at + 8 + size > riff_end:
            raise ValueError("a WebP chunk runs past the end")
        chunk = data[at:end]
        if kind == b"VP8X":  # its flags said EXIF (8) and XMP (4) follow
            chunk = chunk[:8] + bytes([chunk[8] & ~0x0C]) + chunk[9:]
        if kind in (b"EXIF", b"XMP "):
            dropped = True
        else:
            kept.append(chunk)
        at = end
    if not dropped:
        return data
    body = b"WEBP" + b"".join(kept) + data[at:riff_end]
    return b"RIFF" + struct.pack("<I", len(body)) + body + data[riff_end:]
