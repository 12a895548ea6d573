"""Agnai and RisuAI chats with one field anywhere replaced by a value of another type: imported
or refused by name, never a 500; what imported opens, plays a turn and exports
(tests/library/import_fuzz.py). The SillyTavern group chat: test_import_fuzz_chats.py."""

from __future__ import annotations

import pytest

from tests.library.import_fuzz import (  # noqa: F401 — fixtures
    JSON_CHATS,
    chat_played,
    json_body,
    label,
    mutations,
    replaced,
    sweep,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("base", JSON_CHATS)
def test_an_agnai_or_risuai_chat_with_any_field_of_another_type_imports_or_is_refused_by_name(
        sweep, instance, base):  # noqa: F811
    doc = JSON_CHATS[base]()
    for path, value in mutations(doc):
        what = label(base, path, value)
        made = sweep.upload(what, f"/api/v1/instances/{instance}/import_chat", "chat.json",
                            json_body(replaced(doc, path, value)))
        if made:
            chat_played(sweep, what, instance, made["session_id"])
    assert sweep.failures == [], "\n".join(sweep.failures[:40])
    assert sweep.imported > 0
