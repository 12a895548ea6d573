"""The history manager over session files: reads (`reads`: list, open, page,
search), changes (`edits`: edit, delete, hide, undo, swipe, branch) and what
they share (`base`: errors, locking, checked lines)."""
