"""Hide / unhide a message (SillyTavern's ghost, `is_hidden`): the line stays in the file and on
the page, marked, and is never sent to the model, scanned for lore, summarized or recalled."""

from __future__ import annotations

import asyncio
import json

import pytest

from chat.history_manager import base as history_base
from chat.models import ApiToken
from chat.play.turn import turn_run
from library.lore.services import lorebook_save
from memory import runtime
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "The ledger is under the third floorboard."


def _turn(store, instance_id: str, text: str) -> None:
    async def emit(event):
        pass

    asyncio.run(turn_run(store, instance_id=instance_id, user_text=text, emit=emit))


def _sent(stub) -> str:
    return json.dumps(stub.requests[-1]["messages"], ensure_ascii=False)


def _line(store, instance_id: str, content: str) -> tuple[int, dict]:
    lines = store.session_read(instance_id, "sess_001").lines
    index = next(i for i, line in enumerate(lines) if line.get("content") == content)
    return index, lines[index]


def _hide_on_page(client, instance_id: str, content: str, store, hidden: str = "1"):
    """As the chat page does: the change through the REST API, then the message rendered."""
    index, line = _line(store, instance_id, content)
    changed = client.put(f"/api/v1/instances/{instance_id}/sessions/sess_001/messages/{index}",
                         {"fingerprint": history_base.line_fingerprint(line), "hidden": hidden == "1"},
                         content_type="application/json")
    if changed.status_code != 200:
        return changed
    return client.get(f"/instances/{instance_id}/messages/line",
                      {"session": "sess_001", "index": index})


@pytest.fixture
def played(store, instance, use_stub):
    use_stub.script(Reply("Noted. I will not forget it."), Reply("Rain again."))
    _turn(store, instance, SECRET)
    _turn(store, instance, "How is the weather?")
    return instance


def test_a_hidden_message_stays_on_the_page_and_in_the_file_but_is_never_sent(
        alice_client, store, played, use_stub):
    assert SECRET in _sent(use_stub)
    response = _hide_on_page(alice_client, played, SECRET, store)
    assert response.status_code == 200
    fragment = response.content.decode()
    assert "hidden-from-model" in fragment and 'data-testid="hide"' in fragment
    assert "Unhide" in fragment and SECRET in fragment

    _, line = _line(store, played, SECRET)
    assert line["hidden"] is True and line["role"] == "user"
    backups = list((store.sessions_dir(played) / "history").glob("sess_001*"))
    assert backups  # backup-first rewrite
    page = alice_client.get(f"/instances/{played}/").content.decode()
    assert SECRET in page and "hidden-from-model" in page

    use_stub.script(Reply("Fine."))
    _turn(store, played, "Anything else?")
    sent = _sent(use_stub)
    assert "floorboard" not in sent and "How is the weather?" in sent

    assert _hide_on_page(alice_client, played, SECRET, store, hidden="0").status_code == 200
    assert "hidden" not in _line(store, played, SECRET)[1]
    _turn(store, played, "And now?")
    assert "floorboard" in _sent(use_stub)


def test_lore_is_not_triggered_by_a_hidden_message(alice_client, alice, store, played,
                                                   use_stub):
    book = lorebook_save(store, user=alice, data={
        "name": "house", "scan_depth": 10,
        "entries": [{"uid": 1, "keys": ["floorboard"], "content": "FLOOR-LORE: boards creak."}]})
    state = store.instance_state_read(played)
    store.instance_state_write(played, {**state, "lorebook_ids": [book]})
    _turn(store, played, "Hm.")
    assert "FLOOR-LORE" in _sent(use_stub)
    _hide_on_page(alice_client, played, SECRET, store)
    _turn(store, played, "Hm.")
    assert "FLOOR-LORE" not in _sent(use_stub)


def test_summarize_leaves_a_hidden_message_out(alice_client, alice, store, played, use_stub):
    _hide_on_page(alice_client, played, SECRET, store)
    alice_client.post(f"/api/v1/instances/{played}/summarize",
                      HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    sent = _sent(use_stub)
    assert "How is the weather?" in sent and "floorboard" not in sent


def test_recall_forgets_a_hidden_message_and_finds_it_again_when_unhidden(
        alice_client, store, instance, memory_on, use_stub):
    use_stub.script(Reply("Noted."))
    _turn(store, instance, SECRET)
    runtime.drain()

    def recalled() -> bool:
        runtime.drain()
        hits = runtime.index_for(store).search("turns", "ledger floorboard",
                                               where={"instance_id": instance}, n_results=5)
        return any("floorboard" in hit.text for hit in hits)

    assert recalled()
    _hide_on_page(alice_client, instance, SECRET, store)
    assert not recalled()
    _hide_on_page(alice_client, instance, SECRET, store, hidden="0")
    assert recalled()


def test_a_stale_page_cannot_hide_another_line(alice_client, store, played):
    index, line = _line(store, played, SECRET)
    before = store.session_path(played, "sess_001").read_bytes()
    response = alice_client.put(
        f"/api/v1/instances/{played}/sessions/sess_001/messages/{index}",
        {"fingerprint": "0" * 16, "hidden": True}, content_type="application/json")
    assert response.status_code == 409 and "reload" in response.json()["error"]["message"]
    assert store.session_path(played, "sess_001").read_bytes() == before


def test_rest_hides_and_unhides_with_the_message_edit_endpoint(as_alice, as_bob, store, played):
    index, line = _line(store, played, SECRET)
    url = f"/api/v1/instances/{played}/sessions/sess_001/messages/{index}"
    assert as_bob("put", url, {"fingerprint": history_base.line_fingerprint(line),
                               "hidden": True}).status_code == 404
    response = as_alice("put", url, {"fingerprint": history_base.line_fingerprint(line),
                                     "hidden": True})
    assert response.status_code == 200, response.content
    assert response.json()["line"]["hidden"] is True
    row = next(r for r in as_alice("get", f"/api/v1/instances/{played}/sessions/sess_001/"
                                          "messages").json()["rows"] if r["index"] == index)
    assert row["line"]["hidden"] is True

    both = as_alice("put", url, {"fingerprint": row["fingerprint"], "text": "A new secret.",
                                 "hidden": False})
    assert both.status_code == 200
    assert both.json()["line"]["content"] == "A new secret."
    assert "hidden" not in both.json()["line"]

    bad = as_alice("put", url, {"fingerprint": history_base.line_fingerprint(both.json()["line"]),
                                "hidden": "maybe"})
    assert bad.status_code == 400 and "hidden" in json.dumps(bad.json()["error"])


def test_an_imported_hidden_message_can_be_shown_to_the_model(alice_client, store, instance,
                                                              use_stub):
    with store.instance_lock(instance):
        store.session_append(instance, "sess_001", {
            "role": "user", "content": SECRET, "turn": 1, "timestamp": "t", "hidden": True})
        store.session_append(instance, "sess_001", {
            "role": "assistant", "content": "Hm.", "turn": 1, "timestamp": "t"})
    _turn(store, instance, "Go on.")
    assert "floorboard" not in _sent(use_stub)
    assert _hide_on_page(alice_client, instance, SECRET, store, hidden="0").status_code == 200
    _turn(store, instance, "Go on.")
    assert "floorboard" in _sent(use_stub)


def test_the_history_manager_hides_and_unhides_too(alice_client, store, played, use_stub):
    index, line = _line(store, played, SECRET)
    page = alice_client.get(f"/instances/{played}/history/").content.decode()
    row = page.split(f'id="line-{index}"')[1].split('class="history-row')[0]
    assert 'data-api="hide"' in row and 'data-hidden="1"' in row  # history.js sends it
    assert _hide_on_page(alice_client, played, SECRET, store).status_code == 200
    assert _line(store, played, SECRET)[1]["hidden"] is True
    page = alice_client.get(f"/instances/{played}/history/").content.decode()
    row = page.split(f'id="line-{index}"')[1].split('class="history-row')[0]
    assert "hidden from the model" in row and "Unhide" in row and SECRET in row
    assert 'data-hidden="0"' in row
    _turn(store, played, "Well?")
    assert "floorboard" not in _sent(use_stub)

    _hide_on_page(alice_client, played, SECRET, store, hidden="0")
    assert "hidden" not in _line(store, played, SECRET)[1]