"""Persona & memory over REST: evolved persona versions, pinned prompt, recaps, biography and
the author's note, each refused to another account (404, nothing changed); bad input is 400
naming the field."""

from __future__ import annotations

import pytest

from memory.summaries.recaps import RECAPS_FILE

pytestmark = pytest.mark.django_db


@pytest.fixture
def recaps(store, instance):
    store.memory_json_write(instance, RECAPS_FILE, {"items": [
        {"id": "rcp_a", "text": "they met"}, {"id": "rcp_b", "text": "they fought"}]})
    return instance


def _memory_files(store, instance):
    folder = store.instance_dir(instance) / "memory"
    return {p.name: p.read_bytes() for p in folder.glob("*")} if folder.is_dir() else {}


def test_persona_versions_set_and_restore(as_alice, instance):
    base = f"/api/v1/instances/{instance}/persona"
    assert as_alice("put", base, {"text": "first grown self"}).json()["version"] == 1
    assert as_alice("put", base, {"text": "second grown self"}).json()["version"] == 2
    restored = as_alice("post", f"{base}/restore", {"version": 1})
    assert restored.status_code == 200 and restored.json()["version"] == 3
    persona = as_alice("get", base).json()
    assert persona["evolved_persona"] == "first grown self"
    assert [v["evolved_persona"] for v in persona["versions"]] == [
        "first grown self", "second grown self", "first grown self"]
    missing = as_alice("post", f"{base}/restore", {"version": 9})
    assert missing.status_code == 404 and "version" in missing.json()["error"]["fields"]


def test_pinned_prompt_override_and_back_to_the_characters(as_alice, instance):
    url = f"/api/v1/instances/{instance}/pinned"
    saved = as_alice("put", url, {"text": "  never forget the oath  "}).json()
    assert {k: saved[k] for k in ("text", "source", "override")} == {
        "text": "never forget the oath", "source": "instance", "override": "never forget the oath"}
    assert as_alice("put", url, {"text": ""}).json()["source"] in ("character", "none")


def test_a_pinned_prompt_over_20000_characters_is_refused_naming_text_and_nothing_changes(
        as_alice, store, instance):
    url = f"/api/v1/instances/{instance}/pinned"
    as_alice("put", url, {"text": "keep the oath"})
    for body in ({"text": "x" * 200_000},
                 {"text": "x" * 20_001, "character_id": store.instance_state_read(instance)[
                     "character_id"]}):
        response = as_alice("put", url, body)
        assert response.status_code == 400, response.content
        error = response.json()["error"]
        assert error["fields"] == {"text": "at most 20000 characters"}
        assert "20000" in error["message"]
    shown = as_alice("get", url).json()
    assert shown["text"] == "keep the oath" and all(
        member["conv_key_override"] == "" for member in shown.get("members", []))
    assert as_alice("put", url, {"text": "y" * 20_000}).status_code == 200


def test_recaps_edit_reorder_remove(as_alice, recaps):
    base = f"/api/v1/instances/{recaps}/recaps"
    assert as_alice("put", f"{base}/rcp_a", {"text": "they met at dawn"}).status_code == 200
    moved = as_alice("post", f"{base}/rcp_b/move", {"to": 0}).json()["items"]
    assert [item["id"] for item in moved] == ["rcp_b", "rcp_a"]
    assert as_alice("delete", f"{base}/rcp_b").status_code == 200
    assert [i["text"] for i in as_alice("get", base).json()["items"]] == ["they met at dawn"]
    assert as_alice("delete", f"{base}/rcp_zz").status_code == 404
    empty = as_alice("put", f"{base}/rcp_a", {"text": "  "})
    assert empty.status_code == 400 and "text" in empty.json()["error"]["fields"]


def test_biography_add_edit_move_remove_and_from_persona(as_alice, instance):
    base = f"/api/v1/instances/{instance}/biography"
    assert as_alice("post", f"{base}/from_persona").status_code == 409  # nothing grown yet
    first = as_alice("post", base, {"text": "born in the wastes"})
    assert first.status_code == 201
    second = as_alice("post", base, {"text": "lost a brother"}).json()
    as_alice("put", f"/api/v1/instances/{instance}/persona", {"text": "para one\n\npara two"})
    added = as_alice("post", f"{base}/from_persona")
    assert added.status_code == 201 and len(added.json()["items"]) == 2
    as_alice("post", f"{base}/{second['id']}/move", {"to": 0})
    as_alice("put", f"{base}/{first.json()['id']}", {"text": "born in the old wastes"})
    as_alice("delete", f"{base}/{added.json()['items'][0]['id']}")
    assert [i["text"] for i in as_alice("get", base).json()["items"]] == [
        "lost a brother", "born in the old wastes", "para two"]


def test_a_biography_or_recap_text_over_20000_characters_is_refused_and_nothing_changes(
        as_alice, store, recaps):
    # The page's boxes say 20,000; a 3 MB paragraph went into the file whole.
    base = f"/api/v1/instances/{recaps}"
    as_alice("post", f"{base}/biography", {"text": "born in the wastes"})
    before = _memory_files(store, recaps)
    bio_id = as_alice("get", f"{base}/biography").json()["items"][0]["id"]
    for method, url in (("post", f"{base}/biography"), ("put", f"{base}/biography/{bio_id}"),
                        ("put", f"{base}/recaps/rcp_a")):
        response = as_alice(method, url, {"text": "x" * 3_000_000})
        assert response.status_code == 400, (url, response.content[:200])
        assert response.json()["error"]["fields"] == {"text": "at most 20000 characters"}
    assert _memory_files(store, recaps) == before
    assert as_alice("post", f"{base}/biography", {"text": "y" * 20_000}).status_code == 201


def test_authors_note_round_trip_and_field_errors(as_alice, store, instance):
    url = f"/api/v1/instances/{instance}/authors_note"
    assert as_alice("get", url).json() == {"text": "", "depth": 4, "frequency": 1,
                                           "role": "system"}
    saved = as_alice("put", url, {"text": "keep it tense", "depth": 2, "frequency": 3,
                                  "role": "user"})
    assert saved.status_code == 200
    assert store.memory_json_read(instance, "authors_note", {})["text"] == "keep it tense"
    for body, field in [({"depth": 99}, "depth"), ({"role": "narrator"}, "role"),
                        ({"frequency": 0}, "frequency"), ({"text": "x" * 4001}, "text")]:
        refused = as_alice("put", url, body)
        assert refused.status_code == 400 and field in refused.json()["error"]["fields"]
    assert as_alice("get", url).json()["depth"] == 2


def test_another_account_gets_404_for_every_memory_route_and_nothing_changes(
        as_alice, as_bob, store, recaps):
    as_alice("put", f"/api/v1/instances/{recaps}/persona", {"text": "alice's secret self"})
    bio = as_alice("post", f"/api/v1/instances/{recaps}/biography", {"text": "alice's past"})
    as_alice("put", f"/api/v1/instances/{recaps}/authors_note", {"text": "alice's note"})
    before = _memory_files(store, recaps)
    base = f"/api/v1/instances/{recaps}"
    bio_id = bio.json()["id"]
    attacks = [("get", f"{base}/persona", None), ("put", f"{base}/persona", {"text": "b"}),
               ("post", f"{base}/persona/restore", {"version": 1}),
               ("get", f"{base}/pinned", None), ("put", f"{base}/pinned", {"text": "b"}),
               ("get", f"{base}/recaps", None), ("put", f"{base}/recaps/rcp_a", {"text": "b"}),
               ("delete", f"{base}/recaps/rcp_a", None),
               ("post", f"{base}/recaps/rcp_a/move", {"to": 1}),
               ("post", f"{base}/recaps/rebuild", None),
               ("get", f"{base}/biography", None), ("post", f"{base}/biography", {"text": "b"}),
               ("put", f"{base}/biography/{bio_id}", {"text": "b"}),
               ("delete", f"{base}/biography/{bio_id}", None),
               ("post", f"{base}/biography/{bio_id}/move", {"to": 0}),
               ("post", f"{base}/biography/from_persona", None),
               ("get", f"{base}/authors_note", None),
               ("put", f"{base}/authors_note", {"text": "b"}),
               ("post", f"{base}/summarize", None), ("post", f"{base}/update_memory", None)]
    for method, url, body in attacks:
        response = as_bob(method, url, body)
        assert response.status_code == 404, (method, url, response.status_code)
        assert "alice" not in response.content.decode()
    assert _memory_files(store, recaps) == before


def test_a_change_while_a_reply_streams_is_409_and_changes_nothing(as_alice, store, recaps):
    before = _memory_files(store, recaps)
    lock = store.instance_lock(recaps).acquire()
    try:
        response = as_alice("put", f"/api/v1/instances/{recaps}/recaps/rcp_a", {"text": "b"})
    finally:
        lock.release()
    assert response.status_code == 409 and response.json()["error"]["code"] == "busy"
    assert _memory_files(store, recaps) == before


def test_recaps_rebuild_recomputes_the_current_session_with_the_model(as_alice, store, instance,
                                                                      use_stub):
    from tests.stub_llm import Reply

    store.module_write("memory", {**store.module_read("memory"), "recap_every_n_rounds": 1})
    for turn in (1, 2):
        store.session_append(instance, "sess_001", {"role": "user", "content": f"q{turn}",
                                                    "turn": turn, "timestamp": "2025-01-01"})
        store.session_append(instance, "sess_001", {"role": "assistant", "content": f"a{turn}",
                                                    "turn": turn, "timestamp": "2025-01-01"})
    use_stub.script(Reply("recap of turn one"), Reply("recap of turn two"))
    response = as_alice("post", f"/api/v1/instances/{instance}/recaps/rebuild")
    assert response.status_code == 200 and response.json()["chunks"] == 2
    # Recaps wait as pending summaries until enough of them stack into an item.
    recaps = as_alice("get", f"/api/v1/instances/{instance}/recaps").json()
    assert [p["text"] for p in recaps["pending"]] == ["recap of turn one", "recap of turn two"]
