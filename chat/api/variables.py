"""`/api/v1/instances/{instance_id}/variables`: the chat's variables ({{setvar}}, {{incvar}}...,
saved with the chat) and its owner's global ones ({{setglobalvar}}...), read and cleared.
Owner or staff only; others get 404. Clearing holds the instance lock (409 while a reply
streams)."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Field, Router, Schema

from chat.services.instances import instance_for_user
from chat.services.variables import Scope, instance_variables_clear, instance_variables_read
from personalab.storage import get_store

router = Router(tags=["variables"])
PATH = "/instances/{instance_id}/variables"


class VariablesOut(Schema):
    session_id: str = Field(description="the chat (session) the local variables belong to")
    local: dict[str, str] = Field(description="this chat's variables, as text "
                                              "(SillyTavern's chat_metadata.variables)")
    global_: dict[str, str] = Field(alias="global", description="the account's global variables")

    model_config = {"populate_by_name": True}


@router.get(PATH, response=VariablesOut, by_alias=True)
def variables_read(request: HttpRequest, instance_id: str):
    instance_for_user(request.auth, instance_id)
    return instance_variables_read(get_store(), instance_id=instance_id)


@router.delete(PATH, response=VariablesOut, by_alias=True,
               description="Forget this chat's variables (`scope=local`, the default), the "
                           "account's global ones (`global`) or both (`all`).")
def variables_clear(request: HttpRequest, instance_id: str, scope: Scope = "local"):
    instance_for_user(request.auth, instance_id)
    return instance_variables_clear(get_store(), instance_id=instance_id, scope=scope)
