"""The conversation: one turn (`turn.py`, `context.py`), prompt assembly (`prompt/`), instance
and session actions (`services/`, one module per job), the WebSocket consumer (`consumers.py`),
the REST routes (`*routers.py`) and pages (`*views.py`), the history manager (edit, delete, hide,
swipe, undo) and group conversations. The top app floor: it may import director, memory, library
and personalab/lib (where the LLM providers it calls live); only the URL and API layer imports
it."""
