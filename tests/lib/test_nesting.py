"""Files nested deeper than any role-play app writes: refused with a 400 naming the file (a card
or lorebook) or skipped as a line (a chat). Before, a card nested 900 levels parsed and then
failed copying (a 500), and a chat line nested 5,000 levels failed the parser (a 500)."""

from __future__ import annotations

import tracemalloc

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.models import ApiToken
from personalab.lib.nesting import MAX_NESTING, TooDeep, json_loads_bounded, json_values_exceed

pytestmark = pytest.mark.django_db(transaction=True)


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_a_file_may_nest_as_deep_as_a_request_body_and_no_deeper():
    assert json_loads_bounded(nested(MAX_NESTING)) is not None
    for depth in (MAX_NESTING + 1, 900, 100_000):  # the last one fails in the parser
        with pytest.raises(TooDeep):
            json_loads_bounded(nested(depth))


@pytest.fixture
def auth(alice):
    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}


@pytest.mark.parametrize("depth", [900, 5000])
def test_a_card_or_lorebook_nested_too_deep_is_a_400_naming_the_file(client, auth, store,
                                                                       depth):
    card = '{"spec":"chara_card_v2","data":{"name":"Deep","extensions":{"x":%s}}}' % (
        nested(depth))
    book = '{"name":"B","entries":[{"keys":["a"],"content":"x","extensions":{"x":%s}}]}' % (
        nested(depth))
    for url, body in (("/api/v1/characters/import", card), ("/api/v1/lorebooks/import", book)):
        response = client.post(url, {"file": SimpleUploadedFile("x.json", body.encode())},
                               **auth)
        assert response.status_code == 400, (url, response.content[:200])
        assert "file" in response.json()["error"]["fields"]
        assert "nest deeper" in response.json()["error"]["message"]
    assert store.character_ids() == [] and store.lorebook_ids() == []


@pytest.mark.parametrize("depth", [900, 5000])
def test_a_chat_line_nested_too_deep_is_skipped_and_the_rest_imports(client, auth, store,
                                                                      instance, depth):
    body = ('{"user_name":"Ann","character_name":"Alserqi"}\n'
            '{"name":"Ann","is_user":true,"mes":"hi","extra":{"x":%s}}\n'
            '{"name":"Alserqi","is_user":false,"mes":"Hm."}\n' % nested(depth))
    response = client.post(f"/api/v1/instances/{instance}/import_chat",
                           {"file": SimpleUploadedFile("c.jsonl", body.encode())}, **auth)
    assert response.status_code == 201, response.content[:300]
    imported = response.json()["imported"]
    assert imported["skipped"] == [
        {"line": 2, "reason": f"lists and objects nest deeper than {MAX_NESTING} levels",
         "message": 1}]
    lines = store.session_read(instance, response.json()["session_id"]).messages
    assert [line["content"] for line in lines] == ["Hm."]


def test_counting_a_files_values_builds_no_object_per_string():
    """A million short strings: the count cut them out with a regex substitution, a piece per
    gap between strings (170 MB for this 4 MB text, 450 MB for a 12 MB chat file)."""
    text = b"[" + b'"a",' * 1_000_000 + b'"a"]'
    tracemalloc.start()
    try:
        assert json_values_exceed(text, 250_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 40 * 2**20, peak
    for written, values in (('[1,2,3]', 4), ('{"a,b":[1,{"c":"x\\\\","d":"q\\"r,"}]}', 6),
                            ('["a,\\\\","b"]', 3), ('"{[,"', 1)):
        assert json_values_exceed(written, values - 1) and not json_values_exceed(written, values)
