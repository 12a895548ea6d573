"""Attack: every history edit copies the whole session into sessions/history/, so a script that
edits a big session in a loop fills the disk. Backups are capped per session (the newest N kept,
`history.backups_keep` in data/modules/history.json, set and checked on the settings page)."""

from __future__ import annotations

import pytest

from chat.history_manager import edits as history
from tests.chat.history_files import Clock, chat_lines_append, history_backups, history_row


def _edit(store, instance_id, old, new):
    row = history_row(store, instance_id, old)
    return history.message_edit(store, instance_id=instance_id, session_id="sess_001",
                                index=row["index"], fingerprint=row["fingerprint"], text=new,
                                clock=Clock())


def test_edit_loop_keeps_only_the_newest_backups(store, instance):
    store.module_write("history", {**store.module_read("history"), "backups_keep": 3})
    chat_lines_append(store, instance, 2)
    store.session_create(instance, "sess_002")
    other = store.session_read(instance, "sess_002")
    store.session_rewrite(instance, "sess_002", [other.metadata])
    for number in range(10):
        _edit(store, instance, "answer 1" if number == 0 else f"v{number - 1}", f"v{number}")
    backups = [p for p in history_backups(store, instance) if p.name.startswith("sess_001.")]
    assert len(backups) == 3
    # the newest copies are the ones kept: the last backup holds the text before the last edit
    assert '"v8"' in backups[-1].read_text(encoding="utf-8")
    assert '"v6"' in backups[0].read_text(encoding="utf-8")
    # another session's backups are its own
    assert len([p for p in history_backups(store, instance) if p.name.startswith("sess_002.")]) == 1
    assert store.session_read(instance, "sess_001").messages[1]["content"] == "v9"


def test_undo_of_the_latest_edit_still_works_with_a_cap_of_one(store, instance):
    store.module_write("history", {**store.module_read("history"), "backups_keep": 1})
    chat_lines_append(store, instance, 2)
    _edit(store, instance, "answer 1", "first")
    result = _edit(store, instance, "first", "second")
    assert len(history_backups(store, instance)) == 1
    history.undo(store, instance_id=instance, token=result["undo_token"], clock=Clock())
    assert store.session_read(instance, "sess_001").messages[1]["content"] == "first"


def test_default_keeps_fifty(store, instance):
    chat_lines_append(store, instance, 1)
    for number in range(52):
        _edit(store, instance, "answer 1" if number == 0 else f"v{number - 1}", f"v{number}")
    assert len(history_backups(store, instance)) == 50


@pytest.mark.parametrize("value, ok", [("1", True), ("1000", True), ("0", False), ("1001", False),
                                       ("²", False), ("ten", False)])
def test_settings_page_checks_the_backup_cap(client, staff, store, value, ok):
    client.force_login(staff)
    form = {"thresholds.rag_fallback_threshold": "3", "thresholds.summary_last_n_turns": "5",
            "limits.max_total_tokens": "100000", "limits.middle_section_warning_tokens": "20000",
            "limits.conversation_max_tokens": "100000", "preferences.summary_order": "summary_first",
            "history.backups_keep": value}
    response = client.post("/settings/", form)
    assert (response.status_code == 302) is ok
    if ok:
        assert store.module_read("history")["backups_keep"] == int(value)
    else:
        assert 'data-field="history.backups_keep"' in response.content.decode()
        assert store.module_read("history")["backups_keep"] == 50
