"""The prompt inspector's notes read in the reader's language to the last line (issue 33): the
turn's warnings with their numbers, the lore entries a budget left out and why they would have
fired, the director's rejected markers; ids, keys and numbers stay as written."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from chat.inspector.notes import WARNING_WORDS, lore_dropped_reason_named, warning_named
from chat.services.instances import instance_create
from library.character_services import character_save
from library.lore.activation import lorebook_match
from library.lore.services import lorebook_save
from personalab.lib.tokens import count_tokens
from tests.library.card_turns import card_turn_run, english_set, mira_card, mira_import
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

WRITTEN_CATEGORY = re.compile(r"\"category\": \"([a-z_]+)\"|warning_make\(\s*\w+,\s*\"([a-z_]+)\""
                              r"|_warning\(\"([a-z_]+)\"")

LONG_LORE = "The clinic stands on stilts above the drowned market. " * 6


def _part(page: str, start: str, end: str) -> str:
    return html.unescape(page.split(start, 1)[1].split(end, 1)[0])


def _chat(store, alice, background) -> str:
    character_id = mira_import(store, mira_card())
    lorebook_id = lorebook_save(store, data={"name": "Drowned city", "token_budget": 12, "entries": [
        {"uid": 1, "keys": ["clinic"], "comment": "The clinic", "content": "On stilts.",
         "priority": 200},
        {"uid": 2, "keys": ["clinic"], "comment": "The market", "content": LONG_LORE,
         "priority": 10}]})
    character_save(store, data={**store.character_read(character_id),
                                "lorebook_ids": [lorebook_id]}, character_id=character_id)
    return instance_create(store, owner=alice, character_id=character_id,
                           background_id=background)


def test_the_inspectors_warnings_and_lore_left_out_read_in_chinese(alice_client, store, alice,
                                                                   background, use_stub):
    english_set(store)
    use_stub.script(Reply("She nods. [PROGRESS:2:COMPLETED]"))
    measured = store.trace_read(first := _chat(store, alice, background),
                                card_turn_run(store, first, "Is the clinic safe?"))
    # the same turn again, its limit just above its size: the prompt is near its limit
    config = store.config_read()
    config["limits"]["max_total_tokens"] = measured["total_tokens"] + 10
    store.config_write(config)
    instance_id = _chat(store, alice, background)
    use_stub.script(Reply("She nods. [PROGRESS:2:COMPLETED]"))
    trace_id = card_turn_run(store, instance_id, "Is the clinic safe?")

    alice_client.cookies["django_language"] = "zh-hans"
    page = alice_client.get(f"/traces/{trace_id}/").content.decode()
    warnings = _part(page, 'id="trace-warnings"', "</ul>")
    assert "提示词接近上限" in warnings and "建议执行汇总或调整设置" in warnings
    assert "close to its limit" not in warnings and "total_near_limit" in warnings
    dropped = _part(page, 'id="lore-dropped"', "</ul>")
    assert "超出其世界书 12 个 token 的预算；本应触发：关键词 'clinic' 出现在最新一条消息中" in dropped
    assert "The market" in dropped and "would have fired" not in dropped
    director = _part(page, 'id="trace-memory"', "</details>")
    assert "状态 'COMPLETED' 的大小写不对" in director and "wrong case" not in director


# Three English words in a row: a sentence left in English.
ENGLISH = re.compile(r"[A-Za-z]{2,}(?:[\s,;:()'\-]+[A-Za-z]{2,}){2,}")
# The line breaks of a page's text as a browser reads it (innerText): a block, a row, a <br>;
# a table's cells are apart on their row.
BLOCKS = {"address", "article", "aside", "blockquote", "br", "caption", "dd", "details", "div",
          "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3",
          "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section",
          "summary", "table", "tbody", "tfoot", "thead", "tr", "ul"}
VOID = {"br", "hr", "img", "input", "meta", "link", "wbr", "source", "col", "area"}


class _Lines(HTMLParser):
    """The lines of text of the element with the id `element_id`, without what is marked as
    written (translate="no": ids, names, keys, the player's words) and without code."""

    def __init__(self, element_id: str) -> None:
        super().__init__()
        self.element_id, self.depth, self.skipped, self.text = element_id, 0, 0, [""]

    def handle_starttag(self, tag, attrs):
        if not self.depth:
            self.depth = int(dict(attrs).get("id") == self.element_id and tag not in VOID)
            return
        if tag in VOID:
            if tag in BLOCKS and not self.skipped:
                self.text.append("")
            return
        self.depth += 1
        if self.skipped or dict(attrs).get("translate") == "no" or tag == "code":
            self.skipped += 1
        elif tag in BLOCKS:
            self.text.append("")
        elif tag in ("td", "th"):
            self.text[-1] += "\t"

    def handle_endtag(self, tag):
        if not self.depth or tag in VOID:
            return
        self.depth -= 1
        if self.skipped:
            self.skipped -= 1
        elif tag in BLOCKS:
            self.text.append("")

    def handle_data(self, data):
        if self.depth and not self.skipped:
            self.text[-1] += data

    def lines(self) -> list[str]:
        return [" ".join(line.split()) for line in self.text if line.strip()]


def _english_left(page: str, element_id: str) -> list[str]:
    """The lines of the element that still hold an English sentence."""
    part = _Lines(element_id)
    part.feed(page)
    if not part.lines():
        return [f"(missing: #{element_id})"]
    return [line for line in part.lines() if ENGLISH.search(line)]


def test_the_inspector_reads_wholly_in_chinese_after_a_full_turn(alice_client, store, alice,
                                                                 background, use_stub):
    """A turn in which a lore entry fired, a constant one was kept, another was left out by its
    book's budget, the prompt came near its limit and the director read no marker: its
    sections, warnings, lore and director lines carry no English sentence in Chinese."""
    english_set(store)
    character_id = mira_import(store, mira_card())
    lorebook_id = lorebook_save(store, data={"name": "Drowned city", "token_budget": 30,
                                             "entries": [
        {"uid": 1, "keys": ["clinic"], "comment": "The clinic", "content": "On stilts.",
         "priority": 200},
        {"uid": 2, "keys": ["clinic"], "comment": "The market", "priority": 10,
         "content": "The market floods at noon and the boats come in. " * 8},
        {"uid": 3, "keys": [], "constant": True, "ignore_budget": True,
         "comment": "The lantern", "content": "The lantern burns all night long. " * 90}]})
    character_save(store, data={**store.character_read(character_id),
                                "lorebook_ids": [lorebook_id]}, character_id=character_id)

    def turn() -> tuple[str, str]:
        instance_id = instance_create(store, owner=alice, character_id=character_id,
                                      background_id=background)
        use_stub.script(Reply("She trims the wick. [PROGRESS:1:COMPLETED]"))
        return instance_id, card_turn_run(store, instance_id, "Is the clinic safe tonight?")

    # the same turn again, its limit just above its size: the prompt is near its limit
    config = store.config_read()
    config["limits"]["max_total_tokens"] = store.trace_read(*turn())["total_tokens"] + 10
    store.config_write(config)
    trace_id = turn()[1]

    alice_client.cookies["django_language"] = "zh-hans"
    page = alice_client.get(f"/traces/{trace_id}/").content.decode()
    assert "提示词接近上限" in _part(page, 'id="trace-warnings"', "</ul>")
    assert "超出其世界书 30 个 token 的预算" in _part(page, 'id="lore-dropped"', "</ul>")
    assert "常驻" in _part(page, 'id="lore-fired"', "</ul>")
    director = _part(page, 'id="trace-memory"', "</details>")
    assert "没有有效的进度标记" in director and "大小写不对" in director
    for part in ("trace-sections", "trace-warnings", "lore-fired", "lore-dropped",
                 "trace-memory"):
        assert _english_left(page, part) == [], part


def test_each_budget_and_group_reason_the_lore_scan_writes_is_translated(settings):
    settings.LANGUAGE_CODE = "zh-hans"
    books = [{"id": "lb_a", "token_budget": 5, "entries": [
        {"uid": 1, "keys": ["x"], "content": "short", "group": "g", "priority": 100},
        {"uid": 2, "keys": ["x"], "content": "short too", "group": "g", "group_override": True},
        {"uid": 3, "keys": ["x"], "content": LONG_LORE, "priority": 1}]}]
    match = lorebook_match(books, messages=["x marks it"], count_tokens=count_tokens,
                           budget_tokens=None)
    reasons = [lore_dropped_reason_named(e["reason"]) for e in match.dropped]
    assert len(reasons) == 2, match.dropped
    assert all("would have" not in r and "本应触发" in r for r in reasons), reasons


def test_the_world_info_budget_reasons_are_translated(settings):
    settings.LANGUAGE_CODE = "zh-hans"
    books = [{"id": "lb_a", "entries": [
        {"uid": 1, "keys": ["x"], "content": LONG_LORE, "priority": 100},
        {"uid": 2, "keys": ["x"], "content": "short", "priority": 1}]}]
    match = lorebook_match(books, messages=["x marks it"], count_tokens=count_tokens,
                           budget_tokens=20)
    reasons = [lore_dropped_reason_named(e["reason"]) for e in match.dropped]
    assert reasons[0].startswith("超出世界书预算（0 + ") and "≥ 20 个 token）" in reasons[0]
    assert reasons[1].startswith("世界书预算的 20 个 token 已经用完；"), reasons


def test_a_warning_of_an_unknown_kind_is_shown_as_written():
    shown = warning_named({"category": "new_kind", "message": "Something new", "detail": "d"})
    assert shown == {"category": "new_kind", "message": "Something new", "suggestion": "",
                     "detail": "d"}


def test_every_warning_kind_the_code_writes_has_words_in_the_readers_language():
    """A new warning kind written anywhere (by `category` or warning_make) is shown as written
    until it is given words here: this lists the ones missing."""
    root = Path(__file__).resolve().parents[2]
    written = set()
    for folder in ("chat", "director", "library", "memory", "personalab"):
        for source in (root / folder).rglob("*.py"):
            written |= {name for found in WRITTEN_CATEGORY.findall(source.read_text())
                        for name in found if name}
    assert len(written) >= 10
    assert sorted(written - set(WARNING_WORDS)) == []
