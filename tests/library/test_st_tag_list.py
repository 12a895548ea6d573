"""The SillyTavern tag names an account kept (library/lore/st_tag_list.py): listed and
forgotten over REST and on the lorebook page, only its own, a damaged list a refusal that says
how to mend it."""

from __future__ import annotations

import pytest
from django.test import Client

from library.lore.st_tag_list import st_tags_keep, st_tags_kept, st_tags_kept_path
from library.lore.st_tags import MAX_TAGS

pytestmark = pytest.mark.django_db

FANTASY = "1700000000123"
UUID_TAG = "5b1c7f2e-8d9a-4c1b-9f3e-2a6d8c4b1e07"
NAMES = {FANTASY: "fantasy", UUID_TAG: "noir"}
URL = "/api/v1/world_info/tag_names"


def _book(client) -> str:
    answer = client.post("/api/v1/lorebooks", {"name": "Tags", "entries": [
        {"uid": 0, "keys": ["kettle"], "content": "ONLY",
         "character_filter": {"names": [], "tags": [FANTASY, "fantasy"], "isExclude": False}}]},
        content_type="application/json")
    assert answer.status_code == 201, answer.content
    return answer.json()["lorebook_id"]


def _bob_client(bob) -> Client:
    client = Client()
    client.force_login(bob)
    return client


def test_the_rest_lists_the_kept_names_and_another_account_sees_none(alice_client, bob, store):
    st_tags_keep(store, username="alice", names=NAMES)
    listed = alice_client.get(URL)
    assert listed.status_code == 200, listed.content
    assert listed.json() == {"tags": [{"id": FANTASY, "name": "fantasy"},
                                      {"id": UUID_TAG, "name": "noir"}],
                             "count": 2, "max": MAX_TAGS}
    assert _bob_client(bob).get(URL).json() == {"tags": [], "count": 0, "max": MAX_TAGS}


def test_forgetting_all_says_how_many_and_keeps_the_books_and_other_lists(alice_client, bob,
                                                                         store):
    book_id = _book(alice_client)
    st_tags_keep(store, username="alice", names=NAMES)
    st_tags_keep(store, username="bob", names={FANTASY: "bobs"})
    assert _bob_client(bob).delete(URL).json() == {"forgotten": 1, "count": 0}
    assert alice_client.get(URL).json()["count"] == 2  # bob's forget left alice's
    forgotten = alice_client.delete(URL)
    assert forgotten.status_code == 200, forgotten.content
    assert forgotten.json() == {"forgotten": 2, "count": 0}
    assert alice_client.get(URL).json()["tags"] == []
    assert alice_client.delete(URL).json() == {"forgotten": 0, "count": 0}
    assert store.lorebook_read(book_id)["entries"][0]["character_filter"]["tags"] == [
        FANTASY, "fantasy"]


def test_forgetting_one_name_keeps_the_others_and_an_unkept_id_is_a_404(alice_client, bob,
                                                                       store):
    st_tags_keep(store, username="alice", names=NAMES)
    one = alice_client.delete(f"{URL}/{FANTASY}")
    assert one.status_code == 200, one.content
    assert one.json() == {"forgotten": 1, "count": 1}
    assert alice_client.get(URL).json()["tags"] == [{"id": UUID_TAG, "name": "noir"}]
    again = alice_client.delete(f"{URL}/{FANTASY}")
    assert again.status_code == 404 and again.json()["error"]["code"] == "not_found"
    assert _bob_client(bob).delete(f"{URL}/{UUID_TAG}").status_code == 404
    assert alice_client.get(URL).json()["count"] == 1


def test_a_damaged_list_is_a_409_saying_how_to_mend_it_and_forgetting_mends_it(alice_client,
                                                                              store):
    st_tags_keep(store, username="alice", names=NAMES)
    st_tags_kept_path(store, username="alice").write_text("{ not json")
    refused = alice_client.get(URL)
    assert refused.status_code == 409, refused.content
    assert refused.json()["error"]["code"] == "damaged"
    assert "forget them" in refused.json()["error"]["message"]
    said = alice_client.get(URL, HTTP_ACCEPT_LANGUAGE="zh-hans").json()["error"]["message"]
    assert "文件已损坏" in said, said
    assert alice_client.delete(f"{URL}/{FANTASY}").status_code == 409
    page = alice_client.get(f"/library/lorebooks/{_book(alice_client)}/")
    assert page.status_code == 200 and 'data-testid="lore-tags-kept-error"' in page.content.decode()
    assert alice_client.delete(URL).json() == {"forgotten": 0, "count": 0}
    assert alice_client.get(URL).json()["count"] == 0


def test_the_lorebook_page_shows_the_kept_names_and_forgets_them(alice_client, store):
    book_id = _book(alice_client)
    page = alice_client.get(f"/library/lorebooks/{book_id}/").content.decode()
    assert 'data-testid="lore-tags-kept-list"' not in page  # nothing kept: no section
    st_tags_keep(store, username="alice", names=NAMES)
    page = alice_client.get(f"/library/lorebooks/{book_id}/").content.decode()
    assert "Your account keeps 2 SillyTavern tag names (at most 10,000)" in page
    assert f"<code>{UUID_TAG}</code> <bdi>noir</bdi>" in page
    done = alice_client.post(f"/library/lorebooks/{book_id}/tag_names/forget", follow=True)
    shown = done.content.decode()
    assert "Forgot 2 SillyTavern tag names" in shown
    assert 'data-testid="lore-tags-kept-list"' not in shown
    assert not st_tags_kept_path(store, username="alice").exists()


def test_the_openapi_schema_shows_the_kept_names_routes(alice_client):
    schema = alice_client.get("/api/v1/openapi.json").json()
    routes = schema["paths"]
    assert set(routes[URL]) == {"get", "delete"} and "delete" in routes[URL + "/{tag_id}"]
    listed = routes[URL]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert listed == {"$ref": "#/components/schemas/KeptTagNames"}
    assert set(schema["components"]["schemas"]["KeptTagNames"]["properties"]) == {
        "tags", "count", "max"}


def test_the_lorebook_page_forgets_one_kept_name(alice_client, store):
    book_id = _book(alice_client)
    st_tags_keep(store, username="alice", names=NAMES)
    page = alice_client.get(f"/library/lorebooks/{book_id}/").content.decode()
    assert page.count('data-testid="lore-tag-forget"') == 2
    assert f'name="tag_id" value="{UUID_TAG}"' in page
    done = alice_client.post(f"/library/lorebooks/{book_id}/tag_names/forget",
                             {"tag_id": UUID_TAG}, follow=True).content.decode()
    assert f"Forgot the SillyTavern tag name of {UUID_TAG}" in done
    assert UUID_TAG not in st_tags_kept(store, username="alice")
    assert len(st_tags_kept(store, username="alice")) == 1
    again = alice_client.post(f"/library/lorebooks/{book_id}/tag_names/forget",
                              {"tag_id": UUID_TAG}, follow=True).content.decode()
    assert "no SillyTavern tag name is kept for" in again
    assert len(st_tags_kept(store, username="alice")) == 1
