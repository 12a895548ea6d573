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
import re

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


class VersionedStaticStorage(StaticFilesStorage):
    """`url(name)` under the current version; files are found and collected as before."""

    def url(self, name: str | None) -> str:
        return super().url(f"{static_version()}/{name}" if name else name)


class VersionedStaticFilesHandler(ASGIStaticFilesHandler):
    """Serves `/static/<version>/<name>` (any version) and `/static/<name>`, with the header
    that says how long the browser may keep it."""

    def file_path(self, url: str) -> str:
        relative = super().file_path(url)
        version, _, rest = relative.partition("/")
        return rest if rest and VERSION_SEGMENT.fullmatch(version) else relative

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
            version = request.path.removeprefix(self.base_url.path).partition("/")[0]
            kept = version == static_version() and not settings.DEBUG  # DEBUG: edits show
            response["Cache-Control"] = KEPT_FOR_A_YEAR if kept else "no-cache"
        return response
