"""The REST API: one NinjaAPI at /api/v1/, its auth, body parser and error handler.

Apps add their routes as `<app>/routers.py` (schemas in `<app>/schemas.py`) and are registered
at the bottom of this file; every /api/v1/ URL is served from here, so the schema is complete.
"""

from __future__ import annotations

import errno
import logging
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from ninja import NinjaAPI, Swagger
from ninja.errors import AuthenticationError, HttpError, ValidationError
from ninja.parser import Parser
from ninja.security import APIKeyCookie, HttpBearer

from chat.api.conversations import router as conversations_router
from chat.api.history import history_router
from chat.api.imports import router as chat_import_router
from chat.api.instances import chat_router
from chat.api.instances import router as instances_router
from chat.api.llm import router as llm_router
from chat.api.memory import router as memory_router
from chat.api.prompt_manager import router as prompt_manager_router
from chat.api.reading import router as reading_router
from chat.api.variables import router as variables_router
from chat.models import ApiToken
from director.routers import router as config_router
from library.api.choices import router as character_choices_router
from library.api.items import backgrounds_router, characters_router
from library.api.items import router as library_router
from library.api.lorebooks import router as lorebooks_router
from library.api.regex_scripts import router as regex_scripts_router
from library.api.trash import router as trash_router
from personalab.error_words import (
    error_fields_said,
    error_said,
    refusal_said,
    validation_said,
)
from personalab.lib.body_fields import UNKNOWN_FIELD
from personalab.lib.errors import AppError, Forbidden, NotFound, TooLarge
from personalab.lib.jsonbody import json_object_bounded

log = logging.getLogger(__name__)

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
HTTP_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
              405: "method_not_allowed", 409: "conflict", 413: "too_large", 429: "throttled"}


class BearerToken(HttpBearer):
    """`Authorization: Bearer <token>` from `manage.py create_api_token`; a wrong token is a
    401 even when a session cookie is also sent."""

    def authenticate(self, request: HttpRequest, token: str) -> Any:
        user = ApiToken.user_for(token)
        if user is None:
            raise AppError("invalid or revoked API token", code="unauthorized", status=401)
        request.user = user
        return user


class SessionCsrf(APIKeyCookie):
    """The browser's login session; unsafe methods also need the CSRF token (X-CSRFToken)."""

    param_name = settings.SESSION_COOKIE_NAME

    def __call__(self, request: HttpRequest) -> Any:
        if not request.user.is_authenticated:
            return None
        if request.method not in SAFE_METHODS and not getattr(request, "_ninja_csrf_exempt",
                                                                False):
            if CsrfViewMiddleware(lambda r: None).process_view(request, None, (), {}):
                raise Forbidden("CSRF check failed: send the X-CSRFToken header", code="csrf")
        return request.user

    def authenticate(self, request: HttpRequest, key: str | None) -> Any:
        return self(request)


def request_body(request: HttpRequest) -> bytes:
    try:
        return request.body
    except RequestDataTooBig:
        raise TooLarge() from None


class BoundedJsonParser(Parser):
    """Every body of this API is one JSON object, within the size and nesting limits."""

    def parse_body(self, request: HttpRequest) -> Any:
        return json_object_bounded(request_body(request))


class PersonaLabAPI(NinjaAPI):
    def get_content_type(self) -> str:
        # JSON is UTF-8 by definition (RFC 8259): the bare type, as Django's JsonResponse sends.
        return self.renderer.media_type or "application/json"


api = PersonaLabAPI(
    title="PersonaLab API",
    version="1",
    description="Everything the pages do. Log in (session + X-CSRFToken) or send "
                "`Authorization: Bearer <token>` from `python manage.py create_api_token USER`.",
    auth=[BearerToken(), SessionCsrf()],
    parser=BoundedJsonParser(),
    # Swagger UI's files come from ninja's own static folder; no validator badge (a request
    # to swagger.io), since nothing here may reach the network.
    docs=Swagger(settings={"validatorUrl": None}),
    docs_url="/docs",
    openapi_url="/openapi.json",
    urls_namespace="api",
)


def _error(request: HttpRequest, status: int, code: str, message: str,
           fields: dict[str, str] | None = None) -> HttpResponse:
    """The error shape, its words in the request's language where listed (error_words)."""
    error = AppError(error_said(message), code=code, status=status,
                     fields=error_fields_said(fields or {}))
    return api.create_response(request, error.as_json(), status=status)


@api.exception_handler(AppError)
def _app_error(request: HttpRequest, exc: AppError) -> HttpResponse:
    body = exc.as_json()
    message = exc.message
    if getattr(exc, "path", None) is not None:
        # A data-folder refusal names its file for whoever fixes it: the log keeps the whole
        # path, a client gets it from the data folder down, never the server's own folders.
        log.warning("%s (%s)", exc.message, request.path)
        message = message.replace(str(settings.PERSONALAB_DATA_DIR), "data")
    # `code` for a program; the words for a person, in the request's language where listed.
    body["error"]["message"] = refusal_said(message, exc.fields)
    body["error"]["fields"] = error_fields_said(body["error"]["fields"])
    return api.create_response(request, body, status=exc.status)


def _field_name(loc: list[Any]) -> str:
    # ("body", "payload", "name", 0) -> "name.0"; ("query", "turn") -> "turn"
    parts = list(loc[2:] if loc and loc[0] == "body" and len(loc) > 2 else loc[1:])
    return ".".join(str(part) for part in parts) or str(loc[0] if loc else "body")


@api.exception_handler(ValidationError)
def _validation_error(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    fields: dict[str, str] = {}
    for error in exc.errors:
        text = (UNKNOWN_FIELD if error.get("type") == "extra_forbidden"
                else str(error.get("msg", "invalid")))
        fields.setdefault(_field_name(error.get("loc", [])), text)
    message = validation_said(fields) or error_said("invalid request")
    kinds = {error.get("type") for error in exc.errors}
    code = {frozenset({"missing"}): "missing_field",
            frozenset({"extra_forbidden"}): "unknown_field"}.get(frozenset(kinds), "invalid")
    return api.create_response(request, AppError(message, code=code, status=400, fields=(
        error_fields_said(fields))).as_json(), status=400)


@api.exception_handler(AuthenticationError)
def _unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
    return _error(request, 401, "unauthorized", "log in or send 'Authorization: Bearer <token>'")


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    if isinstance(exc.__cause__, AppError):  # ninja wraps what the body parser raised
        return _app_error(request, exc.__cause__)
    return _error(request, exc.status_code, HTTP_CODES.get(exc.status_code, "error"), str(exc))


@api.exception_handler(RequestDataTooBig)
def _too_large(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
    return _app_error(request, TooLarge())


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return _error(request, 404, "not_found", str(exc) or "not found")


@api.exception_handler(OSError)
def _storage_error(request: HttpRequest, exc: OSError) -> HttpResponse:
    log.exception("data folder error on %s", request.path)
    status = 507 if exc.errno in (errno.ENOSPC, errno.EDQUOT) else 500
    return _error(request, status, "storage_error",
                  f"the data folder cannot be written: {exc.strerror or exc}")


def _json_error_for(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    if (response.status_code not in (404, 405) or not request.path.startswith("/api/v1/")
            or response.get("Content-Type", "").startswith("application/json")):
        return response
    if response.status_code == 404:
        error = NotFound(error_said(f"no API endpoint at {request.path}"))
        return JsonResponse(error.as_json(), status=404)
    allowed = response.get("Allow", "")
    error = AppError(error_said(f"use {allowed or 'another method'} on this URL"),
                     code="method_not_allowed", status=405)
    answer = JsonResponse(error.as_json(), status=405)
    if allowed:
        answer["Allow"] = allowed
    return answer


def json_errors_middleware(get_response):
    """An unknown URL under /api/v1/ (Django's resolver) or a wrong method (ninja's dispatch)
    answers as plain text or HTML; API clients get the JSON error shape instead."""
    if iscoroutinefunction(get_response):
        async def middleware(request: HttpRequest) -> HttpResponse:
            return _json_error_for(request, await get_response(request))

        return markcoroutinefunction(middleware)

    def sync_middleware(request: HttpRequest) -> HttpResponse:
        return _json_error_for(request, get_response(request))

    return sync_middleware


json_errors_middleware.sync_capable = True
json_errors_middleware.async_capable = True


# --- the apps' routers ----------------------------------------------------------------------
api.add_router("/", chat_import_router)  # before /instances/{instance_id}
api.add_router("/", instances_router)
api.add_router("/", chat_router)
api.add_router("/", history_router)
api.add_router("/", conversations_router)
api.add_router("/", library_router)
api.add_router("/", character_choices_router)  # before /characters/{character_id}
api.add_router("/", characters_router)
api.add_router("/", backgrounds_router)
api.add_router("/", lorebooks_router)
api.add_router("/", regex_scripts_router)
api.add_router("/", trash_router)
api.add_router("/", reading_router)
api.add_router("/", memory_router)
api.add_router("/", variables_router)
api.add_router("/", prompt_manager_router)
api.add_router("/", config_router)
api.add_router("/", llm_router)
