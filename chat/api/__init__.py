"""The chat app's REST routes under /api/v1/ (django-ninja): instances, the turn, sessions and
traces (`instances`), the history manager (`history`), memory actions (`memory`), chat imports
(`imports`), the conversation ledger (`conversations`), the connection's text completion
(`llm`), prompt presets (`prompt_manager`), reading settings (`reading`), a chat's variables
(`variables`); their request and response shapes in `schemas`."""
