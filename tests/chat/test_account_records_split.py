"""An upgraded data folder keeps no account's record in a module's shared file: `manage.py
serve` moves them out at its start, and `manage.py account_records_split` (a deployment that
starts its workers otherwise) does it alone and says what it moved and what it could not read."""

from __future__ import annotations

import io
import json

from django.core.management import call_command

from chat.management.commands import serve
from personalab.lib.filestore.account_modules import (
    account_module_path,
    account_module_read,
    account_module_update,
)


def _old_data_folder(store):
    store.module_write("regex_scripts", {"enabled": True,
                                         "accounts": {"alice": [{"id": "a"}], "bob": []},
                                         "allowed_cards": {"bob": {"char_x": "print"}}})
    store.module_write("generation", {"accounts": {"alice": {"temperature": 0.5}}})
    store.module_path("reading").write_text('{"accounts": {"carol": ')


def test_the_command_says_what_moved_per_module_and_which_file_it_could_not_read(store):
    _old_data_folder(store)
    store.module_write("reading", {"accounts": {"dave": {"size": 1}}})  # as a kill left it:
    account_module_update(store, module="reading", username="dave",  # moved, still there
                          change=lambda record: {"accounts": {"size": 2}})
    store.module_write("reading", {"accounts": {"dave": {"size": 1}}})
    store.module_path("prompt_presets").write_text('{"accounts": {"carol": ')
    out, err = io.StringIO(), io.StringIO()

    call_command("account_records_split", stdout=out, stderr=err)

    said = out.getvalue().splitlines()
    assert "regex_scripts: 2 account records moved to a file per account" in said
    assert "generation: 1 account record moved to a file per account" in said
    assert ("reading: 0 account records moved to a file per account, 1 account record left "
            "behind dropped (the account's own file is newer)") in said
    assert "world_info_global: 0 account records moved to a file per account" in said
    [unreadable] = err.getvalue().splitlines()
    assert unreadable.startswith(f"prompt_presets: {store.module_path('prompt_presets')} "
                                 "cannot be read: not valid JSON")
    assert unreadable.endswith("; left as it was (mend it and run this again)")
    assert json.loads(store.module_path("regex_scripts").read_text()) == {
        "enabled": True, "accounts": {}, "allowed_cards": {}}
    assert store.module_path("prompt_presets").read_text() == '{"accounts": {"carol": '
    assert account_module_read(store, module="reading", username="dave") == {
        "accounts": {"size": 2}}

    again = io.StringIO()
    call_command("account_records_split", stdout=again, stderr=io.StringIO())
    assert "regex_scripts: 0 account records moved to a file per account" in again.getvalue()


def test_serve_moves_the_records_out_as_it_sets_up_the_data_folder(store, monkeypatch):
    _old_data_folder(store)
    started = []

    class Daphne:  # the server itself is not started here
        server_class = None

        def run(self, arguments):
            started.append(arguments)

    monkeypatch.setattr(serve, "CommandLineInterface", Daphne)
    monkeypatch.setattr(serve, "call_command", lambda *args, **kwargs: None)
    monkeypatch.setattr(serve, "index_empty", lambda: False)
    monkeypatch.setattr(serve, "admin_ensure", lambda: True)
    monkeypatch.setattr(serve, "login_text", lambda: "")
    out, err = io.StringIO(), io.StringIO()

    serve.Command(stdout=out, stderr=err).handle(ready_fd=None)

    assert started
    assert "regex_scripts: 2 account records moved to a file per account" in out.getvalue()
    assert "prompt_presets" not in out.getvalue()  # nothing to say about it at a start
    assert f"reading: {store.module_path('reading')} cannot be read" in err.getvalue()
    assert json.loads(account_module_path(store, module="generation", username="alice")
                      .read_text()) == {"username": "alice",
                                        "record": {"accounts": {"temperature": 0.5}}}
    assert json.loads(store.module_path("generation").read_text()) == {"accounts": {}}
