"""The library page's tiles read each character's file once: a second load reads none of them
again (100 cards with books cost ~110 ms of every load), and an edited card shows its new line
on the next load all the same."""

from __future__ import annotations

import pytest

from library import library_tiles
from library.character_services import character_save
from library.selectors import characters_visible_to

pytestmark = pytest.mark.django_db


def test_tiles_read_a_card_once_and_again_after_it_changes(store, alice, monkeypatch):
    character_id = character_save(store, data={"name": "Mira", "base_persona": "An innkeeper.",
                                               "greeting": "", "visibility": "private"},
                                  character_id=None, user=alice)
    reads = []
    real = library_tiles.read_json
    monkeypatch.setattr(library_tiles, "read_json",
                        lambda path, **kw: reads.append(path) or real(path, **kw))

    def blurb() -> str:
        tiles = library_tiles.character_tiles(store, characters=characters_visible_to(user=alice))
        return next(t["blurb"] for t in tiles if t["row"].character_id == character_id)

    assert blurb() == "An innkeeper."
    read_first = len(reads)
    assert blurb() == "An innkeeper."
    assert len(reads) == read_first, "the unchanged cards were read again"

    character_save(store, data={"name": "Mira", "base_persona": "An innkeeper who sings.",
                                "greeting": "", "visibility": "private"},
                   character_id=character_id, user=alice)
    assert blurb() == "An innkeeper who sings."
