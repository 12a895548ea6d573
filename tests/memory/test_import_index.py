"""An imported chat is searchable at once; its vectors fill in the background, newest first,
with progress in the instance API, and a fill cut short resumes without duplicates."""

from __future__ import annotations

import asyncio
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from memory import runtime
from memory.keyword_index import store as keyword_store
from memory.keyword_index.bm25 import KeywordPart
from memory.recall.rag import query_user_history
from memory.vectors import fill
from memory.vectors.index import MemoryIndex
from memory.vectors.sync import instance_sync
from tests.memory.imported_chats import GOATS_FACT, chat_lines_import
from tests.memory.memory_turns import memory_turn_run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def small_chunks(monkeypatch):
    """The fill embeds chunks of 16 lines instead of 256, so a 60-line import shows in four
    chunks what a 1,000-line one shows in four (and embeds in a tenth of the time)."""
    monkeypatch.setattr("memory.vectors.sync.newest_first_chunks",
                        lambda runs: fill.newest_first_chunks(runs, size=16))


def _index(client, auth, instance):
    response = client.get(f"/api/v1/instances/{instance}", **auth)
    assert response.status_code == 200
    return response.json()["index"]


def _embedded_ids(store, instance):
    return set(runtime.index_for(store).documents_stored(
        "turns", where={"instance_id": instance}))


def test_an_imported_fact_is_recalled_before_any_line_is_embedded(
        client, auth, store, instance, memory_on, no_background):
    chat_lines_import(client, auth, instance, 40)
    assert no_background  # the dense side is queued, not done while the player waited
    assert _embedded_ids(store, instance) == set()
    result = query_user_history("What are the names of Maribel's goats?", instance,
                                index=runtime.index_for(store), force=True, k=5)
    assert any("Juniper" in hit.text for hit in result.hits)


def test_index_progress_goes_from_some_to_all_and_newest_lines_are_embedded_first(
        client, auth, store, instance, memory_on, no_background, small_chunks, monkeypatch):
    session_id = chat_lines_import(client, auth, instance, 60)
    before = _index(client, auth, instance)
    assert before["embedded"] < before["lines"] and before["lines"] >= 60

    order = []
    real = MemoryIndex.add_turns

    def recording(self, **kwargs):
        if not kwargs.get("keywords_only"):
            order.append([line["turn"] for line in kwargs["turns"]])
        return real(self, **kwargs)

    monkeypatch.setattr(MemoryIndex, "add_turns", recording)
    instance_sync(store, runtime.index_for(store), instance_id=instance)
    assert len(order) > 1
    assert order[0][-1] == max(turn for chunk in order for turn in chunk)
    assert [chunk[0] for chunk in order] == sorted((chunk[0] for chunk in order), reverse=True)
    after = _index(client, auth, instance)
    assert after["embedded"] == after["lines"] == before["lines"]
    assert session_id


def test_a_fill_killed_mid_way_resumes_without_duplicates(
        client, auth, store, instance, memory_on, no_background, small_chunks, monkeypatch):
    chat_lines_import(client, auth, instance, 60)
    index = runtime.index_for(store)
    calls = []
    real = fill.chunk_embed

    def dying(*args, **kwargs):
        if len(calls) == 1:
            raise SystemExit("kill -9")
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr("memory.vectors.sync.chunk_embed", dying)
    with pytest.raises(SystemExit):
        instance_sync(store, index, instance_id=instance)
    part = _index(client, auth, instance)
    assert 0 < part["embedded"] < part["lines"]
    monkeypatch.setattr("memory.vectors.sync.chunk_embed", real)
    runtime._catch_up()  # the restarted server's catch-up
    runtime.drain()
    done = _index(client, auth, instance)
    assert done["embedded"] == done["lines"]
    stored = index.documents_stored("turns", where={"instance_id": instance})
    assert len(stored) == done["lines"]
    texts = [text for text, _ in stored.values()]
    assert texts.count(GOATS_FACT) == 1


def test_the_chat_page_has_the_index_progress_line_its_script_fills(
        alice_client, instance, memory_on):
    page = alice_client.get(f"/instances/{instance}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-testid="index-progress"' in html
    assert "%(embedded)s of %(lines)s lines embedded" in html


RUN = ["I adopted a grey kitten called Biscuit last spring.",
       "Also, my brother moved to Lisbon for a job at a bakery.",
       "And I finally finished reading the whole Pachinko saga."]


def test_every_message_of_a_characters_run_is_recalled_after_an_import(
        client, auth, store, instance, memory_on):
    """SillyTavern chats often hold several messages of the character in a row: each is its
    own line in memory, not only the last of the run."""
    records = [{"user_name": "Ann", "character_name": "Bo", "chat_metadata": {}},
               {"name": "Ann", "is_user": True, "mes": "What's new with you?"},
               *({"name": "Bo", "is_user": False, "mes": text} for text in RUN),
               {"name": "Ann", "is_user": True, "mes": "Wow, a lot happened."}]
    response = client.post(f"/api/v1/instances/{instance}/import_chat", {"file": SimpleUploadedFile(
        "chat.jsonl", "".join(json.dumps(r) + "\n" for r in records).encode())}, **auth)
    assert response.status_code == 201, response.content
    index = runtime.index_for(store)
    instance_sync(store, index, instance_id=instance)
    for question, word in (("What is the kitten called?", "Biscuit"),
                           ("Where did your brother move?", "Lisbon"),
                           ("Which saga did you finish reading?", "Pachinko")):
        hits = query_user_history(question, instance, index=index, force=True, k=3).hits
        assert any(word in hit.text for hit in hits), question


def test_a_plain_question_right_after_an_import_gets_the_sixth_messages_fact_into_the_request(
        client, auth, store, instance, memory_on, no_background, use_stub):
    """Issue 30: the player goes on playing at once after importing a long chat; asked without
    a trigger word, the turn finds an old fact through the keyword side alone (no line is
    embedded yet), and the request carries it although the message is far outside the
    conversation the prompt shows."""
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    config = store.config_read()
    config["preferences"]["conversation_load_all"] = False  # the newest messages only
    store.config_write(config)
    chat_lines_import(client, auth, instance, 200)
    assert _embedded_ids(store, instance) == set()
    result, _ = asyncio.run(memory_turn_run(store, instance,
                                            "What are the names of Maribel's goats?"))
    request = use_stub.requests[-1]
    conversation = [m["content"] for m in request["messages"][1:]]
    assert not any("Juniper" in text for text in conversation)  # not in the shown messages
    assert "Juniper" in request["messages"][0]["content"]  # recalled into the system prompt
    assert request.get("max_tokens")
    trace = store.trace_read(instance, result.trace_id)
    assert any("Juniper" in hit["text"] for hit in trace["retrievals"]["hits"])
    assert _index(client, auth, instance)["embedded"] == 0  # nothing embedded meanwhile


def test_an_imports_keyword_lines_are_folded_into_one_snapshot_not_one_per_batch(
        client, auth, store, instance, memory_on, no_background, monkeypatch):
    """A big import's keyword lines go into the keyword file in one write: its log is read
    into the part and folded into a snapshot once (per 256-line batch, a 50,000-message
    import read it 63 times)."""
    monkeypatch.setattr(keyword_store, "SNAPSHOT_EVERY", 100)
    snapshots = []
    to_bytes = KeywordPart.to_bytes
    monkeypatch.setattr(KeywordPart, "to_bytes", lambda part: snapshots.append(len(part))
                        or to_bytes(part))
    chat_lines_import(client, auth, instance, 900)
    assert snapshots == [900]
    result = query_user_history("What are the names of Maribel's goats?", instance,
                                index=runtime.index_for(store), force=True, k=5)
    assert any("Juniper" in hit.text for hit in result.hits)


def test_the_sync_and_fill_after_an_import_leave_each_keyword_line_written_once(
        client, auth, store, instance, memory_on, no_background, small_chunks):
    """The sync writes an import's lines to the keyword store again before embedding them, and
    the fill once more with their vectors: the same text, which now changes nothing. Each
    rewrite left a dead position; twice the lines dead made a writer read the whole log again
    while holding the lock every search waits on (a first reply after a big import, load ~20,
    waited most of 134 s)."""
    session_id = chat_lines_import(client, auth, instance, 60)
    index = runtime.index_for(store)
    lines = len(index.keywords.session_held(instance, "turns", session_id))
    instance_sync(store, index, instance_id=instance)
    assert _index(client, auth, instance)["embedded"] >= 60
    part = index.keywords.part(instance, "turns")
    assert part.dead == 0
    assert len(index.keywords.session_held(instance, "turns", session_id)) == lines
