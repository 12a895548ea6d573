"""JSON API plumbing: authentication (session or bearer token), JSON bodies, JSON errors."""

from __future__ import annotations

import errno
import functools
import json
from typing import Any, Callable

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.views.decorators.csrf import csrf_exempt

from chat.models import ApiToken
from chat.services import NotFound
from personalab.lib.filestore import InstanceBusy, MissingFile, StoreError
from personalab.lib.ids import InvalidId

MAX_JSON_BODY = 12 * 1024 * 1024


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, **extra: Any):
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra


def error_response(status: int, code: str, message: str, **extra: Any) -> JsonResponse:
    return JsonResponse({"error": {"code": code, "message": message, **extra}}, status=status)


def json_body(request: HttpRequest) -> dict[str, Any]:
    try:
        body = request.body
    except RequestDataTooBig:
        raise ApiError(413, "too_large", "request body is too large") from None
    if len(body) > MAX_JSON_BODY:
        raise ApiError(413, "too_large", "request body is too large")
    try:
        data = json.loads(body or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ApiError(400, "malformed_json", f"request body is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "malformed_json", "request body must be a JSON object")
    return data


def _user_from_token(header: str):
    token = header.split(" ", 1)[1].strip() if " " in header else ""
    row = ApiToken.objects.select_related("user").filter(token_hash=ApiToken.hash(token)).first()
    return row.user if row and row.user.is_active else None


def _csrf_failure(request: HttpRequest):
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return None
    return CsrfViewMiddleware(lambda r: None).process_view(request, None, (), {})


def _authenticate(request: HttpRequest) -> JsonResponse | None:
    header = request.headers.get("Authorization", "")
    if header.lower().startswith("bearer "):
        user = _user_from_token(header)
        if user is None:
            return error_response(401, "unauthorized", "invalid or revoked API token")
        request.user = user
        return None
    if not request.user.is_authenticated:
        return error_response(401, "unauthorized",
                              "log in or send 'Authorization: Bearer <token>'")
    if _csrf_failure(request) is not None:
        return error_response(403, "csrf", "CSRF check failed: send the X-CSRFToken header")
    return None


def _map_exception(exc: Exception) -> JsonResponse:
    if isinstance(exc, ApiError):
        return error_response(exc.status, exc.code, exc.message, **exc.extra)
    if isinstance(exc, InvalidId):
        return error_response(400, "invalid_id", str(exc))
    if isinstance(exc, NotFound):
        return error_response(404, "not_found", str(exc))
    if isinstance(exc, MissingFile):
        return error_response(404, "not_found", str(exc))
    if isinstance(exc, InstanceBusy):
        return error_response(409, "busy", str(exc))
    if isinstance(exc, StoreError):
        return error_response(500, "store_error", str(exc))
    if isinstance(exc, OSError):
        status = 507 if exc.errno in (errno.ENOSPC, errno.EDQUOT) else 500
        return error_response(status, "storage_error",
                              f"the data folder cannot be written: {exc.strerror or exc}")
    raise exc


def api_view(methods: list[str]) -> Callable:
    """Authenticated JSON endpoint; exceptions of the domain become JSON errors."""

    def decorator(view: Callable) -> Callable:
        def check_method(request: HttpRequest) -> JsonResponse | None:
            if request.method not in methods:
                return error_response(405, "method_not_allowed",
                                      f"use {', '.join(methods)} on this URL")
            return None

        if iscoroutinefunction(view):
            @functools.wraps(view)
            async def async_wrapper(request: HttpRequest, *args, **kwargs):
                if (refusal := check_method(request)) is not None:
                    return refusal
                request.user = await request.auser()
                if (refusal := await sync_to_async(_authenticate)(request)) is not None:
                    return refusal
                try:
                    return await view(request, *args, **kwargs)
                except Exception as exc:  # noqa: BLE001
                    return _map_exception(exc)

            return csrf_exempt(async_wrapper)

        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs):
            if (refusal := check_method(request)) is not None:
                return refusal
            if (refusal := _authenticate(request)) is not None:
                return refusal
            try:
                return view(request, *args, **kwargs)
            except Exception as exc:  # noqa: BLE001
                return _map_exception(exc)

        return csrf_exempt(wrapper)

    return decorator
