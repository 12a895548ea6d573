"""Where the persona's description goes (SillyTavern 1.12.6's persona description positions):
in the prompt, at the top or bottom of the author's note (on the turns the note is sent), in
the chat at a depth with a role, or nowhere. Checked on the prompt the stub server receives."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from chat.play.lore import authors_note_blocks
from chat.play.turn import turn_run
from chat.services.instance_settings import instance_update
from library.personas.services import persona_create, persona_update

pytestmark = pytest.mark.django_db(transaction=True)

DESCRIPTION = "{{user}} is a retired pilot."


def _play_as(store, alice, instance, **placement) -> str:
    persona_id = persona_create(store, owner=alice, data={
        "name": "Mira", "description": DESCRIPTION, **placement})
    instance_update(store, user=alice, instance_id=instance, persona_id=persona_id)
    return persona_id


async def _sent(store, instance, stub, text="Hello there.") -> list[tuple[str, str]]:
    async def emit(event):
        return None

    await turn_run(store, instance_id=instance, user_text=text, emit=emit)
    return [(m["role"], m["content"]) for m in stub.requests[-1]["messages"]]


def _everywhere(sent: list[tuple[str, str]]) -> str:
    return "\n".join(content for _, content in sent)


async def test_in_the_prompt_is_the_default_and_none_sends_nothing(
        store, alice, instance, use_stub):
    persona_id = await sync_to_async(_play_as)(store, alice, instance)
    assert "Mira is a retired pilot." in (await _sent(store, instance, use_stub))[0][1]
    await sync_to_async(persona_update)(store, actor=alice, persona_id=persona_id,
                                        data={"description_position": "none"})
    assert "retired pilot" not in _everywhere(await _sent(store, instance, use_stub))


async def test_at_a_depth_the_description_is_its_own_message_with_its_role(
        store, alice, instance, use_stub):
    await sync_to_async(_play_as)(store, alice, instance, description_position="depth",
                                  description_depth=0, description_role="user")
    sent = await _sent(store, instance, use_stub)
    assert "retired pilot" not in sent[0][1]
    assert sent[-2:] == [("user", "Hello there."), ("user", "Mira is a retired pilot.")]


@pytest.mark.parametrize(("position", "expected"), [
    ("an_top", "Mira is a retired pilot.\nRain all night."),
    ("an_bottom", "Rain all night.\nMira is a retired pilot.")])
async def test_at_the_authors_note_it_joins_the_note_at_the_notes_depth_and_role(
        store, alice, instance, use_stub, position, expected):
    store.memory_json_write(instance, "authors_note",
                            {"text": "Rain all night.", "depth": 0, "role": "assistant",
                             "frequency": 2})
    await sync_to_async(_play_as)(store, alice, instance, description_position=position)
    first = await _sent(store, instance, use_stub)  # turn 1: the note is not due
    assert "retired pilot" not in _everywhere(first)
    second = await _sent(store, instance, use_stub, "Again.")
    assert second[-1] == ("assistant", expected)
    assert "retired pilot" not in second[0][1]


def test_the_description_sits_between_the_lore_at_the_notes_top_and_bottom():
    lore = [{"content": "LORE_TOP", "position": "an_top"},
            {"content": "LORE_BOTTOM", "position": "an_bottom"}]
    note = {"text": "NOTE", "depth": 3, "role": "user"}
    for position, middle in (("an_top", "ME\nNOTE"), ("an_bottom", "NOTE\nME")):
        [block] = authors_note_blocks(lore, note, persona={
            "description": "ME", "description_position": position})
        assert block["content"] == f"LORE_TOP\n{middle}\nLORE_BOTTOM"
        assert (block["depth"], block["role"]) == (3, "user")
    [alone] = authors_note_blocks([], {}, persona={"description": "ME",
                                                   "description_position": "an_top"})
    assert (alone["content"], alone["depth"], alone["role"]) == ("ME", 4, "system")


def test_an_empty_note_leaves_a_blank_line_between_its_top_and_bottom_lore():
    # SillyTavern 1.12.6 builds `${top}\n${note}\n${bottom}` and only trims its ends, so
    # with no note text (its default) the lore at the top and at the bottom of the note are
    # a blank line apart; a persona placed there fills the middle line.
    lore = [{"content": "LORE_TOP", "position": "an_top"},
            {"content": "LORE_BOTTOM", "position": "an_bottom"}]
    [block] = authors_note_blocks(lore, {})
    assert block["content"] == "LORE_TOP\n\nLORE_BOTTOM"
    [block] = authors_note_blocks(lore, {}, persona={"description": "ME",
                                                     "description_position": "an_top"})
    assert block["content"] == "LORE_TOP\nME\n\nLORE_BOTTOM"
    [block] = authors_note_blocks(lore[:1], {"text": "NOTE"})
    assert block["content"] == "LORE_TOP\nNOTE"


def test_the_api_keeps_the_position_and_refuses_a_wrong_one(client, auth):
    created = client.post("/api/v1/personas", {
        "name": "Mira", "description": "A pilot.", "description_position": "depth",
        "description_depth": 3, "description_role": "assistant"},
        content_type="application/json", **auth)
    assert created.status_code == 201
    body = created.json()
    assert (body["description_position"], body["description_depth"],
            body["description_role"]) == ("depth", 3, "assistant")
    url = f"/api/v1/personas/{body['persona_id']}"
    assert client.put(url, {"description_position": "an_bottom"},
                      content_type="application/json", **auth).json()[
        "description_position"] == "an_bottom"
    refused = client.put(url, {"description_position": "after_char"},
                         content_type="application/json", **auth)
    assert refused.status_code == 400 and "description_position" in refused.content.decode()
    assert client.get(url, **auth).json()["description_depth"] == 3


def test_the_persona_form_sets_the_position(alice_client, store):
    page = alice_client.get("/library/personas/").content.decode()
    assert 'name="description_position"' in page
    alice_client.post("/library/personas/", {
        "name": "Mira", "description": "A pilot.", "visibility": "private",
        "description_position": "depth", "description_depth": "5", "description_role": "user"})
    [persona_id] = store.persona_ids()
    saved = store.persona_read(persona_id)
    assert (saved["description_position"], saved["description_depth"],
            saved["description_role"]) == ("depth", 5, "user")
    refused = alice_client.post(f"/library/personas/{persona_id}/", {
        "name": "Mira", "description_depth": "deep"})
    assert refused.status_code == 400 and store.persona_read(persona_id)[
        "description_depth"] == 5


def test_at_the_same_depth_it_follows_the_note_and_the_cards_note_and_precedes_lore(tmp_path):
    from chat.play.lore import persona_depth_blocks
    from chat.prompt.assemble import prompt_build
    from chat.prompt.templates import TemplateStore
    from tests.chat.prompt_inputs import make_inputs, make_lines

    persona = persona_depth_blocks({"description": "PERSONA", "description_position": "depth",
                                    "description_depth": 0, "description_role": "system"})
    blocks = [{"name": "lore:b:1", "content": "LORE", "position": "depth", "depth": 0},
              *persona,
              {"name": "depth_prompt", "content": "CARD_NOTE", "position": "depth", "depth": 0},
              {"name": "authors_note", "content": "NOTE", "position": "depth", "depth": 0}]
    result = prompt_build(make_inputs(lines=make_lines(1), floating_blocks=blocks),
                          TemplateStore(tmp_path / "prompt_templates").get("zh"))
    assert result.messages[-1] == {"role": "system",
                                   "content": "NOTE\nCARD_NOTE\nPERSONA\nLORE"}
