"""Creating at once from several workers: every id is claimed by an atomic mkdir, so a create
that races another never overwrites it and never fails with 500."""

from __future__ import annotations

import importlib
import os
import re
import threading
from pathlib import Path

import pytest

from chat.models import Instance
from chat.services.instances import instance_create
from library.background_services import background_save
from library.character_services import character_delete, character_save
from library.lore.services import lorebook_create, lorebook_remove
from library.models import Background, Character, Lorebook, Persona
from library.personas.services import persona_create, persona_delete
from library.selectors import persona_effective
from personalab.lib.errors import LimitReached
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


# (the module whose index write a create waits on, that function's name, the limit's kind and
# setting, the index rows, a create of `n` for alice)
LIMITED = {
    "characters": ("library.character_services", "character_index",
                   "PERSONALAB_CHARACTERS_PER_ACCOUNT", Character, "characters",
                   lambda store, user, character, n: character_save(
                       store, data={"name": f"Item {n}"}, user=user)),
    "backgrounds": ("library.background_services", "background_index",
                    "PERSONALAB_BACKGROUNDS_PER_ACCOUNT", Background, "backgrounds",
                    lambda store, user, character, n: background_save(
                        store, data={"name": f"Item {n}"}, user=user)),
    "lorebooks": ("library.lore.services", "lorebook_index", "PERSONALAB_LOREBOOKS_PER_ACCOUNT",
                  Lorebook, "lorebooks",
                  lambda store, user, character, n: lorebook_create(
                      store, owner=user, data={"name": f"Item {n}", "entries": []})),
    "personas": ("library.personas.services", "persona_index", "PERSONALAB_PERSONAS_PER_ACCOUNT",
                 Persona, "personas",
                 lambda store, user, character, n: persona_create(
                     store, owner=user, data={"name": f"Item {n}"})),
    "instances": ("chat.services.instances", "instance_index", "PERSONALAB_INSTANCES_PER_ACCOUNT",
                  Instance, "instances",
                  lambda store, user, character, n: instance_create(
                      store, owner=user, character_id=character)),
}


@pytest.mark.parametrize("kind", LIMITED)
def test_a_create_that_passed_the_limit_while_another_wrote_is_undone_and_refused(
        store, alice, character, settings, monkeypatch, kind):
    """Two creates at the account's last free place, one written while the other was between
    its check and its index row (two tabs, two workers): the account keeps its limit, and the
    one that found it passed is refused and leaves no folder and no row."""
    module, index_name, setting, model, folder, create = LIMITED[kind]
    create(store, alice, character, 0)
    limit = model.objects.filter(owner=alice).count() + 1
    setattr(settings, setting, limit)
    index = getattr(importlib.import_module(module), index_name)
    meanwhile: list[str] = []

    def index_after_another_create(store_, item_id):
        if not meanwhile:
            meanwhile.append("running")
            meanwhile[0] = create(store, alice, character, 1)
        return index(store_, item_id)

    monkeypatch.setattr(importlib.import_module(module), index_name, index_after_another_create)
    before = {path.name for path in (store.root / folder).iterdir()}
    with pytest.raises(LimitReached) as refused:
        create(store, alice, character, 2)
    assert refused.value.limit == limit and refused.value.setting == setting
    assert model.objects.filter(owner=alice).count() == limit
    assert model.objects.filter(pk=meanwhile[0], owner=alice).exists()
    assert {path.name for path in (store.root / folder).iterdir()} == before | {meanwhile[0]}


def test_a_deleted_items_id_is_never_given_to_another_accounts_new_item(store, alice, bob):
    """A character (or a chat) still names a book or persona its owner deleted: bob's new
    shared one of the same name gets an id of its own, so it never plays in alice's chat
    (a red-team pass, 2026-12-02: bob's lore and persona were in her prompt)."""
    book = lorebook_create(store, owner=alice, data={"name": "Plans", "entries": []})
    character = character_save(store, user=alice, data={"name": "Rhea", "lorebook_ids": [book]})
    persona = persona_create(store, owner=alice, data={"name": "Mira"})
    lorebook_remove(store, actor=alice, lorebook_id=book)
    persona_delete(store, actor=alice, persona_id=persona)

    bobs_book = lorebook_create(store, owner=bob, data={
        "name": "Plans", "visibility": "shared", "entries": []})
    bobs_persona = persona_create(store, owner=bob, data={
        "name": "Mira", "visibility": "shared", "description": "bob's words"})
    assert (bobs_book, bobs_persona) == (f"{book}_2", f"{persona}_2")
    assert store.character_read(character)["lorebook_ids"] == [book]  # names nothing now
    assert persona_effective(store, owner="alice", persona_id=persona).get("persona_id") \
        != bobs_persona
    assert list((store.root / "trash" / "lorebooks").iterdir())[0].joinpath(
        "lorebook.json").is_file()  # the deleted book is kept in the trash, as before


def test_an_id_deleted_before_its_folder_was_kept_is_not_given_again(store, alice):
    """A data folder from before deleted items left their folder: the trash still says the
    id was spent."""
    (store.root / "trash" / "lorebooks" / "lore_plans.20261101T000000000000Z").mkdir(
        parents=True)
    assert lorebook_create(store, owner=alice, data={"name": "Plans", "entries": []}) == \
        "lore_plans_2"
    assert lorebook_create(store, owner=alice, data={"name": "Plan", "entries": []}) == \
        "lore_plan"


def test_creates_and_restore_offers_do_not_list_the_whole_trash_each_time(store, alice,
                                                                          monkeypatch):
    """The trash keeps every account's deletes: each create listed it whole for its new id, and
    each restore offer for the one deleted (at 50,000 kept folders 50 and 76 ms of CPU)."""
    trash = store.root / "trash" / "characters"
    for n in range(3):
        (trash / f"char_old_{n}.20261101T000000000000Z").mkdir(parents=True)
    assert character_save(store, user=alice, data={"name": "Old 1"}) == "char_old_1_2"
    gone = character_save(store, user=alice, data={"name": "Gone"})
    character_delete(store, character_id=gone, user=alice)
    assert store.trash_kept("characters", gone) is not None  # listed once, after the delete
    listed: list[str] = []
    scandir, glob, iterdir = os.scandir, Path.glob, Path.iterdir

    def seen(path) -> None:
        if str(path).rstrip("/").endswith("trash/characters"):
            listed.append(str(path))

    monkeypatch.setattr(os, "scandir", lambda path=".": seen(path) or scandir(path))
    monkeypatch.setattr(Path, "glob", lambda self, *a, **k: seen(self) or glob(self, *a, **k))
    monkeypatch.setattr(Path, "iterdir", lambda self: seen(self) or iterdir(self))
    for n in range(3):
        character_save(store, user=alice, data={"name": f"More {n}"})
        assert store.trash_kept("characters", gone) is not None
    assert character_save(store, user=alice, data={"name": "Old 0"}) == "char_old_0_2"
    assert not listed


def test_a_name_whose_numbered_ids_are_all_spent_still_gets_an_id(store, alice):
    """Deleted ids are never given again, so one account could spend every numbered id of a
    name (the store tries 1,000) by making and deleting; past 100 the suffix is random."""
    folder = store.root / "lorebooks"
    for n in ["", *(f"_{n}" for n in range(2, 1001))]:
        (folder / f"lore_plans{n}").mkdir(parents=True)
    made = lorebook_create(store, owner=alice, data={"name": "Plans", "entries": []})
    assert re.fullmatch(r"lore_plans_[0-9a-f]{12}", made)
