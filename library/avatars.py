"""Avatar pictures kept as they came (PNG, JPEG, GIF or WebP, recognised by their bytes, never
decoded) but for their metadata (library/picture_metadata.py): a character's or persona's folder
holds at most one `avatar.<kind>`. Framework-free."""

from __future__ import annotations

from pathlib import Path

from library.picture_metadata import picture_metadata_stripped

CONTENT_TYPES = {"png": "image/png", "jpg": "image/jpeg", "gif": "image/gif",
                 "webp": "image/webp"}
_MAGIC = {b"\x89PNG\r\n\x1a\n": "png", b"\xff\xd8\xff": "jpg", b"GIF87a": "gif",
          b"GIF89a": "gif"}


def image_kind(data: bytes) -> str | None:
    """"png", "jpg", "gif" or "webp" by the file's first bytes; None for anything else."""
    kind = next((ext for magic, ext in _MAGIC.items() if data.startswith(magic)), None)
    if kind is None and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        kind = "webp"
    return kind


AVATAR_MAX_BYTES = 2 * 1024 * 1024


def avatar_problem(data: bytes) -> tuple[str, str] | None:
    """Why `data` cannot be an avatar (the sentence, the field's note), or None."""
    if len(data) > AVATAR_MAX_BYTES:
        return "avatar is larger than 2 MB", "at most 2 MB"
    if image_kind(data) is None:
        return "avatar must be a PNG, JPEG, GIF or WebP image", "PNG, JPEG, GIF or WebP"
    return None


def avatar_file(folder: Path) -> Path | None:
    for kind in CONTENT_TYPES:
        path = folder / f"avatar.{kind}"
        if path.is_file():
            return path
    return None


def avatar_write(folder: Path, data: bytes, kind: str) -> str:
    """Replace the folder's avatar, without its metadata; the file's name."""
    for old in folder.glob("avatar.*"):
        old.unlink()
    name = f"avatar.{kind}"
    (folder / name).write_bytes(picture_metadata_stripped(data, kind))
    return name


def avatar_remove(folder: Path) -> bool:
    """Remove the folder's avatar; whether there was one."""
    removed = False
    for old in folder.glob("avatar.*"):
        old.unlink()
        removed = True
    return removed


def content_type(path: Path) -> str:
    return CONTENT_TYPES.get(path.suffix.lstrip("."), "application/octet-stream")
