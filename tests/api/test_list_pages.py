"""The character and background lists come a page at a time, by name: at most `limit` items and
about 8 MB of them, so another account's many large shared cards cannot make one list call
hold hundreds of megabytes in the server (a red-team finding: 40 shared cards of 8 MB made
each call 347 MB)."""

from __future__ import annotations

import pytest

from library.api import paging

pytestmark = pytest.mark.django_db


def _made(api, kind: str, names: list[str], **fields) -> None:
    for name in names:
        assert api("post", f"/api/v1/{kind}", {"name": name, **fields}).status_code == 201


@pytest.mark.parametrize("kind", ["characters", "backgrounds"])
def test_a_list_is_paged_by_name_and_says_where_the_next_page_starts(api, kind):
    _made(api, kind, ["Cole", "Ada", "Eve", "Bea", "Dan"])
    first = api("get", f"/api/v1/{kind}?limit=2").json()
    assert [row["name"] for row in first[kind]] == ["Ada", "Bea"]
    assert (first["total"], first["next_offset"]) == (5, 2)
    second = api("get", f"/api/v1/{kind}?limit=2&offset=2").json()
    assert [row["name"] for row in second[kind]] == ["Cole", "Dan"]
    last = api("get", f"/api/v1/{kind}?limit=2&offset=4").json()
    assert ([row["name"] for row in last[kind]], last["next_offset"]) == (["Eve"], None)
    whole = api("get", f"/api/v1/{kind}").json()
    assert len(whole[kind]) == 5 and whole["next_offset"] is None


def test_a_page_ends_once_its_items_pass_the_byte_bound(api, monkeypatch):
    monkeypatch.setattr(paging, "PAGE_MAX_BYTES", 25_000)
    _made(api, "characters", ["A", "B", "C"], base_persona="x" * 20_000)
    first = api("get", "/api/v1/characters").json()
    assert [row["name"] for row in first["characters"]] == ["A", "B"]
    assert first["next_offset"] == 2
    rest = api("get", "/api/v1/characters?offset=2").json()
    assert [row["name"] for row in rest["characters"]] == ["C"]


def test_a_page_holds_one_item_however_large(api, monkeypatch):
    monkeypatch.setattr(paging, "PAGE_MAX_BYTES", 10)
    _made(api, "characters", ["A", "B"], base_persona="x" * 1_000)
    page = api("get", "/api/v1/characters").json()
    assert [row["name"] for row in page["characters"]] == ["A"] and page["next_offset"] == 1


@pytest.mark.parametrize("query, field", [("limit=0", "limit"), ("limit=1001", "limit"),
                                          ("offset=-1", "offset")])
def test_a_page_past_the_bounds_is_refused_naming_the_value(api, query, field):
    response = api("get", f"/api/v1/characters?{query}")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]
