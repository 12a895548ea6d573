"""CHARX: a Character Card V3 as a zip (`card.json` at the root, files under `assets/`).

Framework-free. Reading never extracts to disk and never trusts the zip's own sizes: every
member is read with a cap, the archive has a cap on members, on bytes in total (as unpacked:
a file of zeros counts at its full size) and on how much it may grow over its packed size, and
only member names made of plain path parts are kept, under `assets/` (another app's files at the
root, such as RisuAI's module.risum, under assets/_charx_kept/, written back at the root by an
export; no `..`, no absolute paths, no backslashes), so nothing in a CHARX can name a place
outside the character's folder. Names that could not all be written (too long, too deep, one a
folder of another, the same twice) are refused here, before anything is written.
"""

from __future__ import annotations

import io
import json
import re
import struct
import zipfile
from dataclasses import dataclass, field
from typing import Any

from personalab.lib.nesting import JsonRefused, json_loads_bounded

MAX_CHARX_BYTES = 32 * 2**20
MAX_MEMBER_BYTES = 16 * 2**20
MAX_TOTAL_BYTES = 64 * 2**20
MAX_MEMBERS = 512
# The zip's list of members, as its end record gives its size: 512 members of 240-letter names
# fill under 200 KB. zipfile reads the whole list before the members are counted: 110,000 empty
# members (9 MB) took 1.3 s of CPU to be refused.
MAX_DIRECTORY_BYTES = MAX_MEMBERS * 1024
MAX_NAME_CHARS = 240  # under NAME_MAX and far under PATH_MAX once below the data folder
MAX_NAME_PARTS = 8
RATIO_FREE_BYTES = 2**20  # a small archive of text may pack well; past this, the ratio counts
CARD_MEMBER = "card.json"
# Other files of the archive (RisuAI's module.risum, x_meta/…) are kept with the assets under
# this folder and written back where they were, so an export keeps what another app put in.
KEPT_FOLDER = "assets/_charx_kept"
ASSET_PART = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._ -]{0,127}$")
# The V3 spec spells it "embeded://"; writers in the wild also use "embedded://".
EMBEDDED_PREFIXES = ("embeded://", "embedded://")
ZIP_MAGIC = b"PK\x03\x04"


class CharxError(ValueError):
    """Worded for the player; `field` is always "file"."""


@dataclass(frozen=True)
class CharxLimits:
    max_bytes: int = MAX_CHARX_BYTES
    unpacked_max_bytes: int = MAX_TOTAL_BYTES
    max_ratio: int = 20

    def unpacked_check(self, total: int, packed: int) -> None:
        if total > self.unpacked_max_bytes:
            raise CharxError(f"CHARX unpacks to more than "
                             f"{self.unpacked_max_bytes / 2**20:g} MB")
        if total > RATIO_FREE_BYTES and total > self.max_ratio * packed:
            raise CharxError(f"CHARX unpacks to more than {self.max_ratio} times its size "
                             "(a zip bomb?); it is refused")


@dataclass
class Charx:
    card: Any
    assets: dict[str, bytes] = field(default_factory=dict)  # "assets/icon/images/main.png" -> bytes
    skipped: list[str] = field(default_factory=list)


def is_charx(data: bytes) -> bool:
    return data.startswith(ZIP_MAGIC)


def asset_path_safe(name: str) -> bool:
    parts = name.split("/")
    return (len(parts) >= 2 and parts[0] == "assets" and "\\" not in name
            and all(ASSET_PART.fullmatch(part) for part in parts[1:]))


def _member_read(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    with archive.open(info) as handle:
        body = handle.read(MAX_MEMBER_BYTES + 1)
    if len(body) > MAX_MEMBER_BYTES:
        raise CharxError(f"CHARX member {info.filename!r} is larger than "
                         f"{MAX_MEMBER_BYTES // 2**20} MB")
    return body


def _members(archive: zipfile.ZipFile) -> list[zipfile.ZipInfo]:
    infos = [info for info in archive.infolist() if not info.is_dir()]
    if len(infos) > MAX_MEMBERS:
        raise CharxError(f"CHARX has {len(infos)} files; at most {MAX_MEMBERS} are read")
    return infos


def asset_names_check(names: list[str]) -> None:
    """Every name can be written as a file beside the others, or the CHARX is refused whole.
    Compared without case: the same CHARX must import on a case-blind disk too."""
    seen: set[str] = set()
    folders: set[str] = set()
    for name in names:
        if len(name) > MAX_NAME_CHARS or name.count("/") >= MAX_NAME_PARTS:
            raise CharxError(f"CHARX member path {name[:60]!r}… is too long or too deep (at most "
                             f"{MAX_NAME_CHARS} characters and {MAX_NAME_PARTS} parts)")
        folded = name.casefold()
        if folded in seen:
            raise CharxError(f"CHARX has the file {name!r} twice")
        seen.add(folded)
        parts = folded.split("/")
        folders.update("/".join(parts[:i]) for i in range(1, len(parts)))
    clash = sorted(seen & folders)
    if clash:
        raise CharxError(f"CHARX member {clash[0]!r} is both a file and a folder")


def _declared_check(infos: list[zipfile.ZipInfo], packed: int, limits: CharxLimits) -> None:
    """The zip's own sizes, checked before any member is inflated (read sizes are checked too:
    the header may lie)."""
    for info in infos:
        if info.file_size > MAX_MEMBER_BYTES:
            raise CharxError(f"CHARX member {info.filename!r} is larger than "
                             f"{MAX_MEMBER_BYTES // 2**20} MB")
    limits.unpacked_check(sum(max(info.file_size, 0) for info in infos), packed)


def _directory_bytes(data: bytes) -> int:
    """The size of the member list the zip's end record gives (its Zip64 record's, when one
    stands before it, as zipfile reads it); 0 when there is none (zipfile refuses the file)."""
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - 22 - 0xFFFF))
    if end < 0 or end + 22 > len(data):
        return 0
    (size,) = struct.unpack_from("<I", data, end + 12)
    locator = end - 20
    if locator >= 0 and data.startswith(b"PK\x06\x07", locator):
        (record,) = struct.unpack_from("<Q", data, locator + 8)
        if record + 56 <= len(data) and data.startswith(b"PK\x06\x06", record):
            (size,) = struct.unpack_from("<Q", data, record + 40)
    return size


def charx_read(data: bytes, *, limits: CharxLimits | None = None) -> Charx:
    limits = limits or CharxLimits()
    if len(data) > limits.max_bytes:
        raise CharxError(f"CHARX file is larger than {limits.max_bytes / 2**20:g} MB")
    if _directory_bytes(data) > MAX_DIRECTORY_BYTES:
        raise CharxError(f"CHARX lists more files than the {MAX_MEMBERS} that are read")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError) as exc:
        raise CharxError(f"not a readable CHARX (zip) file: {exc}") from None
    result = Charx(card=None)
    total = 0
    with archive:
        infos = _members(archive)
        _declared_check(infos, len(data), limits)
        stored = {info.filename: _stored_name(info.filename) for info in infos}
        asset_names_check([name for name in stored.values() if name])
        for info in infos:
            if info.filename != CARD_MEMBER and not stored[info.filename]:
                result.skipped.append(info.filename)
                continue
            try:
                body = _member_read(archive, info)
            except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError,
                    NotImplementedError, RuntimeError) as exc:
                raise CharxError(f"CHARX member {info.filename!r} cannot be read: {exc}") from None
            total += len(body)
            limits.unpacked_check(total, len(data))
            if info.filename == CARD_MEMBER:
                result.card = _card_json(body)
            else:
                result.assets[stored[info.filename]] = body
    if result.card is None:
        raise CharxError("CHARX has no card.json at its root")
    return result


def _stored_name(name: str) -> str | None:
    """Where a member is kept among the character's assets: an asset as it is, another file of
    plain path parts under KEPT_FOLDER; None for card.json and for what is not kept."""
    if name == CARD_MEMBER:
        return None
    if asset_path_safe(name):
        return name
    kept = f"{KEPT_FOLDER}/{name}"
    return kept if not name.startswith("assets/") and asset_path_safe(kept) else None


def _card_json(body: bytes) -> Any:
    try:
        return json_loads_bounded(body.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError, JsonRefused) as exc:
        raise CharxError(f"CHARX card.json is not valid JSON: {exc}") from None


def asset_member(uri: Any) -> str | None:
    """`embeded://assets/icon/images/main.png` -> its member name, when it is a safe one."""
    if not isinstance(uri, str):
        return None
    for prefix in EMBEDDED_PREFIXES:
        if uri.startswith(prefix) and asset_path_safe(uri[len(prefix):]):
            return uri[len(prefix):]
    return None


def assets_listed(card: dict[str, Any]) -> list[Any]:
    """The card's `data.assets`; a value that is not a list lists nothing."""
    listed = card.get("data", {}).get("assets")
    return listed if isinstance(listed, list) else []


def main_icon(card: dict[str, Any], assets: dict[str, bytes]) -> bytes | None:
    """The picture SillyTavern shows: the icon named "main", else the first icon."""
    icons = [a for a in assets_listed(card) if isinstance(a, dict) and a.get("type") == "icon"]
    icons.sort(key=lambda a: a.get("name") != "main")
    for icon in icons:
        member = asset_member(icon.get("uri"))
        if member in assets:
            return assets[member]
    return None


def charx_write(card: dict[str, Any], *, assets: dict[str, bytes]) -> bytes:
    """`card` as card.json plus every asset file, as a zip."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(CARD_MEMBER, json.dumps(card, ensure_ascii=False, indent=2))
        for name, body in sorted(assets.items()):
            if name.startswith(f"{KEPT_FOLDER}/"):
                archive.writestr(name[len(KEPT_FOLDER) + 1:], body)
            elif asset_path_safe(name):
                archive.writestr(name, body)
    return buffer.getvalue()
