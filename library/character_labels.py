"""How a picker names a character: its name, and when another character the account sees has
the same name, what the author can recognise on the library page (whose it is, the first words
of its description, its tags, its picture, when it changed), numbered when nothing else
tells them apart (personalab/lib/names.py)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence

from django.utils import formats, timezone
from django.utils.translation import gettext as _

from library.avatars import avatar_file
from library.library_tiles import character_blurb
from library.models import Character
from personalab.lib.filestore.store import FileStore
from personalab.lib.names import labels_distinct, name_key
from personalab.storage import get_store

BLURB_WORDS_CHARS = 36
SECTION_LABEL = re.compile(r"^\[[A-Za-z]{1,20}\]\s*")


def character_labels(pairs: Iterable[tuple[str, str]], *, user) -> dict[str, str]:
    """{character_id: label} for (character_id, name) pairs, as `user` sees them."""
    return labels_distinct(pairs, hints=lambda ids: _hints(ids, user=user))


# More characters of one name than this are told apart by whose they are and their place
# among that owner's (made order), reading none of their files: another account's 1,000 shared
# namesakes of one of yours made every picker of every account read 1,000 descriptions and
# pictures (0.3 s of a 0.65 s home page).
HINTED_SAME_NAMES = 50


def _hints(ids: list[str], *, user) -> dict[str, Sequence[str]]:
    store = get_store()
    rows = Character.objects.select_related("owner").in_bulk(ids)
    sizes = Counter(name_key(row.name) for row in rows.values())
    # Asked about every same-named character on every picker (a hundred imports of one card):
    # the sentences are translated once and each day formatted once, not once per character.
    words = {"pictured": _("with a picture"), "unpictured": _("no picture"),
             "changed": _("changed %(when)s"), "site": _("the site's"), "yours": _("yours"),
             "by": _("by %(owner)s")}
    days: dict = {}
    many = {character_id: row for character_id, row in rows.items()
            if sizes[name_key(row.name)] > HINTED_SAME_NAMES}
    return {**{character_id: _row_hints(store, row, user=user, words=words, days=days)
               for character_id, row in rows.items() if character_id not in many},
            **_whose_numbered(many, user=user, words=words)}


def _whose_numbered(rows: dict[str, Character], *, user,
                    words: dict[str, str]) -> dict[str, Sequence[str]]:
    """(whose it is, whose it is and its number among that owner's namesakes) of each."""
    counted: Counter[tuple[str, str]] = Counter()
    hints = {}
    for character_id in sorted(rows, key=lambda i: (len(i), i)):  # made order, as numbered
        row = rows[character_id]
        whose = _whose(row, user=user, words=words)
        counted[name_key(row.name), whose] += 1
        hints[character_id] = [whose, f"{whose} {counted[name_key(row.name), whose]}"]
    return hints


def _row_hints(store: FileStore, row: Character, *, user, words: dict[str, str],
               days: dict) -> list[str]:
    changed = timezone.localtime(row.updated_at)
    if changed.date() not in days:
        days[changed.date()] = formats.date_format(changed, "MONTH_DAY_FORMAT")
    day, changed_at = days[changed.date()], words["changed"]
    pictured = avatar_file(store.character_dir(row.character_id))
    return [_whose(row, user=user, words=words),
            _first_words(character_blurb(store, row.character_id)), row.tags,
            words["pictured"] if pictured else words["unpictured"],
            changed_at % {"when": day},
            changed_at % {"when": f"{day} {changed:%H:%M}"},
            # Two made in one minute (a test, a script, an import run twice).
            changed_at % {"when": f"{day} {changed:%H:%M:%S}"}]


def _whose(row: Character, *, user, words: dict[str, str]) -> str:
    if row.owner is None:
        return words["site"]
    if user is not None and row.owner_id == getattr(user, "pk", None):
        return words["yours"]
    return words["by"] % {"owner": row.owner.get_username()}


def _first_words(blurb: str) -> str:
    blurb = SECTION_LABEL.sub("", blurb)  # a card's description starts "[Description] "
    if len(blurb) <= BLURB_WORDS_CHARS:
        return f"“{blurb}”" if blurb else ""
    cut = blurb[:BLURB_WORDS_CHARS].rsplit(" ", 1)[0].rstrip(" ,.;:") or blurb[:BLURB_WORDS_CHARS]
    return f"“{cut}…”"
