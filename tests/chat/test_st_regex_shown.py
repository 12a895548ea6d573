"""Markdown-only regex scripts change what the page shows where SillyTavern 1.12.6's
messageFormatting changes it: a narrator note gets the "slash command" scripts (a comment the
AI-output ones, SillyTavern's own system messages none), a narrator line it sends to the model
counts in the other messages' depth, and depth counts from the chat's newest message on every
page (older pages, the history manager, one message's page)."""

from __future__ import annotations

import json
import re

import pytest

from chat.import_export.chat_formats import chat_import_jsonl
from chat.play.regex_scripts import LineDisplay, edit_regexed, regex_run_for
from library.find_replace.scripts import RegexRun, scripts_read
from library.find_replace.services import regex_scripts_account_save
from personalab.lib.lines import display_depths

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


def _texts(html: str) -> list[str]:
    return re.findall(r'<div class="text md" hx-disable>([^<]*)</div>', html)


@pytest.mark.django_db
def test_older_pages_and_the_history_manager_count_depth_from_the_chats_newest_message(
        alice_client, store, alice, instance):
    """SillyTavern's page counts a message's depth in the whole chat; until 2026-12-03 an
    older page, a history page or one message's page counted it among the lines it read."""
    read = store.session_read(instance, "sess_001")
    store.session_rewrite(instance, "sess_001", [read.metadata, *(
        {"role": "user" if n % 2 == 0 else "assistant", "content": f"line {n}",
         "turn": n // 2 + 1} for n in range(250))])
    regex_scripts_account_save(store, user=alice, scripts=[{
        "scriptName": "old", "findRegex": "/^line/", "replaceString": "old", "placement": [1, 2],
        "markdownOnly": True, "minDepth": 200}])  # depth 249 - n: lines 0 to 49
    older = _texts(alice_client.get(f"/instances/{instance}/messages?before=60&shown=60")
                   .content.decode())
    assert older == [f"old {n}" for n in range(50)] + [f"line {n}" for n in range(50, 60)]
    history = _texts(alice_client.get(f"/instances/{instance}/history/rows?page=1")
                     .content.decode())
    assert history == [f"old {n}" for n in range(50)] + [f"line {n}" for n in range(50, 100)]
    found = _texts(alice_client.get(f"/instances/{instance}/history/rows?q=line+4")
                   .content.decode())
    assert found == ["old 4", *(f"old {n}" for n in range(40, 50))]  # a search's rows too
    one = alice_client.get(f"/instances/{instance}/messages/sess_001/10/").content.decode()
    assert "old 10" in one
    regex_scripts_account_save(store, user=alice, scripts=[{
        "scriptName": "new", "findRegex": "/^line/", "replaceString": "new", "placement": [1, 2],
        "markdownOnly": True, "maxDepth": 1}])
    newest = _texts(alice_client.get(f"/instances/{instance}/messages").content.decode())
    assert newest[-3:] == ["line 247", "new 248", "new 249"]  # every line was "new" before


def test_a_trim_strings_char_is_the_messages_own_speaker_on_the_page_and_on_edit(
        store, alice, instance):
    """SillyTavern's messageFormatting and updateMessage fill a trim string's {{char}} with
    the message's name (characterOverride): the player's own on the player's line. Until
    2026-12-03 it was the chat's character everywhere here."""
    regex_scripts_account_save(store, user=alice, scripts=[{
        "scriptName": "t", "findRegex": "/(.+)/", "replaceString": "[$1]", "placement": [1, 2],
        "trimStrings": ["{{char}}"], "markdownOnly": True}])
    values = {"user": "Ann", "char": "Mira"}
    run = regex_run_for(store, owner="alice", character={"name": "Mira"}, values=values)
    said, reply = _lines({**SAID, "mes": "Ann waves at Mira"},
                         {**REPLY, "mes": "Mira nods to Ann", "name": "Rook"})
    assert [LineDisplay(values, run).text(line) for line in (said, reply)] == [
        "[ waves at Mira]", "[Mira nods to Ann]"]
    regex_scripts_account_save(store, user=alice, scripts=[{
        "scriptName": "t", "findRegex": "/(.+)/", "replaceString": "[$1]", "placement": [1, 3],
        "trimStrings": ["{{char}}"], "runOnEdit": True}])
    sys_line = _lines({**SYS, "mes": "x"})[0]
    assert [edit_regexed(store, instance_id=instance, line=line, text="Ann and System")
            for line in (said, sys_line)] == ["[ and System]", "[Ann and System]"]


def test_markdown_only_reasoning_scripts_change_the_reasoning_the_page_shows(
        alice_client, store, alice, instance):
    """SillyTavern shows a reply's reasoning after its markdown-only reasoning (6) scripts;
    until 2026-12-03 the page showed it as stored."""
    read = store.session_read(instance, "sess_001")
    store.session_rewrite(instance, "sess_001", [read.metadata, *read.lines, {
        "role": "user", "content": "hi", "turn": 1}, {
        "role": "assistant", "content": "Hello.", "turn": 1, "reasoning": "secret plan"}])
    regex_scripts_account_save(store, user=alice, scripts=[{
        "scriptName": "r", "findRegex": "/secret/", "replaceString": "hidden",
        "placement": [6], "markdownOnly": True}])
    page = alice_client.get(f"/instances/{instance}/").content.decode()
    assert "hidden plan" in page and "secret plan" not in page
    assert store.session_read(instance, "sess_001").lines[-1]["reasoning"] == "secret plan"
