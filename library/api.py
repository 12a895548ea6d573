"""Library endpoints of /api/v1/ still written by hand (characters, backgrounds, cards, chat
import and export); they move to library/routers.py."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse

from chat.apiutil import ApiError, api_view, json_body
from library import selectors, services
from personalab.lib.ids import validate_id
from personalab.storage import get_store


@api_view(["GET", "POST"])
def characters(request: HttpRequest) -> JsonResponse:
    store = get_store()
    if request.method == "GET":
        return JsonResponse({"characters": [
            store.character_read(row.character_id)
            for row in selectors.characters_visible_to(user=request.user)]})
    character_id = services.character_save(store, data=json_body(request), user=request.user)
    return JsonResponse({"character_id": character_id}, status=201)


@api_view(["GET", "PUT", "DELETE"])
def character_detail(request: HttpRequest, character_id: str) -> JsonResponse:
    store = get_store()
    validate_id(character_id, kind="character id")
    definition = selectors.character_for_use(store, user=request.user, character_id=character_id)
    if request.method == "PUT":
        services.character_save(store, data={**definition, **json_body(request)},
                                character_id=character_id, user=request.user)
        return JsonResponse(store.character_read(character_id))
    if request.method == "DELETE":
        services.character_delete(store, character_id=character_id, user=request.user)
        return JsonResponse({"deleted": character_id})
    return JsonResponse(definition)


@api_view(["POST"])
def character_copy(request: HttpRequest, character_id: str) -> JsonResponse:
    validate_id(character_id, kind="character id")
    new_id = services.character_copy(get_store(), user=request.user, character_id=character_id)
    return JsonResponse({"character_id": new_id, "copied_from": character_id}, status=201)


@api_view(["GET", "POST"])
def backgrounds(request: HttpRequest) -> JsonResponse:
    store = get_store()
    if request.method == "GET":
        return JsonResponse({"backgrounds": [
            store.background_read(row.background_id)
            for row in selectors.backgrounds_visible_to(user=request.user)]})
    background_id = services.background_save(store, data=json_body(request), user=request.user)
    return JsonResponse({"background_id": background_id}, status=201)


@api_view(["GET", "PUT", "DELETE"])
def background_detail(request: HttpRequest, background_id: str) -> JsonResponse:
    store = get_store()
    validate_id(background_id, kind="background id")
    background = selectors.background_for_use(store, user=request.user,
                                              background_id=background_id)
    if request.method == "PUT":
        services.background_save(store, data={**background, **json_body(request)},
                                 background_id=background_id, user=request.user)
        return JsonResponse(store.background_read(background_id))
    if request.method == "DELETE":
        services.background_delete(store, background_id=background_id, user=request.user)
        return JsonResponse({"deleted": background_id})
    return JsonResponse(background)


@api_view(["POST"])
def background_copy(request: HttpRequest, background_id: str) -> JsonResponse:
    validate_id(background_id, kind="background id")
    new_id = services.background_copy(get_store(), user=request.user,
                                      background_id=background_id)
    return JsonResponse({"background_id": new_id, "copied_from": background_id}, status=201)


def _upload(request: HttpRequest) -> tuple[bytes, str]:
    upload = request.FILES.get("file")
    if upload is None:
        raise ApiError(400, "missing_file", "send the file as multipart field 'file'")
    if upload.size > services.MAX_CARD_BYTES:
        raise ApiError(413, "too_large", "file is larger than 10 MB")
    return upload.read(), upload.name


@api_view(["POST"])
def character_import(request: HttpRequest) -> JsonResponse:
    data, name = _upload(request)
    try:
        character_id = services.character_import_card(get_store(), data=data, filename=name,
                                                      user=request.user)
    except services.LibraryError as exc:
        raise ApiError(exc.status, "invalid_card" if exc.status == 400 else exc.code,
                       str(exc), fields=exc.field_errors) from None
    return JsonResponse({"character_id": character_id}, status=201)


@api_view(["GET"])
def character_card(request: HttpRequest, character_id: str, fmt: str):
    from django.http import HttpResponse

    validate_id(character_id, kind="character id")
    selectors.character_for_use(get_store(), user=request.user, character_id=character_id)
    spec = request.GET.get("spec", "v3" if fmt == "png" else "v2")
    if spec not in ("v2", "v3"):
        raise ApiError(400, "bad_spec", "spec must be v2 or v3")
    body = services.character_export_card(get_store(), character_id=character_id, fmt=fmt,
                                          spec=spec)
    content_type = {"png": "image/png", "charx": "application/zip"}.get(fmt, "application/json")
    response = HttpResponse(body, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{character_id}.{fmt}"'
    return response
