"""A group's turn on a long chat reads only the newest lines its window holds, and its prompt,
warnings and trace are what a whole read gives: the lines before the stretch are weighed as the
speaker's prompt shows them ("Ann: …" counts other than "Ann: " and the text apart)."""

from __future__ import annotations

import dataclasses

import pytest

from chat.groups import before_tally
from chat.groups.before_tally import group_before_for_speaker
from chat.groups.speakers import Pick
from chat.play.context import context_load, context_prepare
from chat.services.instances import instance_create
from library.selectors import character_for_chat, persona_effective
from personalab.lib.filestore.kept_tally import kept_tally_path
from personalab.lib.filestore.session_stretch import LinesSource
from personalab.lib.trace_refs import conversation_refer

pytestmark = pytest.mark.django_db(transaction=True)

# Texts whose tokens change when "Name: " goes before them (cl100k merges across the join).
TEXTS = ("'s the key under the stairs?", "  spaced out", "...and then?", "!!! no way",
         "123 boats at the pier", "的灯塔还亮着吗？", "\nthe storm came at night")


@pytest.fixture
def group(store, alice, character, brenna):  # noqa: F811
    return instance_create(store, owner=alice, character_ids=[character, brenna],
                           reply_order="everyone")


def _long_group_session(store, group, character, brenna, count: int = 900) -> str:
    session_id = store.instance_state_read(group)["current_session_id"]
    read = store.session_read(group, session_id)
    lines = [{"type": "summary", "content": "前情：灯塔的钥匙丢了。"},
             # a member who has left: its line keeps its own {{char}}
             {"role": "assistant", "speaker": "gone_member", "name": "Gone",
              "content": "{{char}} waves at {{user}}.", "turn": 1}]
    speakers = ((character, "Alserqi"), (brenna, "Brenna"))
    for n in range(count):
        text = f"{TEXTS[n % len(TEXTS)]} ({n})"
        if n % 3 == 0:
            line = {"role": "user", "content": text, "turn": n // 3 + 1}
            if n % 9:
                line["name"] = "Ann"  # the rest said under no name: the persona's
        else:
            speaker, name = speakers[n % 3 - 1]
            line = {"role": "assistant", "content": text, "turn": n // 3 + 1,
                    "speaker": speaker, "name": name}
            if n % 7 == 0:
                del line["speaker"]  # judged by its name
            if n % 11 == 0:
                line["content"] += " {{char}} nods."
        lines.append(line)
        if n == 300:
            lines.append({"type": "note", "content": "Night falls.", "is_system": False})
    store.session_rewrite(group, session_id, [read.metadata, *lines])
    config = store.config_read()
    config["limits"]["max_total_tokens"] = 3000
    config["limits"]["conversation_max_tokens"] = 50
    store.config_write(config)
    return session_id


def _prompt(prepared):
    conversation = next(s for s in prepared.prompt.sections if s.name == "conversation")
    return (prepared.prompt.messages, prepared.prompt.total_tokens,
            (conversation.omitted, conversation.tokens, conversation.note), prepared.warnings)


@pytest.mark.parametrize("who", ["character", "brenna"])
def test_a_group_turn_reads_only_the_newest_lines_and_builds_what_a_whole_read_builds(
        store, group, character, brenna, who):  # noqa: F811
    session_id = _long_group_session(store, group, character, brenna)
    speaker = Pick(character_id=character if who == "character" else brenna, reason="test")
    for text in ("灯塔怎么样了？", "然后呢？"):  # the second turn carries the first's tally on
        with store.instance_lock(group):
            ctx = context_load(store, instance_id=group, user_text=text, speaker=speaker)
        assert ctx.first_index > 500  # the lines before were never parsed for the window
        whole = store.session_read(group, session_id)
        assert ctx.lines == whole.lines[ctx.first_index:]
        full_ctx = dataclasses.replace(ctx, lines=list(whole.lines), first_index=0,
                                       lines_before=None, token_counts={}, before_source=None)
        newest, everything = context_prepare(store, ctx, {}), context_prepare(store, full_ctx, {})
        assert _prompt(newest) == _prompt(everything)
        overflow = next(w for w in newest.warnings if w["category"] == "conversation_overflow")
        assert overflow["current_value"] > ctx.lines_before.message_tokens > 5000
        assert conversation_refer(newest.prompt.messages, ctx.lines, session_id=session_id,
                                  first_index=ctx.first_index) == conversation_refer(
            everything.prompt.messages, full_ctx.lines, session_id=session_id)
        assert "gone_member" in ctx.speakers_before


def test_the_raw_tally_would_have_told_another_figure(store, group, character, brenna):  # noqa: F811
    """What the bounded read once gave up on: the index's counts of the texts alone are not
    what the renamed lines weigh."""
    _long_group_session(store, group, character, brenna)
    speaker = Pick(character_id=brenna, reason="test")
    with store.instance_lock(group):
        ctx = context_load(store, instance_id=group, user_text="灯塔怎么样了？", speaker=speaker)
    raw = ctx.lines_before
    context_prepare(store, ctx, {})
    assert ctx.lines_before.message_tokens != raw.message_tokens
    assert ctx.lines_before.messages == raw.messages and ctx.lines_before.usable == raw.usable


def test_a_tally_carried_forward_or_back_is_the_tally_made_afresh(store, group, character,
                                                                  brenna):  # noqa: F811
    # a regenerate reads a line further back than the turn before it: taken back out
    session_id = _long_group_session(store, group, character, brenna)
    read = store.session_read(group, session_id, tokens=2000, overhead=4)
    source, state = read.before_source, store.instance_state_read(group)
    persona = persona_effective(store, owner=state.get("owner"), persona_id=None)

    def weighed(first: int) -> int:
        moved = LinesSource(source.path, source._data, source._index, source._positions, first)
        return group_before_for_speaker(
            store, state=state, character=character_for_chat(store, state=state,
                                                              character_id=brenna),
            speaker_id=brenna, persona=persona, source=moved,
            before=read.lines_before).lines_before.message_tokens

    firsts = (source.first, source.first - 7, source.first - 2, source.first + 30, 300)
    carried = [weighed(first) for first in firsts]
    fresh = []
    for first in firsts:
        before_tally._held.clear()
        fresh.append(weighed(first))
    assert carried == fresh and len(set(fresh)) == len(fresh)


def _member_weighed(store, group, member, read):
    state = store.instance_state_read(group)
    persona = persona_effective(store, owner=state.get("owner"), persona_id=None)
    return group_before_for_speaker(
        store, state=state, character=character_for_chat(store, state=state, character_id=member),
        speaker_id=member, persona=persona, source=read.before_source,
        before=read.lines_before).lines_before.message_tokens


def test_a_new_process_goes_on_from_the_tally_kept_beside_the_file(store, group, character,
                                                                   brenna, monkeypatch):  # noqa: F811
    session_id = _long_group_session(store, group, character, brenna)
    read = store.session_read(group, session_id, tokens=2000, overhead=4)
    made = _member_weighed(store, group, brenna, read)
    path = store.session_path(group, session_id)
    assert kept_tally_path(path).exists()
    before_tally._held.clear()  # as a new process finds it
    asked = []
    lines = LinesSource.lines
    monkeypatch.setattr(LinesSource, "lines",
                        lambda self, start, stop: asked.append((start, stop)) or lines(
                            self, start, stop))
    assert _member_weighed(store, group, brenna, read) == made
    assert asked == []  # no older line parsed again


@pytest.mark.parametrize("damage", ["older_line_edited", "garbage"])
def test_a_kept_tally_the_file_no_longer_matches_is_made_afresh(store, group, character,
                                                                 brenna, damage):  # noqa: F811
    session_id = _long_group_session(store, group, character, brenna)
    read = store.session_read(group, session_id, tokens=2000, overhead=4)
    _member_weighed(store, group, brenna, read)
    path = store.session_path(group, session_id)
    before_tally._held.clear()
    if damage == "garbage":
        kept_tally_path(path).write_bytes(b'{"version": 1, "entries": {"x": 1}')
    else:  # an old line said otherwise, as an edit made by another process would
        whole = store.session_read(group, session_id)
        lines = list(whole.lines)
        lines[40] = {**lines[40], "content": lines[40]["content"] + " and much more said"}
        store.session_rewrite(group, session_id, [whole.metadata, *lines])
        read = store.session_read(group, session_id, tokens=2000, overhead=4)
    kept = _member_weighed(store, group, brenna, read)
    before_tally._held.clear()
    kept_tally_path(path).unlink()
    assert kept == _member_weighed(store, group, brenna, read)


def test_a_tally_made_a_piece_at_a_time_is_the_tally_made_at_once(store, group, character,
                                                                  brenna, monkeypatch):  # noqa: F811
    session_id = _long_group_session(store, group, character, brenna)
    read = store.session_read(group, session_id, tokens=2000, overhead=4)
    figures = []
    for piece in (100_000, 97):
        monkeypatch.setattr(before_tally, "_PIECE_LINES", piece)
        before_tally._held.clear()
        kept_tally_path(store.session_path(group, session_id)).unlink(missing_ok=True)
        figures.append(_member_weighed(store, group, brenna, read))
    assert figures[0] == figures[1] > 5000


def test_a_first_round_parses_the_older_lines_once_for_all_its_speakers(
        store, group, character, brenna, monkeypatch):  # noqa: F811
    session_id = _long_group_session(store, group, character, brenna)
    read = store.session_read(group, session_id, tokens=2000, overhead=4)
    asked = []
    lines = LinesSource.lines
    monkeypatch.setattr(LinesSource, "lines",
                        lambda self, start, stop: asked.append((start, stop)) or lines(
                            self, start, stop))
    made = {brenna: _member_weighed(store, group, brenna, read)}
    assert asked
    asked.clear()
    made[character] = _member_weighed(store, group, character, read)
    assert asked == []  # the first speaker's pass made the second's tally too
    # each as its speaker's tally made alone
    monkeypatch.setattr(before_tally, "members_of", lambda store, state: [])
    for member in (character, brenna):
        before_tally._held.clear()
        kept_tally_path(store.session_path(group, session_id)).unlink(missing_ok=True)
        assert _member_weighed(store, group, member, read) == made[member]
    assert asked and made[character] != made[brenna]


def test_a_member_that_cannot_be_read_is_left_to_its_own_turn(store, group, character, brenna,
                                                              monkeypatch):  # noqa: F811
    session_id = _long_group_session(store, group, character, brenna)
    read = store.session_read(group, session_id, tokens=2000, overhead=4)
    monkeypatch.setattr(before_tally, "character_for_chat_optional", lambda store, **_: {})
    made = _member_weighed(store, group, brenna, read)
    asked = []
    lines = LinesSource.lines
    monkeypatch.setattr(LinesSource, "lines",
                        lambda self, start, stop: asked.append((start, stop)) or lines(
                            self, start, stop))
    assert _member_weighed(store, group, character, read) != made
    assert asked  # its tally made at its own turn
