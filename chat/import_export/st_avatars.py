"""The avatar file each member of a group has in SillyTavern, for a group chat written as its
JSONL: SillyTavern tells a group's members apart by a message's `original_avatar` (group-chats.js
`activateSwipe`; without it, by `name`, its "pre-update group chat" path) and shows the picture
of `force_avatar`. A card imported there is saved under its name, cleaned as its
`sanitize-filename` does, a number added when the name is taken (characters.js `getPngName`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import quote

_ILLEGAL = re.compile(r'[/?<>\\:*|"\x00-\x1f\x80-\x9f]')
_WINDOWS_RESERVED = re.compile(r"^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$", re.IGNORECASE)
_NAME_BYTES = 255


def st_file_name(name: str) -> str:
    """`name` as SillyTavern's sanitize() leaves it for a file name ("" when nothing is left)."""
    cleaned = _ILLEGAL.sub("", name)
    if set(cleaned) <= {"."} or _WINDOWS_RESERVED.match(cleaned):
        return ""
    cleaned = cleaned.rstrip(". ")
    return cleaned.encode("utf-8")[:_NAME_BYTES].decode("utf-8", "ignore")


def st_avatar_files(names: list[str], *, taken: Iterable[str] = ()) -> list[str]:
    """The avatar file of each name, in order, as SillyTavern names the cards imported in
    that order: "Mira.png", then "Mira1.png" for a second Mira; none of the files `taken`."""
    used = {file.casefold() for file in taken}
    files = []
    for name in names:
        base = st_file_name(name) or "character"
        file, number = f"{base}.png", 1
        while file.casefold() in used:
            file, number = f"{base}{number}.png", number + 1
        used.add(file.casefold())
        files.append(file)
    return files


def st_thumbnail_url(avatar_file: str) -> str:
    """Where SillyTavern shows an avatar's picture (script.js `getThumbnailUrl`)."""
    return f"/thumbnail?type=avatar&file={quote(avatar_file, safe='-_.!~*()' + chr(39))}"
