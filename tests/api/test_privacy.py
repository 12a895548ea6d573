"""Two accounts, one story: nothing A's instances remember ever reaches B (issue 12 item 1).
Each test is the attack it prevents: B plays the same character and background as A and
tries to make the director, recall, the trace page, the trace API or an export show A's text."""

from __future__ import annotations

import asyncio
import json

import pytest
from django.core.management import call_command

from chat.models import ApiToken
from chat.play.turn import turn_run
from chat.services.instances import instance_create
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "4711"
A_SUMMARY = f"玩家告诉Alserqi，金库的PIN is {SECRET}，在仓库与仇人对峙前要记住"
A_PLOT = f"第3轮，玩家低声说出金库密码 PIN is {SECRET}，Alserqi记下了它，准备与仇人对峙。"


def _secret_remembered(store, instance_id):
    """A's summarize output as it lands in the ledger; `reindex --memory` puts it in Chroma
    exactly as documents written before owners were checked."""
    state = store.instance_state_read(instance_id)
    owner = {"instance_id": instance_id, "character_id": state["character_id"],
             "background_id": state["background_id"], "session_id": "sess_001", "index": 0}
    store.ledger_append(instance_id, "summaries", [
        {"id": "summary_sess_001_0", "text": A_SUMMARY, "related_plot_id": "plot_sess_001_0",
         **owner}])
    store.ledger_append(instance_id, "plots", [
        {"id": "plot_sess_001_0", "text": A_PLOT, "related_summary_id": "summary_sess_001_0",
         **owner}])
    with store.instance_lock(instance_id):
        store.session_append(instance_id, "sess_001", {
            "role": "user", "content": f"记住，金库的PIN is {SECRET}。", "turn": 1,
            "timestamp": "2026-11-23T10:00:00Z"})
    call_command("reindex", "--memory")


def _stalled(store, instance_id):
    """The director's fallback reminder (and its reference events) fires on the next turn."""
    state = store.instance_state_read(instance_id)
    state["plot_state"] = {"current_plot_index": 3, "current_status": "in_progress",
                           "no_update_count": 5}
    store.instance_state_write(instance_id, state)


def _turn(store, instance_id, text):
    async def emit(event):
        pass

    return asyncio.run(turn_run(store, instance_id=instance_id, user_text=text, emit=emit))


@pytest.fixture
def b_instance(store, bob, character, background):
    return instance_create(store, owner=bob, character_id=character, background_id=background)


def _prompt(stub) -> str:
    return json.dumps(stub.requests[-1]["messages"], ensure_ascii=False)


def test_director_reminder_never_cites_another_accounts_summary(
        client, store, instance, b_instance, bob, memory_on, use_stub):
    _secret_remembered(store, instance)
    _stalled(store, b_instance)
    use_stub.script(Reply("我们去仓库。"))
    result = _turn(store, b_instance, "我们接下来去哪里对峙仇人？")

    prompt = _prompt(use_stub)
    assert "故事大纲第3点" in prompt  # the reminder did fire and search
    assert SECRET not in prompt

    client.force_login(bob)
    page = client.get(f"/traces/{result.trace_id}/")
    assert page.status_code == 200 and SECRET not in page.content.decode()
    token = ApiToken.issue(bob)
    api = client.get(f"/api/v1/traces/{result.trace_id}", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert api.status_code == 200 and SECRET not in api.content.decode()


def test_the_same_owners_other_instance_is_still_cited(store, alice, instance, character,
                                                       background, memory_on, use_stub):
    """The control for the attack above: the reference events still work for their owner."""
    _secret_remembered(store, instance)
    second = instance_create(store, owner=alice, character_id=character, background_id=background)
    _stalled(store, second)
    use_stub.script(Reply("我们去仓库。"))
    result = _turn(store, second, "我们接下来去哪里对峙仇人？")
    assert SECRET in _prompt(use_stub)
    reference = store.trace_read(second, result.trace_id)["director_context"]
    assert SECRET in json.dumps(reference, ensure_ascii=False)


def test_recall_with_a_trigger_never_reaches_another_account(store, instance, b_instance,
                                                             memory_on, use_stub):
    _secret_remembered(store, instance)
    use_stub.script(Reply("记得。"))
    result = _turn(store, b_instance, "你还记得金库的PIN吗？详细过程是怎样的")
    trace = store.trace_read(b_instance, result.trace_id)
    assert trace["retrievals"]["mode"] == "deep"
    assert SECRET not in json.dumps(trace, ensure_ascii=False)
    assert SECRET not in _prompt(use_stub)


def test_b_cannot_read_as_trace_export_or_listing_what_a_wrote(
        client, store, instance, b_instance, bob, memory_on, use_stub):
    _secret_remembered(store, instance)
    use_stub.script(Reply(f"PIN is {SECRET}，我记住了。"))
    a_result = _turn(store, instance, "再说一遍PIN。")
    client.force_login(bob)
    token = ApiToken.issue(bob)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    refused = [
        client.get(f"/traces/{a_result.trace_id}/"),
        client.get(f"/api/v1/traces/{a_result.trace_id}", **auth),
        client.get(f"/api/v1/instances/{instance}/sessions/sess_001/export", **auth),
        client.get(f"/api/v1/sessions/sess_001?instance_id={instance}", **auth),
        client.get(f"/instances/{instance}/", follow=False),
        client.get(f"/instances/{instance}/history/"),
    ]
    assert [response.status_code for response in refused] == [404] * len(refused)
    listed = [client.get("/api/v1/instances", **auth), client.get("/")]
    for response in listed:
        assert response.status_code == 200
        body = response.content.decode()
        assert instance not in body and SECRET not in body
    own = client.get(f"/api/v1/instances/{b_instance}/sessions/sess_001/export", **auth)
    assert own.status_code == 200 and SECRET not in own.content.decode()
