"""History manager: edit / delete / undo on the session file (nothing lost), paging and search,
flipping between a reply's versions with the director counting only the kept one, ownership
and the instance lock."""

from __future__ import annotations

import json
import re

import pytest
from django.templatetags.static import static

from chat.history_manager import base as history_base
from chat.history_manager import edits as history
from chat.history_manager import reads as history_read
from chat.play.turn import turn_run
from library.selectors import persona_effective
from tests.chat.history_files import Clock, chat_lines_append, history_backups, history_row
from tests.stub_llm import Reply

HX = {"HTTP_HX_REQUEST": "true"}


def _file_lines(store, instance_id, session_id="sess_001"):
    text = store.session_path(instance_id, session_id).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


# --- edit / delete / undo in the file ------------------------------------------------------


def test_edit_rewrites_the_line_keeps_first_original_and_a_backup(store, instance):
    chat_lines_append(store, instance, 2)
    row = history_row(store, instance, "answer 1")
    result = history.message_edit(store, instance_id=instance, session_id="sess_001",
                                  index=row["index"], fingerprint=row["fingerprint"],
                                  text="answer one")
    line = _file_lines(store, instance)[1 + row["index"]]
    assert line["content"] == "answer one"
    assert line["edited"]["original"] == "answer 1" and line["edited"]["at"]
    assert result["undo_token"]
    backups = history_backups(store, instance)
    assert len(backups) == 1 and '"answer 1"' in backups[0].read_text(encoding="utf-8")

    row = history_row(store, instance, "answer one")
    history.message_edit(store, instance_id=instance, session_id="sess_001", index=row["index"],
                         fingerprint=row["fingerprint"], text="answer uno")
    line = _file_lines(store, instance)[1 + row["index"]]
    assert line["content"] == "answer uno" and line["edited"]["original"] == "answer 1"
    assert len(history_backups(store, instance)) == 2
    assert [m["content"] for m in store.session_read(instance, "sess_001").messages] == [
        "question 1", "answer uno", "question 2", "answer 2"]


def test_delete_then_undo_restores_the_file_exactly(store, instance):
    chat_lines_append(store, instance, 3)
    before = _file_lines(store, instance)
    row = history_row(store, instance, "question 2")
    result = history.message_delete(store, instance_id=instance, session_id="sess_001",
                                    index=row["index"], fingerprint=row["fingerprint"])
    after = _file_lines(store, instance)
    assert len(after) == len(before) - 1
    assert "question 2" not in [line.get("content") for line in after]
    assert any('"question 2"' in b.read_text(encoding="utf-8")
               for b in history_backups(store, instance))

    history.undo(store, instance_id=instance, token=result["undo_token"])
    assert _file_lines(store, instance) == before
    # The undone state is itself kept as a backup: nothing is lost either way.
    assert len(history_backups(store, instance)) == 2
    with pytest.raises(history_base.HistoryError) as refused:
        history.undo(store, instance_id=instance, token=result["undo_token"])
    assert refused.value.status == 404


def test_edit_undo_round_trip(store, instance):
    chat_lines_append(store, instance, 1)
    before = _file_lines(store, instance)
    row = history_row(store, instance, "question 1")
    result = history.message_edit(store, instance_id=instance, session_id="sess_001",
                                  index=row["index"], fingerprint=row["fingerprint"], text="Q1")
    assert _file_lines(store, instance) != before
    history.undo(store, instance_id=instance, token=result["undo_token"])
    assert _file_lines(store, instance) == before


def test_undo_after_the_configured_window_is_refused(store, instance):
    store.module_write("history", {"undo_window_seconds": 5})
    chat_lines_append(store, instance, 1)
    clock = Clock()
    row = history_row(store, instance, "answer 1")
    result = history.message_delete(store, instance_id=instance, session_id="sess_001",
                                     index=row["index"], fingerprint=row["fingerprint"],
                                     clock=clock)
    assert result["undo_expires_at"] == clock.now + 5
    after_delete = _file_lines(store, instance)
    clock.now += 5.5
    with pytest.raises(history_base.UndoExpired) as refused:
        history.undo(store, instance_id=instance, token=result["undo_token"], clock=clock)
    assert refused.value.status == 410 and "5 s" in refused.value.message
    assert _file_lines(store, instance) == after_delete


def test_undo_inside_the_window_works_with_the_default_eight_seconds(store, instance):
    chat_lines_append(store, instance, 1)
    before = _file_lines(store, instance)
    clock = Clock()
    row = history_row(store, instance, "answer 1")
    result = history.message_delete(store, instance_id=instance, session_id="sess_001",
                                     index=row["index"], fingerprint=row["fingerprint"],
                                     clock=clock)
    assert result["undo_expires_at"] == clock.now + 8  # time to reach Undo with a thumb
    clock.now += 7.9
    history.undo(store, instance_id=instance, token=result["undo_token"], clock=clock)
    assert _file_lines(store, instance) == before


def test_undo_is_refused_when_the_file_changed_since(store, instance):
    chat_lines_append(store, instance, 1)
    row = history_row(store, instance, "answer 1")
    result = history.message_delete(store, instance_id=instance, session_id="sess_001",
                                    index=row["index"], fingerprint=row["fingerprint"])
    store.session_append(instance, "sess_001", {"role": "user", "content": "later", "turn": 2,
                                                 "timestamp": "2025-01-01T00:00:02Z"})
    with pytest.raises(history_base.HistoryError) as refused:
        history.undo(store, instance_id=instance, token=result["undo_token"])
    assert refused.value.status == 409
    assert _file_lines(store, instance)[-1]["content"] == "later"


def test_a_stale_page_cannot_change_another_line(store, instance):
    chat_lines_append(store, instance, 2)
    row = history_row(store, instance, "answer 2")
    first = history_row(store, instance, "question 1")
    history.message_delete(store, instance_id=instance, session_id="sess_001",
                           index=first["index"], fingerprint=first["fingerprint"])
    before = _file_lines(store, instance)
    with pytest.raises(history_base.HistoryError) as refused:
        history.message_edit(store, instance_id=instance, session_id="sess_001",
                             index=row["index"], fingerprint=row["fingerprint"], text="x")
    assert refused.value.status == 409
    assert _file_lines(store, instance) == before


def test_edit_while_busy_is_refused(store, instance, alice_client):
    chat_lines_append(store, instance, 1)
    before = _file_lines(store, instance)
    row = history_row(store, instance, "answer 1")
    lock = store.instance_lock(instance).acquire()
    try:
        with pytest.raises(history_base.HistoryBusy) as refused:
            history.message_edit(store, instance_id=instance, session_id="sess_001",
                                 index=row["index"], fingerprint=row["fingerprint"], text="x")
        assert "busy" in refused.value.message
        message = f"/api/v1/instances/{instance}/sessions/sess_001/messages/{row['index']}"
        response = alice_client.put(message, {"fingerprint": row["fingerprint"], "text": "x"},
                                    content_type="application/json")
        assert response.status_code == 409 and "busy" in response.json()["error"]["message"]
        response = alice_client.delete(f"{message}?fingerprint={row['fingerprint']}")
        assert response.status_code == 409
    finally:
        lock.release()
    assert _file_lines(store, instance) == before


def test_archived_sessions_are_listed_read_only(store, instance):
    chat_lines_append(store, instance, 1)
    store.session_create(instance, "sess_002", continued_from="sess_001")
    archived = store.session_archive(instance, "sess_001")
    sessions = history_read.session_list(store, instance_id=instance)
    keys = {row["key"]: row for row in sessions}
    assert keys["sess_002"]["continued_from"] == "sess_001"
    assert keys[archived.stem]["archived"] and keys[archived.stem]["message_count"] == 2
    page = history_read.messages_page(store, instance_id=instance, session_key=archived.stem)
    assert page["read_only"] and page["total"] == 2
    with pytest.raises(history_base.HistoryError):
        history.message_delete(store, instance_id=instance, session_id=archived.stem,
                               index=0, fingerprint=page["rows"][0]["fingerprint"])
    with pytest.raises(history_base.HistoryError):
        history_read.messages_page(store, instance_id=instance, session_key="../../etc")


# --- paging and search -------------------------------------------------------------------


def test_paging_defaults_to_the_last_page_and_search_filters(store, instance):
    chat_lines_append(store, instance, 125)  # 250 messages
    page = history_read.messages_page(store, instance_id=instance, session_key="sess_001")
    assert page["page_size"] == 100 and page["pages"] == 3 and page["page"] == 3
    assert len(page["rows"]) == 50 and page["rows"][-1]["content"] == "answer 125"
    first = history_read.messages_page(store, instance_id=instance, session_key="sess_001", page=1)
    assert [r["content"] for r in first["rows"][:2]] == ["question 1", "answer 1"]
    assert len(first["rows"]) == 100
    found = history_read.messages_page(store, instance_id=instance, session_key="sess_001",
                                  query="ANSWER 12")
    assert sorted(r["content"] for r in found["rows"]) == sorted(
        ["answer 12", *[f"answer {n}" for n in range(120, 126)]])
    store.module_write("history", {"page_size": 10})
    assert history_read.messages_page(store, instance_id=instance, session_key="sess_001")["pages"] == 25


def test_history_page_and_rows_render_escaped(store, instance, alice_client):
    chat_lines_append(store, instance, 120)
    store.session_append(instance, "sess_001", {"role": "user", "content": "<script>x</script>",
                                                 "turn": 121, "timestamp": "t"})
    response = alice_client.get(f"/instances/{instance}/history/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "&lt;script&gt;x&lt;/script&gt;" in body and "<script>x</script>" not in body
    assert "page 3 of 3" in body
    rows = alice_client.get(f"/instances/{instance}/history/rows",
                            {"session": "sess_001", "page": "1", "q": ""})
    assert rows.status_code == 200 and "question 1<" in rows.content.decode()
    assert "<html" not in rows.content.decode()
    searched = alice_client.get(f"/instances/{instance}/history/rows",
                                {"session": "sess_001", "q": "answer 77"}).content.decode()
    assert "answer 77" in searched and "answer 76" not in searched


def test_the_history_marks_a_cut_reply_as_the_chat_page_does(store, instance, alice_client):
    """A reply stopped or cut by a reload read there as if whole."""
    store.session_append(instance, "sess_001", {"role": "assistant", "content": "The road",
                                                 "turn": 1, "interrupted": True})
    body = alice_client.get(f"/instances/{instance}/history/").content.decode()
    assert '<span class="tag">interrupted</span>' in body


# --- the views ------------------------------------------------------------------------


def test_the_history_page_changes_messages_through_the_api(store, instance, alice_client):
    """One way in per action: its forms name the REST routes (history.js sends them); the
    form endpoints it used to post to are gone."""
    chat_lines_append(store, instance, 1)
    row = history_row(store, instance, "answer 1")
    page = alice_client.get(f"/instances/{instance}/history/").content.decode()
    message = f"/api/v1/instances/{instance}/sessions/sess_001/messages/{row['index']}"
    assert f'data-api="edit" data-url="{message}"' in page
    assert f'data-api="delete" data-url="{message}"' in page
    assert f'data-undo-url="/api/v1/instances/{instance}/history/undo"' in page
    assert f'<script type="module" src="{static("history.js")}">' in page
    for gone in ("edit", "delete", "hide", "undo", "swipe"):
        assert alice_client.post(f"/instances/{instance}/history/{gone}").status_code == 404
    edited = alice_client.put(message, {"fingerprint": row["fingerprint"],
                                        "text": "new <b>answer</b>"},
                              content_type="application/json")
    assert edited.status_code == 200
    rows = alice_client.get(f"/instances/{instance}/history/rows",
                            {"session": "sess_001"}).content.decode()
    assert "new &lt;b&gt;answer&lt;/b&gt;" in rows


def _undo_token(store, instance):
    tokens = store.memory_json_read(instance, "undo", {"tokens": {}})["tokens"]
    assert len(tokens) == 1
    return next(iter(tokens))


def test_another_user_gets_404_everywhere(store, instance, client, bob):
    chat_lines_append(store, instance, 1)
    before = _file_lines(store, instance)
    row = history_row(store, instance, "answer 1")
    client.force_login(bob)
    base = f"/instances/{instance}/history"
    assert client.get(f"{base}/").status_code == 404
    assert client.get(f"{base}/rows", {"session": "sess_001"}).status_code == 404
    api = f"/api/v1/instances/{instance}"
    message = f"{api}/sessions/sess_001/messages/{row['index']}"
    for method, url, data in (
            ("put", message, {"fingerprint": row["fingerprint"], "text": "x"}),
            ("delete", f"{message}?fingerprint={row['fingerprint']}", None),
            ("post", f"{api}/history/undo", {"token": "t"}),
            ("post", f"{api}/sessions/sess_001/swipe", {"turn": 1, "alternative": 0})):
        response = getattr(client, method)(url, data, content_type="application/json")
        assert response.status_code == 404, url
    assert client.get("/instances/inst_999/history/").status_code == 404
    assert _file_lines(store, instance) == before


def test_anonymous_is_sent_to_login(instance, client):
    response = client.get(f"/instances/{instance}/history/")
    assert response.status_code == 302 and "/login/" in response["Location"]


# --- the next prompt uses the edited text, swipes -----------------------------------------


async def _turn(store, instance_id, text="", **flags):
    async def emit(event):
        return None

    return await turn_run(store, instance_id=instance_id, user_text=text, emit=emit, **flags)


@pytest.mark.django_db(transaction=True)
async def test_the_next_prompt_uses_the_edited_text(store, instance, use_stub):
    use_stub.script(Reply("first answer"), Reply("second answer"))
    await _turn(store, instance, "original question")
    row = history_row(store, instance, "original question")
    history.message_edit(store, instance_id=instance, session_id="sess_001", index=row["index"],
                         fingerprint=row["fingerprint"], text="edited question")
    await _turn(store, instance, "next")
    sent = json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)
    assert "edited question" in sent and "original question" not in sent


@pytest.mark.django_db(transaction=True)
async def test_swipe_keeps_every_version_and_the_director_counts_the_kept_one(store, instance,
                                                                            use_stub):
    start = store.instance_state_read(instance)["plot_state"]
    use_stub.script(Reply("A [PROGRESS:2:in_progress]"), Reply("B no marker"),
                    Reply("C [PROGRESS:3:completed]"))
    await _turn(store, instance, "hello")
    assert store.instance_state_read(instance)["plot_state"]["current_plot_index"] == 2
    await _turn(store, instance, regenerate=True)
    after_b = store.instance_state_read(instance)["plot_state"]
    assert after_b == {**start, "no_update_count": 1}
    await _turn(store, instance, regenerate=True)
    assert store.instance_state_read(instance)["plot_state"]["current_plot_index"] == 3

    line = _file_lines(store, instance)[-1]
    assert [a["content"] for a in line["alternatives"]] == ["A [PROGRESS:2:in_progress]",
                                                           "B no marker"]
    # ‹ from C (3/3) shows B (2/3): the director counts B alone, from the state before turn 1.
    result = history.reply_choose_alternative(store, instance_id=instance, session_id="sess_001",
                                              turn=1, alternative_index=1)
    assert result["version"] == 2 and result["versions"] == 3 and result["director_reapplied"]
    line = _file_lines(store, instance)[-1]
    assert line["content"] == "B no marker" and line["alternative_position"] == 1
    assert store.instance_state_read(instance)["plot_state"] == after_b
    # ‹ again shows A (1/3).
    history.reply_choose_alternative(store, instance_id=instance, session_id="sess_001",
                                     turn=1, alternative_index=0)
    line = _file_lines(store, instance)[-1]
    assert line["content"] == "A [PROGRESS:2:in_progress]" and line["alternative_position"] == 0
    state = store.instance_state_read(instance)["plot_state"]
    assert (state["current_plot_index"], state["current_status"], state["no_update_count"]) == (
        2, "in_progress", 0)
    # › twice is back at C; each version kept with its own trace.
    for _ in range(2):
        page = history_read.messages_page(store, instance_id=instance, session_key="sess_001")
        last = page["rows"][-1]
        history.reply_choose_alternative(store, instance_id=instance, session_id="sess_001",
                                         turn=1, alternative_index=last["version"] - 1)
    line = _file_lines(store, instance)[-1]
    assert line["content"] == "C [PROGRESS:3:completed]"
    assert {v["content"] for v in history.reply_versions(line)} == {
        "A [PROGRESS:2:in_progress]", "B no marker", "C [PROGRESS:3:completed]"}
    assert len({v["trace_id"] for v in history.reply_versions(line)}) == 3
    state = store.instance_state_read(instance)["plot_state"]
    assert (state["current_plot_index"], state["current_status"]) == (3, "completed")
    with pytest.raises(history_base.HistoryError):
        history.reply_choose_alternative(store, instance_id=instance, session_id="sess_001",
                                         turn=1, alternative_index=2)


@pytest.mark.django_db(transaction=True)
async def test_regenerate_after_a_swipe_keeps_every_version_in_its_place(store, instance,
                                                                        use_stub):
    """As SillyTavern's swipes: back at 1/3, regenerating adds 4/4 and 1/4-3/4 are still the
    first three replies in the order they came."""
    use_stub.script(Reply("A"), Reply("B"), Reply("C"), Reply("D"))
    await _turn(store, instance, "hello")
    await _turn(store, instance, regenerate=True)
    await _turn(store, instance, regenerate=True)
    history.reply_choose_alternative(store, instance_id=instance, session_id="sess_001", turn=1,
                                     alternative_index=0)
    await _turn(store, instance, regenerate=True)
    line = _file_lines(store, instance)[-1]
    assert line["content"] == "D"
    assert [v["content"] for v in history.reply_versions(line)] == ["A", "B", "C", "D"]
    page = history_read.messages_page(store, instance_id=instance, session_key="sess_001")
    assert (page["rows"][-1]["version"], page["rows"][-1]["versions"]) == (4, 4)


def test_swipe_view_from_the_chat_page(store, instance, alice_client):
    chat_lines_append(store, instance, 1)
    lines = store.session_read(instance, "sess_001").lines
    last = {**lines[-1], "alternatives": [{"content": "older <i>reply</i>", "timestamp": "t0"}]}
    store.session_rewrite(instance, "sess_001",
                          [store.session_read(instance, "sess_001").metadata, *lines[:-1], last])
    api = f"/api/v1/instances/{instance}/sessions/sess_001/swipe"
    response = alice_client.post(api, {"turn": 1, "alternative": 0},
                                 content_type="application/json")
    assert response.status_code == 200
    body = alice_client.get(f"/instances/{instance}/messages/line",
                            {"session": "sess_001", "index": len(lines) - 1}).content.decode()
    assert "older &lt;i&gt;reply&lt;/i&gt;" in body and "1/2" in body
    assert _file_lines(store, instance)[-1]["alternatives"][0]["content"] == "answer 1"
    # No trace to restore plot_state from: the versions flip, the director is left alone.
    refused = alice_client.post(api, {"turn": 1, "alternative": 5},
                                content_type="application/json")
    assert refused.status_code == 404 and refused.json()["error"]["message"]


def test_swipe_control_renders_position_and_arrows(instance, alice):
    from django.template.loader import render_to_string

    class Row:
        instance_id = instance

    def render(line, **extra):
        return render_to_string("chat/_swipe.html", {
            "line": line, "state": {"current_session_id": "sess_001"}, "instance": Row(),
            **extra})

    alternatives = [{"content": "a"}, {"content": "b"}]
    newest = render({"role": "assistant", "turn": 4, "alternatives": alternatives},
                    swipe_last=True)
    assert "3/3" in newest and newest.count("<button") == 2
    assert 'data-alternative="1"' in newest  # ‹ shows the version just before
    # › at the newest version asks for a new one, as SillyTavern's swipe right does
    assert "disabled" not in newest and 'data-alternative="new"' in newest
    first = render({"role": "assistant", "turn": 4, "alternatives": alternatives,
                    "alternative_position": 0}, swipe_last=True)
    assert "1/3" in first and 'data-alternative="0"' in first and first.count("disabled") == 1
    older = render({"role": "assistant", "turn": 2, "alternatives": alternatives})
    assert "3/3" in older and "<button" not in older  # only the latest reply can flip
    single = render({"role": "assistant", "turn": 4}, swipe_last=True)
    assert "1/1" in single and 'data-alternative="new"' in single
    assert render({"role": "assistant", "turn": 4}).strip() == ""
    greeting = render({"role": "assistant", "turn": None, "alternatives": alternatives},
                      swipe_last=True)  # the alternate greetings end there
    assert "3/3" in greeting and '"new"' not in greeting and greeting.count("disabled") == 1


@pytest.mark.django_db(transaction=True)
async def test_deleting_the_latest_reply_takes_back_its_director_count_and_undo_restores(
        store, instance, use_stub):
    start = store.instance_state_read(instance)["plot_state"]
    use_stub.script(Reply("A [PROGRESS:2:in_progress]"))
    await _turn(store, instance, "hello")
    counted = store.instance_state_read(instance)["plot_state"]
    assert counted["current_plot_index"] == 2
    row = history_row(store, instance, "A [PROGRESS:2:in_progress]")
    result = history.message_delete(store, instance_id=instance, session_id="sess_001",
                                    index=row["index"], fingerprint=row["fingerprint"])
    assert result["plot_state_restored"]
    assert store.instance_state_read(instance)["plot_state"] == start
    history.undo(store, instance_id=instance, token=result["undo_token"])
    assert store.instance_state_read(instance)["plot_state"] == counted
    assert _file_lines(store, instance)[-1]["content"] == "A [PROGRESS:2:in_progress]"


# --- branch ----------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_branch_starts_a_new_session_up_to_a_line_and_leaves_the_old_one(store, instance,
                                                                            use_stub):
    use_stub.script(Reply("one [PROGRESS:2:in_progress]"), Reply("two [PROGRESS:3:completed]"),
                    Reply("three"))
    await _turn(store, instance, "first question")
    after_first = store.instance_state_read(instance)["plot_state"]
    await _turn(store, instance, "second question")
    before = store.session_path(instance, "sess_001").read_bytes()
    row = history_row(store, instance, "one [PROGRESS:2:in_progress]")

    result = history.session_branch(store, instance_id=instance, session_id="sess_001",
                                    index=row["index"], fingerprint=row["fingerprint"])

    assert result["session_id"] == "sess_002" and result["plot_state_restored"]
    assert store.session_path(instance, "sess_001").read_bytes() == before
    state = store.instance_state_read(instance)
    assert state["current_session_id"] == "sess_002" and state["plot_state"] == after_first
    lines = _file_lines(store, instance, "sess_002")
    assert lines[0]["branched_from"] == {"session_id": "sess_001", "index": row["index"]}
    assert [line["content"] for line in lines[1:]] == ["first question",
                                                       "one [PROGRESS:2:in_progress]"]
    result = await _turn(store, instance, "another way")
    assert result.session_id == "sess_002" and result.turn == 2
    sent = json.dumps(use_stub.requests[-1]["messages"], ensure_ascii=False)
    assert "first question" in sent and "second question" not in sent


def test_branch_from_a_stale_page_is_refused_and_creates_nothing(store, instance):
    chat_lines_append(store, instance, 2)
    row = history_row(store, instance, "answer 1")
    history.message_edit(store, instance_id=instance, session_id="sess_001", index=row["index"],
                         fingerprint=row["fingerprint"], text="answer 1, edited")
    with pytest.raises(history_base.HistoryError) as refused:
        history.session_branch(store, instance_id=instance, session_id="sess_001",
                               index=row["index"], fingerprint=row["fingerprint"])
    assert refused.value.status == 409
    assert store.session_ids(instance) == ["sess_001"]
    assert store.instance_state_read(instance)["current_session_id"] == "sess_001"


def test_a_history_page_of_a_long_session_shows_what_a_whole_read_shows(store, instance):
    read = store.session_read(instance, "sess_001")
    lines = []
    for n in range(2500):
        lines.append({"role": "user" if n % 2 == 0 else "assistant", "content": f"第{n}句",
                      "turn": n // 2 + 1, **({"hidden": True} if n % 97 == 0 else {})})
        if n % 300 == 0:
            lines.append({"type": "summary", "content": f"摘要句{n}"})
            lines.append({"type": "note", "content": f"旁白句{n}"})  # notes are listed too
    store.session_rewrite(instance, "sess_001", [read.metadata, *lines])
    with store.session_path(instance, "sess_001").open("ab") as handle:
        handle.write(b'{"role": "user", broken}\n'
                     b'{"role":"assistant","turn":1251,"streaming":true,"content":"\xe6\xb5\x81')
    with store.instance_lock(instance):  # the reply is streaming: a turn holds the chat
        for page in (None, 1, 7, 13, 999, -3):
            paged = history_read.messages_page(store, instance_id=instance,
                                               session_key="sess_001", page=page, page_size=100)
            # a search every row matches reads the whole session and pages the same rows
            whole = history_read.messages_page(store, instance_id=instance,
                                               session_key="sess_001", page=page, page_size=100,
                                               query="句")
            assert {**paged, "query": ""} == {**whole, "query": ""}
            assert paged["total"] == 2518 and paged["streaming"] and len(paged["problems"]) == 1
            assert paged["rows"][-1]["is_last_reply"] is (page in (None, 999))
    row = next(r for r in history_read.session_list(store, instance_id=instance)
               if r["session_id"] == "sess_001")
    # The session list counts what the pager counts: every line the history lists.
    assert row["message_count"] == paged["total"] == 2518 and row["problems"] == 1


def test_a_history_page_with_system_lines_still_pages_summaries_right(store, instance):
    read = store.session_read(instance, "sess_001")
    lines = [{"role": "system", "type": "summary", "content": "系统摘要句"},
             {"role": "system", "content": "旁白句"}]
    lines += [{"role": "user", "content": f"第{n}句", "turn": n + 1} for n in range(250)]
    store.session_rewrite(instance, "sess_001", [read.metadata, *lines])
    for page in (1, 3):
        paged = history_read.messages_page(store, instance_id=instance, session_key="sess_001",
                                      page=page, page_size=100)
        whole = history_read.messages_page(store, instance_id=instance, session_key="sess_001",
                                      page=page, page_size=100, query="句")
        assert {**paged, "query": ""} == {**whole, "query": ""}
    assert paged["total"] == 251
    row = next(r for r in history_read.session_list(store, instance_id=instance)
               if r["session_id"] == "sess_001")
    assert row["message_count"] == 251


def test_the_session_list_and_the_pager_give_one_count_and_the_players_name(store, instance,
                                                                          alice_client):
    """An imported chat: a narrator line and a summary are listed, so both counts hold them;
    the player's lines carry the name they were written under, as on the chat page."""
    read = store.session_read(instance, "sess_001")
    lines = [{"type": "summary", "content": "Earlier, at the harbor."},
             {"role": "user", "name": "Ann", "content": "Is it late?", "turn": 1},
             {"type": "note", "name": "Narrator", "is_system": False, "content": "Night falls."},
             {"role": "assistant", "content": "It is.", "turn": 1},
             {"role": "user", "content": "Then rest.", "turn": 2}]
    store.session_rewrite(instance, "sess_001", [read.metadata, *lines])
    page = alice_client.get(f"/instances/{instance}/history/").content.decode()
    counts = re.findall(r"(\d+) messages?\b", page)  # the session list's, the pager's
    assert len(counts) >= 2 and set(counts) == {"5"}
    # Each name is followed by the message's number (shown when the reader asks for it).
    number = r'<span class="msg-number muted"> #\d+</span>'
    assert re.search(f'<div class="who"><bdi>Ann</bdi>{number} · turn 1', page)
    player = persona_effective(store, owner=store.instance_state_read(instance).get("owner"),
                               persona_id=None)["name"]  # the chat page's {{user}}
    assert re.search(f'<div class="who"><bdi>{re.escape(player)}</bdi>{number} · turn 2', page)
    assert '<div class="who"><bdi>You' not in page


def test_a_branch_counts_its_messages_as_the_session_list_does(store, instance):
    """A summary and a narrator line are listed messages; the branch's answer counted only the
    player's and the characters' lines (14 against the list's 518 on a summarized chat)."""
    read = store.session_read(instance, "sess_001")
    lines = [{"type": "summary", "content": "Earlier, at the harbor."},
             {"role": "user", "content": "Is it late?", "turn": 1},
             {"type": "note", "name": "Narrator", "is_system": False, "content": "Night falls."},
             {"role": "assistant", "content": "It is.", "turn": 1},
             {"role": "user", "content": "Then rest.", "turn": 2}]
    store.session_rewrite(instance, "sess_001", [read.metadata, *lines])
    row = history_row(store, instance, "It is.")
    branch = history.session_branch(store, instance_id=instance, session_id="sess_001",
                                    index=row["index"], fingerprint=row["fingerprint"])
    listed = history_read.messages_page(store, instance_id=instance,
                                        session_key=branch["session_id"], page_size=1000)
    assert branch["message_count"] == listed["total"] == 4


def test_a_reply_a_crash_cut_is_listed_once_nothing_streams_it(store, instance):
    """After kill -9 mid-reply the history said "streaming" and left the cut reply out, until
    another route completed the line (long-chat probe); a reply being written stays apart."""
    store.session_append(instance, "sess_001", {"role": "user", "content": "go on", "turn": 1})
    with store.session_path(instance, "sess_001").open("ab") as handle:
        handle.write(b'{"role":"assistant","turn":1,"streaming":true,"content":"half a rep')
    page = history_read.messages_page(store, instance_id=instance, session_key="sess_001")
    assert page["streaming"] is False
    assert (page["rows"][-1]["content"], page["rows"][-1]["role"]) == ("half a rep", "assistant")
    assert store.session_read(instance, "sess_001").messages[-1]["interrupted"] is True
