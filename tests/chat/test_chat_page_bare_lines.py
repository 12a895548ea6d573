"""A session line with none of its optional fields (a hand-written or imported file: no name,
turn, time, trace) shows on the chat page with nothing in their place. The page's templates read
a missing field as None (`chat.selectors.ShownLine`, which spares Django's engine its slow path
for a missing key), so a field printed without a guard would show the word "None"."""

from __future__ import annotations

import re

from chat.selectors import ShownLine, chat_messages_window
from personalab.lib.filestore.session_read import read_session_file


def test_a_bare_line_shows_no_none_where_its_fields_are_missing(store, alice_client, instance):
    session_id = store.instance_state_read(instance)["current_session_id"]
    for line in ({"role": "user", "content": "Bare question."},
                 {"role": "assistant", "content": "Bare answer."},
                 {"type": "note", "content": "A bare note."}):
        store.session_append(instance, session_id, line)
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    articles = re.findall(r"<article class=\"msg[^>]*>.*?</article>", page, re.S)
    bare = [a for a in articles if "Bare" in a or "A bare note" in a]
    assert len(bare) == 3
    for article in bare:
        assert "None" not in article, article


def test_a_windows_line_reads_a_missing_field_as_none_and_keeps_its_own(store, instance):
    session_id = store.instance_state_read(instance)["current_session_id"]
    store.session_append(instance, session_id, {"role": "user", "content": "Hi.", "hidden": True})
    read = read_session_file(store.session_path(instance, session_id))
    line = chat_messages_window(read).items[-1].line
    assert isinstance(line, ShownLine)
    assert line["hidden"] is True and line["edited"] is None and "edited" not in line
    assert line == {"role": "user", "content": "Hi.", "hidden": True}
