"""Shared fixtures: a temp data dir per test, alice / bob / staff, the demo library, an instance,
and the OpenAI-compatible stub server (tests/stub_llm.py)."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# Bytecode is cached for the run even where the machine sets PYTHONDONTWRITEBYTECODE (issue 31):
# without it every xdist worker rewrites every test module's asserts and every server a test
# starts (Daphne, manage.py) compiles the project again: 21-24 s of CPU per worker to collect
# instead of 11 s. Set before xdist starts its workers and before any test starts a server, so
# they inherit it; the __pycache__ folders are ignored by git.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.utils import translation

from tests.browser import chromium_close
from tests.collector import collector_relaxed
from tests.db_flush import flush_keeps_post_migrate_rows
from tests.embedding_cache import engines_remember, remembering_set
from tests.file_order import durations_read, file_order_key
from tests.fsync_off import fsync_off
from tests.prepared_data import prepared_data  # noqa: F401 — fixture
from tests.stub_llm import stub_llm, stub_llm_server  # noqa: F401 — fixtures

collector_relaxed()
fsync_off()

# The test database is a file, as the app's is (a WAL file with a busy timeout). pytest-django's
# default for SQLite is a shared-cache memory database, whose table locks fail a reader at once
# ("database table is locked") while another thread writes: tests that start chats from several
# threads failed so on a loaded machine, where the app waits. In /dev/shm where there is one, so
# it costs no disk; the folder is made once, before xdist starts its workers, which inherit it.
_SQLITE = settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
_TEST_DB_DIR_MADE = _SQLITE and "PERSONALAB_TEST_DB_DIR" not in os.environ
if _TEST_DB_DIR_MADE:
    os.environ["PERSONALAB_TEST_DB_DIR"] = tempfile.mkdtemp(
        prefix="personalab-test-db-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
if _SQLITE:
    settings.DATABASES["default"].setdefault("TEST", {})["NAME"] = str(
        Path(os.environ["PERSONALAB_TEST_DB_DIR"]) / "index.sqlite3")

# pytest-django has read the settings already, and servers the tests start read the
# environment: both are set.
os.environ["PERSONALAB_OFFLINE_DELAY"] = "0"
settings.PERSONALAB_OFFLINE_DELAY = 0
# No periodic catch-up of the memory index in test processes (tests call memory.vectors.sync
# directly).
os.environ["PERSONALAB_INDEX_CATCHUP_SECONDS"] = "0"
settings.PERSONALAB_INDEX_CATCHUP_SECONDS = 0
# No embedding engines built when a test server starts (personalab/asgi.py); the tests that
# embed build them on first use.
os.environ["PERSONALAB_EMBED_PRELOAD"] = "0"
settings.PERSONALAB_EMBED_PRELOAD = False
# One account connects the chat socket for every test a process runs (page loads in the browser
# modules, communicators here): a fast machine can pass 240 a minute. The limit has its own
# tests (tests/chat/test_consumer.py), which set it.
os.environ["PERSONALAB_SOCKET_CONNECTS_PER_MINUTE"] = "1000000"
settings.PERSONALAB_SOCKET_CONNECTS_PER_MINUTE = 1_000_000
# Exports in the test process: a worker process would not see the test database.
settings.PERSONALAB_EXPORT_PROCESSES = 0
for _name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PERSONALAB_MODEL", "PERSONALAB_GGUF",
              "PERSONALAB_CHROMA_URL", "REDIS_URL", "DATABASE_URL"):
    os.environ.pop(_name, None)
for _name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "PERSONALAB_MODEL", "PERSONALAB_GGUF"):
    setattr(settings, _name, "")  # the offline demo unless a test names an endpoint


# channels' test client waits 1 s for a connect or a frame unless told otherwise: a
# wait, not a speed check, which a loaded two-core machine outlasted (issue 31: a consumer test
# failed at load 25 with four workers). The defaults become 30 s; a passing test waits no
# longer, and a test that names its timeout keeps it. (A disconnect keeps its 1 s: it waits for
# the consumer to end, which a turn still streaming would stretch.)
PATIENCE_SECONDS = 30
_ws_connect = WebsocketCommunicator.connect
_ws_receive_from = WebsocketCommunicator.receive_from
_ws_receive_json_from = WebsocketCommunicator.receive_json_from


async def _connect_patient(self: WebsocketCommunicator,
                           timeout: float = PATIENCE_SECONDS) -> tuple[bool, int | None]:
    return await _ws_connect(self, timeout)


async def _receive_from_patient(self: WebsocketCommunicator,
                                timeout: float = PATIENCE_SECONDS) -> str | bytes:
    return await _ws_receive_from(self, timeout)


async def _receive_json_from_patient(self: WebsocketCommunicator,
                                     timeout: float = PATIENCE_SECONDS) -> Any:
    return await _ws_receive_json_from(self, timeout)


WebsocketCommunicator.connect = _connect_patient
WebsocketCommunicator.receive_from = _receive_from_patient
WebsocketCommunicator.receive_json_from = _receive_json_from_patient


@pytest.fixture(autouse=True)
def _language_reset():
    """A test that switches to 中文 (a page request, an activate()) leaves the thread in it;
    the next test on the same worker would read Chinese messages."""
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def _memory_jobs_dropped():
    """The memory work a test queued and did not wait for is dropped at its end: its data
    folder is thrown away. An import with recall on queues a dense fill of its lines: six
    tests importing 400 messages each left about 150 s of e5 and MiniLM work on the worker's
    memory thread, which ran while the next tests did, and a later test's own fill waited
    behind it past its 60 s. A test that wants its work done drains it (`memory_on`) first."""
    yield
    from memory import runtime  # here, not at the top: conftest is imported before Django is set up

    runtime.jobs_drop()


@pytest.fixture(autouse=True)
def _chroma_closed(tmp_path):
    """The Chroma stores a test opened in its folder are stopped at its end: chromadb keeps an
    embedded store's system (SQLite connections, HNSW files, a runtime's threads) for the whole
    process, and a worker held 900-1,170 files open after a whole run. The app's indexes are
    not closed by the app itself: a server has one data folder, and a thread may still hold a
    collection of an index that another forgets."""
    yield
    if "chromadb" not in sys.modules:  # no test of this process opened a store yet
        return
    # here: a process no test of which opened a store never pays chromadb's import
    from chromadb.api.shared_system_client import SharedSystemClient

    from memory import runtime  # here, not at the top: conftest is imported before Django

    runtime.forget_indexes()
    folder = str(tmp_path)
    for identifier in [key for key in SharedSystemClient._identifier_to_system
                       if key.startswith(folder)]:
        system = SharedSystemClient._identifier_to_system.pop(identifier)
        SharedSystemClient._identifier_to_refcount.pop(identifier, None)
        with contextlib.suppress(AttributeError):  # a client closed it already
            system.stop()


@pytest.fixture(autouse=True)
def _embeddings_remembered(request):
    """A text's vector is computed once per test process (tests/embedding_cache.py), except
    in the tests of the engines themselves (`embedding_uncached`)."""
    remembering_set(request.node.get_closest_marker("embedding_uncached") is None)
    yield
    remembering_set(True)


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # A turn waits for its recap roll whole (chat/play/recap_roll.py): a roll past the app's
    # 2 s on a loaded machine would take the answer a test scripted for its next turn.
    settings.PERSONALAB_RECAP_WAIT_SECONDS = 600.0


@pytest.fixture(autouse=True)
def _data_outside_the_checkout(tmp_path, settings):
    """A test that asks for no data folder still never writes into the checkout's data/ (a
    card import test once left five characters in a newcomer's demo)."""
    settings.PERSONALAB_DATA_DIR = tmp_path / "data-unasked"


@pytest.fixture
def data_dir(tmp_path, settings):
    from personalab.lib.filestore.store import FileStore

    root = tmp_path / "data"
    root.mkdir()
    settings.PERSONALAB_DATA_DIR = root
    store = FileStore(root)
    # Recall embeds every finished turn on a background thread; tests of memory turn it on.
    store.module_write("memory", {"recall_enabled": False})
    return root


@pytest.fixture
def store(data_dir):
    from personalab.lib.filestore.store import FileStore

    return FileStore(data_dir)


@pytest.fixture
def alice(db, django_user_model):
    return django_user_model.objects.create_user("alice", password="alice-password")


@pytest.fixture
def auth(alice):
    """alice's bearer token, as the REST API takes it (Django test client keyword)."""
    from chat.models import ApiToken

    return {"HTTP_AUTHORIZATION": f"Bearer {ApiToken.issue(alice)}"}


@pytest.fixture
def as_alice(client, alice):
    """`as_alice(method, url, body=None)`: a REST call with a bearer token of alice's."""
    from tests.rest_client import bearer_caller  # as above

    return bearer_caller(client, alice)


@pytest.fixture
def as_bob(client, bob):
    from tests.rest_client import bearer_caller  # as above

    return bearer_caller(client, bob)


@pytest.fixture
def model_lengths_forgotten():
    """No context length remembered from another test's model server
    (chat/play/model_context.py)."""
    from chat.play.model_context import model_context_forget

    model_context_forget()
    yield
    model_context_forget()


@pytest.fixture
def bob(db, django_user_model):
    return django_user_model.objects.create_user("bob", password="bob-password")


@pytest.fixture
def staff(db, django_user_model):
    return django_user_model.objects.create_user("staff", password="staff-password",
                                                 is_staff=True)


@pytest.fixture
def character(store, alice):
    """Alice's, shared: everyone may play it, only alice (or staff) may change it."""
    from library.character_services import character_save

    return character_save(store, data={"name": "Alserqi", "base_persona": "废土黑帮老大。",
                                       "greeting": "", "tags": "废土", "visibility": "shared"},
                          character_id=None, user=alice)


@pytest.fixture
def background(store, alice):
    from library.background_services import background_save

    return background_save(store, user=alice, data={
        "name": "废土复仇记", "world_setting": "2087年，核战后50年。", "visibility": "shared",
        "story_outline": ["发现背叛者的线索", "潜入敌人据点", "与仇人对峙", "做出关键选择",
                          "应对选择的后果"]})


@pytest.fixture
def instance(store, alice, character, background):
    from chat.services.instances import instance_create

    return instance_create(store, owner=alice, character_id=character,
                           background_id=background)


# A second character of alice's, and a conversation of the two (tests/chat/test_group.py and
# the group tests beside it).
@pytest.fixture
def brenna(store, alice):
    # here, not at the top: conftest is imported before Django is set up
    from library.character_services import character_save

    return character_save(store, user=alice, character_id=None, data={
        "name": "Brenna", "base_persona": "沉默的机械师，左手是义肢。", "greeting": "……嗯。",
        "pinned_prompt": "Brenna 从不说超过两句话。", "visibility": "private"})


# Brenna shared with every account, under a fixed id: the memory tests' Brenna
# (tests/memory/conftest.py) and that of the chat tests that need her shared.
@pytest.fixture
def shared_brenna(store, alice):
    from library.character_services import character_save  # as above

    return character_save(store, user=alice, character_id=None, data={
        "character_id": "mech_7", "name": "Brenna", "base_persona": "沉默的机械师，左手是义肢。",
        "visibility": "shared"})


@pytest.fixture
def group(store, alice, character, brenna, background):
    from chat.services.instances import instance_create  # as above

    return instance_create(store, owner=alice, character_ids=[character, brenna],
                           background_id=background, reply_order="everyone")


# A chat whose card and greeting are written with macros, its player named Mira
# (tests/chat/test_macros_in_chat.py, tests/memory/test_recall_macros.py).
MACRO_GREETING = "Hello {{user}}, I am {{char}}. <USER>? {{scenario}}"


@pytest.fixture
def greeted(store, alice, background):
    from chat.services.instances import instance_create  # as above
    from library.character_services import character_save  # as above

    store.module_write("prompt", {**store.module_read("prompt"), "user_name": "Mira"})
    card = {"spec": "chara_card_v3", "spec_version": "3.0",
            "data": {"name": "Alserqi", "scenario": "A ruined mall.", "first_mes": MACRO_GREETING}}
    character_id = character_save(store, data={
        "name": "Alserqi", "base_persona": "{{char}} protects {{user}}.",
        "greeting": MACRO_GREETING, "card": card})
    return instance_create(store, owner=alice, character_id=character_id,
                           background_id=background)


@pytest.fixture
def alice_client(client, alice):
    client.force_login(alice)
    return client


@pytest.fixture
def use_stub(stub_llm, settings):  # noqa: F811
    settings.OPENAI_BASE_URL = stub_llm.base_url
    settings.OPENAI_API_KEY = "test-key"
    settings.PERSONALAB_MODEL = "stub-model"
    settings.PERSONALAB_LLM_TIMEOUT = 2.0
    return stub_llm


@pytest.fixture
def memory_on(store):
    """Recall on, and after the test the after-turn indexing drained and the index forgotten."""
    from memory import runtime

    store.module_write("memory", {"recall_enabled": True})
    yield
    runtime.drain()
    runtime.forget_indexes()


class Encoded(list):
    """The passage texts e5 ran, in call order (a pair is "line before\nline"); `queries` the
    query texts."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []


@pytest.fixture
def encoded(monkeypatch) -> Encoded:
    """What the passage engine encodes from now on (tests/lib/test_embeddings.py and
    tests/memory/test_fill_lines_once.py count the model's work with it)."""
    from personalab.lib.embedding import embeddings

    engine = embeddings.model_load(role="passage")
    seen = Encoded()
    real = engine.encode_sums

    def recording(texts: list[str], is_query: bool = False):
        (seen.queries if is_query else seen).extend(texts)
        return real(texts, is_query)

    monkeypatch.setattr(engine, "encode_sums", recording)
    return seen


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # pytest-django has ordered the tests by database use (plain db, transactional, none), which
    # spreads a file over up to three runs: without xdist a module's fixtures (a browser module's
    # Daphne and Chromium) would start once per run. A file's tests are kept together, in that
    # order, and the files in the order they first appear within a rank.
    # The files themselves go heaviest first, in blocks (tests/file_order.py).
    first: dict[str, int] = {}
    for position, item in enumerate(items):
        first.setdefault(item.nodeid.split("::", 1)[0], position)
    durations = durations_read()

    def key(item: pytest.Item) -> tuple[int, float, int]:
        path = item.nodeid.split("::", 1)[0]
        return *file_order_key(path, durations), first[path]

    items.sort(key=key)  # stable: pytest-django's order kept within a file


# Most of a browser test and of the scale cluster is waiting (a page, a stream, a server
# starting), so `-n auto` starts one worker more than there are cores: on two cores the suite
# took 6 min 25 s with two workers and 5 min 14 s with four (issue 31), and three workers do the
# same in about 60 s less CPU (each worker starts its own Chromium, Daphne and embedding
# engines, and four processes fought over two cores: 572-606 s of CPU against 645-649 s, the
# wall 313-335 s against 331-332 s, runs interleaved on one machine). Capped: each worker holds
# about 1 GB.
WORKERS_BEYOND_CORES = 1
WORKERS_MAX = 8


@pytest.hookimpl(optionalhook=True)  # unknown under -p no:xdist
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS", "").isdigit():
        return int(os.environ["PYTEST_XDIST_AUTO_NUM_WORKERS"])  # as pytest-xdist reads it
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(WORKERS_MAX, (cores or 1) + WORKERS_BEYOND_CORES))


def pytest_configure(config: pytest.Config) -> None:
    # pytest-xdist (3.x) sorts `--dist loadfile`'s files by their number of tests unless told
    # not to, which undid the heaviest-first order: the sweeps (1-7 tests each, minutes) and the
    # scale cluster ran last, one core idle while the other finished them (issue 31). The order
    # above is kept, as `--no-loadscope-reorder` would keep it.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False
    # The rows post_migrate writes after each transactional test's flush, written back from
    # the first flush's instead of looked up again (tests/db_flush.py).
    flush_keeps_post_migrate_rows()
    engines_remember()


_E2E = Path(__file__).resolve().parent / "e2e"


def pytest_runtest_setup(item: pytest.Item) -> None:
    # The browser modules share one Chromium per process (tests/browser.py); Playwright's loop
    # must be gone before a test outside them runs.
    if not item.path.is_relative_to(_E2E):
        chromium_close()


def pytest_sessionfinish(session: pytest.Session) -> None:
    chromium_close()


def pytest_unconfigure(config: pytest.Config) -> None:
    if _TEST_DB_DIR_MADE:
        shutil.rmtree(os.environ["PERSONALAB_TEST_DB_DIR"], ignore_errors=True)


# PERSONALAB_TEST_COST=path: one JSON line per test file (issue 31), appended when the file's
# last test and its module fixtures are done: wall seconds, CPU seconds of this process, and CPU
# seconds of its children. A child counts only once it is reaped (a module's Daphne at the
# module's end; a session-wide one, such as the prepared data's manage.py run, in the file that
# first needed it; chromium through Playwright's driver when the driver exits). Run it with
# `-p no:xdist`, a folder at a time, so the figures are of one process.
_COST_PATH = os.environ.get("PERSONALAB_TEST_COST")
_cost_start: dict[str, tuple[float, float, float, int]] = {}


def _cost_now() -> tuple[float, float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (time.monotonic(), own.ru_utime + own.ru_stime,
            children.ru_utime + children.ru_stime)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    if not _COST_PATH:
        yield
        return
    path = item.nodeid.split("::", 1)[0]
    if path not in _cost_start:
        _cost_start[path] = (*_cost_now(), 0)
    wall, own, children, tests = _cost_start[path]
    _cost_start[path] = (wall, own, children, tests + 1)
    yield
    if nextitem is None or nextitem.nodeid.split("::", 1)[0] != path:
        del _cost_start[path]
        end = _cost_now()
        record = {"file": path, "tests": tests + 1, "wall": round(end[0] - wall, 2),
                  "cpu_self": round(end[1] - own, 2), "cpu_children": round(end[2] - children, 2)}
        with open(_COST_PATH, "a") as sink:
            sink.write(json.dumps(record) + "\n")

