"""Creating at once from several workers: every id is claimed by an atomic mkdir, so a create
that races another never overwrites it and never fails with 500."""

from __future__ import annotations

import threading

import pytest

from chat.services.instances import instance_create
from library.background_services import background_save
from library.character_services import character_save
from library.lore.services import lorebook_create
from personalab.lib.ids import numbered_candidates

pytestmark = pytest.mark.django_db


def test_an_instance_created_while_another_worker_is_creating_one_gets_the_next_id(
        store, alice, character):
    (store.root / "instances" / "inst_001").mkdir(parents=True)  # the other worker's, half made
    assert instance_create(store, owner=alice, character_id=character) == "inst_002"
    assert not any((store.root / "instances" / "inst_001").iterdir())


def test_a_character_named_like_one_being_created_elsewhere_does_not_overwrite_it(store, alice):
    (store.root / "characters" / "char_mira").mkdir(parents=True)
    assert character_save(store, data={"name": "Mira"}, user=alice) == "char_mira_2"
    assert not any((store.root / "characters" / "char_mira").iterdir())


def test_backgrounds_and_lorebooks_claim_their_folder_too(store, alice):
    (store.root / "backgrounds" / "bg_harbour").mkdir(parents=True)
    (store.root / "lorebooks" / "lore_harbour").mkdir(parents=True)
    assert background_save(store, data={"name": "Harbour"}, user=alice) == "bg_harbour_2"
    assert lorebook_create(store, owner=alice, data={"name": "Harbour", "entries": []}) == \
        "lore_harbour_2"


def test_a_refused_create_leaves_no_folder_behind(store, alice):
    from library.errors import LibraryError

    with pytest.raises(LibraryError):
        character_save(store, data={"name": "Mira", "card": "not an object"}, user=alice)
    assert not (store.root / "characters" / "char_mira").exists()


def test_sixteen_simultaneous_claims_get_sixteen_ids(store):
    start = threading.Barrier(16)
    claimed: list[str] = []

    def claim() -> None:
        start.wait()
        claimed.append(store.dir_claim("instances", numbered_candidates("inst", [])))

    threads = [threading.Thread(target=claim) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(claimed) == [f"inst_{n:03d}" for n in range(1, 17)]
