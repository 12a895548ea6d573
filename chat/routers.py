"""Chat routes of /api/v1/: instances (more move here from chat/api.py)."""

from __future__ import annotations

from django.http import HttpRequest
from ninja import Router, Status

from chat import services
from chat.models import Instance
from chat.schemas import InstanceCreated, InstanceDetail, InstanceIn, InstanceList, InstanceOut
from director.services import director_status
from personalab.lib.ids import validate_id
from personalab.storage import get_store

router = Router(tags=["instances"])


def instance_out(row: Instance) -> dict:
    return {"instance_id": row.instance_id, "character_id": row.character_id,
            "background_id": row.background_id, "current_session_id": row.current_session_id,
            "created_at": row.created_at, "owner": row.owner.username if row.owner else None}


@router.get("/instances", response=InstanceList)
def instances_list(request: HttpRequest):
    return {"instances": [instance_out(row)
                          for row in services.instances_visible_to(request.auth)]}


@router.post("/instances", response={201: InstanceCreated})
def instance_create(request: HttpRequest, payload: InstanceIn):
    character_id = validate_id(payload.character_id, kind="character id")
    if payload.background_id is not None:
        validate_id(payload.background_id, kind="background id")
    instance_id = services.instance_create(get_store(), owner=request.auth,
                                           character_id=character_id,
                                           background_id=payload.background_id)
    return Status(201, {"instance_id": instance_id})


@router.get("/instances/{instance_id}", response=InstanceDetail)
def instance_detail(request: HttpRequest, instance_id: str):
    row = services.instance_for_user(request.auth, instance_id)
    store = get_store()
    return {**instance_out(row),
            "instance_state": store.instance_state_read(instance_id),
            "character_state": store.character_state_read(instance_id),
            "director": director_status(store, instance_id=instance_id),
            "sessions": store.session_ids(instance_id)}
