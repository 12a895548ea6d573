"""Each account's record of a shared module (generation and reading defaults, default prompt
manager, global books, regex scripts) is a file of its own: one account's size never touches
another's reads or writes, and records an older version kept in the module's shared file move
out of it at the account's first write."""

from __future__ import annotations

import json
import threading

import pytest

from personalab.lib.filestore import jsonfile
from personalab.lib.filestore.account_modules import (
    account_module_forget,
    account_module_move,
    account_module_path,
    account_module_read,
    account_module_update,
    account_module_usernames,
)
from personalab.lib.store_errors import CorruptFile

KEYS = ("accounts", "allowed_cards")


def _set(store, username, value, module="regex_scripts"):
    return account_module_update(store, module=module, username=username, keys=KEYS,
                                 change=lambda record: {**record, "accounts": value})


def _read(store, username, module="regex_scripts"):
    return account_module_read(store, module=module, username=username, keys=KEYS)


def test_one_accounts_huge_record_leaves_anothers_read_and_the_shared_file_alone(
        store, monkeypatch):
    _set(store, "alice", [{"id": "a"}])
    _set(store, "mallory", [{"id": "m", "note": "x" * 3_000_000}])
    monkeypatch.setattr(jsonfile, "MAX_JSON_FILE_BYTES", 1_000_000)  # mallory's past it
    assert _read(store, "alice") == {"accounts": [{"id": "a"}]}
    _set(store, "alice", [{"id": "b"}])
    assert _read(store, "alice") == {"accounts": [{"id": "b"}]}
    assert not store.module_path("regex_scripts").exists()
    assert account_module_path(store, module="regex_scripts", username="alice"
                               ).stat().st_size < 1_000


def test_records_of_an_old_shared_file_are_read_there_and_move_out_at_the_first_write(store):
    old = {"enabled": True,
           "accounts": {"alice": [{"id": "a"}], "bob": [{"id": "b"}], "carol": []},
           "allowed_cards": {"alice": {"char_x": "print"}, "bob": {"char_y": "print"}}}
    store.module_write("regex_scripts", old)
    assert _read(store, "alice") == {"accounts": [{"id": "a"}],
                                     "allowed_cards": {"char_x": "print"}}
    assert _read(store, "carol") == {"accounts": []}
    _set(store, "alice", [{"id": "a2"}])
    assert _read(store, "alice") == {"accounts": [{"id": "a2"}],
                                     "allowed_cards": {"char_x": "print"}}
    shared = json.loads(store.module_path("regex_scripts").read_text())
    assert shared == {"enabled": True, "accounts": {"bob": [{"id": "b"}], "carol": []},
                      "allowed_cards": {"bob": {"char_y": "print"}}}
    assert _read(store, "bob") == {"accounts": [{"id": "b"}], "allowed_cards": {"char_y": "print"}}
    assert account_module_usernames(store, module="regex_scripts", keys=KEYS) == [
        "alice", "bob", "carol"]


def test_a_shared_file_that_cannot_be_read_blocks_only_accounts_still_in_it(store):
    _set(store, "alice", [{"id": "a"}])
    store.module_path("regex_scripts").write_text('{"accounts": {"bob": [')
    assert _read(store, "alice") == {"accounts": [{"id": "a"}]}
    _set(store, "alice", [{"id": "a2"}])
    assert _read(store, "alice") == {"accounts": [{"id": "a2"}]}
    with pytest.raises(CorruptFile):  # bob's record may be in it: never written over
        _set(store, "bob", [])
    assert store.module_path("regex_scripts").read_text() == '{"accounts": {"bob": ['
    own = account_module_path(store, module="regex_scripts", username="alice")
    own.write_text('{"username": "alice", "rec')
    assert _read(store, "alice") == {}
    with pytest.raises(CorruptFile):  # nor is an account's own damaged file
        _set(store, "alice", [])
    assert own.read_text() == '{"username": "alice", "rec'


def test_forget_and_move_take_the_own_file_and_the_shared_part(store):
    store.module_write("reading", {"accounts": {"bob": {"size": 1}, "robert": {"size": 9}}})
    _set(store, "alice", {"size": 2}, module="reading")
    account_module_move(store, module="reading", old="bob", new="robert")
    assert account_module_read(store, module="reading", username="robert") == {
        "accounts": {"size": 1}}
    assert account_module_read(store, module="reading", username="bob") == {}
    assert json.loads(store.module_path("reading").read_text()) == {"accounts": {}}
    account_module_forget(store, module="reading", username="alice")
    assert account_module_read(store, module="reading", username="alice") == {}
    assert not account_module_path(store, module="reading", username="alice").exists()


def test_two_accounts_saving_at_once_both_keep_every_save(store):
    def saves(username):
        for number in range(30):
            account_module_update(store, module="generation", username=username,
                                  change=lambda r: {"accounts": [*(r.get("accounts") or []),
                                                                 number]})

    threads = [threading.Thread(target=saves, args=(name,)) for name in ("alice", "bob")
               for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for name in ("alice", "bob"):
        kept = account_module_read(store, module="generation", username=name)["accounts"]
        assert sorted(kept) == sorted([*range(30), *range(30)])
