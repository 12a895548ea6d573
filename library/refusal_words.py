"""An import's refusal in the reader's language. The card and lorebook readers refuse in fixed
English sentences (`card JSON is invalid: …`, `not a PNG file`), which the API keeps word for
word; the library page says them through here, so 中文 reads 角色卡 JSON 无效. A parser's own
detail (the JSON decoder's "Expecting ',' delimiter: line 1 column 42") stays as written."""

from __future__ import annotations

import re

from django.utils.translation import gettext_lazy

from library.in_use_words import in_use_words
from library.json_words import json_words
from personalab.lib.worded_forms import Forms, form_named

_INVALID = re.compile(r"card JSON is invalid: (?P<rest>.+)", re.S)
INVALID = gettext_lazy("the card's JSON is invalid: %(rest)s")
_REFUSED = re.compile(r"file is refused: (?P<rest>.+)", re.S)
REFUSED = gettext_lazy("the file is refused: %(rest)s")
# "chunk 'chara': <why>": where in the file, then the reason (said through the forms)
_PLACED = re.compile(r"(?P<where>[\w.' ]{1,80}): (?P<rest>.+)", re.S)
FORMS: Forms = [
    (re.compile(r"(?P<where>[\w.]+) is not UTF-8 text"),
     gettext_lazy("%(where)s is not UTF-8 text")),
    (re.compile(r"a mistake at line (?P<line>\d{1,9}), column (?P<column>\d{1,9})"),
     gettext_lazy("a mistake at line %(line)s, column %(column)s")),
    (re.compile(r"field '(?P<field>[^']{1,200})' must be text"),
     gettext_lazy("the field “%(field)s” must be text")),
    (re.compile(r"field '(?P<field>[^']{1,200})' must be a list of text"),
     gettext_lazy("the field “%(field)s” must be a list of text")),
    (re.compile(r"at most (?P<count>\d{1,6}) tags of at most (?P<limit>\d{1,6}) characters each"),
     gettext_lazy("at most %(count)s tags of at most %(limit)s characters each")),
    (re.compile(r"'data' must be an object"), gettext_lazy("“data” must be an object")),
    (re.compile(r"expected a JSON object"), gettext_lazy("it must be a JSON object")),
    (re.compile(r"'character_book\.entries' must be a list"),
     gettext_lazy("“character_book.entries” must be a list")),
    (re.compile(r"no 'spec', no 'data' and no character name \('name' or 'char_name'\)"),
     gettext_lazy("it has no “spec”, no “data” and no character name (“name” or "
                  "“char_name”)")),
    (re.compile(r"not a PNG file or card JSON"),
     gettext_lazy("the file is neither a PNG picture nor a card's JSON")),
    (re.compile(r"not a PNG file"), gettext_lazy("the file is not a PNG picture")),
    (re.compile(r"PNG is truncated: .+", re.S),
     gettext_lazy("the PNG picture is cut off (the file is incomplete)")),
    (re.compile(r"PNG is damaged: .+", re.S), gettext_lazy("the PNG picture is damaged")),
    (re.compile(r"PNG has more than (?P<limit>[\d,]{1,12}) chunks; refused"),
     gettext_lazy("the PNG picture has more than %(limit)s chunks")),
    (re.compile(r"card has no character name"), gettext_lazy("the card has no character name")),
    (re.compile(r"(?:card )?file is larger than (?P<size>\d+) MB"),
     gettext_lazy("the file is larger than %(size)s MB")),
    (re.compile(r"file is not JSON: (?P<detail>.+)", re.S),
     gettext_lazy("the file is not JSON: %(detail)s")),
    (re.compile(r"it holds more than (?P<limit>[\d,]{1,12}) values \(lists, objects, texts, "
                r"numbers\)"),
     gettext_lazy("it holds more than %(limit)s values (lists, objects, texts, numbers)")),
    (re.compile(r"lists and objects nest deeper than (?P<levels>\d{1,6}) levels"),
     gettext_lazy("its lists and objects nest deeper than %(levels)s levels")),
    (re.compile(r"PNG (?P<chunk>\w{4}) chunk '(?P<name>[^']{0,80})' inflates past the "
                r"(?P<size>\d{1,6}) MB limit for card text; refused"),
     gettext_lazy("the PNG picture's %(chunk)s chunk “%(name)s” unpacks to more than the "
                  "%(size)s MB a card's text may hold")),
    (re.compile(r"this card has no lorebook \(character_book\) to import"),
     gettext_lazy("this card has no lorebook (character_book) to import")),
    # library/personas/restore.py
    (re.compile(r"this is not a SillyTavern personas backup or settings\.json: it has no "
                r"“personas”"),
     gettext_lazy("this is not a SillyTavern personas backup or settings.json: it has no "
                  "“personas”")),
    (re.compile(r"this file has (?P<count>\d{1,12}) personas; at most (?P<limit>\d{1,6}) are "
                r"restored from one file"),
     gettext_lazy("this file has %(count)s personas; at most %(limit)s are restored from one "
                  "file")),
]


# library/card_formats/charx.py and card_import.py: a CHARX (zip) refused. A member's name is
# as Python quotes it; a detail (zipfile's, the JSON decoder's) is said through the forms again.
MEMBER = r"(?P<name>'[^'\n]{0,300}'|\"[^\"\n]{0,300}\")"
CHARX_FORMS: Forms = [
    (re.compile(r"CHARX file is larger than (?P<size>[\d.]{1,12}) MB"),
     gettext_lazy("CHARX file is larger than %(size)s MB")),
    (re.compile(r"CHARX lists more files than the (?P<limit>\d{1,6}) that are read"),
     gettext_lazy("CHARX lists more files than the %(limit)s that are read")),
    (re.compile(r"not a readable CHARX \(zip\) file: (?P<detail>.+)", re.S),
     gettext_lazy("not a readable CHARX (zip) file: %(detail)s")),
    (re.compile(r"CHARX has (?P<count>\d{1,12}) files; at most (?P<limit>\d{1,6}) are read"),
     gettext_lazy("CHARX has %(count)s files; at most %(limit)s are read")),
    (re.compile(r"CHARX unpacks to more than (?P<size>[\d.]{1,12}) MB"),
     gettext_lazy("CHARX unpacks to more than %(size)s MB")),
    (re.compile(r"CHARX unpacks to more than (?P<ratio>\d{1,6}) times its size \(a zip bomb\?\); "
                r"it is refused"),
     gettext_lazy("CHARX unpacks to more than %(ratio)s times its size (a zip bomb?); it is "
                  "refused")),
    (re.compile(rf"CHARX member {MEMBER} is larger than (?P<size>\d{{1,6}}) MB"),
     gettext_lazy("CHARX member %(name)s is larger than %(size)s MB")),
    (re.compile(rf"CHARX member {MEMBER} cannot be read: (?P<detail>.+)", re.S),
     gettext_lazy("CHARX member %(name)s cannot be read: %(detail)s")),
    (re.compile(rf"CHARX member path {MEMBER}… is too long or too deep \(at most "
                r"(?P<chars>\d{1,6}) characters and (?P<parts>\d{1,6}) parts\)"),
     gettext_lazy("CHARX member path %(name)s… is too long or too deep (at most %(chars)s "
                  "characters and %(parts)s parts)")),
    (re.compile(rf"CHARX has the file {MEMBER} twice"),
     gettext_lazy("CHARX has the file %(name)s twice")),
    (re.compile(rf"CHARX member {MEMBER} is both a file and a folder"),
     gettext_lazy("CHARX member %(name)s is both a file and a folder")),
    (re.compile(r"CHARX has no card\.json at its root"),
     gettext_lazy("CHARX has no card.json at its root")),
    (re.compile(r"CHARX card\.json is not valid JSON: (?P<detail>.+)", re.S),
     gettext_lazy("CHARX card.json is not valid JSON: %(detail)s")),
    (re.compile(r"CHARX files cannot be written: (?P<detail>.+)", re.S),
     gettext_lazy("CHARX files cannot be written: %(detail)s")),
    (re.compile(r"a file of this CHARX cannot be written"),
     gettext_lazy("a file of this CHARX cannot be written")),
]


def refusal_words(message: str) -> str:
    """`message` (an importer's refusal, or a delete refused while chats use the item) in the
    active language; any other text as it came.
    The reason after "card JSON is invalid: " or "file is refused: " is said through the forms
    again, after where in the file it is when the sentence names that."""
    in_use = in_use_words(message)
    if in_use is not None:
        return in_use
    for opening, words in ((_INVALID, INVALID), (_REFUSED, REFUSED)):
        found = opening.fullmatch(message)
        if found:
            return json_words(str(words) % {"rest": _reason_words(found["rest"])})
    return json_words(form_named(message, FORMS) or form_named(
        message, CHARX_FORMS, reworded={"detail": _reason_words}) or message)


def _reason_words(reason: str) -> str:
    worded = form_named(reason, FORMS)
    if worded:
        return worded
    placed = _PLACED.fullmatch(reason)
    worded = form_named(placed["rest"], FORMS) if placed else None
    return f"{placed['where']}: {worded}" if worded else reason
