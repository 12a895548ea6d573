"""The inspector's Recalled row and Recall list name where each recalled thing came from in the
reader's language, by conversation, turn and speaker (docs/chat-page.md: names, not ids); the
trace keeps the index's ids as written (newcomer round: "sources: summary summary_sess_001_1"
in 中文)."""

from __future__ import annotations

import pytest

from chat.models import Trace
from chat.services.instances import instance_create
from library.character_services import character_save
from tests.library.card_turns import card_turn_run
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

SOURCES = ["summary summary_sess_001_1", "sess_001 #2 assistant", "sess_002 #5 user"]


@pytest.fixture
def recalled_trace(store, alice, background, use_stub):
    """A turn's trace as a turn that recalled a summary and two lines leaves it."""
    character_id = character_save(store, user=alice, character_id=None, data={
        "name": "Alserqi", "base_persona": "A scout.", "greeting": "", "visibility": "private"})
    instance_id = instance_create(store, owner=alice, character_id=character_id,
                                  background_id=background)
    use_stub.script(Reply("Yes."))
    trace_id = card_turn_run(store, instance_id, "Hello?")
    trace = store.trace_read(instance_id, trace_id)
    trace["retrievals"] = {"mode": "rag", "hits": [
        {"source": SOURCES[0], "score": 0.2583, "text": "They met at the gate.", "speaker": ""},
        {"source": SOURCES[1], "score": 0.2, "text": "Stay close.", "speaker": ""},
        {"source": SOURCES[2], "score": 0.1, "text": "I will.", "speaker": "Wanderer Ash"}]}
    trace["sections"].append({"name": "recalled", "region": "middle", "tokens": 12, "chars": 40,
                              "cut": False, "omitted": 0, "text": "…",
                              "note": "sources: " + ", ".join(SOURCES)})
    store.trace_write(instance_id, trace_id, trace)
    return trace_id


def _part(page: str, start: str, end: str) -> str:
    return page.split(start, 1)[1].split(end, 1)[0]


@pytest.mark.parametrize(("language", "named"), [
    ("en", ["recalled from 3 sources</summary><ul><li translate=\"no\">summary of conversation 1, "
            "event 2</li><li translate=\"no\">conversation 1, turn 2, Alserqi</li>"
            "<li translate=\"no\">conversation 2, turn 5, Wanderer Ash</li></ul>",
            "<strong>summary of conversation 1, event 2</strong>",
            "<strong>conversation 1, turn 2, Alserqi</strong>"]),
    ("zh-hans", ["回忆来源（3 处）</summary><ul>"
                 "<li translate=\"no\">第 1 段对话的摘要，第 2 个事件</li>"
                 "<li translate=\"no\">第 1 段对话，第 2 轮，Alserqi</li>",
                 "<strong>第 1 段对话的摘要，第 2 个事件</strong>"]),
])
def test_the_recalled_row_and_list_name_their_sources(alice_client, recalled_trace, language,
                                                       named):
    alice_client.cookies["django_language"] = language
    page = alice_client.get(f"/traces/{recalled_trace}/").content.decode()
    row = _part(page, '<tr data-section="recalled">', "</tr>")
    hits = _part(page, 'id="recall-hits"', "</ul>")
    assert named[0] in row
    for label in named[1:]:
        assert label in hits
    assert "summary_sess_001_1" not in row + hits and "sources:" not in row
    assert "#2 assistant" not in row + hits



def test_many_sources_are_folded_and_one_a_line(alice_client, store, recalled_trace):
    """Forty sources read as a wall on a phone (newcomer walk): each is a line of its own, and
    past three the list is folded under its count."""
    instance_id = Trace.objects.get(trace_id=recalled_trace).instance_id
    trace = store.trace_read(instance_id, recalled_trace)
    many = [f"sess_001 #{turn} user" for turn in range(1, 41)]
    trace["sections"][-1]["note"] = "cut; sources: " + ", ".join(many)
    store.trace_write(instance_id, recalled_trace, trace)
    row = _part(alice_client.get(f"/traces/{recalled_trace}/").content.decode(),
                '<tr data-section="recalled">', "</tr>")
    assert '<details class="recalled-from"><summary>recalled from 40 sources</summary>' in row
    assert row.count("<li ") == 40 and "sources:" not in row and "recalled from:" not in row
