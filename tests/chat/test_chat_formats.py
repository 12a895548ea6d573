from __future__ import annotations

import json

import pytest
from django.utils import translation

from chat.import_export.chat_formats import ChatFormatError, chat_import_jsonl, date_parse
from chat.import_export.chat_markdown import chat_export_markdown
from chat.import_export.st_chat_export import chat_export_jsonl


def jsonl(*records: dict) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")


HEADER = {"user_name": "旅人", "character_name": "维克多", "create_date": "2024-3-5 @14h 02m 09s",
          "chat_metadata": {"note_prompt": "x"}}


def message(name: str, is_user: bool, text: str, date: str = "2024-03-05T14:03:00.000Z",
            **more) -> dict:
    return {"name": name, "is_user": is_user, "is_system": False, "send_date": date,
            "mes": text, "extra": {}, **more}


def test_import_numbers_turns_and_marks_the_greeting():
    data = jsonl(HEADER,
                 message("维克多", False, "你来了。", swipes=["你来了。", "又是你。"]),
                 message("旅人", True, "我见到了维克多", "March 5, 2024 2:05pm"),
                 message("维克多", False, "嗯。", 1709647560000),
                 message("旅人", True, "走吧"))
    header, lines = chat_import_jsonl(data)
    assert header["user_name"] == "旅人" and header["character_name"] == "维克多"
    assert header["created_at"] == "2024-03-05T14:02:09Z"
    assert header["chat_metadata"] == {"note_prompt": "x"}
    assert [(line["role"], line["turn"]) for line in lines] == [
        ("assistant", 0), ("user", 1), ("assistant", 1), ("user", 2)]
    assert lines[0]["greeting"] is True and "greeting" not in lines[1]
    assert lines[1]["content"] == "我见到了维克多"
    assert lines[1]["timestamp"] == "2024-03-05T14:05:00Z"
    assert lines[2]["timestamp"] == "2024-03-05T14:06:00Z"


def test_a_run_of_the_characters_messages_takes_a_turn_each():
    data = jsonl(HEADER, message("旅人", True, "在吗"), message("维克多", False, "在。"),
                 message("维克多", False, "刚回来。"), message("维克多", False, "有事？"),
                 message("旅人", True, "有"), message("旅人", True, "急事"))
    _, lines = chat_import_jsonl(data)
    assert [(line["role"], line["turn"]) for line in lines] == [
        ("user", 1), ("assistant", 1), ("assistant", 2), ("assistant", 3), ("user", 4),
        ("user", 5)]


def test_system_lines_become_notes_and_empty_lines_are_skipped():
    data = jsonl(HEADER, message("旅人", True, "hi"),
                 {**message("System", False, "（场景切换）"), "is_system": True},
                 message("维克多", False, "  "))
    header, lines = chat_import_jsonl(data + b"\n\n")
    assert lines[1] == {"type": "note", "content": "（场景切换）", "name": "System",
                        "timestamp": "2024-03-05T14:03:00Z", "extra": {},
                        "send_date": "2024-03-05T14:03:00.000Z"}
    assert len(lines) == 2
    assert any("empty message" in note for note in header["import_notes"])


def test_header_less_file_takes_names_from_messages():
    header, lines = chat_import_jsonl(jsonl(message("Ann", True, "hi"),
                                            message("Bob", False, "yo")))
    assert (header["user_name"], header["character_name"]) == ("Ann", "Bob")
    assert [line["turn"] for line in lines] == [1, 1]


@pytest.mark.parametrize("data, message_text", [
    (jsonl(HEADER) + b'{"name": "x", "is_user": true, "mes": "hi"\n', "line 2: not valid JSON"),
    (jsonl(HEADER) + b"[1, 2]\n", "line 2: expected a JSON object"),
    (jsonl(HEADER, {"name": "a", "is_user": True}), "line 2: message has no 'mes' text"),
    (jsonl(HEADER, {"mes": "hi"}), "line 2: message has neither 'is_user' nor 'name'"),
    (jsonl({"foo": 1}), "line 1: neither a chat header nor a message"),
    (b"\n\n", "the file is empty"),
    (b"\xff\xfe\x00", "not UTF-8"),
])
def test_malformed_files_name_the_line(data, message_text):
    with pytest.raises(ChatFormatError, match=message_text):
        chat_import_jsonl(data)


SESSION = [
    {"type": "metadata", "session_id": "sess_002"},
    {"type": "summary", "content": "上一次：旅人与维克多结盟。"},
    {"role": "assistant", "content": "你来了。", "turn": 0, "timestamp": "2025-10-16T10:00:00Z",
     "greeting": True},
    {"role": "user", "content": "我见到了维克多", "turn": 1, "timestamp": "2025-10-16T10:01:00Z"},
    {"role": "assistant", "content": "嗯。\n第二行", "turn": 1,
     "timestamp": "2025-10-16T10:01:05Z"},
]


def test_export_then_import_gives_the_same_session():
    data = chat_export_jsonl(lines=SESSION, user_name="旅人", character_name="维克多",
                             created_at="2025-10-16T10:00:00Z")
    records = [json.loads(line) for line in data.decode("utf-8").splitlines()]
    assert records[0] == {"user_name": "旅人", "character_name": "维克多",
                          "create_date": "2025-10-16T10:00:00Z", "chat_metadata": {}}
    assert records[1]["is_system"] is True
    assert records[3] == {"name": "旅人", "is_user": True, "is_system": False,
                          "send_date": "2025-10-16T10:01:00Z", "mes": "我见到了维克多",
                          "extra": {}}
    header, lines = chat_import_jsonl(data)
    assert header["created_at"] == "2025-10-16T10:00:00Z"
    names = {"user": "旅人", "assistant": "维克多"}
    assert lines == [{**line, "name": names[line["role"]], "extra": {}} if "role" in line
                     else line for line in SESSION[1:]]


def test_the_sillytavern_export_leaves_out_the_directors_markers():
    lines = [{"role": "user", "content": "走吧 [PROGRESS:2:completed]", "turn": 1},
             {"role": "assistant", "content": "跟我来。[PROGRESS:2:completed]", "turn": 1,
              "alternatives": [{"content": "不。[PROGRESS:1:in_progress]"}]}]
    data = chat_export_jsonl(lines=lines, user_name="旅人", character_name="维克多",
                             created_at="2025-10-16T10:00:00Z")
    records = [json.loads(line) for line in data.decode("utf-8").splitlines()][1:]
    assert records[0]["mes"] == "走吧 [PROGRESS:2:completed]"  # the player's words are theirs
    assert records[1]["mes"] == "跟我来。"
    assert all("PROGRESS" not in text for text in records[1].get("swipes", []))


def test_markdown_export_has_names_and_text():
    text = chat_export_markdown(lines=SESSION, user_name="旅人", character_name="维克多",
                                title="北区往事")
    assert text.startswith("# 北区往事\n")
    assert "**旅人** (turn 1)\n\n我见到了维克多" in text
    assert "**维克多**\n\n你来了。" in text
    assert "> **Summary:** 上一次：旅人与维克多结盟。" in text
    assert "嗯。\n第二行" in text


def test_a_chinese_readers_markdown_export_is_worded_in_chinese():
    """Its title was Chinese ("… · 第 2 段对话") and its labels English: "**旅人** (turn 1)",
    "**Summary:**", "(hidden from the model)"."""
    lines = [*SESSION, {"role": "user", "content": "悄悄话", "turn": 2, "hidden": True},
             {"type": "note", "content": "旁白"}]
    with translation.override("zh-hans"):
        text = chat_export_markdown(lines=lines, user_name="旅人", character_name="维克多",
                                    title="北区往事")
    assert "**旅人**（第 1 轮）\n\n我见到了维克多" in text
    assert "> **摘要：** 上一次：旅人与维克多结盟。" in text
    assert "**旅人**（第 2 轮）（对模型隐藏）" in text and "> **备注：** 旁白" in text
    assert "turn" not in text and "Summary" not in text and "hidden" not in text


@pytest.mark.parametrize("value, expected", [
    ("2023-05-12T17:41:53.343Z", "2023-05-12T17:41:53Z"),
    ("2023-5-12 @17h 41m 53s 343ms", "2023-05-12T17:41:53Z"),
    ("2023-5-12@17h41m53s", "2023-05-12T17:41:53Z"),
    ("May 12, 2023 5:41pm", "2023-05-12T17:41:00Z"),
    (1683913313000, "2023-05-12T17:41:53Z"),
    ("yesterday", None),
])
def test_front_end_dates_are_read(value, expected):
    assert date_parse(value) == expected


def test_swipes_become_alternatives_and_come_back_as_swipes():
    header = {"user_name": "You", "character_name": "Mira", "create_date": "2025-10-16T10:00:00Z",
              "chat_metadata": {}}
    records = [header,
               {"name": "You", "is_user": True, "mes": "hi", "send_date": "2025-10-16T10:01:00Z"},
               {"name": "Mira", "is_user": False, "mes": "second", "send_date": "2025-10-16T10:01:05Z",
                "swipes": ["first", "second", "third"], "swipe_id": 1}]
    data = "\n".join(json.dumps(r) for r in records).encode()
    _, lines = chat_import_jsonl(data)
    reply = lines[-1]
    assert reply["content"] == "second"
    assert [a["content"] for a in reply["alternatives"]] == ["first", "third"]
    exported = chat_export_jsonl(lines=lines, user_name="You", character_name="Mira",
                                 created_at="2025-10-16T10:00:00Z")
    last = json.loads(exported.decode().splitlines()[-1])
    assert last["swipes"] == ["first", "second", "third"] and last["swipe_id"] == 1
    assert last["mes"] == "second"


@pytest.mark.parametrize("odd_name", [["Ann"], {"n": 1}, 5, None])
def test_a_speaker_name_that_is_not_text_is_read_as_no_name(odd_name):
    data = jsonl({"create_date": "2024-01-01"},  # a header without names
                 {"name": odd_name, "is_user": True, "mes": "hi"},
                 {"name": odd_name, "is_user": False, "is_system": True, "mes": "Rain."},
                 {"name": odd_name, "is_user": False, "mes": "Hello."})
    header, lines = chat_import_jsonl(data)
    assert (header["user_name"], header["character_name"]) == ("User", "Character")
    assert [(line.get("type") or line["role"], line["content"]) for line in lines] == [
        ("user", "hi"), ("note", "Rain."), ("assistant", "Hello.")]
    assert lines[1]["name"] == "System"


def test_a_first_line_that_is_neither_header_nor_message_is_skipped_and_the_rest_imports():
    header, lines = chat_import_jsonl(jsonl({"version": 2, "app": "other"},
                                            message("旅人", True, "你好")))
    assert [line["content"] for line in lines] == ["你好"]
    assert header["import_notes"] == ["line 1: neither a chat header nor a message"]
