"""A SillyTavern chat file as the chat-import tests write it (built from its documented format):
its header, a greeting with swipes, the player's line, a reply with its generation details, a
narrator's line, a second speaker, and hidden lines of each side; the player is Ann."""

from __future__ import annotations

import json

HEADER = {"user_name": "Ann", "character_name": "Mira",
          "create_date": "2024-5-12 @17h 41m 53s 343ms",
          "chat_metadata": {"note_prompt": "Keep it short.", "note_depth": 4, "note_role": 0,
                            "tainted": True, "integrity": "b1c0a3e2", "world_info": "Harbor"}}
GREETING = {"name": "Mira", "is_user": False, "is_system": False,
            "send_date": "May 12, 2024 5:41pm", "mes": "The harbor is quiet tonight.",
            "extra": {}, "swipes": ["The harbor is quiet tonight.", "You again?"],
            "swipe_id": 0, "swipe_info": [{"send_date": "May 12, 2024 5:41pm", "extra": {}},
                                          {"send_date": "May 12, 2024 5:42pm", "extra": {}}]}
USER = {"name": "Ann", "is_user": True, "is_system": False,
        "send_date": "May 12, 2024 5:43pm", "mes": "I bring news.\nBad news.",
        "extra": {"isSmallSys": False}, "force_avatar": "User Avatars/ann.png"}
REPLY = {"name": "Mira", "is_user": False, "is_system": False,
         "send_date": "2024-05-12T17:44:02.118Z", "mes": "Then say it\u2028plainly.",
         "extra": {"api": "openai", "model": "gpt-4o-mini", "reasoning": "She is wary.",
                   "token_count": 7, "gen_id": 1715535842118},
         "gen_started": "2024-05-12T17:44:00.001Z", "gen_finished": "2024-05-12T17:44:02.118Z",
         "swipes": ["Then say it\u2028plainly."], "swipe_id": 0,
         "swipe_info": [{"send_date": "2024-05-12T17:44:02.118Z", "extra": {}}]}
NARRATOR = {"name": "Narrator", "is_user": False, "is_system": False,
            "send_date": "May 12, 2024 5:45pm", "mes": "A bell rings somewhere.",
            "extra": {"type": "narrator", "gen_id": 1715535900000},
            "force_avatar": "img/narrator.png"}
SECOND_SPEAKER = {"name": "Kael", "is_user": False, "is_system": False,
                  "send_date": "May 12, 2024 5:46pm", "mes": "I heard it too.",
                  "extra": {"model": "claude"}, "original_avatar": "kael.png"}
HIDDEN_USER = {"name": "Ann", "is_user": True, "is_system": True,
               "send_date": "May 12, 2024 5:47pm", "mes": "(ooc: draft)", "extra": {}}
HIDDEN_REPLY = {"name": "Mira", "is_user": False, "is_system": True,
                "send_date": "May 12, 2024 5:48pm", "mes": "A reply kept out of context.",
                "extra": {}}
CHAT = [HEADER, GREETING, USER, REPLY, NARRATOR, SECOND_SPEAKER, HIDDEN_USER, HIDDEN_REPLY]


def jsonl(records: list[dict]) -> bytes:
    """The records as a JSONL file, one a line."""
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")
