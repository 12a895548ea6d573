"""The conversation: one turn (`turn.py`, `context.py`), prompt assembly
(`prompt/`), the LLM providers, the WebSocket consumer, the REST/SSE routes, the history manager
(edit, delete, hide, swipe, undo), group conversations and the chat pages. The top app floor."""
