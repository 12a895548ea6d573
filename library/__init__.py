"""What authors write: characters, backgrounds (a world and its story outline), lorebooks and
world-info activation, character-card import and export (V2, V3, PNG, CharX, Agnai), personas.
Floor: above personalab/lib only; never imports memory, director or chat (chat hands it what it
needs at start-up, `chat_use.py`).

Rooms, by job (an import-linter contract in pyproject.toml keeps the ways in above the rest):

- the ways in: `api/` (REST routes and their schemas), `pages/` (the authors' pages)
- character cards in every format: `card_formats/` (import all or nothing: `card_import`;
  export: `export`)
- lorebooks and world-info activation: `lore/` (actions: `services`; the scan: `activation`)
- regex scripts: `find_replace/`
- the player's personas: `personas/`

Actions at the top (every edit writes the file first, then the index row), one module per job;
import them from there:

- characters                              character_services.py
- backgrounds and their story outline     background_services.py (the chats that follow an
                                          outline edit: outline_chats.py)
- how many items an account may own       quotas.py
- "use as my own" copies                  item_copy.py
- deleted items listed and restored       trash.py (the files: personalab/lib/filestore/trash.py)
- checking what an author sends           fields.py, limits.py (refusals: errors.py)
- the index rows written from the files   index_rows.py
- copies other accounts' chats keep       item_chats.py
- reads (who may see what)                selectors.py
- what a character picker offers, found    character_picker.py (labels: character_labels.py)
  by typing
"""
