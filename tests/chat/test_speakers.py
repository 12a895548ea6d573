"""Who speaks next: each reply order on small tables of members."""

from __future__ import annotations

import pytest

from chat.groups.speakers import Member, SpeakerError, speakers_pick, talkativeness_of

A = Member("char_a", "Alserqi", talkativeness=0.9)
B = Member("char_b", "Brenna", talkativeness=0.2)
C = Member("char_c", "Cato", talkativeness=0.5)


def _ids(picks):
    return [p.character_id for p in picks]


def _draws(*values):
    it = iter(values)
    return lambda: next(it)


def _kept(members):
    """No shuffle: the members stay in list order."""


@pytest.mark.parametrize("strategy,members,last_message,last_speaker,draws,expected", [
    # natural: named first, in the order named, then drawn by talkativeness
    ("natural", [A, B, C], "Cato, and you Brenna?", None, (0.99,), ["char_c", "char_b"]),
    ("natural", [A, B, C], "hello", None, (0.5, 0.1, 0.9), ["char_a", "char_b"]),
    # nobody drawn: one at random (the last draw picks from the shuffled pool)
    ("natural", [A, B, C], "hello", None, (0.99, 0.99, 0.99, 0.4), ["char_b"]),
    ("natural", [A, B, C], "hello", None, (0.99, 0.99, 0.99, 0.0), ["char_a"]),
    # never the same one twice in a row, even when named by another character
    ("natural", [A, B, C], "Alserqi?", "char_a", (0.99, 0.99, 0.9), ["char_c"]),
    # ...unless alone
    ("natural", [A], "hello", "char_a", (0.99, 0.5), ["char_a"]),
    # muted members do not answer
    ("natural", [A, Member("char_b", "Brenna", muted=True), C], "Brenna?", "char_a", (0.99, 0.1),
     ["char_c"]),
    ("list", [A, B, C], "", None, (), ["char_a"]),
    ("list", [A, B, C], "", "char_a", (), ["char_b"]),
    ("list", [A, B, C], "", "char_c", (), ["char_a"]),
    ("list", [A, Member("char_b", "Brenna", muted=True), C], "", "char_a", (), ["char_c"]),
    ("everyone", [A, B, C], "", "char_b", (), ["char_a", "char_b", "char_c"]),
    ("manual", [A, B, C], "Alserqi?", None, (), []),
])
def test_reply_orders(strategy, members, last_message, last_speaker, draws, expected):
    picks = speakers_pick(members, strategy=strategy, last_message=last_message,
                          last_speaker=last_speaker, draw=_draws(*draws),
                          shuffle=_kept)
    assert _ids(picks) == expected


def test_a_roll_equal_to_the_talkativeness_activates_the_member_as_sillytavern():
    """group-chats.js activateNaturalOrder activates when `talkativeness >= rollValue`."""
    assert _ids(speakers_pick([A, B, C], strategy="natural", last_message="hello",
                              last_speaker=None, draw=_draws(0.99, 0.2, 0.99),
                              shuffle=_kept)) == ["char_b"]


def test_natural_with_only_the_last_speaker_unmuted_and_others_muted_is_silent_or_alone():
    members = [A, Member("char_b", "Brenna", muted=True)]
    # A is the only active member: alone, so it may answer again
    assert _ids(speakers_pick(members, strategy="natural", last_speaker="char_a",
                              draw=_draws(0.99, 0.5), shuffle=_kept)) == ["char_a"]


def test_the_player_may_name_the_character_who_answered_last():
    picks = speakers_pick([A, B, C], strategy="natural", last_message="Alserqi?",
                          last_speaker="char_a", player_spoke_last=True,
                          draw=_draws(0.99, 0.99), shuffle=_kept)
    assert _ids(picks) == ["char_a"]


def test_natural_order_shuffles_the_members_nobody_named_so_no_one_always_opens():
    picks = speakers_pick([A, B, C], strategy="natural", last_message="hello",
                          draw=_draws(0.0, 0.0, 0.0), shuffle=list.reverse)
    assert _ids(picks) == ["char_c", "char_b", "char_a"]
    # named members still come first, in the order named
    picks = speakers_pick([A, B, C], strategy="natural", last_message="Brenna?",
                          draw=_draws(0.0, 0.0), shuffle=list.reverse)
    assert _ids(picks) == ["char_b", "char_c", "char_a"]
    # nobody drawn among equals: the shuffle decides, not always the first in the list
    equal = [Member("char_x", "Xan"), Member("char_y", "Yul")]
    opened = {_ids(speakers_pick(equal, strategy="natural", last_message="hi",
                                 draw=lambda: 0.99))[0] for _ in range(64)}
    assert opened == {"char_x", "char_y"}


def test_nobody_drawn_picks_at_random_not_the_most_talkative_as_sillytavern():
    """SillyTavern's activateNaturalOrder: when no roll activates anyone, a random member
    among those with talkativeness above 0 answers (here the draw picks the least talkative)."""
    picks = speakers_pick([A, B, C], strategy="natural", last_message="hello",
                          draw=_draws(0.99, 0.99, 0.99, 0.5), shuffle=_kept)
    assert _ids(picks) == ["char_b"] and picks[0].reason == "nobody drawn: chosen at random"
    seen = {_ids(speakers_pick([A, B, C], strategy="natural", last_message="hello",
                               draw=_draws(0.99, 0.99, 0.99, pick), shuffle=_kept))[0]
            for pick in (0.0, 0.34, 0.67, 0.999)}
    assert seen == {"char_a", "char_b", "char_c"}


def test_the_random_pool_leaves_out_the_silent_unless_all_are_silent():
    silent = Member("char_s", "Sol", talkativeness=0.0)
    picks = speakers_pick([silent, B], strategy="natural", last_message="hello",
                          draw=_draws(0.99, 0.99, 0.0), shuffle=_kept)
    assert _ids(picks) == ["char_b"]  # the only one above 0, whatever the pick draws
    # everyone else silent: SillyTavern's pool is every unmuted member, the last speaker too
    picks = speakers_pick([silent, B], strategy="natural", last_message="hello",
                          last_speaker="char_b", draw=_draws(0.99, 0.99), shuffle=_kept)
    assert _ids(picks) == ["char_b"]


def test_the_players_pick_wins_even_in_manual_and_even_muted():
    muted = Member("char_b", "Brenna", muted=True)
    picks = speakers_pick([A, muted], strategy="manual", requested="char_b")
    assert _ids(picks) == ["char_b"] and picks[0].reason == "requested by the player"


def test_reasons_say_why():
    picks = speakers_pick([A, B, C], strategy="natural", last_message="Brenna",
                          draw=_draws(0.0, 0.99), shuffle=_kept)
    assert [p.reason for p in picks] == ["named in the last message", "talkativeness 0.9"]


def test_a_stranger_or_an_unknown_order_is_refused():
    with pytest.raises(SpeakerError):
        speakers_pick([A, B], strategy="natural", requested="char_z")
    with pytest.raises(SpeakerError):
        speakers_pick([A, B], strategy="random")


@pytest.mark.parametrize("raw,expected", [("0.8", 0.8), (None, 0.5), ("x", 0.5), (3, 1.0),
                                          (-1, 0.0), (float("nan"), 0.5)])
def test_talkativeness_from_a_card(raw, expected):
    assert talkativeness_of(raw) == expected


def test_a_member_is_named_by_a_word_of_its_name():
    mira, tomas = Member("char_m", "Mira Voss"), Member("char_t", "Tomas Reed")
    picks = speakers_pick([tomas, mira], strategy="natural", last_message="Hi mira! Tomas, hush.",
                          draw=_draws(), shuffle=_kept)
    assert _ids(picks) == ["char_m", "char_t"]
    assert {p.reason for p in picks} == {"named in the last message"}
    # a word inside another word does not name anyone
    picks = speakers_pick([tomas, mira], strategy="natural", last_message="Admiral Tomasz",
                          draw=_draws(0.99, 0.99, 0.0), shuffle=_kept)
    assert picks[0].reason == "nobody drawn: chosen at random"


def test_with_self_responses_allowed_the_last_speaker_may_answer_again():
    # SillyTavern's group-chats.js activateNaturalOrder: allowSelfResponses lifts the ban on the
    # member whose line is last, for names and talkativeness draws alike.
    picks = speakers_pick([A, B, C], strategy="natural", last_message="Alserqi?",
                          last_speaker="char_a", allow_self_responses=True,
                          draw=_draws(0.99, 0.99), shuffle=_kept)
    assert _ids(picks) == ["char_a"]
    picks = speakers_pick([A, B], strategy="natural", last_message="go on",
                          last_speaker="char_a", allow_self_responses=True,
                          draw=_draws(0.5, 0.99), shuffle=_kept)
    assert _ids(picks) == ["char_a"]
    # nobody drawn: the random pool holds the last speaker too (SillyTavern bans nobody then)
    picks = speakers_pick([A, B], strategy="natural", last_message="go on",
                          last_speaker="char_a", allow_self_responses=True,
                          draw=_draws(0.99, 0.99, 0.0), shuffle=_kept)
    assert _ids(picks) == ["char_a"] and picks[0].reason == "nobody drawn: chosen at random"
