"""User regexes are bounded when they are compiled, not only when they match (issue 29): a
lore key that would take seconds and a gigabyte to compile is refused where it is written,
and one already stored never compiles in a turn."""

from __future__ import annotations

import json

import pytest
import regex

from library.lore.activation import lorebook_match
from personalab.lib import user_regex
from personalab.lib.tokens import count_tokens
from personalab.lib.user_regex import PatternRefused, pattern_compile, pattern_expansion

pytestmark = pytest.mark.django_db

BOMBS = ["/(?:a{2000}){2000}/", "/(?:x{65535}){65535}/", "/(?:(?:a{30}){30}){30}/"]


def _book(keys, **entry):
    return {"name": "Bombs", "entries": [{"keys": keys, "content": "boom", **entry}]}


@pytest.mark.parametrize("key", BOMBS)
def test_a_lorebook_put_with_a_regex_bomb_key_is_refused_beside_the_field(alice_client, key):
    created = alice_client.post("/api/v1/lorebooks", _book(["dragon"]),
                                content_type="application/json")
    lorebook_id = created.json()["lorebook_id"]
    response = alice_client.put(f"/api/v1/lorebooks/{lorebook_id}", _book([key]),
                                content_type="application/json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert "repeat" in error["fields"]["entries[0].keys"]


def test_importing_a_world_with_a_regex_bomb_is_refused_and_saves_nothing(alice_client, store):
    from django.core.files.uploadedfile import SimpleUploadedFile

    world = {"entries": {"0": {"uid": 0, "key": [BOMBS[0]], "content": "boom"}}}
    before = store.lorebook_ids()
    upload = SimpleUploadedFile("bomb.json", json.dumps(world).encode(), "application/json")
    response = alice_client.post("/api/v1/lorebooks/import", {"file": upload})
    assert response.status_code in (400, 422)
    assert "repeat" in response.content.decode()
    assert store.lorebook_ids() == before


def test_an_invalid_regex_key_is_refused_in_the_editor_beside_its_field(alice_client, store):
    created = alice_client.post("/api/v1/lorebooks", _book(["dragon"]),
                                content_type="application/json")
    lorebook_id = created.json()["lorebook_id"]
    page = alice_client.post(f"/library/lorebooks/{lorebook_id}/", {
        "name": "Bombs", "scan_depth": "2", "uid": "0", "e0_keys": "/[unclosed/",
        "e0_content": "boom", "e0_selective_logic": "and_any", "e0_position": "before_char",
        "e0_depth": "4", "e0_role": "system", "e0_priority": "100"})
    assert page.status_code == 400
    html = page.content.decode()
    assert 'data-testid="field-error"' in html and "a “[” is never closed, after “/[”" in html
    assert store.lorebook_read(lorebook_id)["entries"][0]["keys"] == ["dragon"]


def test_test_this_text_flags_a_stored_key_that_cannot_fire(alice_client, store):
    created = alice_client.post("/api/v1/lorebooks", _book(["dragon"]),
                                content_type="application/json")
    lorebook_id = created.json()["lorebook_id"]
    book = store.lorebook_read(lorebook_id)
    book["entries"][0]["keys"] = ["/[unclosed/", BOMBS[0]]  # written before the check
    store.lorebook_write(lorebook_id, book)
    html = alice_client.post(f"/library/lorebooks/{lorebook_id}/test",
                             {"text": "dragon"}).content.decode()
    assert 'data-testid="lore-key-problems"' in html
    assert "a “[” is never closed" in html and "repeat count" in html


def test_a_stored_bomb_key_never_compiles_in_a_turn_and_is_reported(monkeypatch):
    compiled = []
    monkeypatch.setattr(user_regex.regex, "compile",
                        lambda *a, **k: compiled.append(a) or regex.compile(*a, **k))
    match = lorebook_match([_book([BOMBS[0], "dragon"])], messages=["a dragon"],
                           count_tokens=count_tokens)
    assert [e["uid"] for e in match.fired] == [0]  # the plain key still fires
    assert compiled == []
    assert any("repeat count" in problem for problem in match.problems)


def test_expansion_counts_nested_repeats_and_passes_ordinary_keys():
    assert pattern_expansion(r"\b(Amy|Eldoria)\b") < 50
    assert pattern_expansion("[a-z]{1,5}") == 5
    with pytest.raises(PatternRefused):
        pattern_expansion("(?:a{100}){200}")
    with pytest.raises(PatternRefused):
        pattern_expansion("(" * 30 + "a" + ")" * 30)
    with pytest.raises(PatternRefused):
        pattern_expansion("a" * 3000)


def test_the_compiled_pattern_cache_is_bounded_by_bytes(monkeypatch):
    cache = user_regex._BoundedCache(limit=200_000)
    monkeypatch.setattr(user_regex, "CACHE", cache)
    for n in range(200):
        pattern_compile(f"(?:x{n}y){{{1 + n % 9}}}[a-z]{{300}}", 0)
    assert cache.size <= 200_000
    assert 0 < len(cache.items) < 200
