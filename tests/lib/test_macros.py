from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from personalab.lib import macro_fills
from personalab.lib.line_macros import LineMacros, chat_position_macros, line_macros_replace
from personalab.lib.llm import LLMSettings
from personalab.lib.llm_providers import model_named
from personalab.lib.macros import TIME_ZONE, dice_roll, idle_duration_text, macros_replace

VALUES = {
    "user": "Mira", "char": "Alserqi", "persona": "A scout from the north.",
    "description": "A tall wanderer.", "personality": "dry, loyal", "scenario": "The wasteland.",
    "lastMessage": "Hello there", "idle_duration": "5 minutes",
    "lastUserMessage": "I am here", "lastCharMessage": "Welcome",
}
NOW = datetime(2026, 11, 23, 15, 4)

CASES = [
    ("{{user}} meets {{char}}.", "Mira meets Alserqi."),
    ("{{USER}} / {{Char}} / {{ user }}", "Mira / Alserqi / Mira"),
    ("<USER> and <BOT> and <char>", "Mira and Alserqi and Alserqi"),
    ("{{persona}}", "A scout from the north."),
    ("{{description}}|{{personality}}|{{scenario}}", "A tall wanderer.|dry, loyal|The wasteland."),
    ("{{time}}", "3:04 PM"),
    ("{{date}}", "November 23, 2026"),
    ("{{weekday}}", "Monday"),
    ("idle {{idle_duration}}", "idle 5 minutes"),
    ("last: {{lastMessage}}", "last: Hello there"),
    ("a{{// a note for authors only }}b", "ab"),
    ("line one\n\n{{trim}}\n\nline two", "line oneline two"),
    ("{{random:x}}", "x"),
    ("{{random::only one}}", "only one"),
    ("{{roll:d1}}", "1"),
    ("{{roll:3d1+2}}", "5"),
    ("{{unknown_macro}} stays", "{{unknown_macro}} stays"),
    ("{{ 7*7 }} and {% if %} and {# x #}", "{{ 7*7 }} and {% if %} and {# x #}"),
    ("{{roll:1000000d6}}", "{{roll:1000000d6}}"),
    # A formula SillyTavern's dice library refuses gives nothing there (not the macro's text).
    ("[{{roll:2d6 + 1}}|{{roll:0d6}}|{{roll:banana}}|{{roll::d6}}]", "[|||]"),
    ("{{roll 1}}", "1"),
    ("{{random :x}}", "x"),  # SillyTavern's `random\s?::?` takes a space before the colon
    ("no macros at all", "no macros at all"),
    ("{{char", "{{char"),
    ("{{reverse:abc}}", "cba"),
    ("{{REVERSE: ab}}", "ba "),
    ("{{reverse:a\nb}}", "{{reverse:a\nb}}"),
    ("{{lastUserMessage}} / {{lastCharMessage}}", "I am here / Welcome"),
    ("{{datetimeformat YYYY-MM-DD HH:mm:ss}}", "2026-11-23 15:04:00"),
    ("{{datetimeformat dddd, MMMM D, YY h:mm a [at] A}}", "Monday, November 23, 26 3:04 pm at PM"),
    ("{{datetimeformat ddd MMM DD M hh H}}", "Mon Nov 23 11 03 15"),
    # Every moment token, as moment 2.29 wrote them for this date (Node, SillyTavern's copy):
    # the long formats, ordinals, day of the year, weeks, quarter, escapes.
    ("{{datetimeformat Q!}}", "4!"),
    ("{{datetimeformat LT|LTS|L|LL|LLLL|ll}}",
     "3:04 PM|3:04:00 PM|11/23/2026|November 23, 2026|Monday, November 23, 2026 3:04 PM|"
     "Nov 23, 2026"),
    ("{{datetimeformat dddd, MMMM Do YYYY}}", "Monday, November 23rd 2026"),
    ("{{datetimeformat DDD DDDo w W Wo dd d E k [LT] \\LT}}",
     "327 327th 48 48 48th Mo 1 1 15 LT LT"),
    ("{{datetimeformat Today is dddd}}", "To1pm2026 i0 Monday"),
    ("a{{// keep {braces} }}b", "ab"),
    ("a{{// " + "long " * 300 + "}}b", "ab"),
    ("a{{//\nnote about {{user}} }}b", "ab"),
    ("a{{// never closed", "a{{// never closed"),
    ("{{random: b\\, c }}", "b, c"),
    ("{{random: x , x }}", "x"),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_macro_table(text, expected):
    assert macros_replace(text, VALUES, now=NOW, rng=random.Random(1)) == expected


def test_the_clock_macros_read_the_players_time_zone():
    instant = datetime(2026, 12, 2, 17, 5, tzinfo=UTC)  # 1:05 AM the next day in Shanghai
    text = "{{time}}|{{isotime}}|{{date}}|{{weekday}}|{{isodate}}|{{datetimeformat HH:mm Z}}"
    assert macros_replace(text, {TIME_ZONE: "Asia/Shanghai"}, now=instant) == (
        "1:05 AM|01:05|December 3, 2026|Thursday|2026-12-03|01:05 +08:00")
    assert macros_replace("{{time_UTC-5}}", {TIME_ZONE: "Asia/Shanghai"}, now=instant) == "12:05 PM"


@pytest.mark.parametrize("zone", ["Mars/Olympus", "../../etc/passwd", "/etc/localtime", "America",
                                  "leapseconds", "Asia/" + "x" * 100, ""])
def test_a_time_zone_that_is_none_is_ignored(zone):
    assert macros_replace("{{isotime}} {{date}}", {TIME_ZONE: zone}, now=NOW) == (
        "15:04 November 23, 2026")


def test_random_picks_one_of_the_choices_in_either_syntax():
    rng = random.Random(7)
    seen_commas = {macros_replace("{{random:a,b,c}}", {}, rng=rng) for _ in range(60)}
    seen_colons = {macros_replace("{{random::a, b::c}}", {}, rng=rng) for _ in range(60)}
    assert seen_commas == {"a", "b", "c"}
    assert seen_colons == {"a, b", "c"}


def test_dice_rolls_stay_in_range():
    rng = random.Random(3)
    rolls = {int(dice_roll("d6", rng)) for _ in range(200)}
    assert rolls == {1, 2, 3, 4, 5, 6}
    assert dice_roll("2d6-20", rng) is not None and int(dice_roll("2d6-20", rng)) < 0
    assert dice_roll("d0", rng) is None and dice_roll("banana", rng) is None


def test_a_texts_rolls_together_roll_at_most_ten_thousand_dice():
    # A shared card of 52,000 {{roll:100d999999}} rolled 5 million dice (4 s of CPU) each time
    # it was filled in, several times a turn; past 10,000 dice a roll stays as written.
    rolled = macros_replace("{{roll:100d6}}" * 99 + "{{roll:99d6}}" + "{{roll:d6}}" * 2, {})
    assert "{" not in rolled[:-11] and rolled.endswith("{{roll:d6}}")
    nested = macros_replace("{{roll:100d6}}" * 100 + "{{random::{{roll:d6}}}}", {})
    assert "{" not in nested[:-11] and nested.endswith("{{roll:d6}}")


def test_inserted_values_are_not_expanded_again():
    assert macros_replace("{{user}}", {"user": "{{char}}", "char": "X"}) == "{{char}}"


def test_output_is_bounded_and_the_rest_kept_as_written():
    text = "{{description}}" * 1000
    out = macros_replace(text, {"description": "x" * 10_000}, max_chars=50_000)
    assert len(out) <= 50_000
    assert out.startswith("x" * 10_000) and out.endswith("{{description}}")


def test_hostile_brace_soup_is_left_as_written():
    # Quadratic scanning would make this run for hours; linear scanning takes milliseconds.
    soup = "{{" * 200_000 + "x" * 200_000
    assert macros_replace(soup, VALUES) == soup
    unclosed = "{{" + "a" * 2_000_000
    assert macros_replace(unclosed, VALUES) == unclosed


def test_a_trim_after_a_long_run_of_line_breaks_is_read_in_one_pass():
    # The trim's regex read the run to its end from each line break: 40,000 took 10 s.
    run = "\n" * 200_000
    assert macros_replace(run + "x{{trim}}\r\n\ny", VALUES) == run + "xy"
    assert macros_replace("a\n\n{{trim}}\n{{trim}}\r\nb\r", VALUES) == "ab\r"


def test_idle_duration_reads_like_sillytavern():
    assert idle_duration_text(10) == "a few seconds"
    assert idle_duration_text(300) == "5 minutes"
    assert idle_duration_text(3600) == "an hour"
    assert idle_duration_text(3 * 86400) == "3 days"


def test_a_line_whose_speakers_card_is_gone_says_the_name_it_was_spoken_under():

    values = LineMacros({"char": "Ann", "user": "Alice"},
                        {"char_cy": {"char": ""}, "char_bob": {"char": "Bob"}})
    assert line_macros_replace({"speaker": "char_cy", "name": "Cy", "content": "I am {{char}}."},
                               values) == "I am Cy."
    assert line_macros_replace({"speaker": "char_bob", "name": "Bo", "content": "I am {{char}}."},
                               values) == "I am Bob."
    assert line_macros_replace({"speaker": "char_ann", "content": "{{char}} and {{user}}"},
                               values) == "Ann and Alice"


def test_pick_is_the_same_for_the_same_text_and_place_and_varies_with_them():
    text = "{{pick::a,b,c,d,e,f}} {{pick::a,b,c,d,e,f}} {{pick::a,b,c,d,e,f}}"
    first = macros_replace(text, {}, seed="turn 1")
    assert all(macros_replace(text, {}, seed="turn 1") == first for _ in range(5))
    assert len({macros_replace(text, {}, seed=f"turn {n}") for n in range(20)}) > 1
    assert len({macros_replace(text, {}, seed=f"turn {n}").split()[0]
                for n in range(40)}) == 6
    assert macros_replace("{{pick: x }}", {}) == "x"


def test_pick_in_a_message_is_the_same_on_the_page_and_in_the_prompt():
    line = {"speaker": "char_cy", "content": "{{pick::one::two::three::four}}", "turn": 4,
            "timestamp": "2026-11-23T15:04:00Z"}
    shown = {line_macros_replace(line, {}) for _ in range(10)}
    assert len(shown) == 1 and shown <= {"one", "two", "three", "four"}


def test_a_long_comment_full_of_braces_is_removed_quickly():
    text = "x{{// " + "{a} " * 200_000 + "}}y" + "{{//" * 50_000
    assert macros_replace(text, VALUES).startswith("xy{{//")


def test_input_is_empty_unless_given_as_the_input_box_is_once_a_message_is_sent():
    assert macros_replace("[{{input}}|{{INPUT}}]", {}) == "[|]"
    assert macros_replace("[{{input}}]", {"input": "typed"}) == "[typed]"


def test_last_message_id_counts_the_sillytavern_chat_and_swipe_id_the_shown_version():
    lines = [{"role": "assistant", "content": "Hi.", "greeting": True,
              "alternatives": [{"content": "Yo."}, {"content": "Hey."}],
              "alternative_position": 1},
             {"type": "note", "content": "(a narrator's note)"}, {"type": "metadata"},
             {"role": "user", "content": "hello"}]
    assert chat_position_macros([]) == {"lastMessageId": "", "currentSwipeId": "",
                                        "lastSwipeId": ""}
    assert chat_position_macros(lines) == {"lastMessageId": "2", "currentSwipeId": "",
                                           "lastSwipeId": ""}
    # {{lastSwipeId}}: how many versions the newest reply has (SillyTavern's swipes.length).
    assert chat_position_macros(lines[:1], earlier=5) == {"lastMessageId": "5",
                                                          "currentSwipeId": "2",
                                                          "lastSwipeId": "3"}
    assert chat_position_macros([{"role": "assistant", "content": "x"}])["currentSwipeId"] == "1"


def test_last_message_id_of_a_stretch_that_moved_on_counts_what_a_fresh_count_does():
    """A turn's lines are the last turn's less a few at the front, more at the end: counted
    from the last count, the same as counted afresh."""
    lines = [{"type": "summary", "content": f"event {n}"} if n % 7 else {"type": "metadata"}
             for n in range(300)]
    lines += [{"role": "user" if n % 2 else "assistant", "content": f"line {n}"}
              for n in range(40)]
    for first, end in ((0, 320), (25, 322), (30, 310), (31, 340), (200, 201), (31, 340)):
        stretch = lines[first:end]
        fresh = sum(1 for line in stretch if line.get("type") != "metadata")
        assert chat_position_macros(stretch, earlier=first)["lastMessageId"] == \
            str(first + fresh - 1)


def test_model_is_the_model_the_settings_send_requests_to():
    assert model_named(LLMSettings(base_url="http://x/v1", model="m-1")) == "m-1"
    assert model_named(LLMSettings(gguf_path="/models/tiny.gguf")) == "tiny.gguf"
    assert model_named(LLMSettings()) == "offline"



BIG_PAD = "." * 70_000  # past macro_fills.KEPT_FROM_CHARS


@pytest.mark.parametrize("text", [
    "{{user}} {{ char }} <BOT> {{time}} {{noop}}{{newline}}{{missing}}" * 5 + BIG_PAD,
    "{{user}}\n\n{{trim}}\n{{char}}" * 3 + BIG_PAD,
])
def test_a_big_text_of_names_is_filled_for_the_values_it_is_given(text):
    first = macros_replace(text, VALUES, now=NOW)
    assert first == macros_replace(text, VALUES, now=NOW)  # the kept fill
    others = (({**VALUES, "user": "Ann"}, NOW), (VALUES, datetime(2026, 11, 24, 9, 1)),
              ({**VALUES, "missing": "found"}, NOW))
    for values, now in others:
        again = macros_replace(text, values, now=now)
        macro_fills.macro_fills_forget()
        assert again == macros_replace(text, values, now=now)
        assert again != first or ("{{time}}" not in text and values is not others[0][0])
    assert macros_replace(text, {}, now=NOW).startswith("{{user}}")


@pytest.mark.parametrize("text, fill", [
    ("{{roll:1d1000000}}" * 3, None), ("{{random:a,b,c,d,e,f,g,h}}" * 20, None),
    ("{{original}}{{original}}", "O"), ("{{setvar::n::1}}{{getvar::n}}", "1")])
def test_a_big_text_with_other_macros_is_filled_afresh_each_time(text, fill):
    fills = {macros_replace(text + BIG_PAD, {**VALUES, "original": "O"},
                            rng=random.Random(seed))[:-len(BIG_PAD)] for seed in range(4)}
    assert fills == {fill} if fill else len(fills) > 1
