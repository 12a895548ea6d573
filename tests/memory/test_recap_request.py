"""The recap request names who spoke in its rounds: a group's was asked of "Mira and the other
person", and the recap then reached every member's prompt (group probe)."""

from __future__ import annotations

import pytest

from memory.prompts import recap_messages

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
