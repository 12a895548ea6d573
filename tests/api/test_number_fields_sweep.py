"""Every whole-number box of a page form and of a REST body, sent text that str.isdigit() takes
and int() does not ("²", superscript two), "--1", and 5,000 digits (past Python's 4,300-digit
limit for int()): each answered 500 (red team, 2026-12-01); now the form comes back or the
body is refused, and nothing is changed."""

from __future__ import annotations

import json

import pytest

from library.lore.services import lorebook_save
from library.personas.services import persona_create

pytestmark = pytest.mark.django_db(transaction=True)

ODD_NUMBERS = ["²", "--1", "9" * 5000]


@pytest.fixture
def lorebook(store, alice):
    return lorebook_save(store, user=alice, data={
        "name": "Harbour", "entries": [{"keys": ["dock"], "content": "The dock floods."}]})


@pytest.fixture
def persona(store, alice):
    return persona_create(store, owner=alice, data={"name": "Wren", "description": "A guide."})


def _page_posts(odd, *, instance, character, background, lorebook, persona):
    entry = {"name": "Harbour", "uid": "0", "e0_keys": "dock", "e0_content": "The dock floods.",
             "e0_position": "before_char", "e0_role": "system"}
    return [
        ("/library/personas/", {"name": "Ash", "description_depth": odd}),
        (f"/library/personas/{persona}/", {"name": "Wren", "description_depth": odd,
                                          "description_position": "depth"}),
        (f"/instances/{instance}/authors_note", {"content": "Rain.", "depth": odd}),
        (f"/instances/{instance}/authors_note", {"content": "Rain.", "frequency": odd}),
        (f"/library/characters/{character}/", {"name": "Alserqi", "base_persona": "A boss.",
                                              "depth_prompt": "Be curt.",
                                              "depth_prompt_depth": odd}),
        (f"/library/lorebooks/{lorebook}/", {**entry, "e0_depth": odd}),
        (f"/library/lorebooks/{lorebook}/", {**entry, "e0_sticky": odd}),
        (f"/library/lorebooks/{lorebook}/", {**entry, "uid": ["0", odd]}),
        (f"/library/backgrounds/{background}/outline", {"action": "edit", "position": odd,
                                                       "content": "Flee."}),
    ]


@pytest.mark.parametrize("odd", ODD_NUMBERS, ids=["superscript", "two_minuses", "5000_digits"])
def test_a_number_box_holding_an_odd_number_gets_its_form_back_never_a_500(
        alice_client, store, instance, character, background, lorebook, persona, odd):
    for address, fields in _page_posts(odd, instance=instance, character=character,
                                       background=background, lorebook=lorebook,
                                       persona=persona):
        answer = alice_client.post(address, fields)
        assert answer.status_code < 500, (address, fields)
    assert store.lorebook_read(lorebook)["entries"][0]["content"] == "The dock floods."


@pytest.mark.parametrize("odd", ODD_NUMBERS, ids=["superscript", "two_minuses", "5000_digits"])
def test_a_rest_body_with_an_odd_number_is_refused_never_a_500(client, auth, store, lorebook,
                                                               odd):
    scripts = {"scripts": [{"scriptName": "s", "findRegex": "/a/", "replaceString": "b",
                            "placement": [1], "minDepth": odd}]}
    book = {"entries": [{"keys": ["dock"], "content": "Changed.", "depth": odd}]}
    for method, address, body in (("put", "/api/v1/regex-scripts", scripts),
                                  ("put", f"/api/v1/lorebooks/{lorebook}", book)):
        answer = getattr(client, method)(address, json.dumps(body),
                                         content_type="application/json", **auth)
        assert answer.status_code < 500, (address, answer.content[:200])
    assert store.lorebook_read(lorebook)["entries"][0]["content"] == "The dock floods."
