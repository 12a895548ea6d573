"""A held beat or a story moved by hand reaches the chat's other open pages over their
WebSocket (`plot_changed`), so a second tab or device shows it without a reload."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from django.test import Client
from django.urls import reverse

from chat.models import ApiToken
from tests.socket_tabs import tab_open

pytestmark = pytest.mark.django_db(transaction=True)


async def test_holding_and_moving_the_story_are_told_to_every_open_tab(alice, instance):
    token = await sync_to_async(ApiToken.issue)(alice)
    phone, laptop = await tab_open(alice, instance), await tab_open(alice, instance)
    answer = await sync_to_async(Client().put)(
        f"/api/v1/instances/{instance}/plot_hold", json.dumps({"held": True}),
        content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert answer.status_code == 200, answer.content
    told = [await tab.receive_json_from(timeout=5) for tab in (phone, laptop)]
    assert told[0] == told[1] == {"type": "plot_changed", "held": True, "current_index": 1,
                                  "current_status": "pending"}
    page = Client()
    await sync_to_async(page.force_login)(alice)
    moved = await sync_to_async(page.post)(reverse("instance_outline", args=[instance]),
                                           {"index": "2", "status": "in_progress"},
                                           HTTP_HX_REQUEST="true")
    assert moved.status_code == 200
    assert 'data-plot="2:in_progress"' in moved.content.decode()
    assert (await laptop.receive_json_from(timeout=5)) == {
        "type": "plot_changed", "held": True, "current_index": 2, "current_status": "in_progress"}
    await phone.disconnect()
    await laptop.disconnect()


async def test_a_refused_move_tells_nobody(alice, instance):
    tab = await tab_open(alice, instance)
    page = Client()
    await sync_to_async(page.force_login)(alice)
    await sync_to_async(page.post)(reverse("instance_outline", args=[instance]),
                                   {"index": "99", "status": "in_progress"})
    assert await tab.receive_nothing(timeout=0.2)
    await tab.disconnect()
