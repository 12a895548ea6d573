"""Static files under a versioned URL, kept by the browser until the app's files change.

`{% static "chat/main.js" %}` reads `/static/v1a2b3c4d5e6f/chat/main.js`: the version is a hash of
every static file the finders serve (the project's `static/`, the apps' own), taken once per
process. A file asked for under the current version is sent as immutable for a year, so a page
load costs one request for the page, not ~30 revalidations of its scripts; an ES module's relative
imports (`./config.js`) resolve under the same version. When any file changes (an upgrade, a
deploy), the version changes with it and every page names the new URLs, so no browser runs last
week's script against this week's page (with no Cache-Control a browser guessed how long to keep
a file from its age, and kept an old `main.js` for hours after an upgrade).

A file asked for under another version (a tab opened before a restart) or under no version at all
is still served, the current file, with `no-cache`: the browser asks again each time. So is every
file with DEBUG on, where a file edited while the server runs keeps its version until a restart."""

from __future__ import annotations

import functools
import hashlib
import mimetypes
import re
from pathlib import Path

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.staticfiles import finders
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.contrib.staticfiles.storage import StaticFilesStorage
from django.core.exceptions import SuspiciousOperation
from django.core.files.storage import Storage
from django.http import Http404, HttpRequest, HttpResponseBase, HttpResponseNotFound

VERSION_SEGMENT = re.compile(r"v[0-9a-f]{12}")
IGNORED = ["CVS", ".*", "*~"]  # collectstatic's default ignore patterns
KEPT_FOR_A_YEAR = "public, max-age=31536000, immutable"


@functools.cache
def static_version() -> str:
    """`v` and 12 hex digits of a hash over every static file's name and content, in name order
    (the first finder that has a name wins, as when the file is served)."""
    found: dict[str, Storage] = {}
    for finder in finders.get_finders():
        for name, storage in finder.list(IGNORED):
            found.setdefault(name, storage)
    digest = hashlib.blake2b(digest_size=6)
    for name in sorted(found):
        digest.update(name.encode() + b"\0")
        with found[name].open(name) as file:
            digest.update(file.read())
        digest.update(b"\0")
    return f"v{digest.hexdigest()}"


def _file_read(name: str) -> tuple[bytes, bytes] | None:
    """(content type, content) of a static file as Django's `serve` would send it, or None
    when no finder has it or it is sent compressed (left to Django)."""
    try:
        path = finders.find(name)
    except SuspiciousOperation:  # a path out of the static folders
        return None
    if path is None or not Path(path).is_file():
        return None
    content_type, encoding = mimetypes.guess_type(path)
    if encoding:
        return None
    return (content_type or "application/octet-stream").encode(), Path(path).read_bytes()


class VersionedStaticStorage(StaticFilesStorage):
    """`url(name)` under the current version; files are found and collected as before."""

    def url(self, name: str | None) -> str:
        return super().url(f"{static_version()}/{name}" if name else name)


class VersionedStaticFilesHandler(ASGIStaticFilesHandler):
    """Serves `/static/<version>/<name>` (any version) and `/static/<name>`, with the header
    that says how long the browser may keep it.

    A file under the current version is answered from memory once read (the version names its
    content, and the static folders hold a few MB): no Django request, no thread per file.
    Through Django's handler each of a page's ~30 files cost a thread of its own, started and
    joined, and about 3 ms of the server's CPU (issue 31)."""

    def __init__(self, application) -> None:  # noqa: ANN001 — an ASGI app
        super().__init__(application)
        self._kept: dict[str, tuple[bytes, bytes]] = {}  # name: (content type, content)

    async def __call__(self, scope, receive, send) -> None:  # noqa: ANN001 — ASGI
        name = self._current_name(scope)
        if name is None:
            return await super().__call__(scope, receive, send)
        if name not in self._kept:
            found = await sync_to_async(_file_read, thread_sensitive=False)(name)
            if found is None:
                return await super().__call__(scope, receive, send)
            self._kept[name] = found
        content_type, content = self._kept[name]
        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", content_type), (b"content-length", str(len(content)).encode()),
            (b"cache-control", KEPT_FOR_A_YEAR.encode())]})
        await send({"type": "http.response.body",
                    "body": content if scope["method"] == "GET" else b""})

    def _current_name(self, scope: dict) -> str | None:
        """The file's name when `scope` asks for one the browser may keep, else None."""
        if (scope["type"] != "http" or scope["method"] not in ("GET", "HEAD")
                or not self._should_handle(scope["path"]) or not self._kept_long(scope["path"])):
            return None
        return self.file_path(scope["path"]) or None

    def _version_and_name(self, url: str) -> tuple[str, str]:
        """("v…", name) of a versioned static URL, ("", name) of any other."""
        relative = super().file_path(url)
        version, _, rest = relative.partition("/")
        return (version, rest) if rest and VERSION_SEGMENT.fullmatch(version) else ("", relative)

    def _kept_long(self, url: str) -> bool:
        """Asked for under the current version, outside DEBUG (where edits must show)."""
        return self._version_and_name(url)[0] == static_version() and not settings.DEBUG

    def file_path(self, url: str) -> str:
        return self._version_and_name(url)[1]

    def serve(self, request: HttpRequest) -> HttpResponseBase:
        """A missing file, or a path out of the static folders, is a plain 404: the page's 404
        template needs what the middleware would have set (the account), which the static
        handler skips (it answered 500)."""
        try:
            return super().serve(request)
        except (Http404, SuspiciousOperation):
            return HttpResponseNotFound("Not found", content_type="text/plain; charset=utf-8")

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        response = await super().get_response_async(request)
        if response.status_code in (200, 304):
            response["Cache-Control"] = (KEPT_FOR_A_YEAR if self._kept_long(request.path)
                                         else "no-cache")
        return response
