"""One handler for refusals on pages, as `personalab.api` is the one handler for the API.

An `AppError` that escapes a page view becomes, for an htmx request, the small error partial
with the error's status (static/htmx_errors.js swaps 4xx answers in); for a plain POST, a
message and a redirect back to the page the form was on, so the user sees why and nothing else
changed; for a GET, the error page with the status. Views keep their own catch only where they
re-render a form with what the user typed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.loader import render_to_string, select_template
from django.urls import NoReverseMatch, reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext

from personalab.error_words import app_error_said, error_fields_said
from personalab.lib.errors import AppError

log = logging.getLogger(__name__)


def page_back_url(request: HttpRequest) -> str:
    """The page the request came from when it is on this site (its Referer, else the `next`
    its form sent), else the page the view names with `errors_back_to`, else the requested
    page."""
    for came_from in (request.headers.get("Referer", ""), request.POST.get("next", "")):
        if came_from and url_has_allowed_host_and_scheme(
                came_from, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
            return came_from
    match = request.resolver_match
    back = getattr(match.func, "errors_back_to", None) if match else None
    if back:
        try:
            return reverse(back, kwargs=match.kwargs)
        except NoReverseMatch:
            pass
    return request.get_full_path()


def app_error_response(request: HttpRequest, error: AppError) -> HttpResponse:
    # The page's reader reads the refusal in their language, as an API client does.
    message = app_error_said(error)
    if getattr(error, "path", None) is not None:
        # A data-folder refusal shows its file from the data folder down, never the server's own
        # folders (as the API does); the log keeps the whole path for whoever fixes it.
        log.warning("%s (%s)", message, request.path)
        message = message.replace(str(settings.PERSONALAB_DATA_DIR), "data")
    context = {"message": message, "fields": error_fields_said(error.fields),
               "status": error.status}
    if request.headers.get("HX-Request") == "true":
        return HttpResponse(render_to_string("_app_error.html", context, request=request),
                            status=error.status)
    if request.method == "POST":
        messages.error(request, message)
        return HttpResponseRedirect(page_back_url(request))
    page = select_template([f"{error.status}.html", "error.html"])
    return HttpResponse(page.render(context, request), status=error.status)


class AppErrorMiddleware:
    """Turns an `AppError` raised by a page view into an answer a person can read; the API
    (`/api/`) answers its own errors as JSON and is left alone."""

    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (response.status_code == 405 and not response.content
                and not request.path.startswith("/api/")):
            # an address for a form's button, opened (a bookmark, the address bar): say so
            answer = app_error_response(request, AppError(gettext(
                "This address is for a form's button, not for opening."), code="method_not_allowed",
                status=405))
            answer["Allow"] = response.get("Allow", "")
            return answer
        return response

    def process_exception(self, request: HttpRequest,
                          exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, AppError) or request.path.startswith("/api/"):
            return None
        return app_error_response(request, exception)
