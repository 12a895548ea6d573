"""A picture is kept without its metadata: a shared character's picture is served to every
account, and a phone photo's EXIF said where it was taken (red team, twelfth pass). The picture
itself is left as it came; a JPEG's orientation is kept alone."""

from __future__ import annotations

import struct

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from library.picture_metadata import picture_metadata_stripped
from tests.png_files import chunk, tiny_png

pytestmark = pytest.mark.django_db

SECRET = b"GPS 51.5007N 0.1246W <script>alert(1)</script>"


def _segment(marker: int, payload: bytes) -> bytes:
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def _exif(orientation: int) -> bytes:
    """An EXIF of two tags (little-endian): the orientation and a maker note saying SECRET."""
    ifd = struct.pack("<H", 2) + struct.pack("<HHIH2x", 0x0112, 3, 1, orientation) + \
        struct.pack("<HHII", 0x927C, 7, len(SECRET), 8 + 2 + 24 + 4) + struct.pack("<I", 0)
    return b"Exif\x00\x00" + b"II\x2a\x00" + struct.pack("<I", 8) + ifd + SECRET


SCAN = _segment(0xDA, b"\x01\x01\x00\x00\x3f\x00") + b"\x12\x34\xff\x00\x56" + b"\xff\xd9"
JPEG = (b"\xff\xd8" + _segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
        + _segment(0xE1, _exif(6)) + _segment(0xE1, b"http://ns.adobe.com/xap/1.0/\x00" + SECRET)
        + _segment(0xED, b"Photoshop 3.0\x00" + SECRET) + _segment(0xFE, SECRET)
        + _segment(0xDB, b"\x00" + bytes(64)) + SCAN)


def test_a_jpeg_keeps_its_picture_and_orientation_and_loses_the_rest():
    kept = picture_metadata_stripped(JPEG, "jpg")
    assert SECRET not in kept and b"Photoshop" not in kept and b"adobe" not in kept
    assert kept.startswith(b"\xff\xd8" + _segment(0xE0, JPEG[6:20]))
    assert kept.endswith(_segment(0xDB, b"\x00" + bytes(64)) + SCAN)
    exif = kept[kept.index(b"Exif"):]
    assert exif[6:8] == b"MM" and struct.unpack(">HHIH", exif[16:26]) == (0x0112, 3, 1, 6)


def test_a_png_loses_its_text_chunks_and_a_webp_its_exif_and_xmp():
    png = tiny_png(chunk(b"tEXt", b"Comment\x00" + SECRET), chunk(b"iTXt", b"XML:com.adobe.xmp"
                   b"\x00\x00\x00\x00\x00" + SECRET), chunk(b"eXIf", _exif(1)[6:]),
                   chunk(b"prVt", SECRET * 1000))
    assert picture_metadata_stripped(png, "png") == tiny_png()
    looks = tiny_png(chunk(b"gAMA", struct.pack(">I", 45455)), chunk(b"acTL", bytes(8)))
    assert picture_metadata_stripped(looks, "png") == looks
    vp8x = b"VP8X" + struct.pack("<I", 10) + bytes([0x0C]) + bytes(9)
    picture = b"VP8L" + struct.pack("<I", 5) + b"\x2f\x00\x00\x00\x00\x00"  # padded to even
    exif = b"EXIF" + struct.pack("<I", len(SECRET)) + SECRET + b"\x00" * (len(SECRET) & 1)
    body = b"WEBP" + vp8x + picture + exif + b"XMP " + struct.pack("<I", 4) + b"<x/>"
    kept = picture_metadata_stripped(b"RIFF" + struct.pack("<I", len(body)) + body, "webp")
    flagless = b"VP8X" + struct.pack("<I", 10) + bytes(10)
    assert kept == b"RIFF" + struct.pack("<I", 4 + 18 + 14) + b"WEBP" + flagless + picture


def test_a_jpeg_ends_at_its_end_and_its_scans_are_kept_whole():
    """A phone's second picture after the first one's end carried an EXIF of its own."""
    progressive = JPEG[:-2] + _segment(0xC4, b"\x10" + bytes(16)) + SCAN
    kept = picture_metadata_stripped(progressive + b"\xff\xd8" + _segment(0xE1, _exif(1)), "jpg")
    assert SECRET not in kept and kept.endswith(JPEG[-len(SCAN):-2] + _segment(
        0xC4, b"\x10" + bytes(16)) + SCAN)


def test_a_damaged_file_is_kept_as_it_came():
    assert picture_metadata_stripped(JPEG[:30], "jpg") == JPEG[:30]
    assert picture_metadata_stripped(tiny_png()[:-3], "png") == tiny_png()[:-3]


def test_another_account_is_never_served_a_shared_characters_photo_metadata(
        alice_client, bob, character):
    response = alice_client.post(f"/api/v1/characters/{character}/avatar", {
        "file": SimpleUploadedFile("me.jpg", JPEG, content_type="image/jpeg")})
    assert response.status_code < 300, response.content
    other = Client()
    other.force_login(bob)
    served = other.get(f"/library/characters/{character}/avatar.png")
    body = b"".join(served.streaming_content) if served.streaming else served.content
    assert served.status_code == 200 and served["Content-Type"] == "image/jpeg"
    assert served["X-Content-Type-Options"] == "nosniff"
    assert body.endswith(SCAN) and SECRET not in body
