"""Every text a page or a gettext call shows has a 中文 entry (issue 33): the templates and the
Python sources are read as `makemessages` reads them (Django's templatize, then xgettext), the
result merged with locale/zh_Hans's .po, and any msgid left untranslated fails the test, but
for the ones listed below, which another branch of this round fills (walk-12a: chat pages, the
error page, the regex texts). A new text without its translation fails here."""

from __future__ import annotations

import gettext
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.utils.translation.template import templatize

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
SOURCES = ("chat", "director", "library", "memory", "personalab")
KEYWORDS = ("gettext_noop", "gettext_lazy", "ngettext_lazy:1,2", "pgettext:1c,2",
            "npgettext:1c,2,3", "pgettext_lazy:1c,2", "npgettext_lazy:1c,2,3")

pytestmark = pytest.mark.skipif(not all(shutil.which(tool) for tool in (
    "xgettext", "msgmerge", "msgattrib")), reason="GNU gettext's tools are not installed")


ESCAPE = re.compile(r"\\(.)")


def _unquoted(line: str) -> str:
    """`msgid "…"` (one line, C escapes) -> the text."""
    return ESCAPE.sub(lambda found: {"n": "\n", "t": "\t"}.get(found[1], found[1]),
                      line.split(" ", 1)[1][1:-1])


def untranslated_msgids(tmp: Path) -> set[str]:
    """The msgids of the templates and sources with no 中文 (or only a fuzzy one)."""
    files = []
    for path in sorted((ROOT / "templates").rglob("*.html")):
        out = tmp / (str(path.relative_to(ROOT)).replace("/", "__") + ".py")
        out.write_text(templatize(path.read_text(encoding="utf-8"), origin=str(path)),
                       encoding="utf-8")
        files.append(str(out))
    for folder in SOURCES:
        files += [str(p) for p in sorted((ROOT / folder).rglob("*.py"))
                  if "migrations" not in p.parts]
    pot, merged = tmp / "texts.pot", tmp / "merged.po"
    subprocess.run(["xgettext", "--language=Python", "--from-code=UTF-8", "--no-wrap", "-o",
                    str(pot), *(f"--keyword={k}" for k in KEYWORDS), *files], check=True)
    subprocess.run(["msgmerge", "-q", "--no-fuzzy-matching", "--no-wrap", "-o", str(merged),
                    str(PO), str(pot)], check=True)
    missing = set()
    for flag in ("--untranslated", "--only-fuzzy"):
        listed = subprocess.run(["msgattrib", flag, "--no-obsolete", "--no-wrap", str(merged)],
                                capture_output=True, text=True, check=True).stdout
        missing |= {_unquoted(line) for line in listed.splitlines()
                    if line.startswith("msgid ") and line != 'msgid ""'}
    return missing


def test_every_text_shown_has_a_chinese_entry(tmp_path: Path) -> None:
    missing = untranslated_msgids(tmp_path)
    assert sorted(missing) == []


def _entries() -> list[tuple[str, str]]:
    """The .po's (msgid, msgstr) pairs, continuation lines joined."""
    pairs: list[list[str]] = []
    field = None
    for line in PO.read_text(encoding="utf-8").splitlines():
        if line.startswith("msgid "):
            pairs.append([_unquoted(line), ""])
            field = 0
        elif line.startswith("msgstr "):
            pairs[-1][1] = _unquoted(line)
            field = 1
        elif line.startswith('"') and field is not None:
            pairs[-1][field] += _unquoted("x " + line)
        else:
            field = None
    return [(msgid, msgstr) for msgid, msgstr in pairs]


def test_the_prompt_is_named_in_chinese_everywhere() -> None:
    """"Prompt" is 提示词 on the pages (58 texts); a group's drawer read "每条回复的 Prompt 中的
    角色卡" beside the prompt inspector's 提示词, and the length limit, the refusals and the
    left-out cards the same. `promptOnly` (a regex script's field, as SillyTavern spells it)
    stays."""
    assert [msgstr for _, msgstr in _entries() if re.search(r"\bPrompt\b", msgstr)] == []


def test_a_models_tokens_are_token_in_chinese_and_only_api_tokens_are_令牌() -> None:
    """A model's tokens are "token" on the pages (25 texts: the prompt-size bar, the settings);
    a message's info said "1,509 个令牌" and "每秒 95.6 个令牌" (令牌: a pass, as an API token)."""
    assert [msgstr for msgid, msgstr in _entries()
            if "令牌" in msgstr and not re.search(r"API|hash|Bearer", msgid)] == []


def test_the_compiled_catalog_is_the_po_s(tmp_path: Path) -> None:
    """The .mo the server reads holds what the .po says: two branches' merge kept one's .mo
    and both .po entries, and a line too long for the prompt was refused in English to a
    Chinese reader (`msgfmt -o locale/zh_Hans/LC_MESSAGES/django.mo` after a merge)."""
    if not shutil.which("msgfmt"):
        pytest.skip("GNU gettext's msgfmt is not installed")
    compiled = tmp_path / "django.mo"
    subprocess.run(["msgfmt", "-o", str(compiled), str(PO)], check=True)
    with compiled.open("rb") as fresh, PO.with_suffix(".mo").open("rb") as kept:
        wanted = gettext.GNUTranslations(fresh)._catalog
        held = gettext.GNUTranslations(kept)._catalog
    assert sorted(key for key in wanted if held.get(key) != wanted[key]) == []
