"""Beside an item's visibility the editor says who will see it (issue 33): a host making a
character, background or lorebook for the site's players learns that a private one stays
theirs; in English and 中文."""

from __future__ import annotations

import pytest

from library.character_services import character_save

pytestmark = pytest.mark.django_db(transaction=True)

PRIVATE = "Only you will see it: other accounts on this site will not find it."
SHARED = "Every account on this site can use it."


def _hint(html: str) -> str:
    start = html.index('data-testid="visibility-hint"')
    return html[html.index(">", start) + 1:html.index("</p>", start)]


@pytest.mark.parametrize("url", ["/library/characters/new", "/library/backgrounds/new",
                                 "/library/lorebooks/new"])
def test_a_new_item_says_only_its_author_will_see_it(alice_client, url):
    html = alice_client.get(url).content.decode()
    assert _hint(html) == PRIVATE
    assert f'data-shared="{SHARED}"' in html and 'aria-describedby="visibility-hint"' in html


def test_a_shared_item_says_every_account_can_use_it_in_both_languages(alice_client, alice,
                                                                       store):
    character = character_save(store, data={"name": "Host", "base_persona": "A host.",
                                            "visibility": "shared"},
                               character_id=None, user=alice)
    assert _hint(alice_client.get(f"/library/characters/{character}/").content.decode()) == SHARED
    html = alice_client.get(f"/library/characters/{character}/",
                            HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert _hint(html) == "本站的每个账号都能使用它。"
    assert 'data-private="只有你能看到：本站的其他账号找不到它。"' in html
