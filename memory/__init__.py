"""What keeps a character coherent over hundreds of turns: the Chroma index that follows the
session files, recall (keywords + e5 and MiniLM vectors), summaries, persona evolution, recaps,
pinned prompts, the biography and the author's note. Floor: above library and personalab/lib;
never imports director or chat.

Actions over the file store (SPEC §5), one module per job; import them from there:

- summarize a session                     summarize.py (a killed one finished: summarize_journal.py)
- the evolved persona and its versions    evolved_persona.py
- pinned ("never forget") prompts         pinned.py
- biography paragraphs                    biography.py
- rolling recaps                          recaps.py (item lists: item_lists.py)
- the author's note                       authors_note.py
- what the actions share                  action_base.py, errors.py, prompts.py
- recall for a turn                       rag.py, recall_turn.py, queries.py, focus.py, keywords.py
- the index and its sync with the files   index.py, sync.py, fill.py; the job queue runtime.py
- reads for pages and the turn            selectors.py

The caller holds the instance lock; the actions do not lock. The text files are the truth and
Chroma is rebuilt from them, so each action orders its writes so that a failure half way loses
nothing (each module's docstring says its order).
"""
