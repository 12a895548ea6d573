"""The settings page's "Test connection": ask an OpenAI-compatible endpoint for its models
(GET /v1/models) with the same key rules as a turn, and word any failure as a sentence."""

from __future__ import annotations

import openai

from personalab.lib.llm import DEFAULT_BASE_URL, LLMError, LLMSettings, _status_message
from personalab.lib.llm_offline import _shorten
from personalab.lib.jsontext import text_surrogates_replace

CHECK_TIMEOUT = 5.0  # seconds for the whole check: the page waits on it
MAX_MODELS = 500  # a server may list thousands; the picker shows the first ones


def llm_models_list(settings: LLMSettings, *, timeout: float = CHECK_TIMEOUT) -> list[str]:
    """The model ids the endpoint lists, sorted. Raises LLMError with a sentence a user can
    act on when the endpoint cannot be reached, refuses the key or answers nonsense."""
    endpoint = settings.base_url or DEFAULT_BASE_URL
    client = openai.OpenAI(base_url=settings.base_url or None,
                           api_key=settings.api_key or "not-needed", max_retries=0,
                           timeout=openai.Timeout(timeout, connect=min(timeout, 3.0)))
    try:
        page = client.models.list()
        ids = {text_surrogates_replace(str(model.id)[:200]) for model in page.data
               if getattr(model, "id", None)}
    except openai.APITimeoutError:
        raise LLMError(f"The server at {endpoint} did not answer within {timeout:g} seconds.") \
            from None
    except openai.APIConnectionError:
        raise LLMError(f"Could not connect to {endpoint}: check the address and that the "
                       "server is running.") from None
    except openai.APIStatusError as err:
        raise LLMError(_status_message(err.status_code, err.body, err.message) + ".") from None
    except Exception as err:  # a body that is not a model list
        raise LLMError(f"The server at {endpoint} answered, but not with a model list: "
                       f"{_shorten(str(err) or type(err).__name__, 120)}.") from None
    finally:
        client.close()
    if not ids:
        raise LLMError(f"The server at {endpoint} answered but lists no models.")
    return sorted(ids)[:MAX_MODELS]
