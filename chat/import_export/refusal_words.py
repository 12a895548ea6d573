"""A chat import's refusal in the reader's language. The chat readers
(chat/import_export/chat_formats.py) refuse in fixed English sentences, which the API keeps word
for word; the pages say them through here, as the library says a card's
(library/refusal_words.py). A line's reason after "line N:" is said as the import report says
it (chat/templatetags/sessions.py, `skip_reason`), the JSON parser's own words kept."""

from __future__ import annotations

import re

from django.utils.translation import gettext_lazy

from chat.import_export.chat_formats import NOT_A_CHAT
from chat.templatetags.sessions import skip_reason
from library.json_words import json_words
from personalab.lib.worded_forms import Forms, form_named

_NOT_A_CHAT_WORDS = {
    NOT_A_CHAT[0][1]: gettext_lazy("this file is RisuAI's export of all chats of a character; "
                                   "export one chat in RisuAI and import that"),
    NOT_A_CHAT[1][1]: gettext_lazy("this file is a lorebook or module, not a chat; import a "
                                   "lorebook under Lorebooks"),
    NOT_A_CHAT[2][1]: gettext_lazy("this file is a character card, not a chat; import it in the "
                                   "Library"),
    NOT_A_CHAT[3][1]: gettext_lazy("this file is an Agnai character, not a chat; import it in "
                                   "the Library"),
}
FORMS: Forms = [
    (re.compile(r"the file has more than (?P<count>[\d,]{1,12}) lines"),
     gettext_lazy("the file has more than %(count)s lines")),
    (re.compile(r"the file has more than (?P<count>[\d,]{1,12}) messages"),
     gettext_lazy("the file has more than %(count)s messages")),
    (re.compile(r"the file holds more than (?P<count>[\d,]{1,12}) values"),
     gettext_lazy("the file holds more than %(count)s values")),
    (re.compile(r"the file is not UTF-8 text \(byte (?P<byte>\d{1,12})\)"),
     gettext_lazy("the file is not UTF-8 text (byte %(byte)s)")),
    (re.compile(r"the file is empty"), gettext_lazy("the file is empty")),
    # The first skipped line's reason, worded as the import report words it (中文 read
    # "文件中没有可读取的对话消息: line 1: not valid JSON (…)").
    (re.compile(r"the file has no chat message that can be read: line (?P<line>\d{1,12}): "
                r"(?P<reason>.+)", re.S),
     gettext_lazy("the file has no chat message that can be read: line %(line)s: %(reason)s")),
    (re.compile(r"the file has no chat message that can be read(?P<detail>(?:: .+)?)", re.S),
     gettext_lazy("the file has no chat message that can be read%(detail)s")),
    (re.compile(r"the Agnai chat has no message with text"),
     gettext_lazy("the Agnai chat has no message with text")),
    (re.compile(r"the RisuAI chat has no 'data\.message' list"),
     gettext_lazy("the RisuAI chat has no “data.message” list")),
    (re.compile(r"the RisuAI chat has no message with text"),
     gettext_lazy("the RisuAI chat has no message with text")),
    (re.compile(r"pick the character this chat is with"),
     gettext_lazy("pick the character this chat is with")),
    (re.compile(r"the chat file is larger than 10 MB"),
     gettext_lazy("the chat file is larger than 10 MB")),
    (re.compile(r"choose a chat file \(\.jsonl, or Agnai or RisuAI \.json\)"),
     gettext_lazy("choose a chat file (.jsonl, or Agnai or RisuAI .json)")),
    *((re.compile(re.escape(f"this file is {what}")), words)
      for what, words in _NOT_A_CHAT_WORDS.items()),
]


def chat_refusal_words(message: str) -> str:
    """`message` (a chat reader's refusal) in the active language; any other text as it came."""
    return json_words(form_named(message, FORMS, reworded={"reason": skip_reason}) or message)
