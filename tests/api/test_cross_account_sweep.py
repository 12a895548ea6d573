"""Every REST operation the API's own schema lists, called by bob with the ids of what alice
wrote privately (her chat, its session, message, trace and biography item, her character,
background, lorebook and persona): none answers 2xx or 5xx, and no answer carries her text.
The operations come from openapi.json, so one added later is swept too (a red-team pass,
2026-12-01: the sweep by hand found no crossing)."""

from __future__ import annotations

import json

import pytest

from chat.models import ApiToken
from tests.stub_llm import Reply

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "ALICE-PRIVATE-5521"
NOTHING_LISTED = b'{"conversations": []}'  # a participant's chats that bob may see
# A body each operation takes as valid, so the refusal is the ownership check's, not the form's.
BODIES = {
    "/members": {"character_id": "char_alserqi"}, "/members/{character_id}": {"muted": True},
    "/messages/{index}": {"fingerprint": "FINGERPRINT", "text": "hijack"},
    "/history/undo": {"token": "x"}, "/swipe": {"turn": 1, "alternative": 0},
    "/branch": {"index": 1, "fingerprint": "FINGERPRINT"}, "/persona": {"text": "hijack"},
    "/persona/restore": {"version": 1}, "/pinned": {"text": "hijack"},
    "/move": {"to": 0}, "/biography": {"text": "hijack"}, "/authors_note": {"text": "hijack"},
    "/play_as": {"name": "hijack"}, "/background": {"background_id": ""},
    "/chat": {"instance_id": "INSTANCE", "query": "hi", "stream": False},
}


def _call(client, user, method, url, body=None):
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(user)}"}
    if body is None:
        return getattr(client, method)(url, **auth)
    return getattr(client, method)(url, data=json.dumps(body), content_type="application/json",
                                   **auth)


@pytest.fixture
def alices(client, alice, store, use_stub) -> dict[str, str]:
    """Alice's private things and their ids, as the schema's path parameters name them."""
    made = {}
    for kind, body in (("lorebooks", {"entries": [{"uid": 1, "keys": ["hi"],
                                                     "content": SECRET}]}),
                       ("characters", {"base_persona": SECRET}),
                       ("backgrounds", {"world_setting": SECRET}),
                       ("personas", {"description": SECRET})):
        answer = _call(client, alice, "post", f"/api/v1/{kind}",
                       {"name": f"Private {kind}", "visibility": "private", **body}).json()
        made[kind] = answer[f"{kind[:-1]}_id"]
    instance_id = _call(client, alice, "post", "/api/v1/instances", {
        "character_id": made["characters"], "background_id": made["backgrounds"],
        "persona_id": made["personas"]}).json()["instance_id"]
    use_stub.script(Reply(f"I keep {SECRET}."))
    turn = _call(client, alice, "post", "/api/v1/chat",
                 {"instance_id": instance_id, "query": f"hi {SECRET}", "stream": False}).json()
    item = _call(client, alice, "post", f"/api/v1/instances/{instance_id}/biography",
                 {"text": SECRET}).json()
    rows = _call(client, alice, "get", f"/api/v1/instances/{instance_id}/sessions/"
                 f"{turn['session_id']}/messages").json()["rows"]
    return {"instance_id": instance_id, "session_id": turn["session_id"],
            "trace_id": turn["trace_id"], "item_id": item["id"], "index": "1",
            "fingerprint": rows[1]["fingerprint"], "character_id": made["characters"],
            "participant_id": made["characters"], "background_id": made["backgrounds"],
            "lorebook_id": made["lorebooks"], "persona_id": made["personas"]}


def _body(path: str, ids: dict[str, str]) -> dict:
    found = next((body for end, body in BODIES.items() if path.endswith(end)), {})
    text = json.dumps(found).replace("FINGERPRINT", ids["fingerprint"]).replace(
        "INSTANCE", ids["instance_id"])
    return json.loads(text)


def test_no_operation_of_the_api_crosses_to_another_accounts_private_things(
        client, alice, bob, alices):
    schema = _call(client, bob, "get", "/api/v1/openapi.json").json()
    crossed, swept = [], 0
    for path, operations in schema["paths"].items():
        if "{" not in path and path != "/api/v1/chat":
            continue  # bob's own lists and settings, no id of alice's to give
        url = path
        for name, value in alices.items():
            url = url.replace("{" + name + "}", value)
        for method, operation in operations.items():
            query = {p["name"]: alices.get(p["name"], alices["instance_id"])
                     for p in operation.get("parameters", []) if p["in"] == "query"
                     and p["name"] in ("instance_id", "fingerprint", "character_id")}
            target = url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query
                            else "")
            body = _body(path, alices) if method in ("post", "put") else None
            answer = _call(client, bob, method, target, body)
            swept += 1
            if answer.content == NOTHING_LISTED:
                continue  # what any id answers, alice's or none
            if answer.status_code < 400 or answer.status_code >= 500 or SECRET in (
                    answer.content.decode(errors="replace")):
                crossed.append((method, target, answer.status_code, answer.content[:120]))
    assert crossed == []
    assert swept > 60
    # ...and the sweep reached what it meant to: alice still reads each thing
    for url in (f"/api/v1/instances/{alices['instance_id']}",
                f"/api/v1/traces/{alices['trace_id']}",
                f"/api/v1/characters/{alices['character_id']}",
                f"/api/v1/personas/{alices['persona_id']}"):
        assert _call(client, alice, "get", url).status_code == 200, url


def _page_patterns(resolver=None, prefix=""):
    """Every page address of the site, as its URL configuration lists them."""
    from django.urls import get_resolver
    from django.urls.resolvers import URLResolver

    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            yield from _page_patterns(pattern, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern)


def _files(store) -> dict[str, bytes]:
    return {str(path.relative_to(store.root)): path.read_bytes()
            for path in store.root.rglob("*") if path.is_file() and not path.name.startswith(".")
            and path.parts[len(store.root.parts)] in ("instances", "characters", "backgrounds",
                                                       "lorebooks", "personas")}


def test_no_page_or_form_crosses_to_another_accounts_private_things(
        client, alice, bob, alices, store):
    """Each page address (htmx partials, forms, pictures, the inspector) with alice's ids,
    opened and posted by bob: 404 or 405, a refusal sent back to where the form was, never her
    text, a 5xx or a changed file of hers."""
    import re

    ids = {**alices, "action": "summarize", "kind": "character"}
    before = _files(store)
    client.force_login(bob)
    crossed, swept = [], 0
    for pattern in _page_patterns():
        names = re.findall(r"<(?:\w+:)?(\w+)>", pattern)
        if not names or pattern.startswith(("admin/", "api/", "^")):
            continue  # bob's own pages, no id of alice's to give
        url = "/" + pattern
        for name in names:
            given = ids.get(name, alices["character_id"] if pattern.startswith(
                "library/characters") else alices["background_id"] if pattern.startswith(
                "library/backgrounds") else alices["lorebook_id"] if pattern.startswith(
                "library/lorebooks") else alices["instance_id"])
            url = re.sub(r"<(?:\w+:)?" + name + ">", given, url)
        for method in ("get", "post"):
            answer = getattr(client, method)(url, {"name": "hijack", "text": "hijack",
                                                   "content": "hijack"} if method == "post"
                                             else None)
            swept += 1
            text = answer.content.decode(errors="replace") if not answer.streaming else ""
            refused = answer.status_code in (404, 405) or (
                method == "post" and answer.status_code == 302)
            if not refused or SECRET in text:
                crossed.append((method, url, answer.status_code))
    assert crossed == []
    assert swept > 60
    assert _files(store) == before
