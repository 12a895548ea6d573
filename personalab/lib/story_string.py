"""Context templates for text completion (SillyTavern's "context template"): the story string
that lays out the opening of the prompt (system prompt, the card's fields, persona, world info,
example dialogue), the separator put before each example dialogue and the line that marks where
the chat starts. The fields are SillyTavern's, so its context JSON is read as it is.

The story string is the user's text, so it is never given to a template engine. Only this is
understood, and nothing else:

- `{{name}}` for a known name (VARIABLES): replaced by its value, which is put in as it is
  (never searched again for `{{...}}`); an unknown name stays as it was written;
- `{{#if name}}...{{/if}}` and `{{#unless name}}...{{/unless}}`, with an optional `{{else}}`,
  nested at most MAX_DEPTH deep: the part kept depends on whether the value is empty;
- `{{trim}}`: the newlines on both sides of it are removed (SillyTavern's macro).
- a block tag alone on its line takes the line's indent and line break with it
  (Handlebars' standalone rule, which SillyTavern's renderer follows).

One pass over at most MAX_STORY_CHARS characters; the values put in are bounded too (a story
string repeating a long value a thousand times is refused, not rendered).

No loops, no helpers, no names of the user's own. Framework-free."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, fields
from typing import Any

from personalab.lib.errors import AppError

MAX_STORY_CHARS = 20_000  # SillyTavern's own are under 1,000 characters
MAX_FIELD_CHARS = 2_000  # a separator or a chat-start line
MAX_DEPTH = 16
MAX_STORY_DEPTH = 1_000
EXTRA_VALUE_CHARS = 100_000  # short values ({{char}}) may repeat beyond twice their sum
VARIABLES = frozenset({
    "system", "description", "personality", "scenario", "persona", "char", "user",
    "wiBefore", "wiAfter", "loreBefore", "loreAfter", "mesExamples", "mesExamplesRaw",
    "anchorBefore", "anchorAfter",
})
ROLES = ("system", "user", "assistant")  # story_string_role 0, 1, 2
IN_PROMPT, IN_CHAT = 0, 1  # story_string_position
# One tag: `{{name}}`, `{{#if name}}`, `{{#unless name}}`, `{{/if}}`, `{{/unless}}`, `{{else}}`.
# Bounded: each part is a run of letters or spaces of limited length, no nesting.
_TAG = re.compile(r"\{\{(#if|#unless|/if|/unless|else|)\s{0,8}([A-Za-z_]{0,40})\s{0,8}\}\}")
_TRIM = object()


class StoryStringError(AppError):
    code, status = "invalid_context_template", 400


@dataclass(frozen=True)
class ContextTemplate:
    name: str = "Custom"
    story_string: str = ""
    example_separator: str = ""
    chat_start: str = ""
    use_stop_strings: bool = False
    names_as_stop_strings: bool = True
    story_string_position: int = IN_PROMPT
    story_string_depth: int = 1
    story_string_role: int = 0
    # Reply post-processing (personalab/lib/reply_shape.py) and the name prefix, as SillyTavern.
    trim_sentences: bool = False
    single_line: bool = False
    always_force_name2: bool = True
    # A card's post-history instructions go in (as the player's turn) only when this is on.
    allow_jailbreak: bool = False

    def as_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


_BODY = ("{{#if system}}{{system}}\n{{/if}}{{#if wiBefore}}{{wiBefore}}\n{{/if}}"
         "{{#if description}}{{description}}\n{{/if}}")
_LABELLED = ("{{#if personality}}{{char}}'s personality: {{personality}}\n{{/if}}"
             "{{#if scenario}}Scenario: {{scenario}}\n{{/if}}")
_PLAIN = "{{#if personality}}{{personality}}\n{{/if}}{{#if scenario}}{{scenario}}\n{{/if}}"
_END = "{{#if wiAfter}}{{wiAfter}}\n{{/if}}{{#if persona}}{{persona}}\n{{/if}}"
_STORY = _BODY + _LABELLED + _END

# SillyTavern's shipped context templates (default/content/presets/context), by the story
# strings its documentation gives.
BUILT_IN: dict[str, dict[str, Any]] = {
    "default": {"name": "Default", "story_string": _STORY, "example_separator": "***",
                "chat_start": "***"},
    "minimalist": {"name": "Minimalist", "story_string": _BODY + _PLAIN + _END},
    "chatml": {"name": "ChatML",
               "story_string": "<|im_start|>system\n" + _STORY + "{{trim}}<|im_end|>"},
    "llama3": {"name": "Llama 3 Instruct",
               "story_string": "<|start_header_id|>system<|end_header_id|>\n\n" + _STORY
               + "{{trim}}<|eot_id|>"},
    "mistral": {"name": "Mistral V2 & V3",
                "story_string": "[INST] " + _BODY + _PLAIN + _END
                + "{{trim}}[/INST] Understood.</s>"},
    "alpaca": {"name": "Alpaca", "story_string": _STORY + "\n\n"},
    "gemma": {"name": "Gemma 2",
              "story_string": "<start_of_turn>user\n" + _STORY + "{{trim}}<end_of_turn>"},
    "phi": {"name": "Phi", "story_string": "<|system|>\n" + _STORY + "{{trim}}<|end|>\n"},
    "llama2": {"name": "Llama 2 Chat",
               "story_string": "[INST] <<SYS>>\n{{#if system}}{{system}}\n<</SYS>>\n{{/if}}"
               "{{#if wiBefore}}{{wiBefore}}\n{{/if}}{{#if description}}{{description}}\n"
               "{{/if}}" + _LABELLED + _END + "{{trim}} [/INST]"},
}


def context_template_named(name: str) -> ContextTemplate:
    key = (name or "").strip().lower()
    if key not in BUILT_IN:
        raise StoryStringError(message=f"unknown context template {name!r}: one of "
                                       f"{', '.join(BUILT_IN)}, or a SillyTavern context "
                                       "template", fields={"context_template": "unknown"})
    return context_template_read(BUILT_IN[key])


def context_template_file(path: str) -> ContextTemplate:
    """A SillyTavern context template from a JSON file (PERSONALAB_CONTEXT_TEMPLATE)."""
    try:
        with open(path, encoding="utf-8") as file:
            data = json.loads(file.read(1 << 20))
    except (OSError, ValueError, RecursionError) as err:
        raise StoryStringError(message=f"PERSONALAB_CONTEXT_TEMPLATE: cannot read {path}: "
                                       f"{str(err)[:120]}") from err
    return context_template_read(data)


def context_template_read(data: object) -> ContextTemplate:
    """A SillyTavern context template (its JSON, parsed), or SillyTavern's export of all its
    templates (`{"context": {...}, "instruct": ...}`), checked: the story string must parse.
    Fields it does not use are left aside (`tokenizer`, ...)."""
    if isinstance(data, dict) and "story_string" not in data and isinstance(
            data.get("context"), dict):
        data = data["context"]
    if not isinstance(data, dict) or not isinstance(data.get("story_string"), str):
        raise StoryStringError(message="a context template is a JSON object with SillyTavern's "
                                       "fields (story_string, example_separator, chat_start)",
                               fields={"story_string": "missing_field"})
    values: dict[str, Any] = {"name": str(data.get("name") or "Custom")[:200]}
    for key, limit in (("story_string", MAX_STORY_CHARS), ("example_separator", MAX_FIELD_CHARS),
                       ("chat_start", MAX_FIELD_CHARS)):
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise StoryStringError(message=f"{key} must be text", fields={key: "invalid"})
        if len(value) > limit:
            raise StoryStringError(message=f"{key} is longer than {limit:,} characters",
                                   fields={key: "too_long"})
        values[key] = value
    for key in ("use_stop_strings", "names_as_stop_strings", "trim_sentences", "single_line",
                "always_force_name2", "allow_jailbreak"):
        if data.get(key) is not None:
            if not isinstance(data[key], bool):
                raise StoryStringError(message=f"{key} must be true or false",
                                       fields={key: "invalid"})
            values[key] = data[key]
    for key, top in (("story_string_position", IN_CHAT), ("story_string_depth", MAX_STORY_DEPTH),
                     ("story_string_role", len(ROLES) - 1)):
        value = data.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
            raise StoryStringError(message=f"{key} must be a whole number from 0 to {top}",
                                   fields={key: "invalid"})
        values[key] = value
    _parsed(values["story_string"])  # a story string that does not parse is refused here
    return ContextTemplate(**values)


# --- rendering -------------------------------------------------------------------------------


def _parsed(text: str) -> list[Any]:
    """The story string as a tree: text pieces, ("var", name), _TRIM, and
    ("if" | "unless", name, kept-part, else-part) nodes."""
    blocks = sum(1 for found in _TAG.finditer(text) if found[1] and found[1] != "else")
    if text.count("{{#") + text.count("{{/") != blocks:
        raise StoryStringError(message="story_string: only {{#if name}} and {{#unless name}} "
                                       "blocks are understood here (no {{#each}}, helpers or "
                                       "other blocks)", fields={"story_string": "unsupported"})
    root: list[Any] = []
    stack: list[tuple[str, str, list[Any], list[Any] | None]] = []
    current = root
    tags = list(_TAG.finditer(text))
    between = _standalone_stripped(text, tags)
    for index, found in enumerate(tags):
        if between[index]:
            current.append(between[index])
        kind, name = found[1], found[2]
        if kind in ("#if", "#unless"):
            if name not in VARIABLES:
                raise StoryStringError(message=f"story_string: {found[0]} names no value it "
                                               f"knows (one of {', '.join(sorted(VARIABLES))})",
                                       fields={"story_string": "unknown_name"})
            if len(stack) >= MAX_DEPTH:
                raise StoryStringError(message=f"story_string: blocks nested more than "
                                               f"{MAX_DEPTH} deep", fields={"story_string":
                                                                            "too_deep"})
            body: list[Any] = []
            stack.append((kind[1:], name, body, None))
            current = body
        elif kind == "else":
            if not stack or stack[-1][3] is not None or name:
                raise StoryStringError(message="story_string: {{else}} outside an "
                                               "{{#if}} or {{#unless}} block",
                                       fields={"story_string": "unbalanced"})
            other: list[Any] = []
            stack[-1] = (*stack[-1][:3], other)
            current = other
        elif kind in ("/if", "/unless"):
            if not stack or stack[-1][0] != kind[1:]:
                raise StoryStringError(message=f"story_string: {found[0]} closes no open "
                                               f"{{{{#{kind[1:]}}}}} block",
                                       fields={"story_string": "unbalanced"})
            block, name, body, other = stack.pop()
            current = stack[-1][3] if stack and stack[-1][3] is not None else (
                stack[-1][2] if stack else root)
            current.append((block, name, body, other or []))
        elif name == "trim":
            current.append(_TRIM)
        elif name in VARIABLES:
            current.append(("var", name))
        else:  # not ours (another macro): left as it was written
            current.append(found[0])
    if stack:
        raise StoryStringError(message=f"story_string: {{{{#{stack[-1][0]} {stack[-1][1]}}}}} "
                                       "is never closed", fields={"story_string": "unbalanced"})
    if between[-1]:
        current.append(between[-1])
    return root


_BLOCK_KINDS = ("#if", "#unless", "/if", "/unless", "else")
_LINE_END_BEFORE = re.compile(r"\r?\n\s*\Z")
_LINE_END_BEFORE_FIRST = re.compile(r"(?:\A|\r?\n)\s*\Z")
_LINE_END_AFTER = re.compile(r"\s*?\r?\n")
_LINE_END_AFTER_LAST = re.compile(r"\s*?(?:\r?\n|\Z)")


def _standalone_stripped(text: str, tags: list[re.Match[str]]) -> list[str]:
    """The text between the tags (before the first, between each two, after the last), with
    Handlebars' standalone rule applied, as SillyTavern's story strings are rendered: a block
    tag alone on its line takes that line's indent and line break with it (Alpaca's story
    string, whose last `{{/if}}` stands alone before a blank line, ends in one line break
    less)."""
    between = [text[(tags[i - 1].end() if i else 0):(tags[i].start() if i < len(tags)
                                                       else len(text))]
               for i in range(len(tags) + 1)]
    kinds = [found[1] for found in tags]
    depth, strip_left, strip_right = 0, set(), set()
    for index, kind in enumerate(kinds):
        if kind not in _BLOCK_KINDS:
            continue
        if kind.startswith("/"):
            depth -= 1
        before_root = kind.startswith("#") and depth == 0  # whose body holds the text before
        after_root = kind.startswith("/") and depth == 0
        before, after = between[index], between[index + 1]
        first = index == 0 or kinds[index - 1] in ("#if", "#unless", "else")
        last = index == len(tags) - 1 or kinds[index + 1] in ("/if", "/unless", "else")
        before_ok = (index == 0 and before_root) if not before else bool(
            (_LINE_END_BEFORE_FIRST if first and before_root else _LINE_END_BEFORE)
            .search(before))
        after_ok = (index == len(tags) - 1 and after_root) if not after else bool(
            (_LINE_END_AFTER_LAST if last and after_root else _LINE_END_AFTER).match(after))
        if before_ok and after_ok:
            strip_left.add(index)
            strip_right.add(index + 1)
        if kind.startswith("#"):
            depth += 1
    return [re.sub(r"^[ \t]*\r?\n?", "", piece, count=1) if i in strip_right else piece
            for i, piece in enumerate(
                re.sub(r"[ \t]+\Z", "", piece) if i in strip_left else piece
                for i, piece in enumerate(between))]


def _pieces(nodes: list[Any], values: dict[str, str], out: list[Any], room: list[int]) -> None:
    for node in nodes:
        if isinstance(node, str) or node is _TRIM:
            out.append(node)
        elif node[0] == "var":
            value = values.get(node[1], "")
            room[0] -= len(value)
            if room[0] < 0:
                raise StoryStringError(message="the story string puts its values in too many "
                                               "times (the prompt would be far longer than "
                                               "all of them together)",
                                       fields={"story_string": "too_long"})
            out.append(value)
        else:
            kind, name, body, other = node
            shown = bool(values.get(name, "").strip()) == (kind == "if")
            _pieces(body if shown else other, values, out, room)


def story_string_render(story_string: str, values: dict[str, str]) -> str:
    """The story string with `values` in it (missing names are empty), leading newlines
    removed, as SillyTavern renders it. Values are inserted, never read as template text."""
    pieces: list[Any] = []
    # Each value once or twice is what a story string does; one that repeats a long value
    # a thousand times would make a prompt of hundreds of megabytes: stopped with a sentence.
    room = [2 * sum(len(value) for value in values.values()) + EXTRA_VALUE_CHARS]
    _pieces(_parsed(story_string), values, pieces, room)
    out: list[str] = []
    trimming = False
    for piece in pieces:
        if piece is _TRIM:
            while out and out[-1].endswith(("\n", "\r")):
                out[-1] = out[-1].rstrip("\r\n")
                if not out[-1]:
                    out.pop()
            trimming = True
            continue
        if trimming:
            piece = piece.lstrip("\r\n")
            trimming = not piece
        if piece:
            out.append(piece)
    return "".join(out).lstrip("\n")


def examples_text(blocks: list[str], separator: str) -> str:
    """Example dialogues as SillyTavern puts them after the story string: each block under
    the separator line (or `<START>` without one), ending in a newline."""
    heading = f"{separator}\n" if separator else "<START>\n"
    return "".join(f"{heading}{block.strip()}\n" for block in blocks if block.strip())


def context_stop(template: ContextTemplate) -> list[str]:
    """The template's stop strings: "\n" first with `single_line`; its chat-start line and
    example separator at the start of a line when it asks for them (`use_stop_strings`), as
    SillyTavern sends them."""
    stops = ["\n"] if template.single_line else []
    if not template.use_stop_strings:
        return stops
    return stops + [f"\n{text}" for text in (template.chat_start, template.example_separator)
                    if text]
