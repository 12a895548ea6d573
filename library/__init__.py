"""What authors write: characters, backgrounds (a world and its story outline), lorebooks and
world-info activation, character-card import and export (V2, V3, PNG, CharX, Agnai), personas.
Floor: above personalab/lib only; never imports memory, director or chat (chat hands it what it
needs at start-up, `chat_use.py`).

Actions (every edit writes the file first, then the index row), one module per job; import
them from there:

- characters                              character_services.py
- backgrounds and their story outline     background_services.py
- lorebooks                               lorebook_services.py (files: worldinfo_files.py)
- the player's personas                   persona_services.py
- regex scripts                           regex_script_services.py
- "use as my own" copies                  item_copy.py
- card import / export (JSON, PNG, CHARX) card_import.py, card_export.py
- checking what an author sends           fields.py, limits.py (refusals: errors.py)
- the index rows written from the files   index_rows.py
- copies other accounts' chats keep       item_chats.py
- reads (who may see what)                selectors.py
"""
