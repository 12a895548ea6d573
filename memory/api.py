"""Summarize and update-memory endpoints (user-triggered, seeds/personalab-flow.md)."""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.http import HttpRequest, JsonResponse

from chat import services as chat_services
from chat.apiutil import ApiError, api_view
from chat.context import provider_current
from chat.llm import LLMError
from memory import runtime
from memory.services import MemoryActionError, memory_summarize, memory_update_persona
from personalab.storage import get_store


async def memory_action(instance_id: str, action: str, progress=None) -> dict:
    """Run summarize / update_memory under the instance lock (the chat is locked meanwhile)."""
    store = get_store()
    lock = store.instance_lock(instance_id).acquire()
    progress = progress or (lambda text: runtime.progress_set(instance_id, text))
    progress("开始" if action == "summarize" else "正在更新记忆")
    try:
        provider = provider_current(store)
        if action == "summarize":
            index, warning = runtime.index_or_warning(store)
            result = await memory_summarize(store, instance_id=instance_id, llm=provider,
                                            index=index, progress=progress)
            if warning:
                result.setdefault("warnings", []).append(warning)
        else:
            last_n = store.module_read("memory").get("update_memory_last_n_turns", 20)
            result = await memory_update_persona(store, instance_id=instance_id, llm=provider,
                                                 last_n_turns=last_n)
    finally:
        lock.release()
        runtime.progress_set(instance_id, None)
    await sync_to_async(chat_services.instance_index)(store, instance_id)
    return result


async def _run(request: HttpRequest, instance_id: str, action: str) -> JsonResponse:
    await sync_to_async(chat_services.instance_for_user)(request.user, instance_id)
    try:
        return JsonResponse(await memory_action(instance_id, action))
    except MemoryActionError as exc:
        raise ApiError(422, "unusable_llm_output", str(exc)) from None
    except LLMError as exc:
        raise ApiError(502, "llm_error", exc.message) from None


@api_view(["POST"])
async def summarize(request: HttpRequest, instance_id: str) -> JsonResponse:
    return await _run(request, instance_id, "summarize")


@api_view(["POST"])
async def update_memory(request: HttpRequest, instance_id: str) -> JsonResponse:
    return await _run(request, instance_id, "update_memory")
