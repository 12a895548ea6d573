"""Attack: a PNG card whose zTXt/iTXt chunk is a zip bomb (a few hundred KB that inflate to
gigabytes) must be refused without inflating it, with a 400 that names the chunk."""

from __future__ import annotations

import base64
import json
import tracemalloc
import zlib

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.models import ApiToken
from library.card_formats.cards import CardError, card_parse
from library.card_formats.png import MAX_CARD_TEXT_BYTES
from library.errors import LibraryError
from library.fields import clean_tags
from tests.library.card_samples import v2_card
from tests.png_files import chunk, tiny_png

BOMB_BYTES = 4 * MAX_CARD_TEXT_BYTES


def _deflated_zeros(size: int) -> bytes:
    packer, block = zlib.compressobj(9), b"A" * 2**20
    return b"".join(packer.compress(block) for _ in range(size // len(block))) + packer.flush()


def _ztxt_bomb(keyword: str = "chara") -> bytes:
    return chunk(b"zTXt", keyword.encode() + b"\x00\x00" + _deflated_zeros(BOMB_BYTES))


def _itxt_bomb(keyword: str = "ccv3") -> bytes:
    body = keyword.encode() + b"\x00\x01\x00" + b"\x00" + b"\x00" + _deflated_zeros(BOMB_BYTES)
    return chunk(b"iTXt", body)


@pytest.mark.parametrize("bomb, named", [(_ztxt_bomb, "zTXt chunk 'chara'"),
                                         (_itxt_bomb, "iTXt chunk 'ccv3'")])
def test_text_chunk_bomb_is_refused_without_inflating_it(bomb, named):
    png = tiny_png(bomb())
    assert len(png) < 2**20  # small enough to pass the upload size limit
    tracemalloc.start()
    try:
        with pytest.raises(CardError, match=f"{named} inflates past the"):
            card_parse(png)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * MAX_CARD_TEXT_BYTES + 2**20


def test_many_text_chunks_share_one_inflate_budget():
    third = MAX_CARD_TEXT_BYTES // 2
    chunks = [chunk(b"zTXt", b"chara\x00\x00" + _deflated_zeros(third)) for _ in range(3)]
    with pytest.raises(CardError, match="inflates past the"):
        card_parse(tiny_png(*chunks))


def test_compressed_card_of_normal_size_still_imports():
    payload = base64.b64encode(json.dumps(v2_card(), ensure_ascii=False).encode())
    png = tiny_png(chunk(b"zTXt", b"chara\x00\x00" + zlib.compress(payload)))
    assert card_parse(png)["data"]["name"] == "维克多"


def test_other_compressed_chunks_are_never_inflated():
    png = tiny_png(chunk(b"zTXt", b"Comment\x00\x00" + _deflated_zeros(BOMB_BYTES)),
                   chunk(b"tEXt", b"chara\x00"
                         + base64.b64encode(json.dumps(v2_card()).encode())))
    assert card_parse(png)["data"]["name"] == "维克多"


@pytest.mark.django_db
def test_bomb_upload_gets_400_naming_the_chunk_and_creates_nothing(client, alice, store):
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    before = store.character_ids()
    response = client.post("/api/v1/characters/import",
                           {"file": SimpleUploadedFile("bomb.png", tiny_png(_ztxt_bomb()),
                                                       "image/png")}, **auth)
    assert response.status_code == 400
    assert "zTXt chunk 'chara'" in response.json()["error"]["message"]
    assert store.character_ids() == before


def test_a_png_of_more_than_twenty_thousand_chunks_is_refused():
    # 850,000 empty chunks (10 MB) took 5 s of CPU to import, and were kept in the picture,
    # read again by every download of the card; a real picture has about 1,300 at 10 MB.
    card = chunk(b"tEXt", b"chara\x00" + base64.b64encode(json.dumps(v2_card()).encode()))
    assert card_parse(tiny_png(card, *[chunk(b"abCd", b"")] * 19_990))["data"]["name"]
    with pytest.raises(CardError, match="more than 20,000 chunks"):
        card_parse(tiny_png(card, *[chunk(b"abCd", b"")] * 20_001))


@pytest.mark.parametrize("card", [
    {"name": "V1", "description": "", "first_mes": "", "tags": "," * 10_000 + "a"},
    {"spec": "chara_card_v2", "spec_version": "2.0",
     "data": {"name": "V2", "tags": "," * 10_000 + "a"}},
    {"spec": "chara_card_v2", "spec_version": "2.0",
     "data": {"name": "V2", "tags": [""] * 10_000}}])
def test_a_cards_tags_past_ten_thousand_parts_are_refused_before_they_are_split(card):
    # A 10 MB card's tags "a,a,a…" were 5 million tags, copied and checked one by one: 2.8 s of
    # CPU (268 MB) before the save refused them (0.11 s, 154 MB now).
    with pytest.raises(CardError, match="at most 1000 tags"):
        card_parse(json.dumps(card).encode())


def test_a_tags_box_past_ten_thousand_lines_is_refused_before_it_is_split():
    with pytest.raises(LibraryError, match="at most 1000 tags"):
        clean_tags("\n" * 10_000 + "a")
    assert clean_tags("\n" * 9_000 + "a") == ["a"]
