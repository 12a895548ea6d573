"""Card exports follow the specs: V2 has no V3-only fields or decorators, nothing is added that
the card did not have, round trips V2 <-> V3 give the card back, CHARX zips import and export
safely, and a refusal names the field at fault."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from library.card_formats.card_import import character_import_card
from library.card_formats.export import character_export_card
from library.errors import LibraryError
from library.index_rows import character_index
from library.item_copy import character_copy
from tests.png_files import PNG_1PX

pytestmark = pytest.mark.django_db(transaction=True)

V2_DATA = {
    "name": "Mira", "description": "A harbor pilot.\n" * 3, "personality": "wary",
    "scenario": "A foggy night at the harbor.", "first_mes": "Who goes there?",
    "mes_example": "<START>\n{{user}}: Hi\n{{char}}: Hm.", "creator_notes": "Be kind.",
    "system_prompt": "{{original}} Stay in character.", "post_history_instructions": "Short.",
    "alternate_greetings": ["You again?"], "tags": ["harbor", "female", "OC", "sfw"],
    "creator": "someone", "character_version": "1.2",
    "extensions": {"talkativeness": "0.5", "depth_prompt": {"prompt": "x", "depth": 4}},
}
V2_CARD = {"spec": "chara_card_v2", "spec_version": "2.0", "data": V2_DATA}
V3_CARD = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
    **V2_DATA, "nickname": "Mi", "source": ["https://example.invalid/mira"],
    "group_only_greetings": ["The crew is here."], "creation_date": 1700000000,
    "modification_date": 1700000500, "creator_notes_multilingual": {"fr": "Sois gentil."},
    "assets": [{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}],
    "character_book": {"name": "Harbor", "entries": [
        {"keys": ["fog"], "content": "@@depth 2\n@@activate\nThe fog hides the docks.",
         "enabled": True, "insertion_order": 10, "use_regex": False, "extensions": {}}]}}}


def _import(store, card: dict) -> str:
    return character_import_card(store, data=json.dumps(card).encode(),
                                          filename="card.json")


def _export(store, character_id: str, spec: str) -> dict:
    return json.loads(character_export_card(store, character_id=character_id,
                                            fmt="json", spec=spec))


def test_v2_card_exports_as_it_came_with_nothing_added(store):
    exported = _export(store, _import(store, V2_CARD), "v2")
    assert exported == V2_CARD
    assert "group_only_greetings" not in exported["data"]


def test_v2_export_of_a_v3_card_strips_v3_only_fields_and_decorators(store):
    character_id = _import(store, V3_CARD)
    v2 = _export(store, character_id, "v2")
    assert v2["spec"] == "chara_card_v2" and v2["spec_version"] == "2.0"
    for name in ("nickname", "source", "group_only_greetings", "creation_date",
                 "modification_date", "creator_notes_multilingual", "assets"):
        assert name not in v2["data"], name
    assert v2["data"]["character_book"]["entries"][0]["content"] == "The fog hides the docks."
    v3 = _export(store, character_id, "v3")
    assert v3["data"]["group_only_greetings"] == ["The crew is here."]
    assert v3["data"]["character_book"]["entries"][0]["content"].startswith("@@depth 2\n")
    assert v3["data"]["nickname"] == "Mi"


def test_v2_to_v3_and_back_gives_the_same_card(store):
    v3 = _export(store, _import(store, V2_CARD), "v3")
    assert v3["spec"] == "chara_card_v3"
    back = _export(store, _import(store, v3), "v2")
    assert back == V2_CARD


@pytest.mark.parametrize("data, field", [
    ({**V2_DATA, "tags": 5}, "data.tags"),
    ({**V2_DATA, "description": ["not", "text"]}, "data.description"),
    ({**V2_DATA, "name": "  "}, "data.name"),
    ({**V2_DATA, "extensions": ["not", "an object"]}, "data.extensions"),
    ({**V2_DATA, "alternate_greetings": [["nested"]]}, "data.alternate_greetings[0]"),
])
def test_a_refused_card_names_the_field(client, alice, data, field):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from chat.models import ApiToken

    body = json.dumps({**V2_CARD, "data": data}).encode()
    response = client.post("/api/v1/characters/import",
                           {"file": SimpleUploadedFile("card.json", body)},
                           HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


def _charx(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, body in members.items():
            archive.writestr(name, body)
    return buffer.getvalue()


CHARX_CARD = {**V3_CARD, "data": {**{k: v for k, v in V3_CARD["data"].items()
                                    if k != "character_book"}, "assets": [
    {"type": "icon", "uri": "embeded://assets/icon/images/main.png", "name": "main",
     "ext": "png"},
    {"type": "x-risu-asset", "uri": "embeded://assets/other/notes.txt", "name": "notes",
     "ext": "txt"}]}}


def test_charx_imports_and_exports_with_its_assets(store, tmp_path):
    data = _charx({"card.json": json.dumps(CHARX_CARD).encode(),
                   "assets/icon/images/main.png": PNG_1PX,
                   "assets/other/notes.txt": b"harbor notes",
                   "../evil.txt": b"escape", "assets/../../evil2.txt": b"escape",
                   "/abs/evil3.txt": b"escape"})
    character_id = character_import_card(store, data=data, filename="mira.charx")
    folder = store.character_dir(character_id)
    assert (folder / "avatar.png").read_bytes() == PNG_1PX
    assert not any(p.name.startswith("evil") for p in tmp_path.rglob("*"))

    exported = character_export_card(store, character_id=character_id, fmt="charx")
    with zipfile.ZipFile(io.BytesIO(exported)) as archive:
        names = sorted(archive.namelist())
        card = json.loads(archive.read("card.json"))
        assert archive.read("assets/other/notes.txt") == b"harbor notes"
        assert archive.read("assets/icon/images/main.png") == PNG_1PX
    assert names == ["assets/icon/images/main.png", "assets/other/notes.txt", "card.json"]
    assert card == CHARX_CARD


def test_charx_files_another_app_put_beside_the_assets_come_back_where_they_were(store):
    """RisuAI writes its module (lorebooks, regex) as module.risum at the root: the export
    dropped it (SillyTavern-parity probe). Unsafe names are still left out."""
    data = _charx({"card.json": json.dumps(CHARX_CARD).encode(),
                   "assets/icon/images/main.png": PNG_1PX,
                   "module.risum": b"\x00risu module", "x_meta/main.json": b"{}",
                   "../evil.txt": b"escape"})
    character_id = character_import_card(store, data=data, filename="mira.charx")
    exported = character_export_card(store, character_id=character_id, fmt="charx")
    with zipfile.ZipFile(io.BytesIO(exported)) as archive:
        assert sorted(archive.namelist()) == ["assets/icon/images/main.png", "card.json",
                                              "module.risum", "x_meta/main.json"]
        assert archive.read("module.risum") == b"\x00risu module"


def test_charx_caps_refuse_a_bomb_and_name_the_member(store):
    bomb = _charx({"card.json": json.dumps(CHARX_CARD).encode(),
                   "assets/other/big.bin": b"\0" * (17 * 2**20)})
    assert len(bomb) < 2**20
    with pytest.raises(LibraryError) as error:
        character_import_card(store, data=bomb, filename="bomb.charx")
    assert "assets/other/big.bin" in str(error.value)
    assert "file" in error.value.field_errors
    with pytest.raises(LibraryError, match="no card.json"):
        character_import_card(store, data=_charx({"x.json": b"{}"}), filename="a.charx")
    assert store.character_ids() == []


def test_the_png_chara_chunk_is_v2_and_the_ccv3_chunk_v3(store):
    import base64

    from library.card_formats.png import png_card_texts, png_chunks

    character_id = _import(store, V3_CARD)
    png = character_export_card(store, character_id=character_id, fmt="png")
    texts = png_card_texts(png_chunks(png))
    chara = json.loads(base64.b64decode(texts["chara"]))
    ccv3 = json.loads(base64.b64decode(texts["ccv3"]))
    assert chara["spec"] == "chara_card_v2" and "group_only_greetings" not in chara["data"]
    assert ccv3["spec"] == "chara_card_v3" and ccv3["data"]["nickname"] == "Mi"


def test_charx_over_rest_comes_back_as_a_zip(client, alice, store):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from chat.models import ApiToken

    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    data = _charx({"card.json": json.dumps(CHARX_CARD).encode(),
                   "assets/icon/images/main.png": PNG_1PX})
    created = client.post("/api/v1/characters/import",
                          {"file": SimpleUploadedFile("mira.charx", data)}, **auth)
    assert created.status_code == 201
    character_id = created.json()["character_id"]
    response = client.get(f"/api/v1/characters/{character_id}/card.charx", **auth)
    assert response["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        assert json.loads(archive.read("card.json"))["data"]["name"] == "Mira"


# The first bytes of real JPEG (JFIF) and WebP (RIFF....WEBPVP8 ) files; never decoded.
JPEG_HEAD = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + b"\x00" * 64
WEBP_HEAD = b"RIFF\x24\x00\x00\x00WEBPVP8 \x18\x00\x00\x00" + b"\x00" * 40


@pytest.mark.parametrize(("icon", "ext", "content_type"), [
    (JPEG_HEAD, "jpeg", "image/jpeg"), (WEBP_HEAD, "webp", "image/webp")])
def test_a_charx_jpeg_or_webp_icon_becomes_the_avatar_shown_and_exported(
        client, alice, bob, store, icon, ext, content_type):
    card = {**CHARX_CARD, "data": {**CHARX_CARD["data"], "assets": [
        {"type": "icon", "uri": f"embeded://assets/icon/images/main.{ext}", "name": "main",
         "ext": ext}]}}
    data = _charx({"card.json": json.dumps(card).encode(),
                   f"assets/icon/images/main.{ext}": icon})
    character_id = character_import_card(store, user=alice, data=data,
                                                  filename="mira.charx")
    client.force_login(bob)  # the character is alice's, private
    assert client.get(f"/library/characters/{character_id}/avatar.png").status_code == 404
    client.force_login(alice)
    response = client.get(f"/library/characters/{character_id}/avatar.png")
    assert response.status_code == 200 and response["Content-Type"] == content_type
    assert response.content == icon
    from chat.selectors import character_avatar_url

    assert character_avatar_url(store, character_id) == (
        f"/library/characters/{character_id}/avatar.png")
    exported = character_export_card(store, character_id=character_id, fmt="charx")
    with zipfile.ZipFile(io.BytesIO(exported)) as archive:
        assert archive.read(f"assets/icon/images/main.{ext}") == icon
        assert json.loads(archive.read("card.json")) == card
    # A PNG export cannot carry a JPEG/WebP picture: it still exports, with a plain image.
    png = character_export_card(store, character_id=character_id, fmt="png")
    assert png.startswith(b"\x89PNG")


def test_a_copy_keeps_a_jpeg_avatar(store, alice, bob):
    card = {**CHARX_CARD, "data": {**CHARX_CARD["data"], "assets": [
        {"type": "icon", "uri": "embeded://assets/icon/images/main.jpeg", "name": "main",
         "ext": "jpeg"}]}}
    data = _charx({"card.json": json.dumps(card).encode(),
                   "assets/icon/images/main.jpeg": JPEG_HEAD})
    character_id = character_import_card(store, user=alice, data=data,
                                                  filename="mira.charx")
    store.character_write(character_id, {**store.character_read(character_id),
                                         "visibility": "shared"})
    character_index(store, character_id)
    copied = character_copy(store, user=bob, character_id=character_id)
    assert (store.character_dir(copied) / "avatar.jpg").read_bytes() == JPEG_HEAD


@pytest.mark.parametrize("assets", [True, -1, 1e308, "embeded://assets/x.png", {"a": 1}])
def test_card_assets_that_are_not_a_list_import_and_export(client, alice, assets):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from chat.models import ApiToken

    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    body = json.dumps({**V2_CARD, "spec": "chara_card_v3", "spec_version": "3.0",
                       "data": {**V2_DATA, "assets": assets}}).encode()
    response = client.post("/api/v1/characters/import",
                           {"file": SimpleUploadedFile("card.json", body)}, **auth)
    assert response.status_code == 201, response.content
    character_id = response.json()["character_id"]
    exported = client.get(f"/api/v1/characters/{character_id}/card.charx", **auth)
    assert exported.status_code == 200


@pytest.mark.parametrize("other, what", [
    ({"name": "World", "entries": {"0": {"uid": 0, "key": ["a"], "content": "x"}}}, "lorebook"),
    ({"name": "Chat", "characterName": "Mira", "messages": [{"msg": "hi"}]}, "chat"),
    ({"user_name": "Ann", "character_name": "Mira", "chat_metadata": {}}, "chat"),
])
def test_a_lorebook_or_a_chat_uploaded_as_a_card_is_refused_saying_what_it_is(
        client, alice, store, other, what):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from chat.models import ApiToken

    response = client.post("/api/v1/characters/import",
                           {"file": SimpleUploadedFile("x.json", json.dumps(other).encode())},
                           HTTP_AUTHORIZATION=f"Bearer {ApiToken.issue(alice)}")
    assert response.status_code == 400
    assert what in response.json()["error"]["message"]
    assert store.character_ids() == []
