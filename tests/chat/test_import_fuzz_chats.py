"""Chats of other apps (a SillyTavern group chat, Agnai, RisuAI) with one field anywhere, or a whole line,
replaced by a value of another type: imported or refused by name, never a 500, through the API and
the chat page's form; what imported opens, plays a turn and exports (tests/library/import_fuzz.py)."""

from __future__ import annotations

import pytest

from tests.library.import_fuzz import (  # noqa: F401 — fixtures
    JSON_CHATS,
    chat_played,
    chat_upload,
    group,
    json_body,
    jsonl_body,
    label,
    mutations,
    replaced,
    st_chat,
    sweep,
)

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_chat_with_any_field_of_another_type_imports_or_is_refused_by_name(sweep, instance,
                                                                            group):
    records = st_chat()
    lines_of_another_type = (None, [], "x", 5)
    whole_lines = [((i,), lines_of_another_type[(i + j) % 4]) for i in range(len(records))
                   for j in (0, 2)]
    for index, (path, value) in enumerate([*mutations(records), *whole_lines]):
        what = label("st_chat", path, value)
        into = group if index % 2 else instance  # a conversation with one character or two
        made = chat_upload(sweep, what, into, jsonl_body(replaced(records, path, value)),
                            form=index % 3 == 0)  # the chat page's form
        if made:
            chat_played(sweep, what, into, made["session_id"])
    assert sweep.failures == [], "\n".join(sweep.failures[:40])
    assert sweep.imported > 0



@pytest.mark.parametrize("base", JSON_CHATS)
def test_an_agnai_or_risuai_chat_with_any_field_of_another_type_imports_or_is_refused_by_name(
        sweep, instance, base):
    doc = JSON_CHATS[base]()
    for path, value in mutations(doc):
        what = label(base, path, value)
        made = sweep.upload(what, f"/api/v1/instances/{instance}/import_chat", "chat.json",
                            json_body(replaced(doc, path, value)))
        if made:
            chat_played(sweep, what, instance, made["session_id"])
    assert sweep.failures == [], "\n".join(sweep.failures[:40])
    assert sweep.imported > 0
