"""Regex scripts as SillyTavern's regex extension stores and runs them: a find regex
(`/pattern/flags`), a replace string (`$1` groups, `{{match}}`), trim strings, placements (user
input, AI output, world info, reasoning), markdown-only (what the page shows) and prompt-only
(what the model is sent), min/max depth, run on edit, disabled.

Scripts are kept in SillyTavern's own shape (`scriptName`, `findRegex`, …), so a card's
`extensions.regex_scripts` exports as it came. Every pattern goes through
personalab/lib/user_regex.py: refused at save when it would cost too much to compile, and
matched with a time limit when it runs (a script that runs out of time changes nothing).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import regex
from django.utils.translation import gettext

from library.errors import LibraryError
from library.find_replace.words import regex_fault_words
from personalab.lib.config_schema import digits_int
from personalab.lib.js_regex import js_pattern, js_pattern_fault, js_utf16, js_utf16_offset
from personalab.lib.jsontext import text_surrogates_replace
from personalab.lib.user_regex import (
    NOT_A_REGEX,
    PatternRefused,
    pattern_compile,
    pattern_problem,
)

log = logging.getLogger(__name__)

# SillyTavern's regex_placement numbers (0 markdown display and 4 sendAs are retired there).
USER_INPUT, AI_OUTPUT, SLASH_COMMAND, WORLD_INFO, REASONING = 1, 2, 3, 5, 6
PLACEMENTS = {USER_INPUT: "user input", AI_OUTPUT: "AI output", SLASH_COMMAND: "slash command",
              WORLD_INFO: "world info", REASONING: "reasoning"}
SUBSTITUTE_NONE, SUBSTITUTE_RAW, SUBSTITUTE_ESCAPED = 0, 1, 2

MAX_SCRIPTS = 200
MAX_REPLACE_CHARS = 100_000
MAX_TRIM_STRINGS = 100
# A script's run: at most this long, and its result at most this long (a global `$0$0$0…`
# over a long reply must not grow a message without bound).
RUN_SECONDS = 0.1
# All the runs of one turn's step (or one page) together: past this the rest are skipped, so
# 200 scripts over 50 messages cannot hold a worker for minutes.
TOTAL_SECONDS = 1.0
MAX_RESULT_CHARS = 2_000_000

# The letters SillyTavern's regexFromString takes as flags (it reads any other, or one written
# twice, as part of a pattern that is the whole text); x X U A J then make the browser refuse it.
_ST_FLAGS = "gimsuxXUAJ"
_NOT_JS = "xXUAJ"
# What JavaScript's `.` does not match: regexFromString reads the find regex up to the first.
_LINE_BREAKS = "\n\r\u2028\u2029"
_FLAG_LETTERS = regex.compile(r"[A-Za-z]*")
_GROUP_REF = regex.compile(r"\$(\d+)")
_MATCH_MACRO = regex.compile(r"\{\{match\}\}", regex.IGNORECASE)

Macros = Callable[[str], str]


def _same(text: str) -> str:
    return text


@dataclass(frozen=True)
class FindRegex:
    """`source`: the pattern as the `regex` engine reads JavaScript's (js_regex.py); `at`:
    where the pattern as written starts in the find regex (1 after a "/")."""

    source: str
    flags: int
    global_: bool
    at: int = 0
    written: str = ""
    unicode: bool = False


@dataclass(frozen=True)
class FoundRegex:
    """A script's compiled find regex with its g and u flags."""

    pattern: regex.Pattern[str]
    global_: bool
    unicode: bool


class FlagRefused(ValueError):
    def __init__(self, flag: str):
        super().__init__(f"the flag {flag!r} is not a JavaScript regex flag (use g, i, m, s, u)")
        self.flag = flag


def find_regex_parse(find: str) -> FindRegex:
    """The find regex as SillyTavern's regexFromString reads it: its first line (a text with
    only line breaks is empty: ValueError); `/pattern/flags` up to the last slash of that line,
    the ASCII letters after it as flags, whatever follows them left out; a line without that
    shape is a pattern as a whole, without flags; so is the whole text when the letters are
    not flags or one is written twice (`/a/gg`, `/a/y`). Raises FlagRefused for x, X, U, A, J,
    which the browser refuses, JsRefused for a pattern the browser refuses (`(?i)`)."""
    line, letters, at = _find_regex_parts(find)
    source = js_pattern(line, unicode="u" in letters, multiline="m" in letters, utf16=True)
    return FindRegex(source, _flags(letters), "g" in letters, at, line, "u" in letters)


def _flags(letters: str) -> int:
    return (regex.IGNORECASE if "i" in letters else 0) | (
        regex.MULTILINE if "m" in letters else 0) | (
        regex.DOTALL if "s" in letters else 0) | regex.V0


def _find_regex_parts(find: str) -> tuple[str, str, int]:
    """The pattern, its flag letters and where the pattern starts (find_regex_parse)."""
    start = next((i for i, c in enumerate(find) if c not in _LINE_BREAKS), None)
    if start is None:
        raise ValueError("the find regex is empty")
    end = next((i for i in range(start, len(find)) if find[i] in _LINE_BREAKS), len(find))
    line, letters, at = find[start:end], "", start
    last = line.rfind("/")
    if line.startswith("/") and last >= 2:
        letters = _FLAG_LETTERS.match(line, last + 1).group(0)
        line, at = line[1:last], start + 1
    if letters and (len(set(letters)) < len(letters) or any(c not in _ST_FLAGS
                                                            for c in letters)):
        line, letters, at = find, "", 0
    refused = next((c for c in letters if c in _NOT_JS), None)
    if refused:
        raise FlagRefused(refused)
    return line, letters, at


def find_regex_problem(find: str) -> str | None:
    """A sentence saying why a find regex cannot be used, or None when it can."""
    if not find:
        return "the find regex is empty"
    try:
        parsed = find_regex_parse(find)
    except ValueError as exc:
        return str(exc)
    return pattern_problem(parsed.source, parsed.flags)


def find_regex_words(find: str) -> str | None:
    """find_regex_problem in its author's words and language (library/find_replace/words.py)."""
    try:
        line, letters, at = _find_regex_parts(find)
    except FlagRefused as exc:
        return gettext("“%(flag)s” is not a flag a JavaScript regex knows (use g, i, m, s, "
                       "u)") % {"flag": exc.flag}
    except ValueError:
        return gettext("the find regex is empty")
    fault = js_pattern_fault(line, flags=_flags(letters), unicode="u" in letters,
                             multiline="m" in letters)
    if fault is None:
        return None
    return regex_fault_words(fault, written=find, offset=at)


@dataclass(frozen=True)
class RegexScript:
    name: str
    find: str
    replace: str
    trim: tuple[str, ...] = ()
    placement: frozenset[int] = frozenset()
    disabled: bool = False
    markdown_only: bool = False
    prompt_only: bool = False
    run_on_edit: bool = False
    substitute: int = SUBSTITUTE_NONE
    min_depth: int | None = None
    max_depth: int | None = None

    def applies(self, placement: int, *, markdown: bool, prompt: bool, edit: bool,
                depth: int | None) -> bool:
        """SillyTavern's choice: markdown-only scripts when the page shows a message,
        prompt-only ones when the prompt is built, the others on the stored text and again
        in the prompt, never on the page (the stored text has them already)."""
        if self.disabled or placement not in self.placement or (edit and not self.run_on_edit):
            return False
        if not ((self.markdown_only and markdown) or (self.prompt_only and prompt)
                or (not self.markdown_only and not self.prompt_only and not markdown)):
            return False
        if depth is not None and depth >= 0:
            if self.min_depth is not None and self.min_depth >= 0 and depth < self.min_depth:
                return False
            if self.max_depth is not None and self.max_depth >= 0 and depth > self.max_depth:
                return False
        return True


@dataclass
class RegexRun:
    """The scripts of a turn or a page (the account's, then the character's) with the macros
    they are filled in with; `problems` collects the scripts that were skipped."""

    scripts: tuple[RegexScript, ...] = ()
    macros: Macros = _same
    escape_macros: Macros = _same
    # The macros with {{char}} as the given name: SillyTavern fills a trim string's {{char}}
    # with the message's own speaker where its page shows or edits it (characterOverride).
    macros_as: Callable[[str], Macros] | None = None
    problems: list[str] = field(default_factory=list)
    spent: float = 0.0
    _compiled: dict[str, FoundRegex | None] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.scripts)

    def _problem(self, text: str) -> None:
        if len(self.problems) < 3:  # the first few: the same script fails on every message
            log.warning("%s", text)
        self.problems.append(text)

    def text(self, text: str, placement: int, *, markdown: bool = False, prompt: bool = False,
             edit: bool = False, depth: int | None = None, speaker: str | None = None) -> str:
        """`text` after every script that applies here, in order; `speaker`: the {{char}} of
        the trim strings (macros_as)."""
        if not text or not self.scripts:
            return text
        trim_macros = self.macros_as(speaker) if speaker and self.macros_as else self.macros
        for script in self.scripts:
            if script.applies(placement, markdown=markdown, prompt=prompt, edit=edit,
                              depth=depth):
                text = self._run(script, text, trim_macros)
        return text

    def _pattern(self, script: RegexScript) -> FoundRegex | None:
        """The script's compiled find regex, its g and u flags, once per run of scripts."""
        find = script.find
        if script.substitute == SUBSTITUTE_RAW:
            find = self.macros(find)
        elif script.substitute == SUBSTITUTE_ESCAPED:
            find = self.escape_macros(find)
        if find in self._compiled:
            return self._compiled[find]
        try:
            parsed = find_regex_parse(find)
            compiled = FoundRegex(pattern_compile(parsed.source, parsed.flags), parsed.global_,
                                  parsed.unicode)
        except (ValueError, regex.error, OverflowError) as exc:
            # SillyTavern skips a script whose regex does not compile; too costly is the same.
            if isinstance(exc, PatternRefused) or script.substitute:
                self._problem(f"regex script {script.name!r} skipped: {exc}")
            compiled = None
        self._compiled[find] = compiled
        return compiled

    def _run(self, script: RegexScript, text: str, trim_macros: Macros) -> str:
        if self.spent > TOTAL_SECONDS:
            self._problem(f"regex script {script.name!r} skipped: the scripts ran "
                          f"{TOTAL_SECONDS:g} s already")
            return text
        started = time.perf_counter()
        try:
            found = self._pattern(script)
            if found is None:
                return text
            return _replaced(found, text, script, self.macros, trim_macros,
                             seconds=min(RUN_SECONDS, TOTAL_SECONDS - self.spent + 0.01))
        except (TimeoutError, _TooLong, _Thrown) as exc:
            self._problem(f"regex script {script.name!r} changed nothing: {exc}")
            return text
        finally:
            self.spent += time.perf_counter() - started


class _TooLong(Exception):
    pass


class _Thrown(Exception):
    """Where SillyTavern's script throws a TypeError (the browser's message is not sent)."""


# What SillyTavern's `$N` past the groups is: its replace callback's next arguments (the
# match's offset, the whole text, the named groups' object), as `args[N]` reads them.
_OBJECT = "[object Object]"


def _past_groups(number: int, match: regex.Match[str], text: str, script: RegexScript,
                 macros: Macros, utf16: bool) -> str:
    past = number - len(match.groups())
    if past == 1:  # the offset, in UTF-16 units; 0 is false there, so empty
        offset = match.start() if utf16 else js_utf16_offset(text, match.start())
        if offset and script.trim:
            raise _Thrown("a $N past its groups is the match's offset, a number, which its "
                          "trim strings cannot trim (SillyTavern throws)")
        return str(offset) if offset else ""
    if past == 2:
        return _trimmed(text, script.trim, macros)
    if past == 3 and match.re.groupindex:
        if script.trim:
            raise _Thrown("a $N past its groups is the named groups' object, which its trim "
                          "strings cannot trim (SillyTavern throws)")
        return _OBJECT
    return ""


def _replaced(found: FoundRegex, text: str, script: RegexScript, macros: Macros,
              trim_with: Macros, *, seconds: float) -> str:
    template = _MATCH_MACRO.sub("$0", script.replace)
    produced = [0]
    # Without u, JavaScript matches UTF-16 halves: `.` takes half an emoji (js_regex.py).
    halves = text if found.unicode else js_utf16(text)
    utf16, text = halves is not text, halves
    trim_macros = (lambda trim: js_utf16(trim_with(trim))) if utf16 else trim_with

    refs = [int(ref.group(1)) for ref in _GROUP_REF.finditer(template)]

    def one(match: regex.Match[str]) -> str:
        values: dict[int, str] = {}
        for number in refs:
            if number in values:
                continue
            if number > len(match.groups()):
                values[number] = _past_groups(number, match, text, script, trim_macros,
                                              utf16)
            else:
                group = match.group(number)
                values[number] = _trimmed(group, script.trim, trim_macros) if group else ""
        # Measured before it is built: "$0" 40,000 times over a long match asked for 80 G
        # characters, the cap checked only once they were there (red team).
        if produced[0] + len(template) + sum(len(values[n]) for n in refs) > MAX_RESULT_CHARS:
            raise _TooLong(f"its result passed {MAX_RESULT_CHARS:,} characters")
        result = macros(_GROUP_REF.sub(lambda ref: values[int(ref.group(1))], template))
        produced[0] += len(result)
        if produced[0] > MAX_RESULT_CHARS:
            raise _TooLong(f"its result passed {MAX_RESULT_CHARS:,} characters")
        return result

    result = found.pattern.sub(one, text, count=0 if found.global_ else 1, timeout=seconds,
                               concurrent=True)
    # Halves left alone (a `.` took one) are what the browser shows them as: U+FFFD.
    return text_surrogates_replace(result) if utf16 else result


def _trimmed(text: str, trims: Iterable[str], macros: Macros) -> str:
    for trim in trims:
        trim = macros(trim)
        if trim:
            text = text.replace(trim, "")
    return text


# --- reading stored scripts ------------------------------------------------------------------

def _depth(value: Any) -> int | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, str):
        value = digits_int(value)  # isdigit() took "²", "--1" and 5,000 digits: a 500
        if value is None:
            return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return value if isinstance(value, int) else None


def _substitute(value: Any) -> int:
    if value is True:
        return SUBSTITUTE_RAW
    return value if value in (SUBSTITUTE_RAW, SUBSTITUTE_ESCAPED) and \
        not isinstance(value, bool) else SUBSTITUTE_NONE


def script_read(raw: Any) -> RegexScript | None:
    """One stored script (SillyTavern's field names) as it runs, or None when it cannot."""
    if not isinstance(raw, dict) or not isinstance(raw.get("findRegex"), str) \
            or not raw["findRegex"]:
        return None
    placement = raw.get("placement") if isinstance(raw.get("placement"), list) else []
    trims = raw.get("trimStrings") if isinstance(raw.get("trimStrings"), list) else []
    replace = raw.get("replaceString")
    return RegexScript(
        name=str(raw.get("scriptName") or ""), find=raw["findRegex"],
        replace=replace if isinstance(replace, str) else "",
        trim=tuple(t for t in trims if isinstance(t, str) and t),
        placement=frozenset(p for p in placement if isinstance(p, int)),
        disabled=bool(raw.get("disabled")), markdown_only=bool(raw.get("markdownOnly")),
        prompt_only=bool(raw.get("promptOnly")), run_on_edit=bool(raw.get("runOnEdit")),
        substitute=_substitute(raw.get("substituteRegex")),
        min_depth=_depth(raw.get("minDepth")), max_depth=_depth(raw.get("maxDepth")))


def scripts_read(*lists: Any) -> tuple[RegexScript, ...]:
    """The usable scripts of each stored list, in order (the account's first, as SillyTavern
    runs its global scripts before a character's)."""
    scripts = []
    for raw in lists:
        for item in raw if isinstance(raw, list) else []:
            script = script_read(item)
            if script is not None:
                scripts.append(script)
    return tuple(scripts)


def card_scripts(card: Any) -> Any:
    """A card's `data.extensions.regex_scripts` (as stored), or None."""
    data = card.get("data") if isinstance(card, dict) else None
    extensions = data.get("extensions") if isinstance(data, dict) else None
    return extensions.get("regex_scripts") if isinstance(extensions, dict) else None


# --- checking what is saved ------------------------------------------------------------------

_BOOLEANS = ("disabled", "markdownOnly", "promptOnly", "runOnEdit")


def scripts_checked(value: Any, *, field: str = "regex_scripts") -> list[dict[str, Any]]:
    """The scripts to store, each checked (SillyTavern's shape, keys it does not know kept).
    Raises LibraryError with a sentence beside each field that cannot be used."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise LibraryError(f"{field} must be a list of regex scripts",
                           {field: "must be a list of regex scripts"})
    if len(value) > MAX_SCRIPTS:
        raise LibraryError(f"{field}: at most {MAX_SCRIPTS} scripts",
                           {field: f"at most {MAX_SCRIPTS} scripts"})
    errors: dict[str, str] = {}
    checked = [_script_checked(raw, f"{field}[{index}]", errors)
               for index, raw in enumerate(value)]
    if errors:
        name, problem = next(iter(errors.items()))
        raise LibraryError(f"{name}: {problem}", errors)
    return checked


def _script_checked(raw: Any, where: str, errors: dict[str, str]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        errors[where] = "must be an object {scriptName, findRegex, replaceString, …}"
        return {}
    script = dict(raw)
    find = script.get("findRegex")
    if not isinstance(find, str):
        errors[f"{where}.findRegex"] = "must be text (/pattern/flags)"
    else:
        problem = find_regex_words(find)
        if problem:
            errors[f"{where}.findRegex"] = gettext("“%(key)s”: %(problem)s") % {
                "key": find if len(find) <= 60 else find[:59] + "…", "problem": problem}
    for name, limit in (("scriptName", 200), ("replaceString", MAX_REPLACE_CHARS)):
        text = script.setdefault(name, "")
        if not isinstance(text, str) or len(text) > limit:
            errors[f"{where}.{name}"] = f"must be text of at most {limit:,} characters"
    trims = script.setdefault("trimStrings", [])
    if not isinstance(trims, list) or len(trims) > MAX_TRIM_STRINGS \
            or not all(isinstance(t, str) and len(t) <= 1000 for t in trims):
        errors[f"{where}.trimStrings"] = (f"must be a list of at most {MAX_TRIM_STRINGS} texts "
                                          "of at most 1,000 characters")
    placement = script.setdefault("placement", [])
    if not isinstance(placement, list) or not all(
            isinstance(p, int) and not isinstance(p, bool) and p in PLACEMENTS
            for p in placement):
        errors[f"{where}.placement"] = "must be a list of " + ", ".join(
            f"{number} ({name})" for number, name in PLACEMENTS.items())
    for name in _BOOLEANS:
        if not isinstance(script.setdefault(name, False), bool):
            errors[f"{where}.{name}"] = "must be true or false"
    for name in ("minDepth", "maxDepth"):
        depth = script.get(name)
        if depth in (None, ""):
            script[name] = None
        elif _depth(depth) is None or _depth(depth) < -1 or _depth(depth) > 10_000:
            errors[f"{where}.{name}"] = "must be empty or a whole number from -1 to 10,000"
        else:
            script[name] = _depth(depth)
    return script


def scripts_import_check(value: Any) -> None:
    """Scripts arriving in an imported card: one whose pattern would cost too much to compile
    refuses the import (LibraryError beside `extensions.regex_scripts[i].findRegex`); the rest
    are kept as they came, a broken one too (SillyTavern keeps it and skips it)."""
    for index, raw in enumerate(value if isinstance(value, list) else []):
        find = raw.get("findRegex") if isinstance(raw, dict) else None
        if not isinstance(find, str) or not find:
            continue
        try:
            parsed = find_regex_parse(find)
        except ValueError:
            continue
        problem = pattern_problem(parsed.source, parsed.flags)
        if problem and not problem.startswith(NOT_A_REGEX):
            name = f"extensions.regex_scripts[{index}].findRegex"
            why = find_regex_words(find) or problem  # in the reader's language
            raise LibraryError(gettext("%(field)s: %(find)s: %(why)s") % {
                "field": name, "find": repr(find[:60]), "why": why}, {name: why})
