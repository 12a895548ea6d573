"""A model's reasoning goes to the line's `reasoning` field: stored, shown folded, never part
of the reply and never sent back to the model."""

from __future__ import annotations

import asyncio

import pytest

from chat.play.turn import turn_run
from personalab.lib.reasoning import Reasoning, ThinkSplitter
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


def _turn(store, instance_id: str, text: str) -> list[dict]:
    """One turn through the real openai client against the stub; the events pushed."""
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
    (["Hi <think>x</think>"], "Hi", "x"),
    (["Hi <thi", "nk>x</think> there <think>y", "</think> now"], "Hi there now", "x\n\ny"),
    (["She waits.\n\n<think>will he", " answer?"], "She waits.", "will he answer?"),
    (["  Hello ", " world\n"], "  Hello  world\n", ""),  # no block: text as it came
    (["a </think> b <"], "a </think> b <", ""),
])
def test_think_blocks_anywhere_are_split_off_across_pieces(pieces, reply, thought):
    splitter = ThinkSplitter()
    parts = [part for piece in pieces for part in splitter.feed(piece)] + splitter.flush()
    assert "".join(p for p in parts if not isinstance(p, Reasoning)) == reply
    assert "".join(p for p in parts if isinstance(p, Reasoning)) == thought


def test_each_version_of_a_reply_keeps_its_own_reasoning(store, instance, use_stub):
    from chat.history_manager.edits import reply_choose_alternative

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


def _cut_piece_by_piece(text: str) -> tuple[tuple[str, str], ...]:
    return tuple(("content", text[i:i + 3]) for i in range(0, len(text), 3))


@pytest.mark.parametrize("reply", [
    Reply("", deltas=(("content", "She opens the door"), ("reasoning", "Is he armed? "),
                      ("content", ", slowly."), ("reasoning", "Stay calm."))),
    Reply("", deltas=_cut_piece_by_piece(
        "She opens the door<think>Is he armed? </think>, slowly.<think>Stay calm.")),
], ids=["reasoning_content", "inline_think"])
def test_reasoning_after_the_reply_began_is_kept_apart_and_never_sent_back(
        store, instance, alice_client, use_stub, reply):
    use_stub.script(reply, Reply("Next."))
    events = _turn(store, instance, "Who is it?")
    line = store.session_read(instance, "sess_001").lines[-1]
    assert line["content"] == "She opens the door, slowly."
    assert line["reasoning"].replace("\n\n", "") == "Is he armed? Stay calm."
    assert "".join(e["content"] for e in events if e["type"] == "token") == line["content"]
    assert "".join(e["content"] for e in events if e["type"] == "reasoning") == \
        line["reasoning"]

    _turn(store, instance, "And then?")
    sent = str(use_stub.requests[-1]["messages"])
    assert "She opens the door, slowly." in sent
    assert "armed" not in sent and "calm" not in sent and "think>" not in sent
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert "Is he armed?" in page.split('data-testid="reasoning"')[1].split("</details>")[0]


def test_reasoning_interleaved_with_the_reply_is_in_the_file_as_it_streams(store, instance):
    writer = store.assistant_writer(instance, "sess_001", turn=1).open()
    writer.reasoning_append("First, ")
    writer.append('She says "no')
    writer.reasoning_append('she would; "content":"x" ')
    writer.append('"\nand leaves')
    writer.reasoning_append("then gone.")
    path = store.session_path(instance, "sess_001")
    size = path.stat().st_size
    partial = store.session_read(instance, "sess_001").partial
    assert partial["content"] == 'She says "no"\nand leaves'
    assert partial["reasoning"] == 'First, she would; "content":"x" then gone.'
    writer.close_quietly()  # the process died here (kill -9): no finish()
    assert path.stat().st_size == size  # nothing was held back for the end of the line
    repaired = store.session_repair(instance, "sess_001")
    assert (repaired["content"], repaired["reasoning"]) == (partial["content"],
                                                             partial["reasoning"])
    line = store.session_read(instance, "sess_001").lines[-1]
    assert line["interrupted"] is True and line["reasoning"] == partial["reasoning"]


def test_a_streaming_line_torn_anywhere_reads_as_a_prefix_of_both_texts(store, instance):
    from personalab.lib.filestore.writer import parse_partial_line

    writer = store.assistant_writer(instance, "sess_001", turn=1).open()
    for kind, text in [("r", "plan"), ("c", "Hé said \\\"ok"), ("r", "mid 思"), ("c", " then")]:
        (writer.reasoning_append if kind == "r" else writer.append)(text)
    writer.close_quietly()
    data = store.session_path(instance, "sess_001").read_bytes()
    line = data[data.rfind(b"\n") + 1:].decode("utf-8")
    for cut in range(line.index('"content":"') + len('"content":"'), len(line) + 1):
        record = parse_partial_line(line[:cut])
        assert record is not None
        assert writer.content.startswith(record["content"])
        assert "planmid 思".startswith(record["reasoning"])
    assert (record["content"], record["reasoning"]) == (writer.content, "planmid 思")


@pytest.mark.parametrize("text", [
    "  Hi <think>x</think> there <think>y</think> now  ",
    "<think>a</think>\n\nreply with < and > signs <thin",
    "plain words, spaces at the end   ",
    "a <b> c </think> d <think>e",
])
def test_text_cut_into_pieces_of_any_size_splits_as_the_whole_text(text):
    def split(pieces):
        splitter = ThinkSplitter()
        parts = [part for piece in pieces for part in splitter.feed(piece)] + splitter.flush()
        return ("".join(p for p in parts if not isinstance(p, Reasoning)),
                "".join(p for p in parts if isinstance(p, Reasoning)))

    whole = split([text])
    for size in range(1, 9):
        assert split([text[i:i + size] for i in range(0, len(text), size)]) == whole
