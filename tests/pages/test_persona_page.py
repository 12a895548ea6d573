"""The persona & memory page of an instance: evolved persona versions and manual edits, the pinned
prompt override, recaps and biography paragraphs; ownership and the instance lock."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest

from memory.character.biography import biography_add, biography_items
from memory.character.evolved_persona import persona_set_manual, persona_versions
from memory.character.pinned import pinned_prompt_effective, pinned_prompt_set
from memory.summaries.recaps import recap_items

HX = {"HTTP_HX_REQUEST": "true"}


def _post(client, instance_id, action, data=None, **headers):
    return client.post(f"/instances/{instance_id}/persona/{action}", data or {}, **headers)


def _recaps(store, instance_id, texts):
    store.memory_json_write(instance_id, "recaps", {
        "items": [{"id": f"recap_{n}", "text": text, "created_at": f"2025-01-0{n + 1}T00:00:00Z"}
                  for n, text in enumerate(texts)],
        "pending_summaries": []})


def test_page_shows_persona_versions_pinned_recaps_biography_escaped(store, instance,
                                                                     alice_client):
    persona_set_manual(store, instance_id=instance, text="v1 <b>brave</b>")
    persona_set_manual(store, instance_id=instance, text="v2 calmer")
    pinned_prompt_set(store, instance_id=instance, character_id=None, text="never lie")
    biography_add(store, instance_id=instance, text="born in the wastes")
    _recaps(store, instance, ["they met at the bar"])
    response = alice_client.get(f"/instances/{instance}/persona/")
    body = response.content.decode()
    assert response.status_code == 200
    assert "Version 2" in body and "Version 1" in body
    assert "v1 &lt;b&gt;brave&lt;/b&gt;" in body and "<b>brave</b>" not in body
    assert "never lie" in body and "this chat's override" in body
    assert "born in the wastes" in body and "they met at the bar" in body


class _EvolvedBox(HTMLParser):
    """The evolved persona's box and its help line, as a reader of the page meets them."""

    def __init__(self) -> None:
        super().__init__()
        self.box: dict[str, str] = {}
        self.box_text = ""
        self.help: dict[str, str] = {}
        self.help_text = ""
        self._in: str | None = None
        self._section = False

    def handle_starttag(self, tag, attrs):
        attributes = {name: value or "" for name, value in attrs}
        if tag == "section" and attributes.get("data-testid") == "evolved-persona":
            self._section = True
        elif self._section and tag == "textarea" and attributes.get("name") == "text":
            self.box, self._in = attributes, "box"
        elif self._section and attributes.get("id") == "evolved-help":
            self.help, self._in = {"tag": tag, **attributes}, "help"

    def handle_endtag(self, tag):
        if tag == "section":
            self._section = False
        if tag in ("textarea", "p"):
            self._in = None

    def handle_data(self, data):
        if self._in == "box":
            self.box_text += data
        elif self._in == "help":
            self.help_text += data


def test_an_empty_evolved_persona_says_what_it_is_and_when_it_fills(instance, alice_client):
    page = _EvolvedBox()
    page.feed(alice_client.get(f"/instances/{instance}/persona/").content.decode())
    assert page.box_text.strip() == ""
    assert page.help["tag"] == "p" and "hidden" not in page.help
    assert "Update memory" in page.help_text and "fills" in page.help_text
    assert page.box["aria-describedby"] == "evolved-help"
    assert "Update memory" in page.box["placeholder"]


def test_manual_persona_edit_makes_a_new_version_and_restore_works(store, instance,
                                                                   alice_client):
    response = _post(alice_client, instance, "persona_save", {"text": "first self"}, **HX)
    assert response.status_code == 200 and "version 1" in response.content.decode()
    _post(alice_client, instance, "persona_save", {"text": "second self"}, **HX)
    assert store.character_state_read(instance)["evolved_persona"] == "second self"
    response = _post(alice_client, instance, "persona_restore", {"version": "1"}, **HX)
    assert response.status_code == 200
    assert store.character_state_read(instance)["evolved_persona"] == "first self"
    versions = persona_versions(store, instance_id=instance)
    assert [v["evolved_persona"] for v in versions] == ["first self", "second self", "first self"]
    missing = _post(alice_client, instance, "persona_restore", {"version": "42"}, **HX)
    assert missing.status_code == 400


def test_a_persona_too_long_is_refused_in_the_page_not_cut(store, instance, alice_client):
    response = _post(alice_client, instance, "persona_save", {"text": "x" * 8001}, **HX)
    page = response.content.decode()
    assert response.status_code == 400
    assert "The evolved persona is 8001 characters; at most 8000 fit in every turn." in page
    assert 'maxlength' not in page.split('name="text" rows="10"')[1].split(">")[0]
    assert store.character_state_read(instance).get("evolved_persona", "") == ""


def test_pinned_override_set_and_removed(store, instance, alice_client, character):
    definition = store.character_read(character)
    store.character_write(character, {**definition, "pinned_prompt": "character rule"})
    _post(alice_client, instance, "pinned_save", {"text": "instance rule"}, **HX)
    assert pinned_prompt_effective(store, instance_id=instance,
                                   character_id=character) == ("instance rule", "instance")
    response = _post(alice_client, instance, "pinned_save", {"text": "  "}, **HX)
    assert "Override removed" in response.content.decode()
    assert pinned_prompt_effective(store, instance_id=instance,
                                   character_id=character) == ("character rule",
                                                               "character")


def test_recaps_edit_reorder_remove(store, instance, alice_client):
    _recaps(store, instance, ["one", "two", "three"])
    _post(alice_client, instance, "recap_update", {"item": "recap_1", "text": "TWO"}, **HX)
    _post(alice_client, instance, "recap_move", {"item": "recap_2", "to": "0"}, **HX)
    assert [i["text"] for i in recap_items(store, instance_id=instance)] == [
        "three", "one", "TWO"]
    _post(alice_client, instance, "recap_remove", {"item": "recap_0"}, **HX)
    assert [i["text"] for i in recap_items(store, instance_id=instance)] == ["three", "TWO"]
    refused = _post(alice_client, instance, "recap_update", {"item": "recap_1", "text": " "}, **HX)
    assert refused.status_code == 400
    assert [i["text"] for i in recap_items(store, instance_id=instance)] == ["three", "TWO"]


def test_biography_add_edit_reorder_remove_and_from_persona(store, instance, alice_client):
    _post(alice_client, instance, "bio_add", {"text": "paragraph A"}, **HX)
    _post(alice_client, instance, "bio_add", {"text": "paragraph B"}, **HX)
    items = biography_items(store, instance_id=instance)
    _post(alice_client, instance, "bio_move", {"item": items[1]["id"], "to": "0"}, **HX)
    _post(alice_client, instance, "bio_update", {"item": items[0]["id"], "text": "A2"}, **HX)
    assert [i["text"] for i in biography_items(store, instance_id=instance)] == [
        "paragraph B", "A2"]
    _post(alice_client, instance, "bio_remove", {"item": items[1]["id"]}, **HX)
    persona_set_manual(store, instance_id=instance, text="line one\n\nline two")
    response = _post(alice_client, instance, "bio_from_persona", {}, **HX)
    assert "2 paragraphs added" in response.content.decode()
    assert [i["text"] for i in biography_items(store, instance_id=instance)] == [
        "A2", "line one", "line two"]


def test_without_htmx_actions_redirect_to_the_page(instance, alice_client):
    response = _post(alice_client, instance, "bio_add", {"text": "x"})
    assert response.status_code == 302 and response["Location"] == f"/instances/{instance}/persona/"


def test_unknown_action_is_404(instance, alice_client):
    assert _post(alice_client, instance, "drop_everything", {}, **HX).status_code == 404


def test_busy_instance_refuses_changes(store, instance, alice_client):
    lock = store.instance_lock(instance).acquire()
    try:
        response = _post(alice_client, instance, "persona_save", {"text": "new"}, **HX)
    finally:
        lock.release()
    assert response.status_code == 409 and "busy" in response.content.decode()
    assert store.character_state_read(instance)["evolved_persona"] == ""
    assert persona_versions(store, instance_id=instance) == []


def test_another_user_gets_404(store, instance, client, bob):
    client.force_login(bob)
    assert client.get(f"/instances/{instance}/persona/").status_code == 404
    for action in ("persona_save", "pinned_save", "bio_add"):
        assert _post(client, instance, action, {"text": "bob was here"}, **HX).status_code == 404
    assert store.character_state_read(instance)["evolved_persona"] == ""
    assert biography_items(store, instance_id=instance) == []


def test_staff_may_open_any_instance(instance, client, staff):
    client.force_login(staff)
    assert client.get(f"/instances/{instance}/persona/").status_code == 200
    assert client.get(f"/instances/{instance}/history/").status_code == 200


@pytest.mark.parametrize("page", ["persona", "history"])
def test_a_chat_pages_back_link_returns_to_the_place_the_player_was_reading(
        page, instance, alice_client):
    """History's link ended in #reading (static/chat/messages.js returns to the message the
    player was reading); Persona & memory's, one click further, opened the newest line."""
    body = alice_client.get(f"/instances/{instance}/{page}/").content.decode()
    assert f'href="/instances/{instance}/#reading">← back to the chat' in body


@pytest.mark.parametrize(("language", "words"), [
    ("en", ["from “Update memory”", "saved by hand"]),
    ("zh-hans", ["来自“更新记忆”", "手动保存"])])
def test_a_versions_line_says_where_it_came_from_in_words(store, instance, alice_client,
                                                         language, words):
    """It showed the record's source as stored: "Version 1 · update_memory · 16:16"."""
    store.ledger_append(instance, "persona_versions", [
        {"version": 1, "evolved_persona": "warier", "created_at": "2026-12-03T16:16:00Z",
         "source": "update_memory"}])
    persona_set_manual(store, instance_id=instance, text="calmer")
    alice_client.cookies["django_language"] = language
    body = alice_client.get(f"/instances/{instance}/persona/").content.decode()
    lines = [part.split("</summary>")[0] for part in body.split("<summary>")[1:]]
    versions = [line for line in lines if "<time" in line]
    assert len(versions) == 2, lines
    assert not any(word in line for line in versions
                   for word in ("update_memory", "manual", "imported", " · ?"))
    assert words[0] in versions[1] and words[1] in versions[0], versions
