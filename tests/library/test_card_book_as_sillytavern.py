"""A card's book as SillyTavern 1.12.6 exports and reads it: its export writes `use_regex: true`
and `selective: true` on every entry, and its import reads neither the same way (a key is a regex
only written as `/…/flags`); numbers written as text act as numbers."""

from __future__ import annotations

from library.card_formats.cards import card_to_definition, definition_to_card
from library.lore.lorebook import lorebook_match


def _st_exported(*entries: dict) -> dict:
    """A V2 card whose book entries are laid out as SillyTavern's card export writes them."""
    written = [{"id": uid, "keys": keys, "secondary_keys": [], "comment": tag, "content": tag,
                "constant": False, "selective": True, "insertion_order": 100, "enabled": True,
                "position": "after_char", "use_regex": True,
                "extensions": {"position": 1, "match_whole_words": None, "case_sensitive": None,
                               "depth": 4, "role": 0, "selectiveLogic": 0, **extensions}}
               for uid, (keys, tag, extensions) in enumerate(entries)]
    return {"spec": "chara_card_v2", "spec_version": "2.0",
            "data": {"name": "Cass", "description": "", "first_mes": "Hi.",
                     "character_book": {"name": "Cass", "entries": written}}}


def _fired(card: dict, text: str) -> list[str]:
    _, lorebook = card_to_definition(card)
    match = lorebook_match([lorebook], messages=[text], count_tokens=len)
    return sorted(entry["content"] for entry in match.fired)


PLAIN = _st_exported((["owl"], "OWL", {}), (["C++"], "CPP", {}), (["Mr. Smith"], "SMITH", {}),
                     (["(Sarah)"], "SARAH", {}), (["/sil+ver/i"], "SILVER", {}))


def test_plain_keys_of_a_sillytavern_export_are_whole_words_not_regexes():
    assert _fired(PLAIN, "A wolf howls at the moon.") == []
    assert _fired(PLAIN, "Mrs Smith waved. a bit of cake") == []
    assert _fired(PLAIN, "Sarah came too.") == []
    assert _fired(PLAIN, "The owl and Mr. Smith write C++ with (Sarah).") == [
        "CPP", "OWL", "SARAH", "SMITH"]


def test_a_slashed_key_is_still_a_regex():
    assert _fired(PLAIN, "SILLLVER rings") == ["SILVER"]


def test_the_export_writes_back_what_sillytavern_wrote():
    card = _st_exported((["wolf"], "DEPTH", {"position": 4, "depth": 2}),
                        (["fox"], "NOTE", {"position": 2}), (["bat"], "BEFORE", {"position": 0}))
    card["data"]["character_book"]["entries"][2]["position"] = "before_char"
    exported = definition_to_card(*card_to_definition(card))
    got = exported["data"]["character_book"]["entries"]
    assert [(e["position"], e["selective"], e["use_regex"]) for e in got] == [
        ("after_char", True, True)] * 2 + [("before_char", True, True)]
    assert [e["extensions"]["position"] for e in got] == [4, 2, 0]


def test_an_entry_moved_after_import_writes_sillytaverns_position():
    definition, lorebook = card_to_definition(_st_exported((["wolf"], "W", {})))
    lorebook["entries"][0]["position"] = "before_char"
    entry = definition_to_card(definition, lorebook)["data"]["character_book"]["entries"][0]
    assert (entry["position"], entry["extensions"]["position"]) == ("before_char", 0)


def test_selective_false_with_no_secondary_keys_stays_false():
    card = _st_exported((["wolf"], "W", {}))
    card["data"]["character_book"]["entries"][0].update(selective=False, use_regex=False)
    entry = definition_to_card(*card_to_definition(card))["data"]["character_book"]["entries"][0]
    assert (entry["selective"], entry["use_regex"]) == (False, False)


def test_an_order_written_as_text_is_the_number():
    card = _st_exported((["wolf"], "LATE", {}), (["wolf"], "EARLY", {}))
    entries = card["data"]["character_book"]["entries"]
    entries[0]["insertion_order"], entries[1]["insertion_order"] = "70", " 7 "
    _, lorebook = card_to_definition(card)
    assert [e["priority"] for e in lorebook["entries"]] == [70, 7]


def test_a_cards_entries_are_weighed_in_id_order_as_sillytaverns_card_lore_import_keys_them():
    # convertCharacterBook keys each entry by its id, and JavaScript lists those keys in
    # numeric order: a card listing id 2 before id 1 is scanned 1, 2 there. Equal-order
    # entries are placed last-fired first, so the prompt reads 2 then 1 (1 then 2 before).
    card = _st_exported((["gate"], "ONE", {}), (["gate"], "TWO", {}))
    book = card["data"]["character_book"]
    book["entries"] = [{**book["entries"][1], "id": 2}, {**book["entries"][0], "id": 1}]
    _, lorebook = card_to_definition(card)
    match = lorebook_match([lorebook], messages=["the gate"], count_tokens=len)
    assert [entry["content"] for entry in match.fired] == ["TWO", "ONE"]
    assert [entry["uid"] for entry in lorebook["entries"]] == [1, 2]


def test_an_entry_that_does_not_say_it_is_enabled_is_off_as_sillytavern_imports_it():
    # convertCharacterBook writes `disable: !entry.enabled`: a card entry without `enabled`
    # (the V2 spec requires it; hand-made cards leave it out) never fires there.
    card = _st_exported((["owl"], "OWL", {}), (["owl"], "HOOT", {}))
    del card["data"]["character_book"]["entries"][1]["enabled"]
    assert _fired(card, "an owl") == ["OWL"]


def test_only_the_extensions_case_sensitive_makes_a_card_key_case_sensitive():
    # SillyTavern's convertCharacterBook reads `extensions.case_sensitive` alone; the card's
    # own `case_sensitive: true` (the V2 field, e.g. a Chinese app's export) made "Sword" miss
    # "sword" here while SillyTavern fired it. The export still writes the card's value back.
    card = _st_exported((["Sword"], "SWORD", {}),
                        (["Shield"], "SHIELD", {"case_sensitive": True}))
    card["data"]["character_book"]["entries"][0]["case_sensitive"] = True
    assert _fired(card, "a sword and a shield") == ["SWORD"]
    written = definition_to_card(*card_to_definition(card))["data"]["character_book"]
    assert [e["case_sensitive"] for e in written["entries"]] == [True, True]
    assert [e["extensions"]["case_sensitive"] for e in written["entries"]] == [None, True]


def test_an_unset_case_sensitive_follows_the_books_setting_as_sillytavern_reads_it():
    # convertCharacterBook reads `extensions.case_sensitive ?? null`, and the scan then takes
    # the global setting for null: a book set case-sensitive makes "Sword" miss "sword" there.
    # The import wrote false, so the entry stayed case-insensitive whatever the book said.
    card = _st_exported((["Sword"], "SWORD", {}),
                        (["Shield"], "SHIELD", {"case_sensitive": False}))
    _, lorebook = card_to_definition(card)
    assert [e["case_sensitive"] for e in lorebook["entries"]] == [None, False]
    lorebook["case_sensitive"] = True
    match = lorebook_match([lorebook], messages=["a sword and a shield"], count_tokens=len)
    assert [entry["content"] for entry in match.fired] == ["SHIELD"]
    written = definition_to_card(*card_to_definition(card))["data"]["character_book"]
    assert [e["extensions"]["case_sensitive"] for e in written["entries"]] == [None, False]


def test_an_unset_match_whole_words_follows_the_books_setting_too():
    # `extensions.match_whole_words ?? null` likewise: a book that turns whole words off lets
    # "owl" fire on "owls" for the unset entry, not for the one that says true.
    card = _st_exported((["owl"], "OWL", {}), (["bat"], "BAT", {"match_whole_words": True}))
    _, lorebook = card_to_definition(card)
    lorebook["match_whole_words"] = False
    match = lorebook_match([lorebook], messages=["owls and bats"], count_tokens=len)
    assert [entry["content"] for entry in match.fired] == ["OWL"]
