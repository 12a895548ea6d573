"""A model's reasoning goes to the line's `reasoning` field: stored, shown folded, never part
of the reply and never sent back to the model."""

from __future__ import annotations

import asyncio

import pytest

from chat.reasoning import Reasoning, ThinkSplitter
from chat.turn import turn_run
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _turn(store, instance_id: str, text: str) -> list[dict]:
    events: list[dict] = []

    async def emit(event):
        events.append(event)

    asyncio.run(turn_run(store, instance_id=instance_id, user_text=text, emit=emit))
    return events


@pytest.mark.parametrize("reply", [
    Reply("She nods. Fine.", reasoning="The user asked twice; be brief."),
    Reply("<think>The user asked twice; be brief.</think>\nShe nods. Fine.", chunk_size=3),
    Reply("  <think>The user asked twice; be brief.</think>She nods. Fine.", chunk_size=1),
])
def test_reasoning_is_stored_apart_and_never_sent_back(store, instance, alice_client, use_stub,
                                                       reply):
    use_stub.script(reply, Reply("Next."))
    events = _turn(store, instance, "Again?")
    line = store.session_read(instance, "sess_001").lines[-1]
    assert line["content"] == "She nods. Fine."
    assert line["reasoning"] == "The user asked twice; be brief."
    pushed = "".join(e["content"] for e in events if e["type"] == "token")
    assert pushed == "She nods. Fine."

    _turn(store, instance, "And now?")
    assert "be brief" not in str(use_stub.requests[-1]["messages"])

    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert 'data-testid="reasoning"' in page and "be brief" in page


@pytest.mark.parametrize("pieces, reply, thought", [
    (["<th", "ink>a", "b</th", "ink>", "c"], "c", "ab"),
    (["<thinking about it>"], "<thinking about it>", ""),
    (["no tags"], "no tags", ""),
    (["<think>never closed"], "", "never closed"),
    (["Hi <think>x</think>"], "Hi <think>x</think>", ""),  # only a leading block is reasoning
])
def test_a_leading_think_block_is_split_off_across_pieces(pieces, reply, thought):
    splitter = ThinkSplitter()
    parts = [part for piece in pieces for part in splitter.feed(piece)] + splitter.flush()
    assert "".join(p for p in parts if not isinstance(p, Reasoning)) == reply
    assert "".join(p for p in parts if isinstance(p, Reasoning)) == thought


def test_each_version_of_a_reply_keeps_its_own_reasoning(store, instance, use_stub):
    from chat.history import reply_choose_alternative

    use_stub.script(Reply("First.", reasoning="plan A"), Reply("Second.", reasoning="plan B"))
    _turn(store, instance, "Go on.")

    async def emit(event):
        pass

    asyncio.run(turn_run(store, instance_id=instance, user_text="", emit=emit, regenerate=True))
    line = store.session_read(instance, "sess_001").lines[-1]
    assert (line["content"], line["reasoning"]) == ("Second.", "plan B")
    assert line["alternatives"][0]["reasoning"] == "plan A"
    reply_choose_alternative(store, instance_id=instance, session_id="sess_001",
                             turn=line["turn"], alternative_index=0)
    line = store.session_read(instance, "sess_001").lines[-1]
    assert (line["content"], line["reasoning"]) == ("First.", "plan A")


def test_reasoning_is_pushed_live_before_the_reply(store, instance, use_stub):
    use_stub.script(Reply("She nods.", reasoning="Weigh it: \"yes\" or no?"))
    events = _turn(store, instance, "Well?")
    kinds = [e["type"] for e in events if e["type"] in ("reasoning", "token")]
    assert kinds[0] == "reasoning" and kinds.index("token") > kinds.index("reasoning")
    assert "token" not in kinds[:kinds.index("token")]
    assert "".join(e["content"] for e in events if e["type"] == "reasoning") == \
        'Weigh it: "yes" or no?'
    assert store.session_read(instance, "sess_001").lines[-1]["reasoning"] == \
        'Weigh it: "yes" or no?'


def test_reasoning_streamed_before_the_reply_survives_a_crash(store, instance):
    writer = store.assistant_writer(instance, "sess_001", turn=1).open()
    writer.reasoning_append('Plan: say "content":"x", ')
    writer.reasoning_append("then stop.")
    writer.append("Half a rep")
    writer.close_quietly()  # the process died here (kill -9): no finish()
    repaired = store.session_repair(instance, "sess_001")
    assert repaired["reasoning"] == 'Plan: say "content":"x", then stop.'
    assert repaired["content"] == "Half a rep" and repaired["interrupted"] is True
    line = store.session_read(instance, "sess_001").lines[-1]
    assert (line["reasoning"], line["content"]) == (repaired["reasoning"], "Half a rep")
