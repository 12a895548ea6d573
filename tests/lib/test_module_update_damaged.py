"""A module file every account shares (regex scripts, generation defaults, allow lists) that
cannot be read is never written over: it read as the defaults, and one account's next save
wrote everyone else's part away (red team, twelfth pass)."""

from __future__ import annotations

import json

import pytest

from personalab.lib.filestore import jsonfile
from personalab.lib.store_errors import CorruptFile


def test_a_module_past_what_reads_as_a_file_is_not_written_over(store, monkeypatch):
    store.module_update("regex_scripts", lambda m: {**m, "accounts": {"alice": [{"id": "a"}]}})
    kept = store.module_path("regex_scripts").read_bytes()
    monkeypatch.setattr(jsonfile, "MAX_JSON_FILE_BYTES", len(kept) - 1)
    assert store.module_read("regex_scripts").get("accounts") in (None, {})  # read as defaults
    with pytest.raises(CorruptFile):
        store.module_update("regex_scripts", lambda m: {**m, "accounts": {"bob": []}})
    assert store.module_path("regex_scripts").read_bytes() == kept


def test_a_damaged_module_is_not_written_over_and_a_missing_one_is_made(store):
    store.module_path("generation").parent.mkdir(parents=True, exist_ok=True)
    store.module_path("generation").write_text('{"accounts": {"alice": {"temperature": 0.7}', )
    with pytest.raises(CorruptFile):
        store.module_update("generation", lambda m: {**m, "accounts": {"bob": {}}})
    assert store.module_path("generation").read_text().startswith('{"accounts": {"alice"')
    made = store.module_update("regex_scripts", lambda m: {**m, "accounts": {"bob": []}})
    assert json.loads(store.module_path("regex_scripts").read_text()) == made
