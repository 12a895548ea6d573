"""Account settings kept in one file for every account (generation defaults, default prompt
blocks, regex scripts and their allow lists) are written under the file's lock: two saves at
the same moment, from two threads, both stay.

The two saves are made to meet: each waits after reading the file until the other has read
it too (or, once the lock keeps the other out, until a second has passed), which is the
moment a save without the lock would write over the other's."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

import pytest

from chat.services.account_presets import (
    account_prompt_manager_read,
    account_prompt_manager_update,
)
from chat.services.generation import generation_defaults_read, generation_defaults_update
from library.card_formats.card_import import character_import_card
from library.find_replace.services import (
    card_scripts_allow,
    card_scripts_allowed,
    regex_scripts_account_read,
    regex_scripts_account_save,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _at_once(store, module: str, first: Callable[[], object], second: Callable[[], object]) -> None:
    """Run both saves in two threads, each pausing after its read of `module` until the
    other's read (at most a second)."""
    barrier = threading.Barrier(2, timeout=1)
    reads = threading.local()
    plain_read = store.module_read

    def meeting_read(name: str):
        found = plain_read(name)
        if name == module and not getattr(reads, "done", False):
            reads.done = True
            try:
                barrier.wait()
            except threading.BrokenBarrierError:
                pass  # the other save waits on the lock: nothing to meet
        return found

    store.module_read = meeting_read
    errors: list[BaseException] = []

    def run(save: Callable[[], object]) -> None:
        try:
            save()
        except BaseException as error:  # noqa: BLE001 — reported by the test below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(save,)) for save in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    store.module_read = plain_read
    assert not errors, errors


def _script(find: str) -> dict:
    return {"id": f"id-{find}", "scriptName": f"swap {find}", "findRegex": find,
            "replaceString": "x", "trimStrings": [], "placement": [2], "disabled": False,
            "markdownOnly": False, "promptOnly": False, "runOnEdit": False,
            "substituteRegex": 0, "minDepth": None, "maxDepth": None}


def _card_with_script(store, owner, name: str) -> dict:
    card = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
        "name": name, "description": "A field medic.", "personality": "", "scenario": "",
        "first_mes": "", "mes_example": "", "alternate_greetings": [], "tags": [],
        "extensions": {"regex_scripts": [_script(name)]}}}
    character_id = character_import_card(store, user=owner, filename=f"{name}.json",
                                         data=json.dumps(card).encode())
    return store.character_read(character_id)


def test_two_accounts_save_generation_defaults_at_once(store, alice, bob):
    _at_once(store, "generation",
             lambda: generation_defaults_update(store, user=alice, changes={"temperature": 0.5}),
             lambda: generation_defaults_update(store, user=bob, changes={"top_p": 0.8}))
    assert generation_defaults_read(store, user=alice)["temperature"] == 0.5
    assert generation_defaults_read(store, user=bob)["top_p"] == 0.8


def test_two_accounts_save_regex_scripts_at_once(store, alice, bob):
    _at_once(store, "regex_scripts",
             lambda: regex_scripts_account_save(store, user=alice, scripts=[_script("a")]),
             lambda: regex_scripts_account_save(store, user=bob, scripts=[_script("b")]))
    assert [s["findRegex"] for s in regex_scripts_account_read(store, username="alice")] == ["a"]
    assert [s["findRegex"] for s in regex_scripts_account_read(store, username="bob")] == ["b"]


def test_two_cards_allowed_at_once(store, alice):
    mira, rook = (_card_with_script(store, alice, name) for name in ("Mira", "Rook"))
    _at_once(store, "regex_scripts",
             lambda: card_scripts_allow(store, username="alice", character=mira, allowed=True),
             lambda: card_scripts_allow(store, username="alice", character=rook, allowed=True))
    assert card_scripts_allowed(store, username="alice", character=mira)
    assert card_scripts_allowed(store, username="alice", character=rook)


def test_default_prompt_blocks_and_scripts_saved_at_once(store, alice):
    blocks = account_prompt_manager_read(store, user=alice)["blocks"]
    blocks = [*blocks, {"id": "style", "name": "Style", "content": "Write tersely.",
                        "role": "system", "place": "before_char", "depth": 0, "enabled": True}]
    _at_once(store, "prompt_presets",
             lambda: account_prompt_manager_update(store, user=alice, blocks=blocks),
             lambda: account_prompt_manager_update(store, user=alice,
                                                   regex_scripts=[_script("c")]))
    manager = account_prompt_manager_read(store, user=alice)
    assert "Write tersely." in [block["content"] for block in manager["blocks"]]
    assert [s["findRegex"] for s in manager["regex_scripts"]] == ["c"]
