"""Attack: a page on another port (or scheme) of the same host opens an authenticated chat socket
with the victim's cookie. Only the socket's own origin, or a CSRF-trusted one, may connect."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from personalab.asgi import application
from personalab.lib.origins import origin_allowed

pytestmark = pytest.mark.django_db(transaction=True)


async def _connect(user, instance_id, *, origin: bytes, host: bytes = b"127.0.0.1:8000"):
    client = Client()
    await sync_to_async(client.force_login)(user)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    headers = [(b"origin", origin), (b"host", host), (b"cookie", cookie)]
    communicator = WebsocketCommunicator(application, f"/ws/chat/{instance_id}/", headers=headers)
    connected, _ = await communicator.connect()
    await communicator.disconnect()
    return connected


@pytest.mark.parametrize("origin", [b"http://127.0.0.1:9999", b"http://127.0.0.1",
                                    b"https://127.0.0.1:8000", b"http://localhost:9999"])
async def test_page_on_another_port_or_scheme_cannot_open_the_victims_socket(alice, instance,
                                                                             origin):
    assert not await _connect(alice, instance, origin=origin)


async def test_page_on_the_servers_own_origin_connects(alice, instance):
    assert await _connect(alice, instance, origin=b"http://127.0.0.1:8000")


async def test_the_servers_own_origin_on_any_port_connects(alice, instance, settings):
    settings.CSRF_TRUSTED_ORIGINS = []
    assert await _connect(alice, instance, origin=b"http://localhost:8123",
                          host=b"localhost:8123")
    assert not await _connect(alice, instance, origin=b"http://localhost:8124",
                              host=b"localhost:8123")


async def test_host_header_outside_allowed_hosts_is_not_trusted(alice, instance, settings):
    settings.CSRF_TRUSTED_ORIGINS = []
    assert not await _connect(alice, instance, origin=b"http://evil.example:8000",
                              host=b"evil.example:8000")


async def test_a_trusted_origin_of_a_reverse_proxy_connects(alice, instance, settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://chat.example.org"]
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "chat.example.org"]
    assert await _connect(alice, instance, origin=b"https://chat.example.org",
                          host=b"127.0.0.1:8000")
    assert await _connect(alice, instance, origin=b"https://chat.example.org:443",
                          host=b"127.0.0.1:8000")


@pytest.mark.parametrize("origin", ["null", "", "http://127.0.0.1:8000@evil.example",
                                    "http://127.0.0.1:8000/x", "ftp://127.0.0.1:8000",
                                    "http://127.0.0.1:99999"])
def test_malformed_origins_never_match(origin):
    assert not origin_allowed(origin, scheme="ws", host="127.0.0.1:8000", trusted=[])


async def test_a_socket_to_an_unknown_path_is_refused_not_an_error(alice):
    """Before: the router raised "No route found" and Daphne answered the handshake with 500."""
    client = Client()
    await sync_to_async(client.force_login)(alice)
    cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
    headers = [(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1:8000"),
               (b"cookie", cookie)]
    communicator = WebsocketCommunicator(application, "/ws/instances/inst_001/", headers=headers)
    connected, _ = await communicator.connect()
    assert connected is False
