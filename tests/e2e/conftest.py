"""Browser end-to-end fixtures: a real Daphne server on a free port with a temp data folder,
the OpenAI-compatible stub as its LLM, and headless Debian Chromium driven by Playwright's
sync API. Everything here skips when /usr/bin/chromium or the playwright package is missing.

Nothing downloads a browser: Playwright is pointed at the system Chromium."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from personalab.lib.filestore.store import FileStore
from tests.browser import CHROMIUM, chromium_close, chromium_shared
from tests.collector import daphne_command
from tests.e2e.kept_page import context_emptied, context_watched, page_leave, page_take
from tests.prepared_data import Prepared, prepared_copy
from tests.stub_llm import StubLLM

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, JSHandle, Locator, Page

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
SIZES = pytest.mark.parametrize("size", [PHONE, DESKTOP], ids=["phone", "desktop"])


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "e2e: browser end-to-end test (Chromium + Playwright)")
    config.addinivalue_line("markers", "server_shared: the module runs on the test process's "
                            "shared Daphne (tests/e2e/conftest.py, server_shared)")


def browser_missing_reason() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} not installed (apt-get install chromium-headless-shell)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed"
    return None


@dataclass
class Server:
    url: str
    data: Path
    password: str
    stub: StubLLM
    process: subprocess.Popen
    env: dict
    log: Path

    def stop(self) -> None:
        """Take the server down (the browser sees its WebSocket close)."""
        self.process.terminate()
        # Daphne exits once the cancelled turns are done, and a turn streaming in a thread
        # finishes its reply first: on a loaded two-core machine that outlasted 60 s. An outage
        # is what the tests need, not a clean exit: after a grace period the process is killed.
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=20)

    def start(self) -> None:
        """Bring it back on the same address."""
        port = int(self.url.rsplit(":", 1)[1])
        self.process = _daphne_start(self.env, port, self.log)

    @property
    def store(self) -> FileStore:
        return FileStore(self.data)

    def instance_state(self, instance_id: str) -> dict:
        return self.store.instance_state_read(instance_id)

    def session_lines(self, instance_id: str) -> list[dict]:
        """The current session's lines (messages and summaries), as the server wrote them."""
        session_id = self.instance_state(instance_id)["current_session_id"]
        return self.store.session_read(instance_id, session_id).lines


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _server_env(data: Path, stub: StubLLM, secret: Path) -> dict:
    env = {**os.environ, "PERSONALAB_DATA_DIR": str(data), "OPENAI_BASE_URL": stub.base_url,
           "OPENAI_API_KEY": "e2e-key", "PERSONALAB_MODEL": "stub-model",
           "PERSONALAB_LLM_TIMEOUT": "20", "PERSONALAB_OFFLINE_DELAY": "0.02",
           "PERSONALAB_SECRET_FILE": str(secret), "DEBUG": "0"}
    for name in ("DATABASE_URL", "REDIS_URL", "PERSONALAB_GGUF", "PERSONALAB_CHROMA_URL"):
        env.pop(name, None)
    env["DJANGO_SETTINGS_MODULE"] = "tests.server_settings"
    return env


def _daphne_start(env: dict, port: int, log: Path) -> subprocess.Popen:
    with log.open("ab") as sink:
        process = subprocess.Popen(daphne_command(port), cwd=ROOT, env=env, stdout=sink,
                                   stderr=sink)
    # A readiness wait, not a speed check: on a loaded two-core machine Django's start took 35 s.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/login/", timeout=2):
                return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("daphne did not start")


def _server_run(base: Path, stub: StubLLM, prepared: Prepared) -> Iterator[Server]:
    """A Daphne on a copy of the demo's folder (migrated and seeded once per test process,
    recall off), until the generator is closed."""
    reason = browser_missing_reason()
    if reason:
        pytest.skip(reason)
    copy = prepared_copy(prepared, base)
    env = _server_env(copy.data, stub, copy.secret)
    port = _free_port()
    running = Server(f"http://127.0.0.1:{port}", copy.data, copy.password, stub,
                     _daphne_start(env, port, base / "daphne.log"), env, base / "daphne.log")
    try:
        yield running
    finally:
        server_kill(running)


def server_kill(running: Server) -> None:
    """The end of a test server whose folder is thrown away: a graceful stop spent about 2 s
    idle per server (Daphne's and the interpreter's shutdown), a kill none."""
    running.process.kill()
    running.process.wait(timeout=20)


@pytest.fixture(scope="session", autouse=True)
def chromium_closed_first() -> Iterator[None]:
    """The process's Chromium closed before the session fixtures set up earlier end: the test
    database's teardown refuses to run while Playwright's loop is marked running (a worker
    whose last file was a browser module warned "Error when trying to teardown test
    databases")."""
    yield
    chromium_close()


@pytest.fixture(scope="session")
def server_shared(tmp_path_factory: pytest.TempPathFactory, stub_llm_server: StubLLM,
                  prepared_data: Prepared) -> Iterator[Server]:
    """One Daphne per test process for the modules marked `server_shared` (issue 31: a start
    cost about 4.5 s of CPU): those only add chats and characters of their own, with ids no
    other such module uses, read pages, and never stop the server or change a setting."""
    yield from _server_run(tmp_path_factory.mktemp("e2e-shared"), stub_llm_server,
                           prepared_data)


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
           stub_llm_server: StubLLM, prepared_data: Prepared) -> Iterator[Server]:
    """The module's server: its own, or with the module marked `server_shared` the process's,
    whose settings (config.json, modules/) are put back as they were when the module ends."""
    if request.node.get_closest_marker("server_shared"):
        shared = request.getfixturevalue("server_shared")
        kept = settings_snapshot(shared.data)
        try:
            yield shared
        finally:
            settings_restore(shared.data, kept)
        return
    yield from _server_run(tmp_path_factory.mktemp("e2e"), stub_llm_server, prepared_data)


def settings_snapshot(data: Path) -> dict[Path, bytes]:
    """The server-wide settings files as bytes: the modules on the shared server run one after
    another, so a module that saves the settings page (or an account's defaults, kept in
    modules/) gets them back for the next one, as it would with a server of its own. The
    server reads these files on every request, so a restore needs no restart."""
    files = [data / "config.json", *sorted((data / "modules").glob("*.json"))]
    return {path: path.read_bytes() for path in files if path.is_file()}


def settings_restore(data: Path, kept: dict[Path, bytes]) -> None:
    for path in [data / "config.json", *(data / "modules").glob("*.json")]:
        if path not in kept:
            path.unlink(missing_ok=True)
    for path, content in kept.items():
        if not path.is_file() or path.read_bytes() != content:
            path.write_bytes(content)


# The login's cookies per server (by its data folder): a module on the shared server starts
# its context logged in, as the first module of the process left it (a login cost a page and
# a password hash on every module).
_logins: dict[str, dict] = {}


def context_new(server: Server, **options: object) -> BrowserContext:
    """A fresh context (cookies, storage) of the process's one Chromium (tests/browser.py),
    already logged in as admin when this process logged in on `server` before."""
    state = _logins.get(str(server.data))
    context = chromium_shared().new_context(**{"viewport": {"width": 1280, "height": 900},
                                               "locale": "en-US", **options},
                                            storage_state=state)
    # A wait for the page, not a speed check: it returns as soon as the page is there. At 15 s
    # the base suite failed a third of some modules on a two-core machine at load 25 (issue 31).
    context.set_default_timeout(60_000)
    return context


def login_ensure(server: Server, context: BrowserContext) -> None:
    """Log the context in as admin through the login page, unless it came logged in."""
    if str(server.data) in _logins:
        return
    page = context.new_page()
    page.goto(f"{server.url}/")
    page.wait_for_url(f"{server.url}/login/?next=/")
    assert page.title() == "Log in · PersonaLab"
    screenshot_take(page, "01_login")
    page.fill("input[name=username]", "admin")
    page.fill("input[name=password]", server.password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{server.url}/")
    page.close()
    _logins[str(server.data)] = context.storage_state()


@pytest.fixture(scope="module")
def browser_context(server: Server) -> Iterator[BrowserContext]:
    context = context_new(server)
    context_watched(context)
    try:
        yield context
    finally:
        context.close()


@pytest.fixture(scope="module")
def logged_in(server: Server, browser_context: BrowserContext) -> BrowserContext:
    login_ensure(server, browser_context)
    return browser_context


@pytest.fixture
def page(logged_in: BrowserContext, server: Server) -> Iterator[Page]:
    """The module's page (tests/e2e/kept_page.py: kept from one test to the next, what a test
    changed on it undone), with the page's errors and refusals of this test."""
    server.stub.reset()
    page = page_take(logged_in, _page_opened)
    page.js_errors = []
    # Every page runs under the Content-Security-Policy: anything it refuses (an inline script or
    # handler, a style attribute, a request elsewhere) is a broken feature, so the test fails.
    page.csp_refused = refused = []
    yield page
    page_leave(page, server.url)
    server.stub.reset()  # a reply still hanging ends now
    server_idle_wait(server)
    server.stub.reset()
    assert refused == [], f"the Content-Security-Policy refused: {refused}"


def _page_opened(page: Page) -> None:
    """The listeners a page keeps for its life: each test gets lists of its own to fill."""
    page.on("pageerror", lambda exc: page.js_errors.append(str(exc)))
    page.on("console", lambda message: page.csp_refused.append(message.text)
            if "Content Security Policy" in message.text else None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """A failed browser test says what the stub LLM was asked (each request's route, stream
    flag, last message and the step it took), what it still had scripted, what the page showed
    and the end of the server's log: a request that took a step scripted for another (memory
    work left on a shared server) or a click the page was not ready for is then visible in CI's
    output, not guessed at."""
    outcome = yield
    report = outcome.get_result()
    page, server = item.funcargs.get("page"), item.funcargs.get("server")
    if report.when != "call" or not report.failed or not isinstance(server, Server):
        return
    report.sections.append(("stub LLM requests", stub_described(server.stub)))
    if page is not None:
        report.sections.append(("page", page_described(page)))
    log = server.log.read_text(errors="replace")[-3000:] if server.log.is_file() else ""
    report.sections.append(("daphne log (end)", log))


def stub_described(stub: StubLLM) -> str:
    lines = []
    for number, (route, body, step) in enumerate(zip(stub.paths, stub.requests, stub.taken), 1):
        messages = body.get("messages") or [{"content": body.get("prompt", "")}]
        last = str(messages[-1].get("content", "") if isinstance(messages[-1], dict) else "")
        stream = "stream" if body.get("stream") else "whole"
        lines.append(f"{number}. {route} {stream} last={last[-120:]!r} took={step!r:.120}")
    lines.append(f"still scripted: {stub.scripted()!r:.500}")
    return "\n".join(lines)


def page_described(page: Page) -> str:
    try:
        shown = page.evaluate("() => ({banner: document.getElementById('connection')?.textContent,"
                              " status: document.getElementById('status')?.textContent,"
                              " last: [...document.querySelectorAll('#messages .msg')].slice(-3)"
                              ".map(m => (m.dataset.role || m.className) + ': '"
                              " + (m.querySelector('.text') || m).textContent.trim().slice(0, 120))})")
    except Exception as exc:  # noqa: BLE001 — a closed or crashed page still gets its URL said
        shown = f"(could not read the page: {exc})"
    return f"url={page.url}\n{shown}\njs errors={getattr(page, 'js_errors', None)}"


def server_idle_wait(server: Server, seconds: float = 30) -> None:
    """Until the server runs no turn and the stub answers no request, so that work a test
    left (a round going on to its next character after the page closed, a turn sent as the
    test ended) cannot take a step the next test scripts on the shared server. Free when
    idle; past `seconds` the next test starts anyway (its failure report lists the requests)."""
    deadline = time.monotonic() + seconds
    while ((server.stub.answering or _instance_locks_held(server.process.pid))
           and time.monotonic() < deadline):
        time.sleep(0.02)


def _instance_locks_held(pid: int) -> bool:
    """Whether process `pid` holds a flock: the server takes an instance's lock for each turn
    and round (personalab/lib/locks.py). Read from /proc/locks: taking the lock to test it
    would refuse a turn starting at that moment."""
    try:
        held = Path("/proc/locks").read_text().splitlines()
    except OSError:
        return False
    return any(fields[1:2] == ["FLOCK"] and fields[4:5] == [str(pid)]
               for fields in (line.split() for line in held))


# Screenshots are for a person to look at (`make screenshots`), not checks: a run that nobody
# looks at skips them (issue 31: about 300 a run, 60-150 ms of Chromium's CPU each).
SCREENSHOTS_WANTED = os.environ.get("PERSONALAB_SCREENSHOTS", "") not in ("", "0")


def screenshot_take(page: Page, name: str, *, full_page: bool = True) -> Path:
    """`name`.png in tests/e2e/screenshots/ of the page as it stands, when they are wanted."""
    path = SCREENSHOTS / f"{name}.png"
    if SCREENSHOTS_WANTED:
        SCREENSHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(path), full_page=full_page)
    return path


SCHEMES = ("light", "dark")


def scheme_emulate(page: Page, scheme: str) -> None:
    """The page in `scheme`, once its scripts have seen the change: a colour a script works out
    (accent.js) follows the media query's change event, which can come a frame or more after
    the switch, so it is waited for (a listener added now runs after the page's own)."""
    changes = page.evaluate("""(dark) => {
      const query = matchMedia("(prefers-color-scheme: dark)");
      if (query.matches === dark) return false;
      window.schemeSeen = new Promise((seen) => query.addEventListener(
        "change", () => setTimeout(seen), {once: true}));
      window.schemeQuery = query;  // held, so its listener cannot be collected before it runs
      return true;
    }""", scheme == "dark")
    page.emulate_media(color_scheme=scheme)
    if changes:
        page.evaluate("() => window.schemeSeen")


def screenshots_in_each_scheme(page: Page, name: str, *, full_page: bool = True) -> None:
    """`name`_light and `name`_dark of the page as it stands: its colours follow the scheme
    live (app.css's media queries), so one walk shows both."""
    if not SCREENSHOTS_WANTED:
        return
    for scheme in SCHEMES:
        scheme_emulate(page, scheme)
        screenshot_take(page, f"{name}_{scheme}", full_page=full_page)


def message_send(page: Page, text: str) -> None:
    """Type and press Enter; before the socket opens the page script queues the message and sends it
    on connect, so one Enter is enough. Send is off until the page script listens (an Enter
    before it would be lost): that is waited for, as a player would wait for the button."""
    wait_until(page, "() => !document.querySelector('[data-testid=send]').disabled")
    page.fill("[data-testid=input]", text)
    _until_message_shows(page, lambda: page.press("[data-testid=input]", "Enter"))


def send_click(page: Page) -> None:
    """Click Send and wait until the message shows. Until the click has taken, the page looks
    as idle as after the reply, so a `turn_wait_done` straight after it could return at once
    (a delete of the last reply then took the greeting, the last reply at that moment)."""
    _until_message_shows(page, lambda: page.click("[data-testid=send]"))


def _until_message_shows(page: Page, send: Callable[[], None]) -> None:
    """`send`, then until one more of the player's messages is on the page."""
    sent = page.locator("#messages .msg.user").count()
    send()
    wait_until(page,
        "n => document.querySelectorAll('#messages .msg.user').length > n", arg=sent)


def message_act(message: Locator, testid: str) -> None:
    """A message's action as a player runs it at this width: its labelled button on a laptop,
    the item of its ⋯ menu on a phone (the buttons fold into that menu there)."""
    button = message.locator(f"footer.actions [data-testid={testid}]")
    if button.is_visible():
        button.click()
        return
    message.locator("[data-testid=more]").click()
    message.page.get_by_test_id(f"menu-{testid}").click()


def history_act(row: Locator, name: str) -> None:
    """A row's action as a player runs it at this width: its own control on a laptop, the item
    of its ⋯ menu on a phone."""
    more = row.get_by_test_id("history-more")
    if more.is_visible():
        more.click()
        row.page.get_by_test_id("history-menu").get_by_role("menuitem", name=name).click()
    elif name == "Edit":
        row.locator("summary", has_text="Edit").click()
    else:
        row.locator(".actions button", has_text=name).first.click()


def topnav_open(page: Page) -> None:
    """The top bar's links, language and theme as a player reaches them: on a phone they are
    behind its ≡ Menu."""
    toggle = page.get_by_test_id("nav-toggle")
    if toggle.is_visible() and toggle.get_attribute("aria-expanded") != "true":
        toggle.click()


# Playwright polls a page function on every animation frame unless told otherwise, and a frame
# asked for is a frame drawn: a page waited on spent about 0.1 s of Chromium's CPU per second
# (renderer and GPU process), polled every 40 ms nothing measurable (issue 31: 532 waits,
# 145 s a run).
POLL_MS = 40


def wait_until(page: Page, expression: str, arg: object = None, *,
               timeout: float | None = None) -> JSHandle:
    """Until `expression` (a page function of `arg`) is truthy, checked every POLL_MS."""
    return page.wait_for_function(expression, arg=arg, polling=POLL_MS, timeout=timeout)


# Playwright's own `networkidle` counts a frame's requests across its documents: in a whole run
# it once waited out its 60 s on a history page whose server had answered everything, just
# after a chat page (whose reads a navigation cuts) had stood in the same tab
# (microsoft/playwright#19835 reports the same). This counts only what starts inside the block.
NETWORK_QUIET_S = 0.5


@contextmanager
def network_quiet(page: Page, *, timeout: float = 60) -> Iterator[None]:
    """After the block (a goto, a reload, a click that navigates), until every request the page
    started since the block began has ended and none has started for NETWORK_QUIET_S."""
    open_requests: set = set()
    last = [time.monotonic()]

    def started(request: object) -> None:
        open_requests.add(request)
        last[0] = time.monotonic()

    def ended(request: object) -> None:
        open_requests.discard(request)
        last[0] = time.monotonic()

    page.on("request", started)
    page.on("requestfinished", ended)
    page.on("requestfailed", ended)
    try:
        yield
        deadline = time.monotonic() + timeout
        while open_requests or time.monotonic() - last[0] < NETWORK_QUIET_S:
            if time.monotonic() > deadline:
                urls = sorted(request.url for request in open_requests)
                raise TimeoutError(f"requests still open after {timeout} s: {urls}")
            page.wait_for_timeout(POLL_MS)
    finally:
        page.remove_listener("request", started)
        page.remove_listener("requestfinished", ended)
        page.remove_listener("requestfailed", ended)


def turn_wait_done(page: Page) -> None:
    """Until the turn is over and the page has read the file after it (the list marked busy
    meanwhile): a message menu opened before that read was replaced under the click."""
    wait_until(page, "() => !document.querySelector('[data-testid=send]').disabled"
               " && !document.querySelector('#messages .msg.pending')"
               " && !document.querySelector('#messages[aria-busy=true]')")


def instance_new(page: Page, server: Server) -> str:
    """A new chat with the demo character, open in `page`; its id. Made through the REST API
    with the page's session, as the page's own scripts call it: the home page's form, which
    went through the home page first (a render of every chat on the shared server), is what
    test_browser.py's start of a chat tests."""
    made = page.request.post(f"{server.url}/api/v1/instances",
                             data=json.dumps({"character_id": "char_alserqi"}),
                             headers={"X-CSRFToken": csrf_token(page, server),
                                      "Content-Type": "application/json"})
    assert made.ok, made.text()
    instance_id = made.json()["instance_id"]
    page.goto(f"{server.url}/instances/{instance_id}/")
    return instance_id


def csrf_token(page: Page, server: Server) -> str:
    """The CSRF token of the page's context (its login left the cookie); a context that has
    not loaded a page of the server yet loads the login page for it."""
    token = next((c["value"] for c in page.context.cookies() if c["name"] == "csrftoken"), None)
    if token is None:
        page.goto(f"{server.url}/login/")
        token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    return token


def no_sideways_scroll(page: Page) -> None:
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"page is {width[0]} px wide in a {width[1]} px window"


def phone_page_open(server: Server, *, language: str | None = None) -> Iterator[Page]:
    """A logged-in page on a touch phone (390 × 844) in a context of its own, so a module's
    other pages keep their size and language; `language`: the player's choice ("zh-hans")."""
    yield from own_context_page(server, language=language, viewport=PHONE, is_mobile=True,
                                has_touch=True)


# A context of its own options a test left, kept for the module's next test that asks for the
# same (tests/e2e/kept_page.py), by its server and options; closed when the module ends.
_own_contexts: dict[str, BrowserContext] = {}


def own_context_page(server: Server, *, language: str | None = None,
                     **options: object) -> Iterator[Page]:
    """A logged-in page in a context of `options` (`context_new`'s), as a new context's: its
    cookies the login's (and `language`'s), no storage, its page on no page of the app."""
    key = json.dumps([str(server.data), options], sort_keys=True, default=str)
    context = _own_contexts.pop(key, None)
    if context is None:
        context = context_new(server, **options)
        context_watched(context, color_scheme=str(options.get("color_scheme", "light")))
        login_ensure(server, context)
    if language:
        context.add_cookies([{"name": "django_language", "value": language, "url": server.url}])
    page = page_take(context, _page_opened)
    page.js_errors, page.csp_refused = [], []
    try:
        yield page
    finally:
        login_cookies = _logins.get(str(server.data), {}).get("cookies")
        if (page_leave(page, server.url) and login_cookies is not None
                and context_emptied(context, page, login_cookies)):
            _own_contexts[key] = context
        else:
            context.close()


@pytest.fixture(scope="module", autouse=True)
def own_contexts_closed() -> Iterator[None]:
    yield
    while _own_contexts:
        _own_contexts.popitem()[1].close()
