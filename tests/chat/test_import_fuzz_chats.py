"""A SillyTavern group chat with one field anywhere, or a whole line, replaced by a value of another
type: imported or refused by name, never a 500, through the API and the chat page's form; what
imported opens, plays a turn and exports (tests/library/import_fuzz.py). Agnai and RisuAI chats:
test_import_fuzz_chats_json.py (a file of their own, so the two sweeps run on two cores)."""

from __future__ import annotations

import pytest

from tests.library.import_fuzz import (  # noqa: F401 — fixtures
    chat_played,
    chat_upload,
    group,
    jsonl_body,
    label,
    mutations,
    replaced,
    st_chat,
    sweep,
)

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_chat_with_any_field_of_another_type_imports_or_is_refused_by_name(
        sweep, instance, group):  # noqa: F811
    records = st_chat()
    lines_of_another_type = (None, [], "x", 5)
    whole_lines = [((i,), lines_of_another_type[(i + j) % 4]) for i in range(len(records))
                   for j in (0, 2)]
    for index, (path, value) in enumerate([*mutations(records), *whole_lines]):
        what = label("st_chat", path, value)
        into = group if index % 2 else instance  # a conversation with one character or two
        form = index % 3 == 0  # the chat page's form, which lands on the chat page
        made = chat_upload(sweep, what, into, jsonl_body(replaced(records, path, value)),
                           form=form)
        if made:
            chat_played(sweep, what, into, made["session_id"], opened=form)
    assert sweep.failures == [], "\n".join(sweep.failures[:40])
    assert sweep.imported > 0
