"""The project: settings (every environment variable, parsed once), the ASGI entry point
(pages, REST and WebSockets in one Daphne process), the URL root and the REST API object
(`api.py`) — the top floor, above chat — with the page error handler (`middleware.py`). Below
every app: `storage.py` and `llm_config.py`, the Django side's handles on the file store and the
language model, and `lib/`, the framework-free core every app stands on."""
