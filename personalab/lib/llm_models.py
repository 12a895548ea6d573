"""The model list of an OpenAI-compatible endpoint (GET /v1/models): the settings page's "Test
connection" and the context length a turn asks for (chat/model_context.py), with the same key
rules as a turn, and any failure worded as a sentence.

The SDK's `models.list()` read the body whole with no limit; a hostile server could answer with
hundreds of megabytes, a gzip bomb, or headers and body a byte at a time. The list is read here
as a completion is (personalab/lib/llm_body.py): within PERSONALAB_LLM_MAX_BODY_BYTES, nothing
compressed, and the whole call within its `timeout`, headers included.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import httpx2

from personalab.lib import llm_body
from personalab.lib.jsontext import json_loads, text_surrogates_replace
from personalab.lib.llm import (
    DEFAULT_BASE_URL,
    OPENAI_HOST,
    LLMError,
    LLMSettings,
    _client_new,
    _status_message,
)
from personalab.lib.llm_offline import _shorten

CHECK_TIMEOUT = 5.0  # seconds for the whole check: the page waits on it
MAX_MODELS = 500  # a server may list thousands; the picker shows the first ones
# Where a server says the context it runs with (per slot), and the keys that lead to it.
SERVER_CONTEXT_ROUTES = (("/props", ("default_generation_settings", "n_ctx")),  # llama.cpp
                         ("/api/extra/true_max_context_length", ("value",)))  # KoboldCpp


def models_read(settings: LLMSettings, *, timeout: float) -> list[dict[str, Any]]:
    """The entries the endpoint lists (each a dict), read within the body caps and `timeout`
    seconds in all. Raises LLMError with a sentence. Called from a thread, never on the event
    loop (it runs a loop of its own)."""
    import openai  # on first use, as in personalab/lib/llm.py: the SDK takes seconds to import

    endpoint = settings.base_url or DEFAULT_BASE_URL
    try:
        data = asyncio.run(_models_body(settings, timeout=timeout))
    except (TimeoutError, openai.APITimeoutError, httpx2.TimeoutException):
        raise LLMError(f"The server at {endpoint} did not answer within {timeout:g} seconds.") \
            from None
    except (llm_body.BodyTooLarge, llm_body.BodyCompressed) as err:
        raise LLMError(f"The server at {endpoint}: {err}.") from None
    except (openai.APIConnectionError, httpx2.TransportError):
        raise LLMError(f"Could not connect to {endpoint}: check the address and that the "
                       "server is running.") from None
    except openai.APIStatusError as err:
        raise LLMError(_status_message(err.status_code, err.body, err.message) + ".") from None
    try:
        entries = json_loads(data)["data"]
        if not isinstance(entries, list):
            raise TypeError("data is not a list")
    except Exception as err:  # noqa: BLE001 — a body that is not a model list
        raise LLMError(f"The server at {endpoint} answered, but not with a model list: "
                       f"{_shorten(str(err) or type(err).__name__, 120)}.") from None
    return [entry for entry in entries if isinstance(entry, dict)]


async def _models_body(settings: LLMSettings, *, timeout: float) -> bytes:
    body = (await _bodies_get(settings, ["/models"], timeout=timeout))[0]
    assert body is not None  # without `each`, a failure raises
    return body


async def _bodies_get(settings: LLMSettings, paths: list[str], *, timeout: float,
                      each: bool = False) -> list[bytes | None]:
    """The bodies of GET `paths` (relative to the base URL, or whole URLs), one after the other
    within `timeout` seconds in all, each within the body cap. Raises on the first failure;
    with `each`, a path that fails or is not reached in time gives None instead."""
    # A client of its own: the loop it would be pooled on ends with this call.
    client = _client_new(replace(settings, timeout=timeout, connect_timeout=min(timeout, 3.0),
                                 body_seconds=min(settings.body_seconds, timeout)))
    bodies: list[bytes | None] = []
    try:
        async with asyncio.timeout(timeout):  # headers and body together
            for path in paths:
                try:
                    bodies.append(await _body_get(client, path, settings=settings,
                                                  timeout=timeout))
                except Exception:
                    if not each:
                        raise
                    bodies.append(None)
    except (TimeoutError, llm_body.BodyTooSlow):
        if not each:
            raise TimeoutError from None
    finally:
        await client.close()
    return bodies + [None] * (len(paths) - len(bodies))


async def _body_get(client: Any, path: str, *, settings: LLMSettings, timeout: float) -> bytes:
    response = await client.get(path, cast_to=httpx2.Response, stream=True,
                                options={"headers": {"Accept-Encoding": "identity"}})
    try:
        return await llm_body.body_read(response, max_bytes=settings.max_body_bytes,
                                        seconds=timeout)
    finally:
        await response.aclose()


def server_context_read(settings: LLMSettings, *, timeout: float) -> int | None:
    """The context a llama.cpp or KoboldCpp server runs with, or None (another server, or no
    answer within `timeout` seconds). Their model lists report the model's training context or
    nothing, not the `-c` / `--contextsize` the server was started with, and KoboldCpp cuts a
    longer prompt's start without a word (the character's card and recalled memory first)."""
    base = (settings.base_url or "").rstrip("/")
    if not base or OPENAI_HOST in base:
        return None
    root = base.removesuffix("/v1")
    bodies = asyncio.run(_bodies_get(settings, [root + path for path, _ in SERVER_CONTEXT_ROUTES],
                                     timeout=timeout, each=True))
    found: list[int] = []
    for (_, keys), body in zip(SERVER_CONTEXT_ROUTES, bodies):
        try:
            data: Any = json_loads(body) if body else None
        except ValueError:
            continue
        for key in keys:
            data = data.get(key) if isinstance(data, dict) else None
        if isinstance(data, int) and not isinstance(data, bool) and data > 0:
            found.append(data)
    return min(found) if found else None


def llm_models_list(settings: LLMSettings, *, timeout: float = CHECK_TIMEOUT) -> list[str]:
    """The model ids the endpoint lists, sorted. Raises LLMError with a sentence a user can
    act on when the endpoint cannot be reached, refuses the key or answers nonsense."""
    endpoint = settings.base_url or DEFAULT_BASE_URL
    ids = {text_surrogates_replace(str(entry["id"])[:200])
           for entry in models_read(settings, timeout=timeout) if entry.get("id")}
    if not ids:
        raise LLMError(f"The server at {endpoint} answered but lists no models.")
    return sorted(ids)[:MAX_MODELS]
