"""What keeps a character coherent over hundreds of turns: the Chroma index that follows the
session files, recall (keywords + e5 and MiniLM vectors), summaries, persona evolution, recaps,
pinned prompts, the biography and the author's note. Floor: above library and personalab/lib;
never imports director or chat.

Rooms, by job (an import-linter contract in pyproject.toml keeps the indexes below what reads
them):

- recall for a turn: `recall/` (`turn`, `rag`, `queries`, `focus`, ...)
- the indexes it searches: `keyword_index/` (BM25 over files every worker shares) and
  `vectors/` (Chroma, its sync with the files, a large import's background fill)
- what the model writes about the story: `summaries/` (summarize, recaps)
- what a character carries: `character/` (evolved persona, biography, pinned prompts)

At the top: the author's note (`authors_note.py`), what the actions share (`action_base.py`,
`errors.py`, `prompts.py`, `item_lists.py`), the process's index and job queue (`runtime.py`),
reads for pages and the turn (`selectors.py`).

The caller holds the instance lock; the actions do not lock. The text files are the truth and
Chroma is rebuilt from them, so each action orders its writes so that a failure half way loses
nothing (each module's docstring says its order).
"""
