"""The chat a page may open: one the reader may see (their own, or any for staff), else a 404,
the answer a chat that does not exist gets, so another account's chat ids say nothing."""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.http import Http404, HttpRequest

from chat.models import Instance
from chat.services.errors import NotFound
from chat.services.instances import instance_for_user


def instance_or_404(request: HttpRequest, instance_id: str) -> Instance:
    try:
        return instance_for_user(request.user, instance_id)
    except NotFound:
        raise Http404("instance not found") from None


async def instance_or_404_async(request: HttpRequest, instance_id: str) -> Instance:
    user = await request.auser()
    try:
        return await sync_to_async(instance_for_user)(user, instance_id)
    except NotFound:
        raise Http404("instance not found") from None
