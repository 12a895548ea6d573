"""What the memory made of a line follows the player's change of it in the history: a recap whose
turns were edited or deleted afterwards is marked, over REST and on the memory page (saving its
text clears the mark); a summary line ("story so far") edited or deleted in the history changes
the summary ledger record recall reads, so the removed fact is not recalled."""

from __future__ import annotations

import pytest

from memory.summaries.recaps import RECAPS_FILE

pytestmark = pytest.mark.django_db


@pytest.fixture
def recapped(store, instance):
    for turn in (1, 2, 3):
        store.session_append(instance, "sess_001", {"role": "user", "content": f"question {turn}",
                                                    "turn": turn, "timestamp": "2025-01-01"})
        store.session_append(instance, "sess_001", {"role": "assistant", "turn": turn,
                                                    "content": f"answer {turn}",
                                                    "timestamp": "2025-01-01"})
    store.memory_json_write(instance, RECAPS_FILE, {"items": [
        {"id": "rcp_a", "text": "Ann has a sister", "session_id": "sess_001", "from_turn": 1,
         "to_turn": 2},
        {"id": "rcp_b", "text": "they sailed", "session_id": "sess_001", "from_turn": 3,
         "to_turn": 3}], "pending_summaries": []})
    return instance


def _row(call, instance, content, session="sess_001"):
    rows = call("get", f"/api/v1/instances/{instance}/sessions/{session}/messages").json()["rows"]
    row = next(row for row in rows if row["content"] == content)
    return f"/api/v1/instances/{instance}/sessions/{session}/messages/{row['index']}", row


def test_a_recap_whose_turn_is_edited_or_deleted_is_marked_until_its_text_is_saved(
        as_alice, client, alice, recapped):
    url, row = _row(as_alice, recapped, "answer 2")
    assert as_alice("put", url, {"fingerprint": row["fingerprint"],
                                 "text": "I have no sister"}).status_code == 200
    url, row = _row(as_alice, recapped, "question 1")
    assert as_alice("delete", f"{url}?fingerprint={row['fingerprint']}").status_code == 200

    items = {i["id"]: i for i in as_alice("get", f"/api/v1/instances/{recapped}/recaps")
             .json()["items"]}
    assert items["rcp_a"]["source_changed"] == [1, 2]
    assert "source_changed" not in items["rcp_b"]
    client.force_login(alice)
    page = client.get(f"/instances/{recapped}/persona/").content.decode()
    assert page.count('data-testid="recap-source-changed"') == 1
    assert "turns 1, 2 were edited or deleted after this recap was written" in page

    assert as_alice("put", f"/api/v1/instances/{recapped}/recaps/rcp_a",
                    {"text": "Ann has no sister"}).status_code == 200
    items = as_alice("get", f"/api/v1/instances/{recapped}/recaps").json()["items"]
    assert all("source_changed" not in item for item in items)


@pytest.fixture
def summarized(store, instance):
    store.session_append(instance, "sess_001", {"type": "summary",
                                                "content": "Ann's sister Lorelei keeps bees."})
    store.session_append(instance, "sess_001", {"type": "summary",
                                                "content": "They buried the compass."})
    store.ledger_append(instance, "summaries", [
        {"id": "summary_sess_000_0", "session_id": "sess_000", "index": 0,
         "text": "Ann's sister Lorelei keeps bees.", "instance_id": instance},
        {"id": "summary_sess_000_1", "session_id": "sess_000", "index": 1,
         "text": "They buried the compass.", "instance_id": instance}])
    return instance


def test_a_summary_line_edited_or_deleted_in_the_history_changes_its_ledger_record(
        as_alice, store, summarized):
    url, row = _row(as_alice, summarized, "Ann's sister Lorelei keeps bees.")
    assert as_alice("put", url, {"fingerprint": row["fingerprint"],
                                 "text": "Ann has no sister."}).status_code == 200
    url, row = _row(as_alice, summarized, "They buried the compass.")
    assert as_alice("delete", f"{url}?fingerprint={row['fingerprint']}").status_code == 200

    records = {r["id"]: r for r in store.ledger_read(summarized, "summaries")}
    assert records["summary_sess_000_0"]["text"] == "Ann has no sister."
    assert records["summary_sess_000_1"].get("deleted") is True


def test_undoing_a_summary_line_change_puts_its_ledger_record_back(as_alice, store,
                                                                   summarized):
    undo = f"/api/v1/instances/{summarized}/history/undo"
    url, row = _row(as_alice, summarized, "Ann's sister Lorelei keeps bees.")
    edited = as_alice("put", url, {"fingerprint": row["fingerprint"], "text": "No sister."})
    assert as_alice("post", undo, {"token": edited.json()["undo_token"]}).status_code == 200
    url, row = _row(as_alice, summarized, "They buried the compass.")
    deleted = as_alice("delete", f"{url}?fingerprint={row['fingerprint']}")
    assert as_alice("post", undo, {"token": deleted.json()["undo_token"]}).status_code == 200

    records = {r["id"]: r for r in store.ledger_read(summarized, "summaries")}
    assert records["summary_sess_000_0"]["text"] == "Ann's sister Lorelei keeps bees."
    assert "deleted" not in records["summary_sess_000_1"]


@pytest.fixture
def summarized_then_played(store, instance):
    """sess_001 (three turns, a recap of turns 1–2 and of 3) summarized into sess_002, which
    opens with the summary line and a copy of turn 3 (its turn 1)."""
    for turn in (1, 2, 3):
        for role, said in (("user", "question"), ("assistant", "answer")):
            store.session_append(instance, "sess_001", {
                "role": role, "content": f"{said} {turn}", "turn": turn,
                "timestamp": f"2025-01-01T10:0{turn}:00Z"})
    store.memory_json_write(instance, RECAPS_FILE, {"items": [
        {"id": "rcp_a", "text": "Ann has a sister", "session_id": "sess_001", "from_turn": 1,
         "to_turn": 2},
        {"id": "rcp_b", "text": "they sailed", "session_id": "sess_001", "from_turn": 3,
         "to_turn": 3}], "pending_summaries": []})
    store.ledger_append(instance, "summaries", [
        {"id": "summary_sess_001_0", "session_id": "sess_001", "index": 0,
         "text": "Ann's sister keeps bees.", "instance_id": instance}])
    copies = [{"role": role, "content": f"{said} 3", "turn": 1,
               "timestamp": "2025-01-01T10:03:00Z"}
              for role, said in (("user", "question"), ("assistant", "answer"))]
    store.session_create(instance, "sess_002", continued_from="sess_001", lines=[
        {"type": "summary", "content": "Ann's sister keeps bees."}, *copies])
    state = store.instance_state_read(instance)
    store.instance_state_write(instance, {**state, "current_session_id": "sess_002"})
    return instance


def test_a_summary_and_recaps_written_from_a_session_edited_later_are_marked(
        as_alice, client, alice, summarized_then_played):
    instance = summarized_then_played
    url, row = _row(as_alice, instance, "answer 2")  # in the summarized session
    assert as_alice("put", url, {"fingerprint": row["fingerprint"],
                                 "text": "I have no sister"}).status_code == 200
    url, row = _row(as_alice, instance, "question 3", session="sess_002")  # a copy of turn 3
    assert as_alice("put", url, {"fingerprint": row["fingerprint"],
                                 "text": "Where did we sail?"}).status_code == 200

    recaps = as_alice("get", f"/api/v1/instances/{instance}/recaps").json()
    assert {i["id"]: i.get("source_changed") for i in recaps["items"]} == {
        "rcp_a": [2], "rcp_b": [3]}
    assert recaps["summaries_source_changed"] == [{"session_id": "sess_001", "turns": [2, 3]}]
    client.force_login(alice)
    page = client.get(f"/instances/{instance}/persona/").content.decode()
    assert page.count('data-testid="summary-source-changed"') == 1
    assert "its turns 2, 3 were edited or deleted" in page
    page = client.get(f"/instances/{instance}/persona/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    text = page.content.decode()
    assert "它的第 2, 3 轮被编辑或删除过" in text and "重建本段会话的回顾" in text

    assert as_alice("post", f"/api/v1/instances/{instance}/summaries/sess_001/checked"
                    ).json() == {"changed": True}
    assert as_alice("get", f"/api/v1/instances/{instance}/recaps").json()[
        "summaries_source_changed"] == []
