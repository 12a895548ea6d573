"""An import refused on the library page says why in the reader's language; the API keeps the
importer's English sentence word for word."""

from __future__ import annotations

import io
import zipfile
import zlib

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from library.models import Character, Lorebook
from library.refusal_words import refusal_words
from tests.png_files import chunk, tiny_png

pytestmark = pytest.mark.django_db


def _refusal(client, url: str, name: str, data: bytes, language: str) -> str:
    response = client.post(url, {"file": SimpleUploadedFile(name, data)},
                           HTTP_ACCEPT_LANGUAGE=language, follow=True)
    return response.content.decode()


def test_a_broken_card_is_refused_in_chinese_on_a_chinese_page(alice_client):
    page = _refusal(alice_client, "/library/cards/upload", "bad.json", b'{"name": "A" "x"}',
                    "zh-CN")
    assert "无法导入 bad.json：角色卡的 JSON 无效：第 1 行第 14 列有错误" in page
    assert "card JSON is invalid" not in page and "Expecting" not in page


def test_a_broken_card_says_where_in_plain_words_not_the_parsers():
    assert refusal_words("card JSON is invalid: a mistake at line 3, column 7") == (
        "the card's JSON is invalid: a mistake at line 3, column 7")


def test_a_card_without_a_book_imported_as_a_lorebook_says_so_in_chinese(alice_client):
    card = b'{"spec": "chara_card_v2", "data": {"name": "Mira"}}'
    page = _refusal(alice_client, "/library/lorebooks/upload", "mira.json", card, "zh-CN")
    assert "这张角色卡没有可导入的世界书（character_book）" in page


def test_a_file_that_is_no_world_info_is_refused_on_the_library_naming_it(alice_client):
    before = Lorebook.objects.count()
    response = alice_client.post("/library/lorebooks/upload", {
        "file": SimpleUploadedFile("notes.json", b"{not json")}, follow=True)
    assert [url for url, _ in response.redirect_chain] == ["/library/"]
    assert "Could not import notes.json: the file is not JSON" in response.content.decode()
    assert Lorebook.objects.count() == before


@pytest.mark.parametrize("language, words", [
    ("en", "my hero.png is a picture with no character card in it. To make a character with this "
           "picture, press “+ New character” and choose it as the picture."),
    ("zh-hans", "要用这张图片做角色，请点“+ 新角色”")], ids=["en", "zh-hans"])
def test_a_plain_picture_imported_as_a_card_says_how_to_make_a_character_of_it(
        alice_client, language, words):
    """A newcomer's first try: a plain picture given to "Import a character card"."""
    alice_client.cookies["django_language"] = language
    before = Character.objects.count()
    response = alice_client.post("/library/cards/upload", {
        "file": SimpleUploadedFile("my hero.png", tiny_png(), content_type="image/png")},
        follow=True)
    page = response.content.decode()
    assert [url for url, _ in response.redirect_chain] == ["/library/"]
    assert words in page
    assert "text chunk" not in page  # not the parser's words
    assert Character.objects.count() == before


def test_the_english_page_and_nested_sentences():
    assert refusal_words("card JSON is invalid: field 'tags' must be a list of text") == (
        "the card's JSON is invalid: the field “tags” must be a list of text")
    assert refusal_words("something else entirely") == "something else entirely"


@pytest.mark.parametrize("url, name, body, said", [
    ("/library/cards/upload", "many.json",
     b'{"spec":"chara_card_v2","data":{"name":"x","tags":[' + b"{}," * 250_000 + b"{}]}}",
     "其中的值（列表、对象、文本、数字）超过 250,000 个"),
    ("/library/lorebooks/upload", "deep.json", b'{"entries":' + b"[" * 200 + b"]" * 200 + b"}",
     "文件被拒绝：其中的列表和对象嵌套超过"),
    ("/library/cards/upload", "chunks.png", tiny_png(*[chunk(b"abCd", b"")] * 20_001),
     "PNG 图片的数据块超过 20,000 个"),
])
def test_a_file_too_big_inside_is_refused_in_chinese(alice_client, url, name, body, said):
    page = _refusal(alice_client, url, name, body, "zh-CN")
    assert said in page
    assert "values (lists" not in page and "nest deeper" not in page


def test_a_card_png_that_inflates_past_the_limit_is_refused_in_chinese(alice_client):
    png = tiny_png(chunk(b"zTXt", b"chara\x00\x00" + zlib.compress(b" " * (11 * 2**20), 9)))
    page = _refusal(alice_client, "/library/cards/upload", "big.png", png, "zh-CN")
    assert "PNG 图片的 zTXt 块“chara”解压后超过角色卡文本上限 10 MB" in page


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, body in members.items():
            archive.writestr(name, body)
    return buffer.getvalue()


def test_a_refused_charx_says_why_in_chinese_on_the_page_and_through_the_api(alice_client):
    no_card = _zip({"assets/icon/images/main.png": b"x"})
    page = _refusal(alice_client, "/library/cards/upload", "mira.charx", no_card, "zh-CN")
    assert "无法导入 mira.charx：CHARX 的根目录下没有 card.json" in page
    broken = _zip({"card.json": b'{"name": "A" "x"}'})
    api = alice_client.post("/api/v1/characters/import",
                            {"file": SimpleUploadedFile("mira.charx", broken)},
                            HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert api.status_code == 400
    assert api.json()["error"]["message"].startswith("CHARX 的 card.json 不是有效的 JSON：")


@pytest.mark.parametrize("message, words", [
    ("CHARX has the file 'assets/a.png' twice", "CHARX 中文件 'assets/a.png' 出现了两次"),
    ("CHARX member \"assets/it's.png\" is larger than 16 MB",
     "CHARX 中的文件 \"assets/it's.png\" 大于 16 MB"),
    ("CHARX unpacks to more than 20 times its size (a zip bomb?); it is refused",
     "CHARX 解压后超过自身大小的 20 倍（疑似 zip 炸弹），已拒绝"),
    ("not a readable CHARX (zip) file: File is not a zip file",
     "不是可读取的 CHARX（zip）文件：File is not a zip file"),
])
def test_each_charx_refusal_has_its_chinese_words(message, words):
    with translation.override("zh-hans"):
        assert refusal_words(message) == words
    assert refusal_words(message) == message  # English as raised


def test_a_card_of_too_many_tags_is_refused_in_chinese(alice_client):
    card = b'{"name": "V1", "description": "", "first_mes": "", "tags": "' + b"a," * 10_000 + b'"}'
    page = _refusal(alice_client, "/library/cards/upload", "tags.json", card, "zh-CN")
    assert "无法导入 tags.json：角色卡的 JSON 无效：tags: " in page
    assert "at most 1000 tags" not in page and not Character.objects.exists()


def test_a_chat_file_with_no_readable_line_says_its_first_lines_fault_in_chinese(alice_client,
                                                                                 instance):
    """The line's reason was the reader's English: "文件中没有可读取的对话消息: line 1: not
    valid JSON (Expecting value, column 1)"."""
    page = _refusal(alice_client, f"/instances/{instance}/import_chat", "bad.jsonl",
                    b'not json\n{"broken": \n', "zh-CN")
    assert "文件中没有可读取的对话消息：第 1 行：这一行不是有效的 JSON（" in page
    assert "not valid JSON" not in page and ": line 1" not in page


def test_the_json_parsers_detail_reads_in_chinese_with_its_line_and_column(alice_client,
                                                                           instance):
    """The parser's words stayed English inside the Chinese sentence: "文件不是 JSON：Expecting
    ',' delimiter: line 1 column 10 (char 9)", "这一行不是有效的 JSON（Expecting value, column
    1）"."""
    book = _refusal(alice_client, "/library/lorebooks/upload", "book.json",
                    b'{"entries": {"0" 1}}', "zh-CN")
    assert "文件不是 JSON：第 1 行第 18 列：这里应是分隔符“:”" in book
    chat = _refusal(alice_client, f"/instances/{instance}/import_chat", "bad.jsonl",
                    b'{"name": "A",, }\n', "zh-CN")
    assert "这一行不是有效的 JSON（第 14 列：这里应是用双引号括起的属性名）" in chat
    assert "Expecting" not in book + chat


def test_the_json_parsers_detail_in_english_keeps_its_words():
    message = "file is not JSON: Expecting ',' delimiter: line 1 column 10 (char 9)"
    assert refusal_words(message) == (
        "the file is not JSON: Expecting ',' delimiter: line 1 column 10")
