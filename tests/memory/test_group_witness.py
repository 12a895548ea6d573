"""Each character remembers only what it witnessed (issue 15 "Done when"), through real turns
with the stub server: a member who joined later, or was away, recalls nothing said in this
conversation before it joined or while it was away; the shared scene stays in its prompt; a muted
member is in the scene and recalls everything; "Update memory" for a member reads only the turns
it witnessed."""

from __future__ import annotations

import json
import time

import pytest

from chat.services.instances import instance_create
from chat.services.members import (
    instance_member_add,
    instance_member_change,
    instance_member_remove,
)
from memory import runtime
from memory.summaries.recaps import RECAPS_FILE
from tests.memory.memory_turns import scripted_turn_run, trace_hits_json, window_newest_keep
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

QUESTION = "你还记得钥匙和暗号吗？"


@pytest.fixture(autouse=True)
def _newest_line_only(store):
    window_newest_keep(store, 1)


@pytest.fixture
def story(store, alice, character, background):
    return instance_create(store, owner=alice, character_id=character, background_id=background)


def test_a_late_joiner_recalls_only_what_was_said_after_it_joined(
        store, alice, story, character, brenna, memory_on, use_stub):
    scripted_turn_run(store, story, "我把钥匙藏在了灯塔下面。", stub=use_stub)
    instance_member_add(store, user=alice, instance_id=story, character_id=brenna)
    scripted_turn_run(store, story, "新的暗号是蓝鲸。", speaker=character, stub=use_stub)

    hers = scripted_turn_run(store, story, QUESTION, speaker=brenna, reply="……", stub=use_stub)

    recalled = trace_hits_json(store, story, hers)
    assert "蓝鲸" in recalled and "灯塔" not in recalled

    his = scripted_turn_run(store, story, QUESTION, speaker=character, reply="……", stub=use_stub)
    his_hits = trace_hits_json(store, story, his)
    assert "灯塔" in his_hits and "蓝鲸" in his_hits
    assert "中途加入" not in json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)

    # with the whole scene in the window it is shown to her, and she is told she did not
    # witness its start
    window_newest_keep(store, 20)
    store.module_write("memory", {**store.module_read("memory"), "recaps_enabled": False})
    scripted_turn_run(store, story, QUESTION, speaker=brenna, reply="……", stub=use_stub)
    prompt = json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)
    assert "灯塔" in prompt and "你是中途加入这个场景的" in prompt


def test_a_member_away_does_not_recall_what_was_said_meanwhile_but_a_muted_one_does(
        store, alice, character, brenna, background, memory_on, use_stub):
    story = instance_create(store, owner=alice, character_ids=[character, brenna],
                            background_id=background, reply_order="list")
    instance_member_remove(store, user=alice, instance_id=story, character_id=brenna)
    scripted_turn_run(store, story, "我把钥匙藏在了灯塔下面。", stub=use_stub)
    instance_member_add(store, user=alice, instance_id=story, character_id=brenna)
    instance_member_change(store, user=alice, instance_id=story, character_id=brenna,
                           muted=True)
    scripted_turn_run(store, story, "新的暗号是蓝鲸。", speaker=character, stub=use_stub)

    hers = scripted_turn_run(store, story, QUESTION, speaker=brenna, reply="……", stub=use_stub)

    recalled = trace_hits_json(store, story, hers)
    assert "蓝鲸" in recalled  # muted, but in the scene
    assert "灯塔" not in recalled  # said while she was away


def test_update_memory_for_a_late_joiner_reads_only_the_turns_it_witnessed(
        as_alice, store, alice, story, character, brenna, use_stub):
    scripted_turn_run(store, story, "我把钥匙藏在了灯塔下面。", stub=use_stub)
    instance_member_add(store, user=alice, instance_id=story, character_id=brenna)
    scripted_turn_run(store, story, "Brenna，你好，新的暗号是蓝鲸。", speaker=brenna,
                      reply="你好。", stub=use_stub)
    use_stub.script(Reply("她记住了暗号。"))

    response = as_alice("post", f"/api/v1/instances/{story}/update_memory?character_id={brenna}")

    assert response.status_code == 200, response.content
    sent = json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)
    assert "蓝鲸" in sent and "灯塔" not in sent
    use_stub.script(Reply("他知道钥匙在哪。"))
    as_alice("post", f"/api/v1/instances/{story}/update_memory?character_id={character}")
    sent = json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)
    assert "灯塔" in sent and "蓝鲸" in sent


def test_a_member_who_left_recalls_elsewhere_only_what_it_saw_before_leaving(
        store, alice, character, brenna, background, memory_on, use_stub):
    scene = instance_create(store, owner=alice, character_ids=[character, brenna],
                            background_id=background, reply_order="list")
    own = instance_create(store, owner=alice, character_id=brenna, background_id=background)
    scripted_turn_run(store, scene, "我把钥匙藏在了灯塔下面。", speaker=character, stub=use_stub)
    instance_member_remove(store, user=alice, instance_id=scene, character_id=brenna)
    scripted_turn_run(store, scene, "新的暗号是蓝鲸。", speaker=character, stub=use_stub)
    store.module_write("memory", {"recall_enabled": True, "recall_related_conversations": True})

    hers = scripted_turn_run(store, own, QUESTION, reply="……", stub=use_stub)

    recalled = trace_hits_json(store, own, hers)
    assert "灯塔" in recalled  # said in the scene while she was there
    assert "蓝鲸" not in recalled  # said after she left


def test_a_late_joiner_is_given_only_the_recaps_of_turns_it_heard(
        store, alice, story, character, brenna, use_stub):
    scripted_turn_run(store, story, "我把钥匙藏在了灯塔下面。", stub=use_stub)
    instance_member_add(store, user=alice, instance_id=story, character_id=brenna)
    scripted_turn_run(store, story, "新的暗号是蓝鲸。", speaker=character, stub=use_stub)
    session = store.instance_state_read(story)["current_session_id"]
    store.memory_json_write(story, RECAPS_FILE, {"pending_summaries": [], "items": [
        {"id": "recap_1", "text": "RECAP-BEFORE: 钥匙藏在灯塔下。", "from_turn": 1, "to_turn": 1,
         "session_id": session, "from_session_id": session, "created_at": "2026-01-01T00:00:00Z"},
        {"id": "recap_2", "text": "RECAP-AFTER: 暗号是蓝鲸。", "from_turn": 2, "to_turn": 2,
         "session_id": session, "from_session_id": session, "created_at": "2099-01-01T00:00:00Z"},
    ]})

    scripted_turn_run(store, story, "接下来呢？", speaker=brenna, reply="……", stub=use_stub)
    hers = json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)
    assert "RECAP-AFTER" in hers and "RECAP-BEFORE" not in hers

    scripted_turn_run(store, story, "接下来呢？", speaker=character, reply="……", stub=use_stub)
    his = json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)
    assert "RECAP-AFTER" in his and "RECAP-BEFORE" in his


def _summaries_lost_by_chroma(store, instance_id, monkeypatch) -> None:
    """Chroma loses the instance's summaries and plots, and no sync embeds them again: recall
    reads them from the keyword store."""
    runtime.drain()
    monkeypatch.setattr(runtime, "schedule_sync", lambda *args, **kwargs: None)
    index = runtime.index_for(store)
    for name in ("summaries", "plots"):
        index.collection(name).delete(where={"instance_id": instance_id})
    summary_id = store.ledger_read(instance_id, "summaries")[-1]["id"]
    assert index.hits_get("summaries", instance_id, [summary_id])  # the keyword store's


def test_a_late_joiner_recalls_a_summary_of_its_lines_that_chroma_does_not_hold_yet(
        as_alice, store, alice, story, character, brenna, memory_on, use_stub, monkeypatch):
    """Until the sync embeds a summary again (a Chroma that lost its data), recall reads it from
    the keyword store, which kept no `speakers`: a member that joined later did not recall the
    summary of lines it spoke in."""
    scripted_turn_run(store, story, "我把钥匙藏在了灯塔下面。", stub=use_stub)
    instance_member_add(store, user=alice, instance_id=story, character_id=brenna)
    scripted_turn_run(store, story, "Brenna，新的暗号呢？", speaker=brenna, reply="暗号是蓝鲸。",
                      stub=use_stub)
    use_stub.script(Reply(json.dumps({"events": [{"summary": "Brenna 把暗号定为蓝鲸，钥匙在灯塔",
                                                  "plot": "Brenna 定下暗号。"}]},
                                     ensure_ascii=False)))
    response = as_alice("post", f"/api/v1/instances/{story}/summarize")
    assert response.status_code == 200, response.content
    assert brenna in store.ledger_read(story, "summaries")[-1]["speakers"].split("|")
    _summaries_lost_by_chroma(store, story, monkeypatch)

    hers = scripted_turn_run(store, story, QUESTION, speaker=brenna, reply="……", stub=use_stub)

    assert "暗号定为蓝鲸" in trace_hits_json(store, story, hers)


def test_a_member_away_when_a_summary_was_made_does_not_recall_it(
        as_alice, store, alice, character, brenna, background, memory_on, use_stub,
        monkeypatch):
    """A member there from the start recalls a summary of others' lines only if it was made
    while the member was there, which its `created_at` tells; neither Chroma nor the keyword
    store kept `created_at`, and a member back from being away recalled the summary made
    meanwhile."""
    story = instance_create(store, owner=alice, character_ids=[character, brenna],
                            background_id=background, reply_order="list")
    instance_member_remove(store, user=alice, instance_id=story, character_id=brenna)
    scripted_turn_run(store, story, "我把钥匙藏在了灯塔下面。", stub=use_stub)
    use_stub.script(Reply(json.dumps({"events": [{"summary": "钥匙埋在灯塔的石阶下",
                                                  "plot": "玩家藏好了钥匙。"}]},
                                     ensure_ascii=False)))
    response = as_alice("post", f"/api/v1/instances/{story}/summarize")
    assert response.status_code == 200, response.content
    time.sleep(1.01 - time.time() % 1)  # times are kept to the second: she is back after it
    instance_member_add(store, user=alice, instance_id=story, character_id=brenna)


    def recalled(speaker) -> bool:
        said = scripted_turn_run(store, story, QUESTION, speaker=speaker, reply="……",
                                 stub=use_stub)
        return "石阶" in trace_hits_json(store, story, said)

    assert (recalled(brenna), recalled(character)) == (False, True)
    _summaries_lost_by_chroma(store, story, monkeypatch)
    assert (recalled(brenna), recalled(character)) == (False, True)
