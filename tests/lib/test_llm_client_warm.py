"""The server builds its SSL context before it serves (personalab/asgi.py): the first turn's
model-list call once built it, holding the interpreter lock while other accounts waited."""

from __future__ import annotations

import httpx2

from personalab.lib import llm


def test_after_the_warm_up_a_client_builds_no_ssl_context(monkeypatch):
    monkeypatch.setattr(llm, "_ssl_context", None)
    llm.llm_client_warm()
    built: list[object] = []
    monkeypatch.setattr(httpx2, "create_ssl_context", lambda *a, **k: built.append(1))
    llm._client_new(llm.LLMSettings(base_url="http://127.0.0.1:9/v1"))
    assert built == []
