"""Every refusal the REST API can give reaches a 中文 reader in Chinese, or is listed below with
why its sample reads back in English (tests/error_sites.py finds the sites). A sentence reworded
at its raise site without its msgid, or a new refusal without words, fails here instead of
reaching Chinese readers in English."""

from __future__ import annotations

from tests.error_sites import site_states

# (path, class, the message with each value sampled as "7") -> why it stays off the count
SAMPLED_APART = {
    ("chat/import_export/chat_formats.py", "ChatFormatError",
     "the file has no chat message that can be read7"):
        "the value is ': line N: why' or nothing: said by chat/import_export/refusal_words.py",
    ("chat/import_export/chat_formats.py", "ChatFormatError", "this file is 7"):
        "the value is one of NOT_A_CHAT's sentences, each said in refusal_words.py",
    ("library/card_formats/png.py", "CardError",
     "PNG 7 inflates past the 7 MB limit for card text; refused"):
        "the value names a chunk (\"zTXt chunk 'chara'\"): said by library/refusal_words.py",
    ("library/find_replace/scripts.py", "LibraryError", "7: 7"):
        "a field and a validator's sentence, said field by field",
    ("library/item_chats.py", "LibraryConflict", "7 is used by these chats: 7; 7."):
        "the item's kind and the advice are fixed: said by library/in_use_words.py",
    ("personalab/lib/llm_text.py", "InstructError",
     "PERSONALAB_INSTRUCT_TEMPLATE: cannot read 7: 7"):
        "an operator's setting and the system's own error, for whoever runs the server",
    ("memory/vectors/store_check.py", "CollectionDamaged",
     "the memory store's 7 collection is damaged (7); rebuild it (manage.py reindex --memory) "
     "or start the server again"):
        "a turn says it as its recall_unavailable warning; the sentence is for whoever runs "
        "the server (the files' damage, the rebuild or restart that mends them)",
    ("personalab/lib/story_string.py", "StoryStringError",
     "PERSONALAB_CONTEXT_TEMPLATE: cannot read 7: 7"):
        "an operator's setting and the system's own error, for whoever runs the server",
}


def test_every_refusal_is_said_in_chinese_or_listed_with_its_reason():
    states = site_states()
    assert len(states) > 300  # the walk from personalab/api.py found the app's refusals
    english = {(path, label, text) for path, _line, label, text, state in states
               if state == "english"}
    assert english == set(SAMPLED_APART)
