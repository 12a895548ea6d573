"""Instruct templates: the final message list as one prompt string for a text-completion
backend (KoboldCpp, llama.cpp's server, text-generation-webui, vLLM `/v1/completions`), with the
stop sequences that end a reply. The fields are SillyTavern's instruct preset fields, so a
preset exported from SillyTavern is read as it is:

- `input_sequence` / `input_suffix`: around the player's messages; `output_sequence` /
  `output_suffix`: around the character's; `system_sequence` / `system_suffix`: around system
  notes after the opening block (the player's markers instead with `system_same_as_user`).
- `first_input_sequence` / `first_output_sequence`: for the first message of the chat;
  `last_input_sequence`: for the player's last message; `last_output_sequence`: where the
  reply begins; `last_system_sequence`: where a task's answer (a summary) begins.
- `system_sequence_prefix` / `_suffix`: around the opening block's text.
- `stop_sequence`: ends a reply (sent in `stop` with the turn markers, as SillyTavern sends them).
- `wrap`: a newline between a marker and its text; `names_behavior`: `always` writes
  "Name: " before each message, `force` only in group chats, `none` never (a SillyTavern preset
  of the older format with `names` / `names_force_groups` is read the same way).
- `user_alignment_message`: a player line put first when the chat opens with the character.
- `{{user}}`, `{{char}}` and `{{name}}` in a marker are the player's, the character's and the
  message author's names (`macro`, on by default).

The messages' text is data: it is put in as it is, never searched for macros here."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any

from personalab.lib.errors import AppError
from personalab.lib.instruct_presets import BUILT_IN, DEFAULT_TEMPLATE

NAMES = ("none", "force", "always")
MAX_FIELD_CHARS = 2000  # a marker is a few tokens; a long one is a pasted prompt by mistake
STORY_JOINER = "\n\n"
_MARKER_MACRO = re.compile(r"\{\{(user|char|name)\}\}", re.IGNORECASE)


class InstructError(AppError):
    code, status = "invalid_instruct_template", 400


@dataclass(frozen=True)
class InstructTemplate:
    name: str = "Custom"
    input_sequence: str = ""
    input_suffix: str = ""
    output_sequence: str = ""
    output_suffix: str = ""
    system_sequence: str = ""
    system_suffix: str = ""
    first_input_sequence: str = ""
    last_input_sequence: str = ""
    first_output_sequence: str = ""
    last_output_sequence: str = ""
    last_system_sequence: str = ""
    system_sequence_prefix: str = ""
    system_sequence_suffix: str = ""
    stop_sequence: str = ""
    user_alignment_message: str = ""
    wrap: bool = False
    macro: bool = True
    names_behavior: str = "force"
    system_same_as_user: bool = False
    skip_examples: bool = False  # example dialogues as they are, not as instruct turns
    story_prefix: str | None = None  # None: the system sequence
    story_suffix: str | None = None  # None: the system suffix
    # The system prompt a preset from before SillyTavern 1.12.6 carries (later ones keep it in
    # a System Prompt preset, which SillyTavern's export of all its templates holds as
    # `sysprompt`): the main prompt of a text-completion turn, `{{original}}` of a card's own.
    system_prompt: str = ""
    # SillyTavern's System Prompt switched off (`sysprompt.enabled: false` in its export of all
    # templates): a text-completion turn sends none, not SillyTavern's default line.
    system_prompt_off: bool = False

    def as_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) is not None}


_TEXT_FIELDS = tuple(f.name for f in fields(InstructTemplate)
                     if f.type in ("str", "str | None"))
_FLAG_FIELDS = ("wrap", "macro", "system_same_as_user", "skip_examples", "system_prompt_off")


@dataclass(frozen=True)
class InstructPrompt:
    text: str
    stop: list[str]


def instruct_template_named(name: str) -> InstructTemplate:
    """A built-in template by its key (`chatml`, `llama3`, ...); an unknown one is refused."""
    key = (name or DEFAULT_TEMPLATE).strip().lower()
    if key not in BUILT_IN:
        raise InstructError(message=f"unknown instruct template {name!r}: one of "
                                    f"{', '.join(BUILT_IN)}, or a SillyTavern instruct preset",
                            fields={"instruct_template": "unknown"})
    return InstructTemplate(**BUILT_IN[key])


def instruct_template_read(data: object) -> InstructTemplate:
    """A SillyTavern instruct preset (its JSON, parsed), or SillyTavern's export of all its
    templates (`{"instruct": {...}, "context": ...}`). Fields it does not know are left aside
    (`activation_regex`, `bind_to_context`, ...)."""
    if isinstance(data, dict) and "input_sequence" not in data and isinstance(
            data.get("instruct"), dict):
        sysprompt = data.get("sysprompt") if isinstance(data.get("sysprompt"), dict) else {}
        data = data["instruct"]
        if isinstance(sysprompt.get("content"), str) and not data.get("system_prompt"):
            data = {**data, "system_prompt": sysprompt["content"]}
        if sysprompt.get("enabled") is False:
            data = {**data, "system_prompt": "", "system_prompt_off": True}
    if not isinstance(data, dict):
        raise InstructError(message="an instruct template is a JSON object with SillyTavern's "
                                    "fields (input_sequence, output_sequence, ...)")
    values = _legacy_read(data)
    # SillyTavern's own Story, Adventure, Libra-32B and Alpaca-Single-Turn leave both empty:
    # a preset is known by its fields, not by their text.
    if not any(isinstance(data.get(key), str) for key in ("input_sequence", "output_sequence")):
        raise InstructError(message="this is not an instruct template: it has neither "
                                    "input_sequence nor output_sequence",
                            fields={"input_sequence": "missing_field"})
    return InstructTemplate(**values)


def _legacy_read(data: dict[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for key in _TEXT_FIELDS:
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise InstructError(message=f"{key} must be text", fields={key: "invalid"})
        if len(value) > MAX_FIELD_CHARS:
            raise InstructError(message=f"{key} is longer than {MAX_FIELD_CHARS} characters",
                                fields={key: "too_long"})
        values[key] = value
    for key in _FLAG_FIELDS:
        if key in data and data[key] is not None:
            if not isinstance(data[key], bool):
                raise InstructError(message=f"{key} must be true or false",
                                    fields={key: "invalid"})
            values[key] = data[key]
    # The older format: a separator after each reply, and two switches for names.
    if "output_suffix" not in values and isinstance(data.get("separator_sequence"), str):
        values["output_suffix"] = data["separator_sequence"][:MAX_FIELD_CHARS]
    names = data.get("names_behavior")
    if names is None and "names" in data:
        names = ("always" if data.get("names") else
                 "force" if data.get("names_force_groups", True) else "none")
    if names is not None:
        if names not in NAMES:
            raise InstructError(message=f"names_behavior must be one of {', '.join(NAMES)}",
                                fields={"names_behavior": "invalid"})
        values["names_behavior"] = names
    values["name"] = str(data.get("name") or "Custom")[:200]
    return values


# --- the prompt -----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Names:
    user: str
    char: str
    group: bool
    lines_named: bool = False  # a group's impersonation: each member's line says its name
    others: tuple[str, ...] = ()  # a group's other members, who speak in some user lines

    def speaker(self, content: str, default: str) -> str:
        """Who says a group line that starts with a member's "Name:" (the longest such
        name), for a `{{name}}` in its markers, as SillyTavern fills it with the message's
        speaker; `default` for any other line."""
        if not self.group:
            return default
        found = [name for name in (*self.others, self.char) if content.startswith(f"{name}:")]
        return max(found, key=len) if found else default


def instruct_prompt(messages: list[dict[str, Any]], *, template: InstructTemplate,
                    char_name: str, user_name: str, group: bool = False,
                    ending: str = "assistant", continue_last: bool = False,
                    others: list[str] | tuple[str, ...] = (),
                    story_raw: bool = False, chat_start: bool = True) -> InstructPrompt:
    """`messages` (system / user / assistant) as one prompt string that ends where the model
    writes: the character's turn (`ending="assistant"`), the player's (`"user"`: an
    impersonation) or a task's answer (`"task"`: a summary, no name). With `continue_last`,
    the last message is the character's unfinished reply: it is left open for the model.
    `others`: the other members of a group, whose "Name:" lines end the reply too.
    `story_raw`: the opening system text is a context template's story string, which carries
    its own markers (SillyTavern's layout): put in as it is, not wrapped. `chat_start`: the
    oldest message is the chat's first; SillyTavern gives the first sequences to the chat's
    first message (`coreChat[0]`), so a window that left it out gives them to no message."""
    names = _Names(user=user_name or "User", char=char_name or "Assistant", group=group,
                   lines_named=group and ending == "user",
                   others=tuple(name for name in others if name))
    head = 0
    # A context template's story string is the one opening message; a system note woven in
    # right after it (a depth the chat is too short for) is a turn of its own, as SillyTavern's.
    last_head = 1 if story_raw else len(messages)
    while head < min(len(messages), last_head) and messages[head].get("role") == "system":
        head += 1
    story = STORY_JOINER.join(str(m.get("content") or "") for m in messages[:head])
    chat = _reply_last(messages[head:]) if continue_last else messages[head:]
    parts = [story if story_raw else _story(template, story, names)] if story else []
    if template.user_alignment_message and (not chat or chat[0].get("role") != "user"):
        # Put before the chat, not in it: the chat's first message keeps its first marker.
        alignment = {"role": "user", "content": template.user_alignment_message}
        parts.append(_turn(template, alignment, names, "first"))
    last_user = max((i for i, m in enumerate(chat) if m.get("role") == "user"), default=-1)
    open_last = continue_last and bool(chat) and chat[-1].get("role") == "assistant"
    for index, message in enumerate(chat):
        position = ("open" if open_last and index == len(chat) - 1 else "last"
                    if index == last_user else "first" if index == 0 and chat_start else "")
        parts.append(_turn(template, message, names, position))
    text = "".join(parts)
    if not open_last:
        text = _joined(text, _ending(template, names, ending))
    return InstructPrompt(text=text, stop=instruct_stop(template, user_name=names.user,
                                                        char_name=names.char,
                                                        impersonate=ending == "user",
                                                        others=others if ending != "task"
                                                        else ()))


def _reply_last(chat: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The reply being continued (the last assistant message) last, so the prompt ends on it,
    open: what follows it (notes put at depth 0, post-history instructions) goes just before
    it, as SillyTavern puts its depth prompts and jailbreak when continuing."""
    last = max((i for i, m in enumerate(chat) if m.get("role") == "assistant"), default=-1)
    if last < 0 or last == len(chat) - 1:
        return chat
    return [*chat[:last], *chat[last + 1:], chat[last]]


def _marker(template: InstructTemplate, text: str, names: _Names, name: str) -> str:
    if not template.macro or "{{" not in text:
        return text
    by_macro = {"user": names.user, "char": names.char, "name": name}
    return _MARKER_MACRO.sub(lambda found: by_macro[found[1].lower()], text)


def _wrapped(template: InstructTemplate, prefix: str, body: str, suffix: str) -> str:
    if not suffix and template.wrap:
        suffix = "\n"
    separator = "\n" if template.wrap else ""
    return separator.join(part for part in (prefix, body + suffix) if part)


def _story(template: InstructTemplate, story: str, names: _Names) -> str:
    separator = "\n" if template.wrap else ""
    if template.system_sequence_prefix:
        story = _marker(template, template.system_sequence_prefix, names, "System") + \
            separator + story
    if template.system_sequence_suffix:
        story = story + separator + template.system_sequence_suffix
    prefix = (template.story_prefix if template.story_prefix is not None
              else template.system_sequence)
    suffix = (template.story_suffix if template.story_suffix is not None
              else template.system_suffix if template.system_sequence else "")
    return _wrapped(template, _marker(template, prefix, names, "System"), story,
                    _marker(template, suffix, names, "System"))


def _turn(template: InstructTemplate, message: dict[str, Any], names: _Names,
          position: str) -> str:
    """One message with its markers (`position`: "first", "last" (the player's last), "open"
    (the reply being continued: no end marker) or "")."""
    role = message.get("role")
    content = str(message.get("content") or "")
    if role == "user":
        prefix = ((template.first_input_sequence if position == "first" else
                   template.last_input_sequence if position == "last" else "")
                  or template.input_sequence)
        suffix, name, named = (template.input_suffix, names.speaker(content, names.user),
                               _names_on(template, names, "user"))
    elif role == "assistant":
        prefix = ((template.first_output_sequence if position == "first" else
                   template.last_output_sequence if position == "open" else "")
                  or template.output_sequence)
        suffix, name, named = (template.output_suffix,
                               names.speaker(content, names.char) if names.lines_named
                               else names.char, _names_on(template, names, "assistant"))
    else:  # a note inside the chat: the system markers, never a name (as SillyTavern's narrator)
        same = template.system_same_as_user
        prefix = template.input_sequence if same else template.system_sequence
        suffix = template.input_suffix if same else template.system_suffix
        name, named = "System", False
    # `unnamed`: a turn no one speaks (SillyTavern's post-history instructions as a user turn)
    body = f"{name}: {content}" if named and not message.get("unnamed") else content
    prefix = _marker(template, prefix, names, name)
    if position == "open":
        separator = "\n" if template.wrap else ""
        return separator.join(part for part in (prefix, body) if part)
    return _wrapped(template, prefix, body, _marker(template, suffix, names, name))


def _names_on(template: InstructTemplate, names: _Names, role: str) -> bool:
    if names.group and (role == "user" or names.lines_named):
        return False  # a group prompt's user lines already say who speaks (the player, others)
    if template.names_behavior == "always":
        return True
    # "force": the characters' names in a group chat, where they tell the speakers apart
    return template.names_behavior == "force" and names.group and role == "assistant"


def _ending(template: InstructTemplate, names: _Names, ending: str) -> str:
    """Where the model writes: the reply's opening marker, with the speaker's name when the
    template names speakers."""
    separator = "\n" if template.wrap else ""
    if ending == "task":
        sequence = template.last_system_sequence or template.output_sequence
        return _marker(template, sequence, names, "System") + separator
    if ending == "user":
        sequence, name = template.input_sequence, names.user
        # formatInstructModePrompt names the player with "always", and with "force" in a group
        # (where its history's user lines carry their names in the text instead).
        named = template.names_behavior == "always" or (
            names.group and template.names_behavior == "force")
    else:
        sequence = template.last_output_sequence or template.output_sequence
        name, named = names.char, _names_on(template, names, "assistant")
    sequence = _marker(template, sequence, names, name)
    if not named:
        return sequence + separator
    # Mistral's reply marker ends in a space its last one lacks: keep it before the name.
    filler = (template.output_sequence[-1:] if ending != "user"
              and sequence == template.last_output_sequence and template.output_sequence[-1:]
              .isspace() and not sequence[-1:].isspace() else "")
    return f"{sequence}{separator}{filler}{name}:"


def _joined(text: str, ending: str) -> str:
    """`ending` after `text`, with one newline where both bring one."""
    if text.endswith("\n") and ending.startswith("\n"):
        return text + ending[1:]
    return text + ending


def instruct_stop(template: InstructTemplate, *, user_name: str, char_name: str,
                  impersonate: bool = False,
                  others: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The strings that end a reply, in SillyTavern's order (`getStoppingStrings`): the other
    side's "Name:" at the start of a line, the player's (an impersonation too), in a group every
    other member's (`others`), then the stop sequence and every turn marker (each line of them,
    blank ones left out), after a newline when the template wraps. The order is what a server
    that takes only the first few keeps."""
    names = _Names(user=user_name or "User", char=char_name or "Assistant", group=False)
    speakers = [names.char if impersonate else names.user, names.user,
                *(name for name in others if name and name != names.char)]
    stops: list[str] = list(dict.fromkeys(f"\n{name}:" for name in speakers))
    by_field = (("stop_sequence", ""), ("input_sequence", names.user),
                ("output_sequence", names.char), ("first_output_sequence", names.char),
                ("last_output_sequence", names.char), ("system_sequence", "System"),
                ("last_system_sequence", "System"))
    for key, name in by_field:
        for line in str(getattr(template, key)).split("\n"):
            if not line.strip():
                continue
            stop = _marker(template, ("\n" if template.wrap else "") + line, names, name)
            if stop not in stops:
                stops.append(stop)
    return stops


def instruct_examples(blocks: list[str], *, template: InstructTemplate, user_name: str,
                      char_name: str, heading: str, group: bool = False,
                      others: list[str] | tuple[str, ...] = ()) -> str | None:
    """Example dialogues as instruct turns, as SillyTavern formats them with a context
    template: each block under `heading`, each "User:" / "Char:" line run as the player's or
    the character's message with the turn markers (names as `names_behavior` says). None when
    the template skips examples or no block has such lines (they go in as written then).
    `others`: the other members of a group: a line starting "Bob:" is Bob's message, put as
    the group chat puts another member's (the player's markers, named)."""
    if template.skip_examples:
        return None
    names = _Names(user=user_name or "User", char=char_name or "Assistant", group=group)
    out: list[str] = []
    for block in blocks:
        turns = _example_turns(block, names, others)
        if not turns:
            continue
        if heading:
            out.append(heading)
        for role, content in turns:
            user = role != "assistant"
            name = names.char if not user else role[1:] if role.startswith(":") else names.user
            # SillyTavern names every example line with "always", and with "force" the
            # player's lines; in a group its parse names every line whatever the template
            # says (and "always" / "force" then name it again: once is enough here).
            named = group or template.names_behavior == "always" or role.startswith(":") or (
                template.names_behavior == "force" and user)
            prefix = template.input_sequence if user else template.output_sequence
            suffix = template.input_suffix if user else template.output_suffix
            out.append(_wrapped(template, _marker(template, prefix, names, name),
                                f"{name}: {content}" if named else content,
                                _marker(template, suffix, names, name)))
    return "".join(out) or None


def _example_turns(block: str, names: _Names,
                   others: list[str] | tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """A block's messages, as SillyTavern's `parseExampleIntoIndividual` splits them: a line
    starting "User:" or "Char:" (or, in a group, another member's "Name:", role ":Name")
    starts a message unless that speaker's message is the one open; other lines go on the open
    message, and lines before the first speaker's line on the first message; each message
    loses the first "Name:" of its speaker. A block without a speaker's line has none."""
    speakers = [("user", names.user), ("assistant", names.char),
                *((f":{name}", name) for name in others if name not in (names.user, names.char))]
    # The longest name first: "Ann Lee:" is not Ann's line.
    speakers.sort(key=lambda pair: -len(pair[1]))
    turns: list[tuple[str, str, list[str]]] = []
    before: list[str] = []
    for line in block.replace("\r", "").split("\n"):
        role, name = next(((role, name) for role, name in speakers
                           if line.startswith(name + ":")), (None, ""))
        if role is not None and (not turns or turns[-1][0] != role):
            turns.append((role, name, [*before, line]))
            before = []
        else:
            (turns[-1][2] if turns else before).append(line)
    return [(role, "\n".join(lines).replace(name + ":", "", 1).strip())
            for role, name, lines in turns]


def instruct_system_prompt(text: str, *, template: InstructTemplate) -> str:
    """The system prompt as SillyTavern puts it into a context template's story string with
    an instruct template: between `system_sequence_prefix` and `_suffix` (`{{name}}` is
    "System"), a newline apart when the template wraps."""
    if not text:
        return text
    names = _Names(user="User", char="Assistant", group=False)
    separator = "\n" if template.wrap else ""
    if template.system_sequence_prefix:
        prefix = re.sub(r"\{\{name\}\}", "System", template.system_sequence_prefix,
                        flags=re.IGNORECASE)
        text = _marker(template, prefix, names, "System") + separator + text
    if template.system_sequence_suffix:
        text = text + separator + template.system_sequence_suffix
    return text
