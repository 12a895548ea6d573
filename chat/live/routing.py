from channels.generic.websocket import WebsocketConsumer
from django.urls import re_path

from chat.live.consumers import ChatConsumer


class NoSuchSocket(WebsocketConsumer):
    """Any other WebSocket path: refused at the handshake (a browser sees a failed connection),
    instead of the router's "No route found" error, which Daphne answers with a 500."""

    def connect(self) -> None:
        self.close()


websocket_urlpatterns = [
    re_path(r"^ws/chat/(?P<instance_id>[^/]+)/$", ChatConsumer.as_asgi()),
    re_path(r"", NoSuchSocket.as_asgi()),
]
