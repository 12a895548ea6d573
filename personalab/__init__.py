"""The project: settings (every environment variable, parsed once), the ASGI entry point
(pages, REST and WebSockets in one Daphne process), the URL root, the REST API object
(`api.py`) and `lib/`, the framework-free core every app stands on."""
