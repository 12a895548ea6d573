"""The streaming reply as the player sees it (personalab/lib/reply_stream.py): after every
piece, the text the deltas build is the text so far cleaned whole, as SillyTavern's
onProgressStreaming shows it, however the reply is cut into pieces."""

from __future__ import annotations

import random

import pytest

from chat.play.reply_clean import reply_stops, reply_tidied
from personalab.lib.instruct import instruct_template_named
from personalab.lib.reply_names import reply_stop_start_cut
from personalab.lib.reply_stream import (
    SETTLE_EVERY,
    SINGLE_LINE_CHARS,
    SINGLE_LINE_TRIES,
    TAIL_MAX,
    ReplyShown,
    ReplyShownPaced,
)

CHAT = {"user_name": "Ann", "char_name": "Mira", "others": ["Rook"], "impersonate": False,
        "markers": None, "stops": ["\nAnn:", "\nRook:"]}
CHATML = instruct_template_named("chatml")
TEXT = {**CHAT, "markers": CHATML, "stops": reply_stops(
    {"user_name": "Ann", "character_name": "Mira", "member_names": ["Rook"]}, CHATML)}
REPLIES = [
    "Mira: * smiles *  Hello there.  \nShe waits. * nods * and\n\nAnn: bye",
    "  Hello  *a  \n b*  c\nMira: yes<|im_start|>assistant\nsure\nRook: no",
    "Ann: I answer for her.",
    "word " * 300 + "*x* done\nAn",
    "lone * star " + "la " * 400 + "* end<|im_e",
    "Fine.<|im_end|>\n<|im_start|>user\nAnn: more",
    "她点点头，*慢慢地*走向门口。" * 40 + "\nMira:  她说。" * 3 + "她想了想" * 30,
    "Fine, then. " * 12 + "\nMira:   She turns. ### Response: " + "and goes. " * 12,
]


def _whole(raw: str, names: dict, shape: dict | None) -> str:
    """The text so far cleaned whole, as the finished reply is but for its sentence trim."""
    shown = {key: on for key, on in (shape or {}).items() if key != "trim_sentences"}
    return reply_tidied(reply_stop_start_cut(raw, names["stops"]), names=names,
                        shape=shown or None)


ALPACA = instruct_template_named("alpaca")
SPACED = {**CHAT, "char_name": "Lady Mira", "markers": ALPACA, "stops": reply_stops(
    {"user_name": "Ann", "character_name": "Lady Mira", "member_names": ["Rook"]}, ALPACA)}


@pytest.mark.parametrize("names", [CHAT, TEXT, SPACED], ids=["chat", "chatml", "alpaca"])
@pytest.mark.parametrize("shape", [None, {"single_line": True, "trim_sentences": True}])
def test_every_piece_shows_the_text_so_far_cleaned_whole(names, shape):
    pick = random.Random(7)
    for reply in REPLIES:
        for _ in range(4):
            cleaner, shown, end = ReplyShown(names=names, shape=shape), "", 0
            while end < len(reply):
                size = pick.randint(1, 9)
                change = cleaner.feed(reply[end:end + size])
                end += size
                if change is not None:
                    shown = shown[:change[0]] + change[1]
                assert shown == cleaner.text() == _whole(reply[:end], names, shape), reply[:end]


def test_a_long_reply_is_not_cleaned_whole_at_each_piece():
    cleaner = ReplyShown(names=TEXT, shape=None)
    reply = "She walks *slowly* to the door, thinking. " * 300
    for start in range(0, len(reply), 4):
        cleaner.feed(reply[start:start + 4])
        assert len(cleaner.tail) <= cleaner.lag + SETTLE_EVERY + 80  # cleaned again per piece
    assert cleaner.text() == _whole(reply, TEXT, None)


def test_text_without_spaces_settles_inside_its_words():
    cleaner = ReplyShown(names=CHAT, shape=None)
    reply = "她点点头，*慢慢地*走向门口，没有回头。" * 200
    for start in range(0, len(reply), 3):
        cleaner.feed(reply[start:start + 3])
        assert len(cleaner.tail) <= cleaner.lag + SETTLE_EVERY + 8
    assert cleaner.text() == _whole(reply, CHAT, None)


def test_a_lone_mark_settles_once_the_tail_is_long():
    # A `*` nothing closes would keep the whole reply unsettled: past TAIL_MAX it settles.
    cleaner = ReplyShown(names=CHAT, shape=None)
    reply = "A lone * here. " + "More words. " * 1000
    for start in range(0, len(reply), 5):
        cleaner.feed(reply[start:start + 5])
    assert len(cleaner.tail) <= TAIL_MAX + 5
    assert cleaner.text() == _whole(reply, CHAT, None)


@pytest.mark.parametrize("unit", ["*", "* ", "_ *", " "])
def test_a_reply_of_marks_and_spaces_alone_settles_too(unit):
    """Tenth red-team pass: 100,000 `*` had no place to settle; the whole tail was cleaned
    again at each piece, on the event loop (1.2-1.8 s a piece at the end)."""
    cleaner = ReplyShown(names=CHAT, shape=None)
    reply = unit * (30_000 // len(unit)) + " and words."
    shown = ""
    for start in range(0, len(reply), 300):
        if (change := cleaner.feed(reply[start:start + 300])) is not None:
            shown = shown[:change[0]] + change[1]
        assert len(cleaner.tail) <= TAIL_MAX + 300
    assert shown == cleaner.text() and shown.endswith("and words.")


def test_single_line_stops_cleaning_the_whole_text_once_it_is_long():
    """Tenth red-team pass: a first line with a lone `*` kept every piece cleaning the whole
    reply again, up to SINGLE_LINE_TRIES times (5 s of the event loop at 100,000 characters)."""
    cleaner = ReplyShown(names=CHAT, shape={"single_line": True})
    reply = "*She " + "walks " * 1000 + "\n" + "more " * 6000
    assert len(reply) // 1500 < SINGLE_LINE_TRIES  # not frozen by its tries
    for start in range(0, len(reply), 1500):
        cleaner.feed(reply[start:start + 1500])
    assert cleaner.frozen and cleaner.tries <= SINGLE_LINE_CHARS // 1500 + 2
    assert cleaner.text().startswith("*She walks")


def test_a_continued_reply_keeps_its_start():
    cleaner = ReplyShown(names=CHAT, shape=None, continued=True)
    assert cleaner.feed(" and then") == (0, " and then")
    assert cleaner.feed(" left.\nAnn: wait") == (9, " left.")


def test_a_fast_stream_is_cleaned_at_most_thirty_times_a_second():
    # As SillyTavern redraws a streaming reply (streaming_fps): the pieces between go together.
    now = [0.0]
    paced = ReplyShownPaced(ReplyShown(names=CHAT, shape=None), clock=lambda: now[0])
    assert paced.feed("Mira: Hel") == (0, "Hel")
    now[0] = 0.01
    assert paced.feed("lo") is None and paced.feed(" the") is None
    now[0] = 0.05
    assert paced.feed("re.\nAnn:") == (3, "lo there.")
    assert paced.feed(" hi") is None and paced.flush() is None  # cut: nothing more shows
