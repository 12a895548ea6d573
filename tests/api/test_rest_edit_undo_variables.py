"""Undo of a message edit over REST puts back the variables the edit's macros changed
(docs/decisions/edit-undo-variables.md): the chat's and the account's, name by name, and
only those nobody changed since."""

from __future__ import annotations

import pytest

from personalab.lib.filestore.variables import (
    account_variables_update,
    session_variables_path,
    session_variables_write,
)
from tests.rest_client import bearer_caller

pytestmark = pytest.mark.django_db


@pytest.fixture
def as_alice(client, alice):
    return bearer_caller(client, alice)


@pytest.fixture
def chatted(store, instance):
    store.session_append(instance, "sess_001", {"role": "user", "content": "hello",
                                                "turn": 1, "timestamp": "2025-01-01"})
    store.session_append(instance, "sess_001", {"role": "assistant", "content": "hi",
                                                "turn": 1, "timestamp": "2025-01-01"})
    return instance


def _edit(call, instance, text):
    rows = call("get", f"/api/v1/instances/{instance}/sessions/sess_001/messages").json()["rows"]
    row = next(row for row in rows if row["content"] == "hello")
    edited = call("put", f"/api/v1/instances/{instance}/sessions/sess_001/messages/"
                         f"{row['index']}", {"fingerprint": row["fingerprint"], "text": text})
    assert edited.status_code == 200, edited.content
    return edited.json()


def _undo(call, instance, token):
    undone = call("post", f"/api/v1/instances/{instance}/history/undo", {"token": token})
    assert undone.status_code == 200, undone.content
    return undone.json()


def _variables(call, instance):
    return call("get", f"/api/v1/instances/{instance}/variables").json()


def test_undoing_an_edit_puts_back_the_variables_its_macros_changed(as_alice, store,
                                                                    chatted, alice):
    session_variables_write(store, instance_id=chatted, session_id="sess_001",
                            variables={"mood": "calm", "visits": "2"})
    account_variables_update(store, username=alice.username, changes={"coins": "5"})
    edited = _edit(as_alice, chatted, "{{setvar::mood::angry}}{{addvar::visits::1}}"
                                      "{{setvar::new::x}}{{addglobalvar::coins::3}}"
                                      "{{setglobalvar::flag::on}}Hello again.")
    assert edited["line"]["content"] == "Hello again."
    assert _variables(as_alice, chatted)["local"] == {"mood": "angry", "visits": "3",
                                                      "new": "x"}
    assert _variables(as_alice, chatted)["global"] == {"coins": "8", "flag": "on"}
    assert _undo(as_alice, chatted, edited["undo_token"])["undone"] == "edit"
    assert _variables(as_alice, chatted) == {"session_id": "sess_001",
                                             "local": {"mood": "calm", "visits": "2"},
                                             "global": {"coins": "5"}}


def test_an_undo_leaves_a_variable_something_else_changed_after_the_edit(as_alice, store,
                                                                         chatted, alice):
    edited = _edit(as_alice, chatted, "{{setglobalvar::coins::1}}{{setglobalvar::gems::1}}"
                                      "Hello again.")
    # Another chat of the account wrote `coins` before the undo: its value stays.
    account_variables_update(store, username=alice.username, changes={"coins": "9"})
    _undo(as_alice, chatted, edited["undo_token"])
    assert _variables(as_alice, chatted)["global"] == {"coins": "9"}


def test_undoing_the_first_edit_that_set_a_variable_leaves_no_variable_file(as_alice, store,
                                                                            chatted):
    # A chat with no variable file reads its import's variables until it saves its own; the
    # undo leaves it so, and its export keeps the imported header untouched.
    edited = _edit(as_alice, chatted, "{{setvar::mood::angry}}Hello again.")
    path = session_variables_path(store, instance_id=chatted, session_id="sess_001")
    assert path.is_file()
    _undo(as_alice, chatted, edited["undo_token"])
    assert not path.exists()
    assert _variables(as_alice, chatted)["local"] == {}
