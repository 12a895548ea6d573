"""A group's recap and persona requests name its members and the player: a group's recap was
asked of "Mira and the other person", and then reached every member's prompt (group probe)."""

from __future__ import annotations

import pytest

from memory.prompts import persona_update_messages, recap_messages

ROUND = [{"role": "user", "content": "Where now?", "turn": 1},
         {"role": "assistant", "content": "North.", "name": "Mira", "turn": 1},
         {"role": "assistant", "content": "South.", "name": "Cato", "turn": 1},
         {"role": "assistant", "content": "Either.", "name": "Mira", "turn": 1}]


@pytest.mark.parametrize("locale, named", [
    ("en", 'the characters "Mira", "Cato" and the player'), ("zh", "角色「Mira」、「Cato」和玩家")])
def test_a_groups_rounds_are_recapped_as_its_members_and_the_player(locale, named):
    system = recap_messages(character_name="Mira", turns=ROUND, locale=locale)[0]["content"]
    assert named in system and "other person" not in system and "对方" not in system


def test_one_characters_rounds_keep_their_two_person_wording():
    system = recap_messages(character_name="Mira", turns=ROUND[:2], locale="en")[0]["content"]
    assert 'the character "Mira" and the other person' in system


def test_a_groups_members_are_named_even_when_one_of_them_spoke():
    system, transcript = (m["content"] for m in recap_messages(
        character_name="Mira", turns=[ROUND[0], ROUND[2]], locale="en",
        members=["Mira", "Cato", "Dax"], player_name="Kay"))
    assert 'the characters "Mira", "Cato", "Dax" and the player "Kay"' in system
    assert "Kay: Where now?" in transcript


def test_one_character_whose_imported_lines_bear_another_name_is_still_two_people():
    turns = [ROUND[0], {**ROUND[1], "name": "Mira the Bold"}]
    system = recap_messages(character_name="Mira", turns=turns, locale="en", members=["Mira"],
                            player_name="Kay")[0]["content"]
    assert 'the character "Mira" and the other person' in system


def test_a_members_persona_update_is_framed_among_the_others_and_the_player():
    system, body = (m["content"] for m in persona_update_messages(
        character_name="Cato", base_persona="A guard.", evolved_persona="", turns=ROUND,
        locale="en", others=["Mira", "Dax"], player_name="Kay"))
    assert ('the character "Cato", one of several characters in a scene with "Mira", "Dax" '
            'and the player "Kay"') in system
    assert "other person" not in system and "Kay: Where now?" in body
    alone = persona_update_messages(character_name="Mira", base_persona="", evolved_persona="",
                                    turns=ROUND[:2], locale="en", player_name="Kay")
    assert "closeness to the other person" in alone[0]["content"]
    assert "Kay: Where now?" in alone[1]["content"]
