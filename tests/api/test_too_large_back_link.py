"""The 413 page's Back link is the referring page's path on this site: a Referer whose path
began with "//" (or "/\\") made it a link to another site."""

from __future__ import annotations

import pytest

from personalab.body_limit import too_large_reply


@pytest.mark.parametrize("referer, back", [
    ("http://127.0.0.1:8000/library/?tab=lore", 'href="/library/?tab=lore"'),
    ("http://127.0.0.1:8000//evil.example/x", 'href="/"'),
    ("http://127.0.0.1:8000/\\evil.example/x", 'href="/"'),
    ("", 'href="/"'),
])
def test_the_back_link_stays_on_the_site(referer, back):
    _, page = too_large_reply(2**20, path="/library/import", referer=referer)
    assert back in page.decode()
