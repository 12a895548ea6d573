"""A name holding a right-to-left override (U+202E) reversed the rest of the line it sat in: a
persona "\u202eAnn" showed "Ann #2 · turn 1 · 12:30" reversed in the chat's message header. Every
user-written name a page shows beside other text is now in a <bdi>, which ends the override
with the name."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from chat.services.instances import instance_create
from library.character_services import character_save
from library.lore.services import lorebook_save

pytestmark = pytest.mark.django_db

RLO = "\u202e"
# Text that is a line of its own: no other text shares its direction.
OWN_LINE = {"title", "option", "textarea", "script", "h1", "h3", "td", "label"}


class _Unisolated(HTMLParser):
    """Text holding U+202E outside a <bdi> (and outside elements that are a line of their own)."""

    VOID = {"img", "input", "br", "meta", "link", "hr", "source", "col", "wbr", "area"}

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        if tag in self.open:
            while self.open.pop() != tag:
                pass

    def handle_data(self, data):
        if RLO in data and "bdi" not in self.open and not OWN_LINE & set(self.open[-1:]):
            self.found.append(f"{'>'.join(self.open[-3:])}: {data.strip()[:60]!r}")


def _unisolated(html: str) -> list[str]:
    reader = _Unisolated()
    reader.feed(html)
    return reader.found


@pytest.fixture
def reversed_names(store, alice):
    book = lorebook_save(store, user=alice, data={"name": f"{RLO}Lore", "entries": []})
    mira = character_save(store, user=alice, data={"name": f"{RLO}Mira", "base_persona": "x"})
    instance = instance_create(store, owner=alice, character_id=mira)
    with store.instance_lock(instance):
        store.session_append(instance, "sess_001", {
            "role": "user", "content": "hello", "turn": 1, "name": f"{RLO}Ann"})
        store.session_append(instance, "sess_001", {
            "role": "assistant", "content": "hi", "turn": 1, "name": f"{RLO}Mira"})
    return {"instance": instance, "book": book}


def test_names_holding_a_right_to_left_override_are_isolated(alice_client, reversed_names):
    instance = reversed_names["instance"]
    for path in (f"/instances/{instance}/", f"/instances/{instance}/history/", "/",
                 "/library/"):
        html = alice_client.get(path).content.decode()
        assert f"{RLO}Mira" in html or f"{RLO}Lore" in html, path
        assert _unisolated(html) == [], (path, _unisolated(html))
