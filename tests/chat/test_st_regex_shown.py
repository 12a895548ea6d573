"""Markdown-only regex scripts on the lines of an imported SillyTavern chat change what the page
shows where SillyTavern 1.12.6's messageFormatting changes it: a narrator note gets the
"slash command" scripts (a comment the AI-output ones, SillyTavern's own system messages none),
and a narrator line it sends to the model counts in the other messages' depth."""

from __future__ import annotations

import json

from chat.import_export.chat_formats import chat_import_jsonl
from chat.play.regex_scripts import LineDisplay, display_depths, edit_regexed
from library.find_replace.scripts import RegexRun, scripts_read
from library.find_replace.services import regex_scripts_account_save

HEADER = {"user_name": "Ann", "character_name": "Mira"}


def _lines(*records: dict) -> list[dict]:
    data = "\n".join(json.dumps(r) for r in (HEADER, *records)) + "\n"
    return chat_import_jsonl(data.encode())[1]


def _shown(lines: list[dict], **script) -> list[str]:
    run = RegexRun(scripts_read([{"scriptName": "x", "findRegex": "/^/", "replaceString": "~",
                                  "markdownOnly": True, **script}]))
    display = LineDisplay({}, run, display_depths(lines))
    return [display.text(line) for line in lines]


SAID = {"name": "Ann", "is_user": True, "mes": "a"}
SYS = {"name": "System", "is_user": False, "is_system": False, "mes": "b",
       "extra": {"type": "narrator"}}  # its /sys: sent to the model
COMMENT = {"name": "Note", "is_user": False, "is_system": True, "mes": "c",
           "extra": {"type": "comment"}}
OWN = {"name": "SillyTavern System", "is_user": False, "is_system": True, "mes": "d",
       "extra": {"type": "help"}}
REPLY = {"name": "Mira", "is_user": False, "mes": "e"}


def test_notes_get_the_scripts_of_their_placement_as_sillytaverns_page_runs_them():
    """Until 2026-12-03 no markdown-only script ran on a narrator or comment line here."""
    lines = _lines(SAID, SYS, COMMENT, OWN, REPLY)
    assert [line.get("type") for line in lines] == [None, "note", "note", "note", None]
    assert _shown(lines, placement=[3]) == ["a", "~b", "c", "d", "e"]
    assert _shown(lines, placement=[2]) == ["a", "b", "~c", "d", "~e"]


def test_a_narrator_line_sent_to_the_model_counts_in_the_depth_shown():
    """SillyTavern counts every message not `is_system` (its /sys line too): the player's
    line is at depth 2 here, not 1 as counted before 2026-12-03."""
    lines = _lines(SAID, SYS, COMMENT, REPLY)
    assert _shown(lines, placement=[1, 2, 3], maxDepth=1) == ["a", "~b", "~c", "~e"]
    assert _shown(lines, placement=[1], minDepth=2) == ["~a", "b", "c", "e"]


def test_an_edited_comment_gets_the_ai_output_scripts_a_narrator_line_the_slash_commands(
        store, alice, instance):
    """SillyTavern's updateMessage: only a narrator message is a slash command; until
    2026-12-03 every note here was (a comment edited got the wrong scripts)."""
    regex_scripts_account_save(store, user=alice, scripts=[
        {"scriptName": p, "findRegex": "/^/", "replaceString": p, "placement": [int(p)],
         "runOnEdit": True} for p in ("2", "3")])
    comment, narrator = _lines(COMMENT, SYS)
    assert [edit_regexed(store, instance_id=instance, line=line, text="x")
            for line in (comment, narrator)] == ["2x", "3x"]
