"""A trace refers to the session instead of copying it, and still shows exactly what was sent."""

from __future__ import annotations

import pytest

from chat.play.turn import turn_run
from chat.services import traces
from chat.services.traces import trace_rebuild
from personalab.lib.filestore.session_read import read_session_bytes
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


async def _run(store, instance_id, text):
    async def emit(event):
        return None

    return await turn_run(store, instance_id=instance_id, user_text=text, emit=emit)


def _trace_file(store, instance_id, trace_id) -> str:
    return store.trace_path(instance_id, trace_id).read_text(encoding="utf-8")


async def test_a_trace_does_not_copy_the_conversation_but_shows_it(store, instance, use_stub):
    early = "我记得那座灯塔。" + "雨一直下，" * 2000  # ~10,000 characters, sent again every turn
    await _run(store, instance, early)
    use_stub.script(Reply("好的。"))
    result = await _run(store, instance, "然后呢？")
    sent = use_stub.requests[-1]["messages"]
    assert any(message["content"] == early for message in sent)
    assert "雨一直下，雨一直下，" not in _trace_file(store, instance, result.trace_id)
    trace = trace_rebuild(store, instance_id=instance, trace_id=result.trace_id)
    assert trace["messages"] == sent
    assert trace["session_edited"] is False and trace["conversation_source"] == "session"


async def test_after_an_edit_the_trace_shows_what_was_sent_from_the_backup(store, instance,
                                                                             use_stub):
    await _run(store, instance, "第一句：灯塔的钥匙在我这里。")
    result = await _run(store, instance, "第二句")
    sent = use_stub.requests[-1]["messages"]
    read = store.session_read(instance, "sess_001")
    edited = [dict(line, content="（改过了）") if line.get("role") == "user" else line
              for line in read.lines]
    backup = store.session_rewrite(instance, "sess_001", [read.metadata, *edited])
    trace = trace_rebuild(store, instance_id=instance, trace_id=result.trace_id)
    assert trace["messages"] == sent
    assert trace["session_edited"] is True
    assert trace["conversation_source"] == f"history/{backup.name}"


async def test_when_no_copy_holds_the_lines_the_trace_says_so(store, instance, use_stub):
    await _run(store, instance, "第一句：灯塔的钥匙在我这里。")
    result = await _run(store, instance, "第二句")
    read = store.session_read(instance, "sess_001")
    backup = store.session_rewrite(instance, "sess_001", [read.metadata, *read.lines[:1]])
    backup.unlink()
    trace = trace_rebuild(store, instance_id=instance, trace_id=result.trace_id)
    assert trace["session_edited"] is True and trace["conversation_source"] is None
    missing = [m for m in trace["messages"] if m.get("missing")]
    assert missing and all("no longer available" in m["content"] for m in missing)
    assert "第一句" not in str(trace["messages"])


def test_the_trace_api_and_page_show_the_rebuilt_messages(alice_client, store, instance,
                                                          use_stub):
    import asyncio

    result = asyncio.run(_run(store, instance, "灯塔的钥匙在我这里。"))
    sent = use_stub.requests[-1]["messages"]
    body = alice_client.get(f"/api/v1/traces/{result.trace_id}").json()
    assert body["messages"] == sent
    page = alice_client.get(f"/traces/{result.trace_id}/").content.decode()
    assert "灯塔的钥匙在我这里。" in page
    # edited since: the page says when the copy it reads was kept, not its path (an id)
    read = store.session_read(instance, "sess_001")
    backup = store.session_rewrite(instance, "sess_001", [read.metadata, *[
        dict(line, content="（改过了）") if line.get("role") == "user" else line
        for line in read.lines]])
    page = alice_client.get(f"/traces/{result.trace_id}/").content.decode()
    stamp = backup.name.split(".")[1]
    when = f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:8]}T{stamp[9:11]}:{stamp[11:13]}:{stamp[13:15]}Z"
    assert f'read from the copy kept before that edit, at <time datetime="{when}">' in page
    assert "history/sess_" not in page and "灯塔的钥匙在我这里。" in page
    zh = alice_client.get(f"/traces/{result.trace_id}/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    assert f'读自修改前保留的副本（<time datetime="{when}">' in zh.content.decode()


def test_the_lines_hash_is_the_one_older_traces_recorded():
    """Traces written before the hash took orjson's path must still match their session."""
    import hashlib
    import json

    from personalab.lib.trace_refs import lines_hash

    contents = ["雨一直下，" * 50, 'quote " and \\ back', "\n\t\r\b\f\x00\x1f\x7f", "\u2028\u2029😀",
                "", None, "</script>", 42, 1.5e300, ["list"], {"k": "v"}]
    lines = [{"role": "user", "content": content} for content in contents]
    for first, last in ((0, len(lines) - 1), (0, 6), (2, 4), (7, 10)):
        expected = json.dumps([line["content"] for line in lines[first:last + 1]],
                              ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        assert lines_hash(lines, first, last) == hashlib.sha256(expected).hexdigest()
    # A lone surrogate (an imported file may hold one) gets a hash, not an exception.
    assert len(lines_hash([{"content": "a\ud800b"}], 0, 0)) == 64


def _turns_request(stub) -> list[dict]:
    """The messages of the last turn's request (a recap's may have followed it)."""
    return next(request["messages"] for request in reversed(stub.requests)
                if request["messages"][0]["content"].startswith("写出"))


async def test_an_old_sessions_trace_reads_only_the_lines_it_refers_to(store, instance, use_stub,
                                                                        monkeypatch):
    # 3,000 summary lines, then messages: the inspector shows what was sent (a plain turn's
    # prompt and a regenerate's) from the lines referred to, not from a read of the whole file
    read = store.session_read(instance, "sess_001")
    lines = [{"type": "summary", "content": f"第{n}件事：灯塔的第{n}把钥匙。"} for n in range(3000)]
    lines += [{"role": role, "content": f"第{turn}轮，{role}说起灯塔。", "turn": turn,
               "timestamp": "2026-01-02T03:04:05Z"} for turn in range(1, 30)
              for role in ("user", "assistant")]
    store.session_rewrite(instance, "sess_001", [read.metadata, *lines])
    state = store.instance_state_read(instance)
    state["generation"] = {"context_tokens": 2048}
    store.instance_state_write(instance, state)
    whole_reads = []
    monkeypatch.setattr(traces, "read_session_bytes",
                        lambda *args: whole_reads.append(1) or read_session_bytes(*args))
    result = await _run(store, instance, "灯塔怎么样了？")
    sent = _turns_request(use_stub)
    assert trace_rebuild(store, instance_id=instance, trace_id=result.trace_id)["messages"] == sent

    async def emit(event):
        return None

    result = await turn_run(store, instance_id=instance, user_text="", emit=emit, regenerate=True)
    sent = _turns_request(use_stub)
    path = store.session_path(instance, "sess_001")
    data = path.read_bytes()
    path.write_bytes(data.replace("第7件事".encode(), "第七件事".encode()))  # another writer
    trace = trace_rebuild(store, instance_id=instance, trace_id=result.trace_id)
    assert trace["messages"] == sent and trace["conversation_source"] == "session"
    assert whole_reads == []
