"""An account's default prompt manager is kept in a file of its own (it shared one with every
other account's): at most ACCOUNT_MANAGER_MAX_CHARS of it are kept, and a refused one leaves
the account's file as it was (red team, twelfth pass)."""

from __future__ import annotations

import pytest

from chat.services.account_presets import (
    account_prompt_manager_read,
    account_prompt_manager_update,
)
from personalab.lib.errors import Invalid
from personalab.lib.filestore.account_modules import account_module_path

pytestmark = pytest.mark.django_db


def _scripts(count: int) -> list[dict]:
    return [{"id": f"s{n}", "scriptName": f"swap {n}", "findRegex": "/teh/g",
             "replaceString": "长" * 50_000, "placement": [2], "note": "x" * 50_000}
            for n in range(count)]


def test_an_accounts_default_past_the_room_is_refused_and_the_others_are_kept(
        store, alice, bob):
    account_prompt_manager_update(store, user=alice, regex_scripts=_scripts(1))
    path = account_module_path(store, module="prompt_presets", username="alice")
    kept = path.read_bytes()
    with pytest.raises(Invalid) as refused:
        account_prompt_manager_update(store, user=bob, regex_scripts=_scripts(25))
    assert "at most 2,000,000 characters" in refused.value.message
    assert path.read_bytes() == kept
    assert not account_module_path(store, module="prompt_presets", username="bob").exists()
    assert len(account_prompt_manager_read(store, user=alice)["regex_scripts"]) == 1
    account_prompt_manager_update(store, user=bob, regex_scripts=_scripts(5))
    assert len(account_prompt_manager_read(store, user=bob)["regex_scripts"]) == 5
