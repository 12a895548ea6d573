"""JSON API plumbing: authentication (session or bearer token), JSON bodies, JSON errors."""

from __future__ import annotations

import errno
import functools
from typing import Any, Callable

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.views.decorators.csrf import csrf_exempt

from chat.models import ApiToken
from personalab.lib.errors import AppError, TooLarge
from personalab.lib.jsonbody import json_object_bounded


class ApiError(AppError):
    def __init__(self, status: int, code: str, message: str, **extra: Any):
        fields = extra.pop("fields", None)
        super().__init__(code, status, message, fields, **extra)


def error_response(status: int, code: str, message: str, **extra: Any) -> JsonResponse:
    return JsonResponse(AppError(code, status, message, **extra).as_json(), status=status)


def request_body(request: HttpRequest) -> bytes:
    try:
        return request.body
    except RequestDataTooBig:
        raise TooLarge() from None


def json_body(request: HttpRequest) -> dict[str, Any]:
    return json_object_bounded(request_body(request))


def _user_from_token(header: str):
    return ApiToken.user_for(header.split(" ", 1)[1].strip() if " " in header else "")


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
    if isinstance(exc, AppError):
        return JsonResponse(exc.as_json(), status=exc.status)
    if isinstance(exc, OSError):
        return storage_error_response(exc)
    raise exc


def storage_error_response(exc: OSError) -> JsonResponse:
    status = 507 if exc.errno in (errno.ENOSPC, errno.EDQUOT) else 500
    return error_response(status, "storage_error",
                          f"the data folder cannot be written: {exc.strerror or exc}")


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
