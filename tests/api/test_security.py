"""Security: another user's data is unreachable by page, API and WebSocket; CSRF on every form;
the WebSocket origin check; HTML escaped everywhere it is shown; the prompt template sandbox."""

from __future__ import annotations

import asyncio
import json

import pytest
from channels.testing import WebsocketCommunicator
from django.test import Client

from chat.models import ApiToken
from personalab.asgi import application
from tests.socket_tabs import session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

XSS = '<img src=x onerror="alert(1)">'
XSS_ESCAPED = "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"


def _snapshot(root) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".lock" and "event_library" not in p.parts}


def _turn(store, instance_id: str, text: str = "hi"):
    from chat.play.turn import turn_run

    async def emit(event):
        pass

    return asyncio.run(turn_run(store, instance_id=instance_id, user_text=text, emit=emit))


@pytest.fixture
def lorebook(store):
    from library.lore.services import lorebook_save

    return lorebook_save(store, data={
        "name": "Lore " + XSS, "scan_depth": 4, "token_budget": 800,
        "entries": [{"uid": 1, "keys": ["Victor"], "content": "Victor is " + XSS,
                     "enabled": True, "constant": False, "priority": 100,
                     "position": "before_char", "depth": 4, "comment": XSS}]})


# --- another user's instance, trace and session ----------------------------------------------


def test_bob_reaches_none_of_alices_pages(client, bob, store, instance):
    trace_id = _turn(store, instance).trace_id
    before = _snapshot(store.root)
    client.force_login(bob)
    for url in (f"/instances/{instance}/", f"/instances/{instance}/messages",
                f"/instances/{instance}/outline", f"/instances/{instance}/memory/progress",
                f"/traces/{trace_id}/"):
        assert client.get(url).status_code == 404, url
    for url, form in ((f"/instances/{instance}/authors_note", {"text": "bob was here"}),
                      (f"/instances/{instance}/background", {"background_id": ""}),
                      (f"/instances/{instance}/memory/summarize", {}),
                      (f"/instances/{instance}/memory/update_memory", {})):
        assert client.post(url, form).status_code == 404, url
    assert _snapshot(store.root) == before


def test_bob_reaches_none_of_alices_api_endpoints(client, bob, store, instance):
    from tests.stub_llm import Reply  # noqa: F401 — the offline provider answers

    trace_id = _turn(store, instance).trace_id
    before = _snapshot(store.root)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(bob)}"}
    base = f"/api/v1/instances/{instance}"
    for url in (f"{base}/sessions/sess_001/current_response",
                f"{base}/sessions/sess_001/export", f"{base}/sessions/sess_001/export?format=md",
                f"/api/v1/traces/{trace_id}?include_session=1",
                f"/api/v1/sessions/sess_001?instance_id={instance}"):
        response = client.get(url, **auth)
        assert response.status_code == 404, url
        assert b"hi" not in response.content
    for url, body in ((f"{base}/background", {"background_id": None}),
                      (f"{base}/summarize", {}), (f"{base}/update_memory", {})):
        response = client.post(url, json.dumps(body), content_type="application/json", **auth)
        assert response.status_code == 404, url
    assert client.delete(f"/api/v1/sessions/sess_001?instance_id={instance}",
                         **auth).status_code == 404
    upload = client.post(f"{base}/import_chat", {"file": _chat_file()}, **auth)
    assert upload.status_code == 404
    assert _snapshot(store.root) == before


def _chat_file():
    from django.core.files.uploadedfile import SimpleUploadedFile

    lines = [{"user_name": "User", "character_name": "A", "create_date": "2025-01-01"},
             {"name": "User", "is_user": True, "mes": "imported"}]
    body = "\n".join(json.dumps(line) for line in lines).encode()
    return SimpleUploadedFile("chat.jsonl", body, content_type="application/jsonl")


async def test_bob_cannot_open_alices_websocket_even_with_the_right_origin(alice, bob, instance):
    headers = [(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1:8000"),
               (b"cookie", await session_cookie(bob))]
    communicator = WebsocketCommunicator(application, f"/ws/chat/{instance}/", headers=headers)
    connected, code = await communicator.connect()
    assert not connected
    await communicator.disconnect()


@pytest.mark.parametrize("headers", [
    [(b"host", b"127.0.0.1:8000")],                                   # no Origin at all
    [(b"origin", b"null"), (b"host", b"127.0.0.1:8000")],             # sandboxed iframe
    [(b"origin", b"http://127.0.0.1.evil.example"), (b"host", b"127.0.0.1:8000")],
    [(b"origin", b"http://127.0.0.1:8000@evil.example"), (b"host", b"127.0.0.1:8000")],
])
async def test_websocket_without_a_trusted_origin_is_refused(alice, instance, headers):
    headers = [*headers, (b"cookie", await session_cookie(alice))]
    communicator = WebsocketCommunicator(application, f"/ws/chat/{instance}/", headers=headers)
    connected, _ = await communicator.connect()
    assert not connected
    await communicator.disconnect()


# --- CSRF on every form ----------------------------------------------------------------------


def _form_posts(instance: str, character: str, background: str, lorebook: str):
    return [
        ("/instances/new", {"character_id": character}),
        (f"/instances/{instance}/background", {"background_id": ""}),
        (f"/instances/{instance}/memory/summarize", {}),
        (f"/instances/{instance}/memory/update_memory", {}),
        (f"/instances/{instance}/authors_note", {"text": "csrf"}),
        ("/settings/", {"reset": "1"}),
        ("/library/characters/new", {"name": "Forged"}),
        (f"/library/characters/{character}/", {"name": "Forged"}),
        (f"/library/characters/{character}/delete", {}),
        ("/library/backgrounds/new", {"name": "Forged"}),
        (f"/library/backgrounds/{background}/", {"name": "Forged"}),
        (f"/library/backgrounds/{background}/outline", {"action": "add", "content": "forged"}),
        (f"/library/backgrounds/{background}/delete", {}),
        ("/library/cards/upload", {}),
        ("/library/lorebooks/new", {"name": "Forged"}),
        (f"/library/lorebooks/{lorebook}/", {"name": "Forged"}),
        (f"/library/lorebooks/{lorebook}/test", {"text": "Victor"}),
        ("/logout/", {}),
    ]


def test_every_form_post_without_a_csrf_token_is_403(staff, store, character, background,
                                                     lorebook, alice):
    from chat.services.instances import instance_create

    instance = instance_create(store, owner=staff, character_id=character,
                               background_id=background)
    before = _snapshot(store.root)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(staff)
    posts = _form_posts(instance, character, background, lorebook)
    for url, form in posts:
        response = strict.post(url, form)
        assert response.status_code == 403, (url, response.status_code)
    assert _snapshot(store.root) == before
    assert strict.get("/").status_code == 200  # still logged in: logout was refused too
    # The same forms with the token are accepted (the check is not refusing everything).
    strict.get("/library/")
    token = strict.cookies["csrftoken"].value
    response = strict.post(f"/instances/{instance}/authors_note", {"text": "ok"},
                           HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 302
    assert store.memory_json_read(instance, "authors_note", {})["text"] == "ok"


def test_every_api_write_with_a_session_cookie_needs_the_csrf_header(alice, store, instance,
                                                                     character, background):
    before = _snapshot(store.root)
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(alice)
    base = f"/api/v1/instances/{instance}"
    calls = [("post", "/api/v1/instances", {"character_id": character}),
             ("post", "/api/v1/characters", {"name": "X"}),
             ("put", f"/api/v1/characters/{character}", {"name": "X"}),
             ("delete", f"/api/v1/characters/{character}", None),
             ("post", "/api/v1/backgrounds", {"name": "X"}),
             ("put", f"/api/v1/backgrounds/{background}", {"name": "X"}),
             ("delete", f"/api/v1/backgrounds/{background}", None),
             ("post", f"{base}/background", {"background_id": None}),
             ("post", f"{base}/summarize", {}), ("post", f"{base}/update_memory", {}),
             ("delete", "/api/v1/sessions/sess_001", None),
             ("put", "/api/v1/config", {}), ("post", "/api/v1/config/reset", {})]
    for method, url, body in calls:
        response = getattr(strict, method)(url, json.dumps(body) if body is not None else "",
                                           content_type="application/json")
        assert response.status_code == 403, (method, url, response.status_code)
        assert response.json()["error"]["code"] == "csrf"
    assert _snapshot(store.root) == before


# --- HTML is escaped wherever it is shown ----------------------------------------------------


@pytest.fixture
def hostile(store, alice, lorebook):
    """Every author-controlled field carries markup."""
    from chat.services.instances import instance_create
    from library.background_services import background_save
    from library.character_services import character_save

    character = character_save(store, data={
        "name": "Eve " + XSS, "base_persona": "persona " + XSS, "greeting": "greet " + XSS,
        "tags": "t" + XSS, "lorebook_ids": [lorebook]}, character_id=None)
    background = background_save(store, data={
        "name": "World " + XSS, "world_setting": "setting " + XSS,
        "story_outline": ["point " + XSS, "second"]}, background_id=None)
    instance = instance_create(store, owner=alice, character_id=character,
                               background_id=background)
    with store.instance_lock(instance):
        store.session_append(instance, "sess_001", {"role": "user", "content": "msg " + XSS,
                                                    "turn": 1})
        store.session_append(instance, "sess_001", {"type": "summary",
                                                    "content": "summary " + XSS})
    store.memory_json_write(instance, "authors_note", {"text": "note " + XSS, "depth": 4,
                                                       "frequency": 1, "role": "system"})
    return {"character": character, "background": background, "instance": instance,
            "lorebook": lorebook}


def test_markup_is_escaped_on_every_page(alice_client, store, hostile, use_stub):
    result = _turn(store, hostile["instance"], "Victor? " + XSS)
    instance = hostile["instance"]
    pages = {
        "/": ["Eve ", "World "],
        f"/instances/{instance}/": ["Eve ", "msg ", "summary ", "greet ", "point ", "note "],
        f"/instances/{instance}/messages": ["msg ", "summary ", "Victor? "],
        f"/instances/{instance}/outline": ["point "],
        f"/traces/{result.trace_id}/": ["persona ", "setting ", "Victor is ", "Victor? "],
        "/library/": ["Eve ", "World ", "Lore "],
        f"/library/characters/{hostile['character']}/": ["Eve ", "persona ", "greet "],
        f"/library/backgrounds/{hostile['background']}/": ["World ", "setting ", "point "],
        f"/library/lorebooks/{hostile['lorebook']}/": ["Lore ", "Victor is "],
    }
    for url, labels in pages.items():
        response = alice_client.get(url)
        page = response.content.decode()
        assert response.status_code == 200, url
        assert XSS not in page, url
        for label in labels:
            assert label + XSS_ESCAPED in page or label + XSS_ESCAPED.replace(
                "&quot;", "&#x27;") in page or (label + XSS_ESCAPED).replace(
                "&quot;", "&#34;") in page, (url, label)
    tested = alice_client.post(f"/library/lorebooks/{hostile['lorebook']}/test",
                               {"text": "Victor " + XSS})
    assert XSS not in tested.content.decode()


def test_markup_in_an_outline_edit_response_is_escaped(alice_client, background):
    response = alice_client.post(f"/library/backgrounds/{background}/outline",
                                 {"action": "add", "content": XSS}, HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert response.status_code == 200 and XSS not in page and XSS_ESCAPED in page


def test_markup_in_a_failed_form_is_escaped(alice_client):
    response = alice_client.post("/library/characters/new", {"name": "",
                                                             "base_persona": XSS})
    assert response.status_code == 400 and XSS not in response.content.decode()


def test_api_answers_are_json_not_html(client, alice, hostile):
    auth = {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}
    response = client.get(f"/api/v1/characters/{hostile['character']}", **auth)
    assert response["Content-Type"] == "application/json"
    assert response.json()["name"] == "Eve " + XSS  # data kept as written, escaping is the UI's


# --- the prompt template sandbox -------------------------------------------------------------

LEAKS = ["<class", "__mro__", "<module", "posix", "<function", "<built-in", "<bound method",
         "__builtins__", "import_module", "/usr/lib", "site-packages", "SECRET_KEY"]


@pytest.mark.parametrize("persona, setting", [
    ("{{ ''.__class__.__mro__ }}", "{{ cycler.__init__.__globals__.os }}"),
    ("{{ ''.__class__.__mro__[1].__subclasses__() }}", "{{ joiner.__init__.__globals__ }}"),
    ("{{ lipsum.__globals__['os'].popen('id').read() }}", "{{ namespace.__init__.__globals__ }}"),
    ("{{ self.__init__.__globals__.__builtins__ }}", "{% for c in [].__class__.__base__"
     ".__subclasses__() %}{{ c }}{% endfor %}"),
    ("{{ config }}{{ settings.SECRET_KEY }}{{ request }}", "{{ range(10**9)|list }}"),
    ("{% set x = 'a' * 100000000 %}{{ x }}", "{{ char.__class__ }}{{ user.upper.__self__ }}"),
])
def test_template_attacks_in_author_text_leak_nothing_and_the_turn_completes(
        store, alice, use_stub, persona, setting):
    from chat.services.instances import instance_create
    from library.background_services import background_save
    from library.character_services import character_save

    character = character_save(store, data={"name": "Mallory", "base_persona": persona},
                               character_id=None)
    background = background_save(store, data={"name": "Trap", "world_setting": setting,
                                               "story_outline": ["one"]}, background_id=None)
    instance = instance_create(store, owner=alice, character_id=character,
                               background_id=background)
    events: list[dict] = []

    async def emit(event):
        events.append(event)

    from chat.play.turn import turn_run

    result = asyncio.run(turn_run(store, instance_id=instance, user_text="hi", emit=emit))
    assert result.answer_text == "stub reply" and not result.error
    prompt = "\n".join(m["content"] for m in use_stub.requests[-1]["messages"])
    # Author text is never a template: it reaches the model exactly as written.
    assert persona in prompt and setting in prompt
    prompt = prompt.replace(persona, "").replace(setting, "")
    for leak in LEAKS:
        assert leak not in prompt, leak
    assert len(prompt) < 200_000
    trace = json.dumps(store.trace_read(instance, result.trace_id), ensure_ascii=False)
    for leak in ("<class", "<module", "posix", "<function", "<built-in"):
        assert leak not in trace, leak
    assert not any(e.get("category") == "template_error" for e in events
                   if e["type"] == "warning"), events
