from __future__ import annotations

import base64
import json

import pytest

from library.card_formats.cards import (
    CardError,
    card_parse,
    card_to_definition,
    card_to_json,
    card_to_png,
    definition_to_card,
)
from library.card_formats.png import card_image
from tests.library.card_samples import v2_card
from tests.png_files import PNG_SIGNATURE, chunk, png_texts, text_chunk, tiny_png


def v3_card() -> dict:
    card = v2_card()
    card.pop("name"), card.pop("description")
    card["spec"], card["spec_version"] = "chara_card_v3", "3.0"
    card["data"]["name"] = "维克多 V3"
    card["data"]["group_only_greetings"] = []
    card["data"]["nickname"] = "老维"
    card["data"]["assets"] = [{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}]
    return card


def test_v2_png_imports_fields_lorebook_and_keeps_the_picture():
    png = tiny_png(text_chunk("chara", v2_card()))
    card = card_parse(png, "victor.png")
    definition, lorebook = card_to_definition(card)
    assert definition["name"] == "维克多"
    assert definition["greeting"] == "你来了。"
    assert definition["tags"] == ["废土", "黑帮"]
    assert "[Description]\n北区的前黑帮头目。" in definition["base_persona"]
    assert "[Personality]\n多疑，重情义。" in definition["base_persona"]
    assert "[Scenario]\n废土。" in definition["base_persona"]
    assert definition["card"]["data"]["system_prompt"] == "Stay in character."
    assert lorebook["scan_depth"] == 3 and lorebook["token_budget"] == 500
    gang, north = lorebook["entries"]
    assert (gang["uid"], gang["position"], gang["selective_logic"]) == (5, "after_char", "not_any")
    assert gang["priority"] == 80 and gang["secondary_keys"] == ["叛徒"]
    assert (north["position"], north["depth"], north["role"]) == ("depth", 2, "user")
    assert card_image(png) == tiny_png()


def test_unchanged_round_trip_through_png_keeps_every_card_field():
    original = v2_card()
    definition, lorebook = card_to_definition(card_parse(tiny_png(text_chunk("chara", original))))
    exported = card_parse(card_to_png(definition_to_card(definition, lorebook)))
    data, before = exported["data"], original["data"]
    for field in ("description", "personality", "scenario", "mes_example", "system_prompt",
                  "post_history_instructions", "alternate_greetings", "creator",
                  "character_version", "extensions", "unknown_data_field"):
        assert data[field] == before[field], field
    book = data["character_book"]
    assert book["extensions"] == {"book_ext": True} and book["book_unknown"] == "yes"
    gang, north = book["entries"]
    old_gang, old_north = before["character_book"]["entries"]
    for field in ("id", "keys", "secondary_keys", "selective", "content", "insertion_order",
                  "position", "name", "priority", "entry_unknown", "extensions"):
        assert gang[field] == old_gang[field], field
    assert north["extensions"] == old_north["extensions"]
    assert north["position"] == "before_char"


def test_v3_png_round_trip_keeps_v3_fields_and_writes_both_chunks():
    definition, lorebook = card_to_definition(card_parse(tiny_png(text_chunk("ccv3", v3_card()))))
    png = card_to_png(definition_to_card(definition, lorebook), image=tiny_png())
    texts = png_texts(png)
    assert set(texts) == {"chara", "ccv3"}
    v2 = json.loads(base64.b64decode(texts["chara"]))
    v3 = json.loads(base64.b64decode(texts["ccv3"]))
    assert (v2["spec"], v2["spec_version"]) == ("chara_card_v2", "2.0")
    assert (v3["spec"], v3["spec_version"]) == ("chara_card_v3", "3.0")
    assert v3["data"]["nickname"] == "老维" and v3["data"]["assets"] == v3_card()["data"]["assets"]
    assert v3["data"]["name"] == "维克多 V3"
    assert card_image(png) == tiny_png()


def test_json_round_trip_both_specs():
    definition, lorebook = card_to_definition(card_parse(json.dumps(v2_card()).encode(), "c.json"))
    card = definition_to_card(definition, lorebook)
    for spec, spec_name in (("v2", "chara_card_v2"), ("v3", "chara_card_v3")):
        raw = json.loads(card_to_json(card, spec))
        assert raw["spec"] == spec_name
        again = card_parse(card_to_json(card, spec))
        assert again["data"]["extensions"] == v2_card()["data"]["extensions"]
        assert again["data"]["unknown_data_field"] == {"kept": [1, 2, 3]}


def test_edits_overlay_the_stored_card():
    definition, lorebook = card_to_definition(card_parse(json.dumps(v2_card()).encode()))
    definition.update(name="维克多二世", greeting="又见面了。", tags=["新"],
                      base_persona="[Description]\n新的描述\n\n[Scenario]\n新场景")
    lorebook["entries"][0]["content"] = "黑鸦帮已经解散。"
    lorebook["entries"][1]["position"] = "after_char"
    card = definition_to_card(definition, lorebook)
    data = card["data"]
    assert (data["name"], data["first_mes"], data["tags"]) == ("维克多二世", "又见面了。", ["新"])
    assert (data["description"], data["personality"], data["scenario"]) == ("新的描述", "", "新场景")
    assert card["name"] == "维克多二世"  # the V1 mirror follows
    assert data["extensions"]["depth_prompt"] == {"depth": 4}
    gang, north = data["character_book"]["entries"]
    assert gang["content"] == "黑鸦帮已经解散。"
    assert north["position"] == "after_char" and north["extensions"]["position"] == 1
    assert "character_book" not in definition_to_card(definition, None)["data"]


def test_a_plain_persona_becomes_the_description():
    card = definition_to_card({"name": "艾琳", "base_persona": "一名医生。", "greeting": "你好"},
                              None, spec="v2")
    assert card["spec"] == "chara_card_v2"
    assert card["data"]["description"] == "一名医生。" and card["data"]["first_mes"] == "你好"
    definition, lorebook = card_to_definition(card_parse(card_to_png(card)))
    assert definition["name"] == "艾琳" and lorebook is None


def test_ccv3_is_preferred_over_chara():
    png = tiny_png(text_chunk("chara", v2_card()), text_chunk("ccv3", v3_card()))
    assert card_parse(png)["data"]["name"] == "维克多 V3"


@pytest.mark.parametrize("broken", [[], {"spec": "chara_card_v3", "data": {"name": ["x"]}},
                                    {"spec": "chara_card_v3"}])
def test_a_png_whose_ccv3_chunk_cannot_be_read_imports_from_its_chara_copy(broken):
    png = tiny_png(text_chunk("chara", v2_card()), text_chunk("ccv3", broken))
    assert card_parse(png)["data"]["name"] == "维克多"
    with pytest.raises(CardError):  # with no readable copy, the ccv3 chunk's refusal
        card_parse(tiny_png(text_chunk("ccv3", broken)))


def test_v1_card_is_upgraded():
    v1 = {"name": "老白", "description": "d", "personality": "p", "first_mes": "hi",
          "avatar": "none"}
    card = card_parse(json.dumps(v1).encode())
    assert card["data"]["name"] == "老白" and card["data"]["personality"] == "p"
    assert card["avatar"] == "none"


@pytest.mark.parametrize("data, message", [
    (b"GIF89a not a png", "not a PNG file"),
    (PNG_SIGNATURE + b"\x00\x00\x00\x10tEXt", "truncated"),
    (tiny_png()[:-6], "truncated"),
    (tiny_png(), "PNG has no 'chara' or 'ccv3' text chunk"),
    (tiny_png(chunk(b"tEXt", b"chara\x00!!!not base64!!!")), "not valid base64"),
    (tiny_png(chunk(b"tEXt", b"chara\x00" + base64.b64encode(b"not json"))),
     "card JSON is invalid"),
    (tiny_png(text_chunk("chara", {"spec": "chara_card_v9", "data": {}})),
     "unsupported card spec 'chara_card_v9'"),
    (b'{"spec": "chara_card_v2", "data": {"name": [5]}}', "field 'name' must be text"),
    (b"{not json", "card JSON is invalid"),
])
def test_bad_cards_raise_a_clear_card_error(data, message):
    with pytest.raises(CardError, match=message):
        card_parse(data)


def test_damaged_chunk_checksum_is_reported():
    png = bytearray(tiny_png(text_chunk("chara", v2_card())))
    png[60] ^= 0xFF
    with pytest.raises(CardError, match="bad checksum|truncated"):
        card_parse(bytes(png))


def test_card_without_name_cannot_become_a_character():
    with pytest.raises(CardError, match="no character name"):
        card_to_definition(card_parse(b'{"spec": "chara_card_v2", "data": {"name": " "}}'))


def test_whitespace_trimmed_by_the_library_is_not_an_edit():
    raw = v2_card()
    raw["data"]["first_mes"] = "你来了。\n"
    definition, lorebook = card_to_definition(card_parse(json.dumps(raw).encode()))
    definition["greeting"] = definition["greeting"].strip()
    definition["base_persona"] = definition["base_persona"] + "\n"
    data = definition_to_card(definition, lorebook)["data"]
    assert data["first_mes"] == "你来了。\n"
    assert data["scenario"] == "废土。"


def test_a_card_whose_data_is_not_an_object_is_read_from_its_v1_copy():
    card = {"spec": "chara_card_v2", "data": True, "name": "Mira", "description": "A medic.",
            "first_mes": "Hold still."}
    definition, _ = card_to_definition(card_parse(json.dumps(card).encode()))
    assert definition["name"] == "Mira" and definition["greeting"] == "Hold still."
    assert "A medic." in definition["base_persona"]
    # Its tags, and a V1 card's, are the character's, as SillyTavern's importTags reads them.
    hybrid = {"spec": "chara_card_v3", "name": "Mira", "tags": ["medic", "ship"]}
    assert card_to_definition(card_parse(json.dumps(hybrid).encode()))[0]["tags"] == [
        "medic", "ship"]
    with pytest.raises(CardError, match="'data' must be an object") as refused:
        card_parse(b'{"spec": "chara_card_v2", "data": []}')
    assert "data" in refused.value.fields


def test_numbers_and_empty_values_in_a_card_are_read_as_sillytavern_reads_them():
    card = v2_card()
    card["data"].update(character_version=1.0, creator=0, nickname=None, extensions=[],
                        alternate_greetings="Again?", tags="a, b,", creator_notes=True)
    data = card_parse(json.dumps(card).encode())["data"]
    assert (data["character_version"], data["creator"], data["creator_notes"]) == (
        "1", "0", "true")
    assert data["extensions"] == {} and data["alternate_greetings"] == ["Again?"]
    assert data["tags"] == ["a", "b"]


def _book_card(entry: dict) -> dict:
    card = v2_card()
    card["data"]["character_book"] = {"name": "B", "scan_depth": 2**80, "token_budget": -1,
                                      "extensions": "x", "entries": [entry]}
    return card


def test_book_entry_settings_of_another_type_take_their_defaults_and_keep_the_entry():
    entry = {"id": 2**80, "keys": "tower, spire", "secondary_keys": 5, "content": 7,
             "insertion_order": 2**80, "comment": None, "name": ["not text"],
             "extensions": {"role": {}, "selectiveLogic": [1], "depth": -1, "position": []}}
    _, lorebook = card_to_definition(_book_card(entry))
    got = lorebook["entries"][0]
    assert got["keys"] == ["tower", "spire"] and got["secondary_keys"] == []
    assert (got["content"], got["uid"], got["priority"], got["depth"]) == ("7", 0, 10**6, 4)
    assert (got["role"], got["selective_logic"], got["position"]) == (
        "system", "and_any", "after_char")  # no V2 position: after the character, as SillyTavern
    assert lorebook["scan_depth"] == 1000 and lorebook["token_budget"] is None
    assert lorebook["card_extra"]["extensions"] == "x"  # kept as it came
    definition, _ = card_to_definition(_book_card(entry))
    exported = card_parse(card_to_png(definition_to_card(definition, lorebook)))
    assert exported["data"]["character_book"]["entries"][0]["content"] == "7"


def test_book_entry_text_that_is_a_list_is_refused_by_its_field():
    with pytest.raises(CardError, match=r"entries\[0\]\.content"):
        card_to_definition(_book_card({"keys": ["a"], "content": ["not", "text"]}))


def test_a_pygmalion_character_json_imports_as_sillytavern_reads_it():
    card = {"char_name": "Mira", "char_persona": "A medic.", "world_scenario": "The flood.",
            "char_greeting": "Hold still.", "example_dialogue": "<START>\nMira: Breathe.",
            "metadata": {"version": 1}}
    definition, _ = card_to_definition(card_parse(json.dumps(card).encode()))
    assert (definition["name"], definition["greeting"]) == ("Mira", "Hold still.")
    assert "A medic." in definition["base_persona"] and "The flood." in definition["base_persona"]
    assert definition["card"]["data"]["mes_example"] == "<START>\nMira: Breathe."
    assert definition["card"]["metadata"] == {"version": 1}  # kept as it came


def test_a_cards_tags_are_the_characters_as_sillytavern_imports_them():
    # SillyTavern asks; its default answer imports them all, less its own ROOT / TAVERN tags,
    # trimmed, the first 15, one per name in any case and accents. All were kept here.
    tags = ["ROOT", " fantasy ", "", "TAVERN", "Fantasy", "Café", "cafe"] + [
        f"t{n}" for n in range(20)]
    card = {"spec": "chara_card_v2", "data": {"name": "Mira", "tags": tags}}
    definition, _ = card_to_definition(card_parse(json.dumps(card).encode()))
    assert definition["tags"] == ["fantasy", "Café"] + [f"t{n}" for n in range(11)]
    # The card's own list stays in its export until the character's tags are edited.
    assert definition_to_card(definition, None)["data"]["tags"] == tags
    definition["tags"] = ["fantasy"]
    assert definition_to_card(definition, None)["data"]["tags"] == ["fantasy"]
