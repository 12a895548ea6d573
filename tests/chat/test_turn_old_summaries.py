"""An old session opening with many summary lines (decisions/summary-seed.md): what a turn gathers
of them is kept from turn to turn (the lines before the stretch, the tally of the lines the
prompt leaves out, the chat's line count), and the prompt the inspector shows is byte for byte
the one built with nothing kept, after the player's appends, another writer's edit of an old
summary line and a delete alike."""

from __future__ import annotations

import contextlib
import dataclasses
import json
from collections import OrderedDict

import pytest

from chat.groups.speakers import Pick
from chat.play import context
from chat.play.aside import aside_plan
from chat.play.context import _session_for_turn, context_load, context_prepare
from chat.play.impersonate import impersonate_plan
from chat.play.redo import _ends_with_player_line
from chat.play.window import turn_window
from chat.prompt import tally
from chat.services.members import instance_member_add
from library.character_services import character_save
from personalab.lib import file_trust, line_macros
from personalab.lib.filestore import lines_before, session_stretch

pytestmark = pytest.mark.django_db

SESSION = "sess_001"
SUMMARIES = 800


@pytest.fixture(params=["budget", "window"])
def old_session(request, store, instance, monkeypatch):
    """The session opens with SUMMARIES summary lines, then 10 messages; the conversation's
    budget, or the chat's context window, makes the stretch a turn reads begin among them."""
    monkeypatch.setattr(file_trust, "TICK_NS", -10**15)  # a write just now is believed
    read = store.session_read(instance, SESSION)
    lines = [{"type": "summary", "content": f"第{n}件事：{{{{user}}}}在港口找到第{n}把钥匙。"}
             for n in range(SUMMARIES)]
    lines += [{"role": role, "content": f"第{turn}轮，{role}说起灯塔（{{{{lastMessageId}}}}）。",
               "turn": turn, "timestamp": "2026-01-02T03:04:05Z"}
              for turn in range(1, 6) for role in ("user", "assistant")]
    store.session_rewrite(instance, SESSION, [read.metadata, *lines])
    if request.param == "budget":
        store.module_write("prompt", {**store.module_read("prompt"),
                                      "section_budgets": {"conversation": 600}})
    else:  # the server's limit would have the turn read every line
        state = store.instance_state_read(instance)
        state["generation"] = {"context_tokens": 3072}
        store.instance_state_write(instance, state)
    with store.instance_lock(instance):
        return context_load(store, instance_id=instance, user_text="灯塔怎么样了？")


@contextlib.contextmanager
def _nothing_kept():
    """What a turn keeps between turns, swapped for empty stores and put back after."""
    kept = [(file_trust, "_known", {}), (tally, "_tallies", []), (line_macros, "_counted", []),
            (lines_before, "_held", OrderedDict()), (session_stretch, "_stretches", OrderedDict())]
    held = [getattr(module, name) for module, name, _ in kept]
    for module, name, empty in kept:
        setattr(module, name, empty)
    try:
        yield
    finally:
        for (module, name, _), value in zip(kept, held):
            setattr(module, name, value)


def _shown(store, ctx, *, whole: bool = False) -> tuple[str, object]:
    """The turn's prompt as the inspector shows it (the trace's parts), from the session as it
    is now (`whole`: every line of it), and the turn's read."""
    read = (store.session_read(ctx.instance_id, SESSION) if whole else _session_for_turn(
        store, ctx.instance_id, SESSION, store.config_read(), newest_only=True,
        window=turn_window(store, ctx.instance_state)[0]))
    turn = dataclasses.replace(ctx, lines=list(read.lines), first_index=read.first_index,
                               lines_before=read.lines_before, token_counts=read.token_counts)
    prompt = context_prepare(store, turn, {}).prompt
    shown = {"messages": prompt.messages,
             "sections": [dataclasses.asdict(section) for section in prompt.sections],
             "total_tokens": prompt.total_tokens, "middle_tokens": prompt.middle_tokens,
             "dropped_blocks": prompt.dropped_blocks, "window": prompt.window,
             "warnings": prompt.warnings, "refused": prompt.refused}
    return json.dumps(shown, ensure_ascii=False), read


def _same_with_and_without_keeping(store, ctx):
    kept, read = _shown(store, ctx)
    with _nothing_kept():
        afresh, _ = _shown(store, ctx)
        assert _shown(store, ctx, whole=True)[0] == afresh
    assert kept == afresh
    return kept, read


def _edited(path, old: bytes, new: bytes) -> None:
    """Another program's edit of the file in place."""
    data = path.read_bytes()
    assert data.count(old) == 1
    with open(path, "r+b") as handle:
        handle.write(data.replace(old, new))


def _reply(store, instance, turn: int, *, words: int = 6) -> None:
    store.session_append(instance, SESSION, {
        "role": "assistant", "content": f"第{turn}轮，灯塔还亮着，" + "很长的回答。" * words,
        "turn": turn, "timestamp": "2026-01-02T03:04:05Z"})


def test_the_prompt_is_the_same_with_what_turns_keep_as_without(store, instance, old_session,
                                                                  monkeypatch):
    ctx = old_session
    shown, read = _same_with_and_without_keeping(store, ctx)
    assert 0 < len(read.lines_before.summaries) and 0 < read.first_index < SUMMARIES
    assert "summary lines kept (the newest)" in shown
    assert f"说起灯塔（{SUMMARIES + 10}）" in shown  # the player's line is the 311th

    parsed = []
    line_at = lines_before._line_at
    monkeypatch.setattr(lines_before, "_line_at", lambda *args: parsed.append(args[2])
                        or line_at(*args))
    for turn in range(6, 9):  # the player's turns: the stretch begins later each time
        for role in ("user", "assistant"):
            store.session_append(instance, SESSION, {
                "role": role, "content": f"第{turn}轮，{role}说起灯塔，" + "很长的话。" * 4,
                "turn": turn, "timestamp": "2026-01-02T03:04:05Z"})
        before = len(parsed)
        kept, again = _shown(store, ctx)
        # Only the summary lines the stretch left behind since the last turn were parsed.
        assert 0 < len(parsed) - before <= again.first_index - read.first_index
        with _nothing_kept():
            assert _shown(store, ctx)[0] == kept
        read = again

    path = store.session_path(instance, SESSION)
    _edited(path, "第3件事".encode(), "第三件事".encode())  # an old summary, before the stretch
    shown, _ = _same_with_and_without_keeping(store, ctx)
    _edited(path, f"第{SUMMARIES - 1}件事".encode(), "最后一件事".encode())  # the newest one
    shown, _ = _same_with_and_without_keeping(store, ctx)
    assert "最后一件事" in shown

    whole = store.session_read(instance, SESSION)
    kept = [line for n, line in enumerate(whole.lines) if n not in (5, SUMMARIES - 2)]
    store.session_rewrite(instance, SESSION, [whole.metadata, *kept])  # two summaries deleted
    shown, read = _same_with_and_without_keeping(store, ctx)
    assert f"第{SUMMARIES - 2}件事" not in shown and len(read.lines_before.summaries) > 0


def _said(prompt) -> str:
    return json.dumps({"messages": prompt.messages,
                       "sections": [dataclasses.asdict(section) for section in prompt.sections],
                       "total_tokens": prompt.total_tokens, "middle_tokens": prompt.middle_tokens,
                       "dropped_blocks": prompt.dropped_blocks, "window": prompt.window,
                       "warnings": prompt.warnings, "refused": prompt.refused},
                      ensure_ascii=False)


def _redone(store, instance, redo: str):
    """The prompt of a regenerate or continue of the last reply, and its turn's context."""
    with store.instance_lock(instance):
        ctx = context_load(store, instance_id=instance, user_text="",
                           **{"regenerate" if redo == "regenerate" else "continue_reply": True})
    return _said(context_prepare(store, ctx, {}).prompt), ctx


def _turn_played(store, instance, turn: int, *, words: int = 6) -> None:
    store.session_append(instance, SESSION, {"role": "user", "turn": turn,
                                             "content": f"第{turn}轮，灯塔下有人吗？",
                                             "timestamp": "2026-01-02T03:04:05Z"})
    _reply(store, instance, turn, words=words)


@pytest.mark.parametrize("redo", ["regenerate", "continue"])
def test_a_redo_reads_back_as_far_as_a_plain_turn_and_its_prompt_is_the_same(
        store, instance, old_session, redo, monkeypatch):
    # more messages than the prompt holds, the newest a long reply: counted in the read, its
    # prompt (which leaves it out) would want the messages before the read's stretch
    _reply(store, instance, old_session.turn)
    for turn in range(old_session.turn + 1, old_session.turn + 60):
        _turn_played(store, instance, turn, words=60 if turn == old_session.turn + 59 else 6)
    read_whole, wholes = context._session_whole, []
    monkeypatch.setattr(context, "_session_whole",
                        lambda *args: wholes.append(1) or read_whole(*args))

    def same_as_whole_read() -> str:
        shown, ctx = _redone(store, instance, redo)
        # the read stops among the messages, and the prompt needs nothing older
        assert ctx.first_index > SUMMARIES and len(ctx.lines_before.summaries) == SUMMARIES
        assert wholes == []
        with _nothing_kept(), monkeypatch.context() as whole:
            whole.setattr(context, "_session_for_turn", lambda store, instance_id, session_id,
                          config, **_: store.session_read(instance_id, session_id))
            assert _redone(store, instance, redo)[0] == shown
        return shown

    same_as_whole_read()
    for turn in range(old_session.turn + 60, old_session.turn + 80):  # the player's turns since
        _turn_played(store, instance, turn, words=60 if turn == old_session.turn + 79 else 6)
    same_as_whole_read()
    # the redo's new reply takes the old one's place (a tail change, not an append): what the
    # last read tallied of the lines before its stretch is carried on, none of them parsed again
    whole = store.session_read(instance, SESSION)
    store.session_tail_replace(instance, SESSION, first=len(whole.lines) - 1, lines=[
        {**whole.lines[-1], "content": "灯塔熄了。" * 50}])
    parsed = []
    line_at = lines_before._line_at
    monkeypatch.setattr(lines_before, "_line_at", lambda *args: parsed.append(args[2])
                        or line_at(*args))
    _redone(store, instance, redo)
    assert len(parsed) < 10
    same_as_whole_read()
    path = store.session_path(instance, SESSION)
    _edited(path, "第3件事".encode(), "第三件事".encode())  # another writer, an old summary
    same_as_whole_read()
    _edited(path, f"第{SUMMARIES - 1}件事".encode(), "最后一件事".encode())  # the newest one
    same_as_whole_read()


def test_a_reply_longer_than_the_conversations_room_is_cut_not_refused(store, instance,
                                                                       old_session):
    # the newest reply outweighs the room, and the prompt cuts it to fit: the read, stopped
    # at it, holds too few lines, and their tally (the summary lines) must not refuse the turn
    _reply(store, instance, old_session.turn, words=250)
    store.session_append(instance, SESSION, {"role": "user", "content": "然后呢？",
                                             "turn": old_session.turn + 1,
                                             "timestamp": "2026-01-02T03:04:05Z"})
    shown, _ = _same_with_and_without_keeping(store, old_session)
    assert '"refused": null' in shown and "cut in the middle" in shown


def test_a_trigger_and_an_impersonation_read_back_as_far_as_a_plain_turn(store, instance,
                                                                         old_session,
                                                                         monkeypatch):
    # the chat ends with the player's line (old_session wrote it): a trigger answers it, an
    # impersonation suggests the player's next one, each from the newest lines only
    for turn in range(old_session.turn + 1, old_session.turn + 60):
        _turn_played(store, instance, turn)
    store.session_append(instance, SESSION, {"role": "user", "content": "灯塔下有人吗？",
                                             "turn": old_session.turn + 60,
                                             "timestamp": "2026-01-02T03:04:05Z"})

    def triggered() -> tuple[str, object]:
        with store.instance_lock(instance):
            ctx = context_load(store, instance_id=instance, user_text="", trigger=True)
            suggested = impersonate_plan(store, instance_id=instance).messages
        return _said(context_prepare(store, ctx, {}).prompt) + json.dumps(suggested), ctx

    def same_as_whole_read() -> None:
        shown, ctx = triggered()
        assert ctx.first_index > SUMMARIES and len(ctx.lines_before.summaries) == SUMMARIES
        with _nothing_kept(), monkeypatch.context() as whole:
            whole.setattr(context, "_session_for_turn", lambda store, instance_id, session_id,
                          config, **_: store.session_read(instance_id, session_id))
            assert triggered()[0] == shown

    same_as_whole_read()
    _edited(store.session_path(instance, SESSION), "第3件事".encode(), "第三件事".encode())
    same_as_whole_read()


def test_an_aside_sees_the_newest_lines_as_a_read_of_the_whole_file_does(store, instance,
                                                                         old_session,
                                                                         monkeypatch):
    # the aside's few recent lines are picked through the line index, a hidden one among them
    for turn in range(old_session.turn + 1, old_session.turn + 20):
        _turn_played(store, instance, turn)
    store.session_append(instance, SESSION, {"role": "assistant", "content": "（藏起来的话）",
                                             "hidden": True, "turn": old_session.turn + 19,
                                             "timestamp": "2026-01-02T03:04:05Z"})
    picked = aside_plan(store, instance_id=instance, speaker=None, text="你还好吗？").messages
    monkeypatch.setattr(store, "session_read", lambda instance_id, session_id, **_: type(
        store).session_read(store, instance_id, session_id))
    assert aside_plan(store, instance_id=instance, speaker=None, text="你还好吗？").messages \
        == picked
    assert "（藏起来的话）" not in json.dumps(picked, ensure_ascii=False)


def test_a_redo_asked_for_looks_at_the_last_message_only(store, instance, old_session):
    # regenerate / continue first ask whether the chat ends with the player's line (then the
    # missing reply is asked for instead): the last message, a note after it passed over
    assert _ends_with_player_line(store, instance) == (True, False)
    store.session_append(instance, SESSION, {"type": "note", "content": "（旁白）"})
    assert _ends_with_player_line(store, instance) == (True, False)
    _reply(store, instance, old_session.turn)
    assert _ends_with_player_line(store, instance) == (False, False)


def test_a_group_turn_reads_back_as_far_as_a_plain_turn_and_its_prompt_is_the_same(
        store, instance, alice, character, old_session, monkeypatch):
    # a group's lines are renamed per speaker ("Mira: …"): the newest lines are read, those
    # before them weighed as the speaker reads them (chat/groups/before_tally.py)
    other = character_save(store, data={"name": "Mira", "base_persona": "废土医生。",
                                        "greeting": "", "tags": "废土"}, character_id=None,
                           user=alice)
    instance_member_add(store, user=alice, instance_id=instance, character_id=other)
    config = store.config_read()  # the session's tokens are told ("the session file is long")
    store.config_write({**config, "limits": {**config.get("limits", {}),
                                             "conversation_max_tokens": 100}})

    def answered(by: str) -> tuple[str, object]:
        with store.instance_lock(instance):
            ctx = context_load(store, instance_id=instance, user_text="", trigger=True,
                               speaker=Pick(by, "test"))
        return _said(context_prepare(store, ctx, {}).prompt), ctx

    def same_as_whole_read(*, bounded: bool) -> None:
        for by in (character, other):
            shown, ctx = answered(by)
            assert (ctx.first_index > 0) == bounded
            with _nothing_kept(), monkeypatch.context() as whole:
                whole.setattr(context, "_session_for_turn", lambda store, instance_id,
                              session_id, config, **_: store.session_read(instance_id,
                                                                          session_id))
                assert answered(by)[0] == shown

    same_as_whole_read(bounded=True)
    for turn in range(old_session.turn + 1, old_session.turn + 3):  # the members' replies
        store.session_append(instance, SESSION, {
            "role": "assistant", "speaker": other, "name": "Mira", "turn": turn - 1,
            "content": f"第{turn}轮，{{{{char}}}}看着灯塔。", "timestamp": "2026-01-02T03:04:05Z"})
        store.session_append(instance, SESSION, {"role": "user", "turn": turn,
                                                 "content": f"第{turn}轮，灯塔下有人吗？",
                                                 "timestamp": "2026-01-02T03:04:05Z"})
    same_as_whole_read(bounded=True)
    _edited(store.session_path(instance, SESSION), "第3件事".encode(), "第三件事".encode())
    same_as_whole_read(bounded=True)
    for turn in range(old_session.turn + 3, old_session.turn + 60):
        _turn_played(store, instance, turn)
    same_as_whole_read(bounded=True)  # messages before the newest lines: still the same
