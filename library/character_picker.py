"""What a character picker offers: at once the account's own characters, the site's, and a
bounded number of other accounts' shared ones (those its chats play first, then the newest); any
other it may see is found by typing (`characters_found`, behind `GET /api/v1/characters/choices`).
An account may share 5,000 characters: listed whole, every other account's home page and editor
grew by 0.3 ms for each (docs/security.md, sixth pass).

Labels are those of a picker listing every character the account sees (library/character_labels.py):
a namesake offered here or found by typing is told apart from all its namesakes, not only from
those on the page, so the label a search gives is the label the page gives."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import Case, Count, IntegerField, Q, Value, When
from django.db.models.functions import Lower, Trim
from django.utils.translation import gettext

from library import character_labels as label_rules
from library.chat_use import characters_played
from library.models import Character
from library.selectors import characters_visible_to
from personalab.lib.errors import Invalid

OTHERS_OFFERED = 30  # other accounts' shared characters a picker lists before any typing
FOUND_LIMIT = 20
FOUND_LIMIT_MAX = 50
FIND_MAX_CHARS = 100
FIND_MAX_WORDS = 8


class CharacterChoices(list):
    """Character rows, each with its `label`; `more`: characters the account may see were left
    out, to be found by typing."""

    more: bool = False


def character_choices(*, user, also: Iterable[str] = ()) -> CharacterChoices:
    """The characters a picker offers at once, by name: the account's own and the site's, the
    visible ones of `also` (the page's own character, those already picked), and up to
    OTHERS_OFFERED of other accounts' (staff: every account's) — those its chats played most
    recently, then the most recently changed."""
    visible = characters_visible_to(user=user)
    mine = Q(owner__isnull=True) | (Q(owner=user) if user.is_authenticated else Q(pk__in=[]))
    others = visible.exclude(mine)
    wanted = list(dict.fromkeys([*also, *(characters_played(user_id=user.pk, limit=OTHERS_OFFERED)
                                          if user.is_authenticated else [])]))
    kept = list(others.filter(character_id__in=wanted))
    room = max(0, OTHERS_OFFERED - len(kept))
    newest = list(others.exclude(character_id__in=wanted)
                  .order_by("-updated_at", "character_id")[:room + 1])
    choices = CharacterChoices(sorted([*visible.filter(mine), *kept, *newest[:room]],
                                      key=lambda r: (r.name, r.character_id)))
    choices.more = len(newest) > room
    characters_labelled(choices, user=user)
    return choices


def find_words(text: object) -> list[str]:
    """The words of a search typed to find a character (or, on the library page, any item);
    one over FIND_MAX_CHARS or FIND_MAX_WORDS words, or holding a NUL, is refused."""
    if not isinstance(text, str) or len(text) > FIND_MAX_CHARS:
        raise Invalid(gettext("type at most %(count)s characters to find a character")
                      % {"count": FIND_MAX_CHARS}, field="q")
    if "\0" in text:  # SQLite's LIKE ended the pattern there (so "\0" found every name);
        # PostgreSQL refuses the query (a 500)
        raise Invalid(gettext("what you type to find a character cannot hold a NUL character"),
                      field="q")
    words = text.split()
    if len(words) > FIND_MAX_WORDS:
        raise Invalid(gettext("type at most %(count)s words to find a character")
                      % {"count": FIND_MAX_WORDS}, field="q")
    return words


def characters_found(*, user, text: str, limit: int = FOUND_LIMIT) -> CharacterChoices:
    """The characters `user` may see whose name or tags hold every word of `text` (as typed:
    no pattern; case ignored), names starting with the first word first, then by name; at most
    `limit`, `more` when others match. A `text` over FIND_MAX_CHARS or FIND_MAX_WORDS words, or
    holding a NUL, is refused; one of none finds none."""
    words = find_words(text)
    if not 1 <= limit <= FOUND_LIMIT_MAX:
        raise Invalid(gettext("limit must be from 1 to %(count)s") % {"count": FOUND_LIMIT_MAX},
                      field="limit")
    found = CharacterChoices()
    if not words:
        return found
    rows = characters_visible_to(user=user)
    for word in words:  # icontains escapes %, _ and \: what is typed is matched as text
        rows = rows.filter(Q(name__icontains=word) | Q(tags__icontains=word))
    rows = rows.annotate(starts=Case(When(name__istartswith=words[0], then=Value(0)),
                                     default=Value(1), output_field=IntegerField()))
    picked = list(rows.order_by("starts", "name", "character_id")[:limit + 1])
    found.extend(picked[:limit])
    found.more = len(picked) > limit
    characters_labelled(found, user=user)
    return found


def characters_labelled(rows: list[Character], *, user) -> None:
    """Sets each row's `label` as a picker of every character `user` sees would, reading only
    the rows' namesakes: every one of a name shared by at most HINTED_SAME_NAMES (their
    files, as before), and in a larger crowd whose it is and its number among that owner's
    namesakes in made order (their ids alone: _crowd_labelled)."""
    if not rows:
        return
    visible = characters_visible_to(user=user).annotate(key=Lower(Trim("name")))
    # Each row's name as the database compares it (its case folding may not be Python's).
    keys = dict(visible.filter(character_id__in=[row.character_id for row in rows])
                .values_list("character_id", "key"))
    sizes = dict(visible.filter(key__in=set(keys.values())).values("key")
                 .annotate(n=Count("character_id")).values_list("key", "n"))
    crowd = [row for row in rows if sizes.get(keys.get(row.character_id), 0)
             > label_rules.HINTED_SAME_NAMES]
    crowded = {row.character_id for row in crowd}
    few_keys = {key for character_id, key in keys.items() if character_id not in crowded}
    labels = label_rules.character_labels(
        visible.filter(key__in=few_keys).values_list("character_id", "name"),
        user=user) if few_keys else {}
    for row in rows:
        row.label = labels.get(row.character_id, row.name.strip())
    _crowd_labelled(crowd, keys=keys, visible=visible, user=user)


def _crowd_labelled(rows: list[Character], *, keys: dict[str, str], visible, user) -> None:
    """As character_labels names a crowd of namesakes: "Name · whose" when that owner has one
    of them, else "Name · whose N", N its place among that owner's in made order. Only the ids
    of the owners' namesakes are read (bob's 5,000: a few ms); none of their files."""
    if not rows:
        return
    wanted = {(keys[row.character_id], row.owner_id) for row in rows}
    owners = Q(owner__isnull=True) if None in {owner for _, owner in wanted} else Q(pk__in=[])
    owners |= Q(owner_id__in={owner for _, owner in wanted if owner is not None})
    made: dict[tuple[str, int | None], list[str]] = {}
    for key, owner, character_id in (visible.filter(owners, key__in={k for k, _ in wanted})
                                     .values_list("key", "owner_id", "character_id")):
        if (key, owner) in wanted:
            made.setdefault((key, owner), []).append(character_id)
    places = {group: {character_id: place for place, character_id in enumerate(
        sorted(ids, key=lambda i: (len(i), i)), start=1)} for group, ids in made.items()}
    words = {"site": gettext("the site's"), "yours": gettext("yours"),
             "by": gettext("by %(owner)s")}
    for row in rows:
        group = places.get((keys[row.character_id], row.owner_id), {})
        whose = (words["site"] if row.owner is None else words["yours"]
                 if row.owner_id == user.pk else words["by"] % {"owner": row.owner.get_username()})
        place = f" {group[row.character_id]}" if len(group) > 1 else ""
        row.label = f"{row.name.strip()} · {whose}{place}"


def character_choices_found(*, user, find: str | None,
                            also: Iterable[str] = ()) -> tuple[CharacterChoices, str]:
    """A page's picker without its script: what character_choices offers, with the characters
    found for `find` (its search field, sent as a GET) first; and the refusal of a `find` that
    cannot be searched ("" when none)."""
    choices = character_choices(user=user, also=also)
    if find is None:
        return choices, ""
    try:
        found = characters_found(user=user, text=find)
    except Invalid as exc:
        return choices, exc.message
    offered = {row.character_id for row in found}
    merged = CharacterChoices([*found,
                               *(row for row in choices if row.character_id not in offered)])
    merged.more = choices.more
    return merged, ""
