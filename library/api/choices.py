"""`GET /api/v1/characters/choices`: what a character picker offers, and the characters found
by typing (library/character_picker.py). The pages' pickers call it as any client does."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router

from library.api.schemas import CharacterChoicesOut
from library.character_picker import (
    FIND_MAX_CHARS,
    FOUND_LIMIT,
    FOUND_LIMIT_MAX,
    OTHERS_OFFERED,
    CharacterChoices,
    character_choices,
    characters_found,
)

router = Router(tags=["characters"])


@router.get("/characters/choices", response=CharacterChoicesOut,
            description=f"`q` (at most {FIND_MAX_CHARS} characters, matched as plain text, case "
                        f"ignored): the characters you may see whose name or tags hold every "
                        f"word, names starting with the first word first, at most `limit` "
                        f"(default {FOUND_LIMIT}, at most {FOUND_LIMIT_MAX}). Without `q`: what "
                        f"the pickers offer at once: your characters, the site's, and up to "
                        f"{OTHERS_OFFERED} shared ones of other accounts (your chats' first, "
                        f"then the newest).")
def character_choices_list(request: HttpRequest, q: str | None = None,
                           limit: int = FOUND_LIMIT):
    """Characters for a picker, each labelled as the pages label it."""
    choices = (character_choices(user=request.auth) if q is None
               else characters_found(user=request.auth, text=q, limit=limit))
    return _out(choices)


def _out(choices: CharacterChoices) -> dict:
    return {"characters": [{"character_id": row.character_id, "name": row.name,
                            "label": row.label, "tags": row.tags,
                            "owner": row.owner.get_username() if row.owner else None}
                           for row in choices],
            "more": choices.more}
