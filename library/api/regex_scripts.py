"""/api/v1/regex-scripts: your own regex scripts, run in every chat of yours before the
character's (a character's scripts are part of the character: PUT /characters/{id}
`regex_scripts`)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema
from pydantic import Field

from library.find_replace.services import regex_scripts_account_read, regex_scripts_account_save
from personalab.storage import get_store

router = Router(tags=["regex scripts"])


class RegexScriptsBody(Schema):
    scripts: Any = Field(..., description=(
        "SillyTavern regex scripts, in order: {scriptName, findRegex '/pattern/flags', "
        "replaceString ($1, {{match}}), trimStrings, placement [1 user input, 2 AI output, "
        "5 world info, 6 reasoning], disabled, markdownOnly, promptOnly, runOnEdit, "
        "substituteRegex, minDepth, maxDepth}"), json_schema_extra={
            "type": "array", "items": {"type": "object"}})


class RegexScriptsOut(Schema):
    scripts: list[dict[str, Any]]


@router.get("/regex-scripts", response=RegexScriptsOut)
def regex_scripts_list(request: HttpRequest):
    """Your regex scripts (SillyTavern's global scripts)."""
    return {"scripts": regex_scripts_account_read(get_store(),
                                                  username=request.auth.get_username())}


@router.put("/regex-scripts", response=RegexScriptsOut)
def regex_scripts_put(request: HttpRequest, payload: RegexScriptsBody):
    """Replace your regex scripts; a pattern too costly to compile or not a regex is refused
    (400, a sentence in `fields["regex_scripts[i].findRegex"]`) and nothing is saved."""
    return {"scripts": regex_scripts_account_save(get_store(), user=request.auth,
                                                  scripts=payload.scripts)}
