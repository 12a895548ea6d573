"""Static files under a versioned URL (personalab/static_files.py): a page names each script
under a hash of the files, the browser keeps a file asked for under that version for a year, and
an edited file changes the version. Another version or none is still served, marked `no-cache`."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.templatetags.static import static

from personalab.static_files import VersionedStaticFilesHandler, static_version
from tests.asgi_exchange import asgi_exchange


async def _never_called(scope, receive, send):  # noqa: ANN001 — an ASGI app
    raise AssertionError(f"not a static file: {scope['path']}")


def _get(path: str, method: str = "GET") -> tuple[int, dict[bytes, bytes], bytes]:
    """(status, headers by lower-case name, body) of a request through the server's static
    handler."""
    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(),
             "query_string": b"", "headers": [], "scheme": "http",
             "server": ("testserver", 80), "client": ("127.0.0.1", 1), "asgi": {"version": "3.0"}}

    start, body = asgi_exchange(VersionedStaticFilesHandler(_never_called), scope)
    return start["status"], {k.lower(): v for k, v in start["headers"]}, body


@pytest.fixture
def static_dir(settings, tmp_path: Path):
    """A static folder of its own (the version is taken again for it, and after the test)."""
    (tmp_path / "chat").mkdir()
    (tmp_path / "chat" / "main.js").write_text('import {x} from "./config.js";\n')
    (tmp_path / "chat" / "config.js").write_text("export const x = 1;\n")
    settings.STATICFILES_DIRS = [tmp_path]
    settings.INSTALLED_APPS = [app for app in settings.INSTALLED_APPS if app != "ninja"]
    finders.get_finder.cache_clear()
    static_version.cache_clear()
    yield tmp_path
    finders.get_finder.cache_clear()
    static_version.cache_clear()


def test_a_page_names_each_file_under_the_version_of_the_files(static_dir: Path) -> None:
    version = static_version()
    assert static("chat/main.js") == f"/static/{version}/chat/main.js"
    (static_dir / "chat" / "config.js").write_text("export const x = 2;\n")
    assert static_version() == version  # taken once per process
    static_version.cache_clear()
    assert static_version() != version  # an edited file: a new version, new URLs


def test_a_file_under_the_current_version_is_kept_a_year_and_its_imports_resolve_under_it(
        static_dir: Path) -> None:
    main = static("chat/main.js")
    status, headers, body = _get(main)
    assert status == 200 and body.startswith(b"import")
    assert headers[b"cache-control"] == b"public, max-age=31536000, immutable"
    assert headers[b"content-type"] == b"text/javascript" and headers[b"content-length"] == (
        str(len(body)).encode())
    assert _get(main, "HEAD")[::2] == (200, b"")
    imported = main.rsplit("/", 1)[0] + "/config.js"  # what "./config.js" resolves to
    status, headers, body = _get(imported)
    assert status == 200 and body == b"export const x = 1;\n"
    assert headers[b"cache-control"] == b"public, max-age=31536000, immutable"


@pytest.mark.parametrize("path", ["/static/v000000000000/chat/main.js", "/static/chat/main.js"])
def test_another_version_or_none_is_served_and_asked_for_again_each_time(static_dir: Path,
                                                                        path: str) -> None:
    status, headers, body = _get(path)
    assert status == 200 and body.startswith(b"import")
    assert headers[b"cache-control"] == b"no-cache"


def test_with_debug_on_an_edit_shows_without_a_restart(static_dir: Path, settings) -> None:
    settings.DEBUG = True
    status, headers, _ = _get(static("chat/main.js"))
    assert status == 200 and headers[b"cache-control"] == b"no-cache"


def test_a_file_that_is_not_there_is_a_404_under_any_version(static_dir: Path) -> None:
    assert _get(static("chat/gone.js"))[0] == 404
    assert _get("/static/v000000000000/../settings.py")[0] == 404
