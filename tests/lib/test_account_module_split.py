"""The one-pass move of an older version's shared module files (account_module_split): every
account's record leaves data/modules/{module}.json for its own file, so an upgraded data folder
reads no shared file for any account; an own file already there wins, a file that cannot be read
is left as it is, and a run killed half-way loses nothing and is finished by the next."""

from __future__ import annotations

import json
import threading

import pytest

from personalab.lib.filestore import account_modules
from personalab.lib.filestore.account_modules import (
    Split,
    account_module_path,
    account_module_read,
    account_module_split,
    account_module_update,
)

KEYS = ("accounts", "allowed_cards")
OLD_SCRIPTS = {"enabled": True,
               "accounts": {"alice": [{"id": "a"}], "bob": [{"id": "b"}], "carol": []},
               "allowed_cards": {"alice": {"char_x": "print"}, "dave": {"char_y": "print"}}}


def _read(store, username, module="regex_scripts", keys=KEYS):
    return account_module_read(store, module=module, username=username, keys=keys)


def _own_file(store, username, module="regex_scripts"):
    return json.loads(account_module_path(store, module=module, username=username).read_text())


def _files(store):
    return {path: path.read_bytes() for path in sorted((store.root / "modules").rglob("*.json"))}


def test_every_accounts_record_leaves_the_shared_files_and_their_other_keys_stay(store):
    store.module_write("regex_scripts", OLD_SCRIPTS)
    store.module_write("reading", {"accounts": {"alice": {"size": 1}, "bob": {"size": 2}},
                                   "note": "kept"})
    names = ("alice", "bob", "carol", "dave")
    before = {name: _read(store, name) for name in names}

    assert account_module_split(store, module="regex_scripts", keys=KEYS) == Split(moved=4)
    assert account_module_split(store, module="reading") == Split(moved=2)

    assert json.loads(store.module_path("regex_scripts").read_text()) == {
        "enabled": True, "accounts": {}, "allowed_cards": {}}
    assert json.loads(store.module_path("reading").read_text()) == {"accounts": {},
                                                                    "note": "kept"}
    assert {name: _read(store, name) for name in names} == before
    assert _own_file(store, "alice") == {"username": "alice", "record": {
        "accounts": [{"id": "a"}], "allowed_cards": {"char_x": "print"}}}
    assert _own_file(store, "dave") == {"username": "dave", "record": {
        "allowed_cards": {"char_y": "print"}}}
    assert _read(store, "bob", module="reading", keys=("accounts",)) == {"accounts": {"size": 2}}


def test_an_own_file_already_there_is_kept_over_the_shared_entry(store):
    store.module_write("regex_scripts", OLD_SCRIPTS)
    own = account_module_path(store, module="regex_scripts", username="bob")
    own.parent.mkdir(parents=True)
    own.write_text(json.dumps({"username": "bob", "record": {"accounts": [{"id": "newer"}]}}))

    split = account_module_split(store, module="regex_scripts", keys=KEYS)

    assert split == Split(moved=3, superseded=1)
    assert _own_file(store, "bob") == {"username": "bob",
                                       "record": {"accounts": [{"id": "newer"}]}}
    assert "bob" not in json.loads(store.module_path("regex_scripts").read_text())["accounts"]


def test_a_second_run_changes_nothing(store):
    store.module_write("regex_scripts", OLD_SCRIPTS)
    account_module_split(store, module="regex_scripts", keys=KEYS)
    after_first = _files(store)

    assert account_module_split(store, module="regex_scripts", keys=KEYS) == Split()
    assert _files(store) == after_first
    assert account_module_split(store, module="generation") == Split()  # no file at all


def test_a_shared_file_that_cannot_be_read_is_left_untouched_and_reported(store):
    store.module_path("regex_scripts").write_text('{"accounts": {"bob": [')

    split = account_module_split(store, module="regex_scripts", keys=KEYS)

    assert list(split.unreadable) == [store.module_path("regex_scripts")]
    assert "not valid JSON" in split.unreadable[store.module_path("regex_scripts")]
    assert (split.moved, split.superseded) == (0, 0)
    assert store.module_path("regex_scripts").read_text() == '{"accounts": {"bob": ['
    assert not (store.root / "modules" / "regex_scripts").exists()


def test_an_own_file_that_cannot_be_read_keeps_the_shared_entry_too(store):
    store.module_write("regex_scripts", OLD_SCRIPTS)
    own = account_module_path(store, module="regex_scripts", username="bob")
    own.parent.mkdir(parents=True)
    own.write_text('{"username": "bob", "rec')

    split = account_module_split(store, module="regex_scripts", keys=KEYS)

    assert (split.moved, split.superseded, list(split.unreadable)) == (3, 0, [own])
    assert own.read_text() == '{"username": "bob", "rec'
    shared = json.loads(store.module_path("regex_scripts").read_text())
    assert shared["accounts"] == {"bob": [{"id": "b"}]} and shared["allowed_cards"] == {}


def test_a_run_killed_between_the_two_writes_loses_nothing_and_the_next_finishes(
        store, monkeypatch):
    store.module_write("regex_scripts", OLD_SCRIPTS)
    names = ("alice", "bob", "carol", "dave")
    before = {name: _read(store, name) for name in names}

    def killed(*args, **kwargs):
        raise KeyboardInterrupt  # as a kill between the own files and the shared file

    monkeypatch.setattr(account_modules, "_shared_forget", killed)
    with pytest.raises(KeyboardInterrupt):
        account_module_split(store, module="regex_scripts", keys=KEYS)
    assert json.loads(store.module_path("regex_scripts").read_text()) == OLD_SCRIPTS
    assert {name: _read(store, name) for name in names} == before
    monkeypatch.undo()

    assert account_module_split(store, module="regex_scripts", keys=KEYS) == Split(superseded=4)
    assert json.loads(store.module_path("regex_scripts").read_text()) == {
        "enabled": True, "accounts": {}, "allowed_cards": {}}
    assert {name: _read(store, name) for name in names} == before


def test_many_accounts_move_in_batches_while_others_save(store, monkeypatch):
    monkeypatch.setattr(account_modules, "SPLIT_BATCH", 3)
    names = [f"user{number:02}" for number in range(20)]
    store.module_write("generation", {"accounts": {name: [name] for name in names}})

    def saves(name):
        for number in range(5):
            account_module_update(store, module="generation", username=name,
                                  change=lambda r: {"accounts": [*r["accounts"], number]})

    threads = [threading.Thread(target=saves, args=(name,)) for name in names[::4]]
    for thread in threads:
        thread.start()
    split = account_module_split(store, module="generation")
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)

    assert split.moved + split.superseded <= len(names) and split.unreadable == {}
    assert json.loads(store.module_path("generation").read_text()) == {"accounts": {}}
    for name in names:
        saved = [*range(5)] if name in names[::4] else []
        assert _read(store, name, module="generation", keys=("accounts",)) == {
            "accounts": [name, *saved]}
