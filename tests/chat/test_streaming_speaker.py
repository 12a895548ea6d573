"""A streaming reply is named from its first event: who speaks (id, name, picture) rides on the
first token, so the chat page's bubble shows the character while it streams, in a group, on a
regenerate and in a tab that joins mid-reply."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from chat.groups.round import conversation_turn
from chat.play.redo import redo_run
from chat.services.instances import instance_create
from library.avatars import avatar_write
from tests.png_files import png_bytes
from tests.socket_tabs import events_until_reply_done, tab_open
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def brenna(store, alice):
    from library.character_services import character_save

    return character_save(store, user=alice, character_id=None, data={
        "name": "Brenna", "base_persona": "沉默的机械师。", "greeting": "……嗯。",
        "visibility": "private"})


@pytest.fixture
def group(store, alice, character, brenna, background):
    return instance_create(store, owner=alice, character_ids=[character, brenna],
                           background_id=background, reply_order="list")


async def _turn(store, instance_id, text, *, speaker=None) -> list[dict]:
    events: list[dict] = []

    async def emit(event):
        events.append(event)

    await conversation_turn(store, instance_id=instance_id, user_text=text, emit=emit,
                            speaker=speaker)
    return events


def _tokens(events):
    return [e for e in events if e["type"] == "token"]


async def test_the_first_token_names_the_character_and_its_picture(store, instance, character,
                                                                   use_stub):
    avatar_write(store.character_dir(character), png_bytes(4, 6), "png")
    use_stub.script(Reply("灯亮了。" * 4, chunk_size=2, delay=0.01))
    tokens = _tokens(await _turn(store, instance, "有人吗？"))
    assert len(tokens) > 1
    first = tokens[0]
    assert (first["speaker"], first["name"]) == (character, "Alserqi")
    assert first["avatar"] == f"/library/characters/{character}/avatar.png"
    assert all("name" not in token for token in tokens[1:])  # once per reply, not per token


async def test_each_member_of_a_group_is_named_by_its_own_first_token(store, group, brenna,
                                                                      use_stub):
    use_stub.script(Reply("……手没事。"))
    tokens = _tokens(await _turn(store, group, "Brenna，你的手？", speaker=brenna))
    assert (tokens[0]["speaker"], tokens[0]["name"], tokens[0]["avatar"]) == (
        brenna, "Brenna", None)


async def test_a_group_members_bubble_opens_with_its_picture_before_any_token(
        store, group, character, use_stub):
    """The `speaker` event that opens a member's bubble carries its picture, so the bubble is
    not a letter until the first token (issue 33 item 4)."""
    avatar_write(store.character_dir(character), png_bytes(4, 6), "png")
    use_stub.script(Reply("灯亮了。"))
    events = await _turn(store, group, "有人吗？", speaker=character)
    opened = next(e for e in events if e["type"] == "speaker")
    assert events.index(opened) < events.index(_tokens(events)[0])
    assert (opened["name"], opened["avatar"]) == (
        "Alserqi", f"/library/characters/{character}/avatar.png")


async def test_a_regenerate_in_a_group_names_the_member_whose_reply_it_redoes(
        store, group, brenna, use_stub):
    use_stub.script(Reply("……手没事。"), Reply("……别问了。"))
    await _turn(store, group, "Brenna？", speaker=brenna)
    events: list[dict] = []

    async def emit(event):
        events.append(event)

    await redo_run(group, action="regenerate", emit=emit)
    first = _tokens(events)[0]
    assert (first["speaker"], first["name"]) == (brenna, "Brenna")


async def test_a_tab_joining_mid_reply_is_told_who_is_speaking(alice, store, group, brenna,
                                                               use_stub):
    use_stub.script(Reply("".join(chr(0x4E00 + i) for i in range(80)), chunk_size=1,
                          delay=0.01))
    browser = Client()
    await sync_to_async(browser.force_login)(alice)
    sender = await tab_open(alice, group, client=browser)
    await sender.send_json_to({"type": "trigger", "speaker": brenna})
    while (await sender.receive_json_from(timeout=5))["type"] != "token":
        pass
    # A second tab of the same browser: its login is not written while the turn writes (a
    # login mid-reply met SQLite's shared-cache table lock once under load).
    follower = await tab_open(alice, group, client=browser)
    followed = await events_until_reply_done(follower)
    await events_until_reply_done(sender)
    await sender.disconnect()
    await follower.disconnect()
    assert followed[0]["type"] == "stream"
    assert (followed[0]["speaker"], followed[0]["name"]) == (brenna, "Brenna")
