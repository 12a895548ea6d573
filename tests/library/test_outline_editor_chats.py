"""The background editor's outline, edited in place: the chats playing it stay on their point,
and the chats whose point was edited or deleted are named under the outline, in the page's
language (others' chats only counted)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from chat.services.instances import instance_create
from director.services import director_plot_set


def _outline_post(alice_client, background, **form):
    return alice_client.post(reverse("background_outline", args=[background]), form)


def test_moving_a_point_above_the_chats_keeps_it_there_and_says_nothing(
        alice_client, store, instance, background):
    director_plot_set(store, instance_id=instance, index=3)
    page = _outline_post(alice_client, background, action="delete", position="1")
    assert page.status_code == 200
    assert 'data-testid="outline-chats"' not in page.content.decode()
    assert store.instance_state_read(instance)["plot_state"]["current_plot_index"] == 2


@pytest.mark.parametrize("language,words", [
    ("en", "These chats could not follow their story step"),
    ("zh-hans", "这些对话无法跟随它们的剧情进度"),
])
def test_editing_the_current_point_names_the_chats_that_keep_its_position(
        alice_client, store, bob, character, instance, background, language, words):
    alice_client.cookies["django_language"] = language
    bobs = instance_create(store, owner=bob, character_id=character, background_id=background)
    for chat in (instance, bobs):
        director_plot_set(store, instance_id=chat, index=3)
    page = _outline_post(alice_client, background, action="edit", position="3",
                         content="与仇人在桥上对峙").content.decode()
    assert words in page
    assert reverse("instance", args=[instance]) in page
    assert reverse("instance", args=[bobs]) not in page  # another account's: counted only
    assert store.instance_state_read(instance)["plot_state"]["current_plot_index"] == 3


@pytest.mark.parametrize("language,words", [
    ("en", "so it shows as done though the story has not played it"),
    ("zh-hans", "所以显示为已完成，但故事并没有演到它"),
])
def test_a_point_added_and_moved_above_a_chats_point_is_named_as_shown_done_there(
        alice_client, store, instance, background, language, words):
    """The plot state is a position (data layout): every point before it shows as done, so a
    point moved up past the chat's point shows done though it never played (newcomer notes)."""
    alice_client.cookies["django_language"] = language
    director_plot_set(store, instance_id=instance, index=2)
    _outline_post(alice_client, background, action="add", content="遇到一个岔路口")
    for position in (6, 5, 4):  # still below the chat's point: nothing to say
        page = _outline_post(alice_client, background, action="up", position=str(position),
                             shown="遇到一个岔路口").content.decode()
        assert words not in page
    page = _outline_post(alice_client, background, action="up", position="3",
                         shown="遇到一个岔路口").content.decode()
    assert words in page and reverse("instance", args=[instance]) in page
    assert store.instance_state_read(instance)["plot_state"]["current_plot_index"] == 3
