"""Macros as SillyTavern 1.12.6 reads them (public/scripts/macros.js `evaluateMacros`, the
card fields of `substituteParams`): {{user}}, {{char}}, variables and the rest are filled
before {{random}} / {{pick}} roll and {{reverse}} turns, so their choices may name them; and
the macros cards use that were left as written here."""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime

from chat.play.macros import chat_pick_seed, macro_values_for
from personalab.lib.line_macros import last_messages_shown
from personalab.lib.macros import idle_duration_text, macros_replace

VALUES = {"user": "Ann", "char": "Pia"}


def test_random_and_pick_choose_among_filled_in_macros():
    seen = {macros_replace("{{random::{{user}} smiles::{{char}} frowns}}", VALUES,
                           rng=random.Random(n)) for n in range(40)}
    assert seen == {"Ann smiles", "Pia frowns"}
    assert {macros_replace("{{random:{{user}}, {{char}}}}", VALUES, rng=random.Random(n))
            for n in range(40)} == {"Ann", "Pia"}
    assert macros_replace("{{pick::{{user}}::{{char}}}}", VALUES, seed="chat") in {"Ann", "Pia"}


def test_variables_and_reverse_nest_too_and_a_value_is_not_read_again():
    assert macros_replace("{{setvar::mood::calm}}{{random::{{getvar::mood}}}}", VALUES) == "calm"
    assert macros_replace("{{reverse:{{char}}!}}", VALUES) == "!aiP"
    # The name is inserted as text: a persona named "{{char}}" stays that in the choice.
    assert macros_replace("{{random::{{user}}}}", {"user": "{{char}}", "char": "Pia"}) == "{{char}}"


def test_an_unclosed_nest_stays_as_written_and_costs_little():
    assert macros_replace("{{random::{{user}}", VALUES) == "{{random::Ann"
    started = time.perf_counter()
    macros_replace("{{random::{{a}}" * 20_000, VALUES)
    assert time.perf_counter() - started < 2


def test_sillytaverns_other_macros_a_card_may_use():
    now = datetime(2026, 12, 1, 14, 5, tzinfo=UTC)
    group = {**VALUES, "group": "Pia, Bo", "charIfNotGroup": "Pia, Bo"}
    assert macros_replace("{{time_UTC+2}} / {{time_utc-5}}", VALUES, now=now) == "4:05 PM / 9:05 AM"
    # moment's utcOffset: 16 and more are minutes.
    assert macros_replace("{{time_UTC+330}}", VALUES, now=now) == "7:35 PM"
    # {{banned "…"}} bans a word in SillyTavern's text-completion request; the text loses it.
    assert macros_replace('Stay.{{banned "The End"}}', VALUES) == "Stay."
    assert macros_replace("<GROUP> / <CHARIFNOTGROUP>", group) == "Pia, Bo / Pia, Bo"


def test_the_cards_system_prompt_and_post_history_as_macros():
    character = {"name": "Pia", "card": {"data": {
        "system_prompt": " You are {{char}}. ", "post_history_instructions": "Stay {{char}}.",
        "character_version": "2.1"}}}
    values = macro_values_for(character=character, persona={"name": "Ann"}, lines=[])
    assert macros_replace("{{charPrompt}}|{{charJailbreak}}|{{charVersion}}|{{char_version}}",
                          values) == "You are Pia.|Stay Pia.|2.1|2.1"


def test_idle_duration_humanizes_as_moment_and_says_just_now_with_no_earlier_message():
    assert idle_duration_text(40 * 86400) == "a month"  # was "40 days"
    assert idle_duration_text(100 * 86400) == "3 months"
    assert idle_duration_text(800 * 86400) == "2 years"
    assert idle_duration_text(2676) == "an hour"  # 44.6 minutes round to 45: an hour
    values = macro_values_for(character={"name": "Pia"}, persona={"name": "Ann"}, lines=[])
    assert macros_replace("{{idle_duration}}", values) == "just now"


def test_hidden_messages_are_skipped_as_sillytaverns_system_ones():
    # /hide makes a message is_system: getTimeSinceLastMessage, {{lastUserMessage}} and
    # {{lastCharMessage}} skip it; {{lastMessage}} (getLastMessage, no filter) still reads it.
    old = datetime.fromtimestamp(time.time() - 3 * 86400, UTC).isoformat()
    new = datetime.fromtimestamp(time.time() - 300, UTC).isoformat()
    lines = [{"role": "user", "content": "first", "timestamp": old},
             {"role": "assistant", "content": "reply"},
             {"role": "user", "content": "secret", "timestamp": new, "hidden": True},
             {"role": "assistant", "content": "hidden reply", "hidden": True}]
    values = macro_values_for(character={"name": "Pia"}, persona={"name": "Ann"}, lines=lines)
    assert values["idle_duration"] == "3 days"
    shown = last_messages_shown(lines, values)
    assert (shown["lastMessage"], shown["lastUserMessage"], shown["lastCharMessage"]) == (
        "hidden reply", "first", "reply")
    # A narrator's note is SillyTavern's system message too: the newest message all the same.
    noted = last_messages_shown([*lines, {"type": "note", "content": "Night falls."}], values)
    assert (noted["lastMessage"], noted["lastCharMessage"]) == ("Night falls.", "reply")


def test_time_diff_says_how_far_one_date_is_from_another_in_moments_words():
    # SillyTavern 1.12.6 macros.js timeDiffReplace: moment.duration(a.diff(b)).humanize(true).
    assert macros_replace("{{timeDiff::2024-01-03::2024-01-01}}", VALUES) == "in 2 days"
    assert macros_replace("{{timeDiff::2024-01-01 10:00::2024-01-01T13:10}}",
                          VALUES) == "3 hours ago"
    assert macros_replace("{{timeDiff::2024-01-01::2024-01-01}}", VALUES) == "a few seconds ago"
    assert macros_replace("{{timeDiff::soon::later}}", VALUES) == "{{timeDiff::soon::later}}"


def test_original_gives_its_text_once_as_sillytavern():
    # substituteParams' `original` is a function that answers "" after its first use.
    values = {**VALUES, "original": "Be kind."}
    assert macros_replace("{{original}} Also: {{original}}", values) == "Be kind. Also: "



def test_a_chat_imported_from_sillytavern_picks_what_it_picked_there():
    # Its chat_metadata.chat_id_hash (getChatIdHash keeps it once a pick is read) seeds the
    # card's {{pick}} as pickReplace did; "b" is what SillyTavern's Node run gave for 1234.
    imported = {"imported": {"header": {"chat_metadata": {"chat_id_hash": 1234}}}}
    values = macro_values_for(character={"name": "Pia"}, persona={"name": "Ann"}, lines=[],
                              chat_id=chat_pick_seed(imported, "inst_1"))
    assert macros_replace("{{pick::a::b::c::d::e::f::g}}", values) == "b"
    assert chat_pick_seed({}, "inst_1") == "inst_1"
