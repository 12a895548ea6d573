"""Attack: JSON of millions of tiny values (`{},` is 3 bytes and one Python object of 64). A
23 KB card PNG whose zTXt chunk inflated to 16 MB of them took 13 s and 1.3 GB before the
entries cap refused its book; a 10 MB JSON card or world-info file did the same. The values are
now counted on the text before it is parsed, and refused past the bound. Also: a number of more
than 4,300 digits (Python's int limit) was a 500; a card chunk's whitespace was split into one
string per group (a card chunk written as JSON lost every space of its texts)."""

from __future__ import annotations

import base64
import json
import tracemalloc
import zlib

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from library.card_formats.cards import CardError, card_parse
from personalab.lib.jsontext import json_loads
from personalab.lib.nesting import MAX_VALUES, TooManyValues, json_loads_bounded
from tests.png_files import chunk, tiny_png

pytestmark = pytest.mark.django_db

BOOK_HEAD = '{"spec":"chara_card_v2","data":{"name":"x","character_book":{"entries":['


def _tiny_values(count: int) -> str:
    return BOOK_HEAD + "{}," * count + "{}]}}}"


def _peak(run) -> int:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_card_chunk_of_too_many_values_is_refused_before_it_is_parsed():
    text = _tiny_values(MAX_VALUES).encode()
    png = tiny_png(chunk(b"zTXt", b"chara\x00\x00" + zlib.compress(text, 9)))
    assert len(png) < 5000

    def parse():
        with pytest.raises(CardError, match="more than 250,000 values"):
            card_parse(png)
    assert _peak(parse) < 8 * len(text)  # parsed, its dicts alone took 16 MB (21x the text)


def test_values_are_counted_outside_strings():
    prose = "Mira, a thief, says [[{{char}}]] and \\\"{a, b}\\\" \\\\" * 100_000
    text = '{"data":{"description":"%s","tags":["a","b"]}}' % prose
    assert text.count(",") > MAX_VALUES
    assert json_loads_bounded(text)["data"]["tags"] == ["a", "b"]
    with pytest.raises(TooManyValues):
        json_loads_bounded("[" + "0," * MAX_VALUES + "0]")
    assert len(json_loads_bounded("[" + "0," * (MAX_VALUES - 2) + "0]")) == MAX_VALUES - 1


@pytest.mark.parametrize("url, name", [("/api/v1/lorebooks/import", "world.json"),
                                       ("/api/v1/characters/import", "card.json")])
def test_a_file_of_too_many_values_is_a_400_naming_the_file(alice_client, store, url, name):
    body = _tiny_values(MAX_VALUES).encode()
    response = alice_client.post(url, {"file": SimpleUploadedFile(name, body)})
    assert response.status_code == 400, response.content[:300]
    assert "more than 250,000 values" in response.json()["error"]["message"]
    assert store.character_ids() == [] and store.lorebook_ids() == []


@pytest.mark.parametrize("url", ["/api/v1/lorebooks/import", "/api/v1/characters/import"])
def test_a_number_past_pythons_digit_limit_is_a_400_not_a_500(alice_client, url):
    body = '{"spec":"chara_card_v2","data":{"name":"x","extensions":{"n":%s}},"entries":[]}' % (
        "1" * 5000)
    alice_client.raise_request_exception = False
    response = alice_client.post(url, {"file": SimpleUploadedFile("x.json", body.encode())})
    assert response.status_code == 400, response.content[:300]
    with pytest.raises(json.JSONDecodeError, match="4300 digits"):
        json_loads("1" * 5000)


def test_a_card_chunk_written_as_json_keeps_the_spaces_of_its_texts():
    card = b' {"spec":"chara_card_v2","data":{"name":"Mira Vale","description":"She is tall."}}'
    parsed = card_parse(tiny_png(chunk(b"tEXt", b"chara\x00" + card)))["data"]
    assert (parsed["name"], parsed["description"]) == ("Mira Vale", "She is tall.")


def test_base64_wrapped_in_spaces_is_read_without_a_string_per_group():
    card = {"spec": "chara_card_v2", "data": {"name": "Mira", "description": "d" * 2**21}}
    packed = base64.b64encode(json.dumps(card).encode()).decode()
    spaced = " ".join(packed[i:i + 2] for i in range(0, len(packed), 2))
    png = tiny_png(chunk(b"tEXt", b"chara\x00" + spaced.encode()))
    parsed = {}
    peak = _peak(lambda: parsed.update(card_parse(png)))
    assert parsed["data"]["name"] == "Mira"
    assert peak < 24 * 2**20  # split: 1.4 million strings, 90 MB
