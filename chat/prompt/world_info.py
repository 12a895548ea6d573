"""What a turn's world-info scan reads besides the chat: the texts entries may match when
flagged (persona, card fields), the speaker the character filters are judged against, the
vector scorer of `vectorized` entries, and the outlet macros of the fired entries."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from django.conf import settings

from chat.prompt.card_fields import CardFields
from library.lore.activation import setting
from library.lore.vector_store import vector_folder, vectors_ready
from library.lore.vectors import DEFAULT_THRESHOLD, vector_scorer
from personalab.lib.embedding import embeddings
from personalab.lib.macros import macros_replace


def lore_sources(card: CardFields, persona: dict[str, Any]) -> dict[str, str]:
    """SillyTavern's "additional matching sources", as this turn's prompt has them."""
    return {"persona_description": persona.get("description") or "",
            "character_description": card.description,
            "character_personality": card.personality,
            "character_depth_prompt": (card.depth_prompt or {}).get("content", ""),
            "scenario": card.scenario,
            "creator_notes": card.creator_notes}


def lore_speaker(character: dict[str, Any], character_id: str, *, player: str | None,
                 lorebooks: list[dict[str, Any]]) -> dict[str, Any]:
    """Who answers this turn (in a conversation with several characters: the speaker), with
    the SillyTavern avatar file its card came in, which SillyTavern's filters name it by.
    Another account's character is named by its file only in its author's own books: the file
    name is kept from every other reader, and a filter of the player's own book naming a guess
    told the player, in the prompt inspector, whether the guess was right."""
    tags = character.get("tags")
    avatar = character.get("st_avatar")
    author = character.get("owner") or ""
    shown = {"avatar": avatar} if isinstance(avatar, str) and avatar else {}
    if shown and player is not None and author != player:
        shown["avatar_books"] = frozenset(
            str(book.get("lorebook_id") or book.get("name") or "?") for book in lorebooks
            if (book.get("owner") or "") == author)
    return {"name": character.get("name") or character_id, "id": character_id,
            "tags": [str(tag) for tag in tags] if isinstance(tags, list) else [], **shown}


def has_vectorized(lorebooks: list[dict[str, Any]]) -> bool:
    return any(isinstance(entry, dict) and entry.get("enabled", True)
               and setting(entry, "vectorized", "vectorized", False)
               for book in lorebooks for entry in book.get("entries") or [])


def lore_vectors(lorebooks: list[dict[str, Any]], messages: list[str], *, data_root: Path,
                 notes: list[str]) -> dict[str, Any]:
    """`lorebook_match` arguments for vectorized entries (none when no book has one, so the
    model is not loaded for nothing). Entries are scored with the vectors made when their book
    was saved (library/lore/vector_store.py); what could not be scored is said in `notes`."""
    if not has_vectorized(lorebooks):
        return {}
    thresholds = [book["vector_threshold"] for book in lorebooks
                  if isinstance(book.get("vector_threshold"), (int, float))
                  and not isinstance(book.get("vector_threshold"), bool)]
    return {"vector_scores": vector_scorer(
                messages, embed_queries=embeddings.embed_queries,
                vectors_ready=partial(vectors_ready, vector_folder(data_root)),
                max_entries=settings.PERSONALAB_LORE_VECTOR_ENTRIES_MAX,
                max_books=settings.PERSONALAB_LORE_VECTOR_BOOKS_MAX, notes=notes),
            "vector_threshold": min(thresholds) if thresholds else DEFAULT_THRESHOLD}


def outlet_macros(outlets: dict[str, str], values: dict[str, str]) -> dict[str, str]:
    """`{{outlet::name}}` values: each outlet's text with its own macros already replaced
    (inserted values are not scanned again)."""
    return {f"outlet::{name}": macros_replace(text, values) for name, text in outlets.items()}
