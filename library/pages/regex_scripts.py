"""The page of the account's own regex scripts (SillyTavern's global scripts): one JSON box,
refused with a sentence beside it when a script cannot be used, nothing typed lost."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods

from library.errors import LibraryError
from library.find_replace.services import regex_scripts_account_read, regex_scripts_account_save
from library.pages.regex_script_form import (
    regex_error,
    regex_scripts_not_working,
    regex_scripts_posted,
)
from personalab.storage import get_store


@login_required
@require_http_methods(["GET", "POST"])
def regex_scripts_page(request: HttpRequest) -> HttpResponse:
    store = get_store()
    if request.method == "POST":
        text = request.POST.get("regex_scripts", "")
        try:
            regex_scripts_account_save(store, user=request.user,
                                       scripts=regex_scripts_posted(text))
        except LibraryError as exc:
            return render(request, "library/regex_scripts.html", {
                "regex_scripts": text, "regex_error": regex_error(exc.field_errors or {})
                or str(exc)}, status=400)
        messages.info(request, gettext("Regex scripts saved. The next message uses them."))
        return redirect("regex_scripts")
    scripts = regex_scripts_account_read(store, username=request.user.get_username())
    return render(request, "library/regex_scripts.html", {
        "regex_scripts": json.dumps(scripts, ensure_ascii=False, indent=2) if scripts else "",
        "regex_error": regex_scripts_not_working(scripts)})
