"""A browser tab's chat WebSocket in the tests, through the app's own ASGI application (no
server): opened with a logged-in session's cookie, read until the turn ends."""

from __future__ import annotations

from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from chat.services.instances import instance_create
from library.character_services import character_save
from personalab.asgi import application
from personalab.storage import get_store

ORIGIN = b"http://127.0.0.1:8000"
HOST = b"127.0.0.1:8000"


async def session_cookie(user) -> bytes:
    """The `sessionid` cookie of a fresh login of `user`."""
    client = Client()
    await sync_to_async(client.force_login)(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def tab_connect(user, instance_id, origin=ORIGIN, cookies: str = ""):
    """(communicator, connected): a tab of `user` (None: logged out) from `origin`."""
    headers = [(b"origin", origin), (b"host", HOST)]
    if user is not None:
        headers.append((b"cookie", await session_cookie(user) + (f"; {cookies}".encode()
                                                                 if cookies else b"")))
    communicator = WebsocketCommunicator(application, f"/ws/chat/{instance_id}/", headers=headers)
    connected, _ = await communicator.connect()
    return communicator, connected


async def own_instance(user) -> str:
    """A chat of a private character of `user`'s own (another account's tab beside alice's)."""
    def made():
        store = get_store()
        pell = character_save(store, user=user, character_id=None, data={
            "name": "Pell", "base_persona": "A ferryman.", "visibility": "private"})
        return instance_create(store, owner=user, character_id=pell)
    return await sync_to_async(made)()


async def events_until_done(communicator, timeout=10) -> list[dict]:
    """The events up to the turn's `done`, or an `error` other than busy."""
    events = []
    while True:
        event = await communicator.receive_json_from(timeout=timeout)
        events.append(event)
        if event["type"] in ("done", "error") and event.get("code") != "busy":
            return events


async def tab_open(user, instance_id, *, client: Client | None = None) -> WebsocketCommunicator:
    """A tab of `client`'s browser (logged in as `user` when not given), connected."""
    if client is None:
        client = Client()
        await sync_to_async(client.force_login)(user)
    headers = [(b"origin", ORIGIN), (b"host", HOST),
               (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode())]
    communicator = WebsocketCommunicator(application, f"/ws/chat/{instance_id}/", headers=headers)
    connected, _ = await communicator.connect(timeout=5)
    assert connected
    return communicator


async def events_until_reply_done(communicator, timeout=10) -> list[dict]:
    """The events up to the reply's `done` (an error does not end the wait)."""
    events = []
    while not events or events[-1]["type"] != "done":
        events.append(await communicator.receive_json_from(timeout=timeout))
    return events
