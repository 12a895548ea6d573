from __future__ import annotations

import os
import sys
from functools import partial

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "personalab.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from chat.live.routing import websocket_urlpatterns  # noqa: E402
from chat.services.index import instances_index_catch_up_start  # noqa: E402
from library.trash_retention import trash_purge_daily  # noqa: E402
from memory.runtime import (  # noqa: E402
    catch_up_start,
    recall_warm,
    recall_warm_pending,
    store_check_start,
)
from personalab.body_limit import BodyLimit  # noqa: E402
from personalab.daphne_request import daphne_requests_bound  # noqa: E402
from personalab.lib.embedding.embeddings import engines_preload  # noqa: E402
from personalab.lib.llm import llm_client_warm  # noqa: E402
from personalab.login_pause import LoginPauseGuard  # noqa: E402
from personalab.request_login import request_signed_in  # noqa: E402
from personalab.server_start import after_listening  # noqa: E402
from personalab.static_files import VersionedStaticFilesHandler  # noqa: E402
from personalab.storage import get_store  # noqa: E402
from personalab.ws_origin import SameOriginValidator  # noqa: E402

# Every request of every account shares one interpreter lock. A thread that needs it back (after
# a query, a file read, a socket write) waits up to the switch interval while another thread
# computes (an export, a hostile stream's parsing), so a cheap request that takes it back a few
# dozen times waited seconds behind another account's heavy one (bench/cross_account.py: B's
# median during two 116k-message exports 1.0 s at Python's 5 ms, 0.19 s at 0.5 ms).
sys.setswitchinterval(settings.PERSONALAB_GIL_SWITCH_MS / 1000)

daphne_requests_bound()
# Before anything here opens the embedded Chroma store: one a kill -9 damaged aborted the server
# in native code on its first search (memory/vectors/store_check.py).
store_check_start(get_store())
application = ProtocolTypeRouter(
    {
        "http": LoginPauseGuard(BodyLimit(VersionedStaticFilesHandler(django_asgi_app),
                                          signed_in=request_signed_in)),
        "websocket": SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
    }
)

# Each holds the interpreter lock while every account waits: building the embedding engines
# (seconds), and importing the LLM client with its SSL context (the first turn's model-list call
# did that inside a turn). Done once the server listens, not before (personalab/server_start.py);
# test servers skip it (tests/conftest.py).
# The LLM client first: every turn's window is read through it (a model-list call, 5.4 s cold
# at load 12, 0.3 s warm). What a turn's recall uses last: a turn waits at most 2 s for it and
# goes on without recall (memory/runtime.py `index_for_turn`).
def _warm_up() -> None:
    try:
        llm_client_warm()
        engines_preload()
    finally:
        recall_warm(get_store())


def _catch_up() -> None:
    catch_up_start(every_seconds=settings.PERSONALAB_INDEX_CATCHUP_SECONDS)
    instances_index_catch_up_start(get_store())


if settings.PERSONALAB_EMBED_PRELOAD:
    recall_warm_pending()
    after_listening(_warm_up, name="server-warm-up")

if settings.PERSONALAB_TRASH_DAYS > 0:
    after_listening(partial(trash_purge_daily, get_store()), name="trash-purge")

if settings.PERSONALAB_INDEX_CATCHUP_SECONDS > 0:
    after_listening(_catch_up, name="index-catch-up-start")
