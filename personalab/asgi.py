from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "personalab.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from chat.routing import websocket_urlpatterns  # noqa: E402
from personalab.ws_origin import SameOriginValidator  # noqa: E402
from django.conf import settings  # noqa: E402
from memory.runtime import catch_up_start  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": ASGIStaticFilesHandler(django_asgi_app),
        "websocket": SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)

if settings.PERSONALAB_INDEX_CATCHUP_SECONDS > 0:
    catch_up_start(every_seconds=settings.PERSONALAB_INDEX_CATCHUP_SECONDS)
