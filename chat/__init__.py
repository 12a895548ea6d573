"""The conversation. The top app floor: it may import director, memory, library and
personalab/lib (where the LLM providers it calls live); only the URL and API layer imports it.

Rooms, by job (an import-linter contract in pyproject.toml keeps the ways in above the rest):

- the ways in: `api/` (REST routes and their schemas), `pages/` (HTML pages and htmx
  partials), `live/` (the WebSocket consumer, server-sent events, tabs following a turn);
  `urls.py` gathers the pages
- one turn and what it reads: `play/` (`turn`, `context`, its recall, lore, macros and window;
  regenerate and continue; aside, impersonate)
- the prompt sent to the model: `prompt/` (built in stages with no side effects), its
  templates in `prompt_templates/`
- several characters: `groups/` (members, who speaks next, a round of replies)
- the history manager: `history_manager/` (read, edit, delete, hide, undo, swipe, branch)
- other apps' chat files: `import_export/`
- the prompt inspector's words: `inspector/`
- instance and session actions, one module per job: `services/`
- reads for the pages: `selectors.py`; the index rows: `models.py`
- an account that owns anything is neither deleted nor renamed, from any way in: `accounts.py`
"""
