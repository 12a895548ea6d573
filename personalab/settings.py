"""One env-driven settings module; every variable is listed in the README."""

from __future__ import annotations

import math
import os
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from personalab.lib.instruct_presets import BUILT_IN as _INSTRUCT_BUILT_IN
from personalab.lib.story_string import BUILT_IN as _CONTEXT_BUILT_IN

BASE_DIR = Path(__file__).resolve().parent.parent


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "WARN", "ERROR", "CRITICAL", "FATAL", "NOTSET")


# Each variable is parsed once, here, at start-up; a value that does not parse stops the start
# naming the variable (`DEBUG=ture` used to be silently false). An empty value (as `export X=`
# leaves it) means the default.
def _env_raw(name: str) -> str | None:
    raw = os.environ.get(name)
    return raw if raw is not None and raw.strip() else None


def _env_invalid(name: str, raw: str, expected: str) -> ImproperlyConfigured:
    return ImproperlyConfigured(f"Environment variable {name}={raw!r} is not {expected}.")


def env_str(name: str, default: str = "") -> str:
    raw = _env_raw(name)
    return default if raw is None else raw.strip()


def env_bool(name: str, default: bool) -> bool:
    raw = _env_raw(name)
    if raw is None:
        return default
    if raw.strip().lower() in _TRUE:
        return True
    if raw.strip().lower() in _FALSE:
        return False
    raise _env_invalid(name, raw, "a yes/no value (1, true, yes, on / 0, false, no, off)")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = _env_raw(name)
    if raw is None:
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise _env_invalid(name, raw, "a whole number") from None
    if minimum is not None and value < minimum:
        raise _env_invalid(name, raw, f"a whole number of at least {minimum}")
    return value


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    raw = _env_raw(name)
    if raw is None:
        return default
    try:
        value = float(raw.strip())
    except ValueError:
        raise _env_invalid(name, raw, "a number") from None
    if not math.isfinite(value) or value < minimum:
        raise _env_invalid(name, raw, f"a number of at least {minimum:g}")
    return value


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in env_str(name, default).split(",") if item.strip()]


def env_choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    value = env_str(name, default).upper()
    if value not in choices:
        raise _env_invalid(name, os.environ.get(name, ""), f"one of {', '.join(choices)}")
    return value


def _secret_key() -> str:
    """Generated once and kept outside git when SECRET_KEY is unset."""
    if os.environ.get("SECRET_KEY"):
        return os.environ["SECRET_KEY"]
    key_file = Path(env_str("PERSONALAB_SECRET_FILE") or BASE_DIR / ".secret_key")
    if key_file.exists():
        return key_file.read_text().strip()
    key = secrets.token_urlsafe(50)
    key_file.write_text(key)
    key_file.chmod(0o600)
    return key


SECRET_KEY = _secret_key()
DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "http://127.0.0.1:8000,http://localhost:8000")
# Behind TLS (docs/deploy.md) the login, CSRF and language cookies go over HTTPS only: without
# the flag a browser sends them on any plain-HTTP request to the host, where they can be read.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = LANGUAGE_COOKIE_SECURE = env_bool(
    "PERSONALAB_SECURE_COOKIES", False)

PERSONALAB_DATA_DIR = Path(env_str("PERSONALAB_DATA_DIR") or BASE_DIR / "data").resolve()
PERSONALAB_CHROMA_URL = env_str("PERSONALAB_CHROMA_URL")
# A server process indexes what the files hold and the index does not at startup and then every
# this many seconds (memory/vectors/sync.py); 0 turns the catch-up off (each turn still syncs its
# own).
PERSONALAB_INDEX_CATCHUP_SECONDS = env_float("PERSONALAB_INDEX_CATCHUP_SECONDS", 60.0)
# Deleted library items stay restorable this many days, then a server (at start, then daily) or
# `manage.py purge_trash` removes them (library/trash_retention.py); 0 keeps them for ever.
PERSONALAB_TRASH_DAYS = env_int("PERSONALAB_TRASH_DAYS", 30, minimum=0)
# The language model (personalab/lib/llm.py reads these per turn; the settings page can override the
# endpoint and model, never the server's key for another endpoint).
OPENAI_BASE_URL = env_str("OPENAI_BASE_URL")
OPENAI_API_KEY = env_str("OPENAI_API_KEY")
PERSONALAB_MODEL = env_str("PERSONALAB_MODEL")
PERSONALAB_GGUF = env_str("PERSONALAB_GGUF")
# "chat" (default) or "text": one prompt string to {OPENAI_BASE_URL}/completions, built with
# the instruct template (docs/backends.md): chatml (default), llama3, mistral, alpaca, vicuna,
# gemma, metharme, phi, or the path of a SillyTavern instruct preset (.json).
PERSONALAB_COMPLETION_API = env_choice("PERSONALAB_COMPLETION_API", "chat",
                                       ("CHAT", "TEXT")).lower()
PERSONALAB_INSTRUCT_TEMPLATE = env_str("PERSONALAB_INSTRUCT_TEMPLATE")
if (PERSONALAB_INSTRUCT_TEMPLATE and not PERSONALAB_INSTRUCT_TEMPLATE.lower().endswith(".json")
        and PERSONALAB_INSTRUCT_TEMPLATE.lower() not in _INSTRUCT_BUILT_IN):
    raise _env_invalid("PERSONALAB_INSTRUCT_TEMPLATE", PERSONALAB_INSTRUCT_TEMPLATE,
                       f"one of {', '.join(_INSTRUCT_BUILT_IN)} or a .json file")
# Text completion's context template (SillyTavern's story string, docs/backends.md): default,
# minimalist, chatml, llama3, mistral, alpaca, gemma, phi, llama2, or the path of a SillyTavern
# context template (.json), or none (PersonaLab's own headed sections in the system turn);
# empty: default, as SillyTavern lays out a text-completion prompt when nothing is chosen.
PERSONALAB_CONTEXT_TEMPLATE = env_str("PERSONALAB_CONTEXT_TEMPLATE")
if (PERSONALAB_CONTEXT_TEMPLATE and not PERSONALAB_CONTEXT_TEMPLATE.lower().endswith(".json")
        and PERSONALAB_CONTEXT_TEMPLATE.lower() not in (*_CONTEXT_BUILT_IN, "none")):
    raise _env_invalid("PERSONALAB_CONTEXT_TEMPLATE", PERSONALAB_CONTEXT_TEMPLATE,
                       f"one of {', '.join(_CONTEXT_BUILT_IN)}, none, a .json file, or empty")
PERSONALAB_LLM_TIMEOUT = env_float("PERSONALAB_LLM_TIMEOUT", 60.0)
PERSONALAB_LLM_CONNECT_TIMEOUT = env_float("PERSONALAB_LLM_CONNECT_TIMEOUT", 10.0)
# A hostile or broken stream (personalab/lib/sse.py): nothing to show for this long ends the
# reply with an error line, and so does one event line longer than this many bytes.
PERSONALAB_LLM_IDLE_SECONDS = env_float("PERSONALAB_LLM_IDLE_SECONDS", 60.0)
PERSONALAB_LLM_MAX_LINE_BYTES = env_int("PERSONALAB_LLM_MAX_LINE_BYTES", 2 << 20, minimum=1024)
# An answer that is not a stream (summaries, memory updates, recaps, the director; error bodies):
# larger than this many bytes, or not ended this many seconds after its headers, it is refused
# (personalab/lib/llm_body.py).
PERSONALAB_LLM_MAX_BODY_BYTES = env_int("PERSONALAB_LLM_MAX_BODY_BYTES", 4 << 20, minimum=1024)
PERSONALAB_LLM_BODY_SECONDS = env_float("PERSONALAB_LLM_BODY_SECONDS", 60.0)
# What a finished turn waits for its recap roll before it ends; the rest runs on by itself
# (chat/play/recap_roll.py). Not read from the environment: the suite sets it longer, so a roll
# a loaded machine slowed never takes the next turn's scripted answer.
PERSONALAB_RECAP_WAIT_SECONDS = 2.0
PERSONALAB_OFFLINE_DELAY = env_float("PERSONALAB_OFFLINE_DELAY", 0.01)
PERSONALAB_MAX_MESSAGE_CHARS = env_int("PERSONALAB_MAX_MESSAGE_CHARS", 20000, minimum=1)
PERSONALAB_MAX_REPLY_CHARS = env_int("PERSONALAB_MAX_REPLY_CHARS", 100_000, minimum=1)
# Recall's embedding engines (personalab/lib/embedding/), handed over by memory.apps at start-up:
# threads per engine (0 or less = one per core) and the characters of a passage that are embedded.
PERSONALAB_EMBED_THREADS = env_int("PERSONALAB_EMBED_THREADS", 2)
PERSONALAB_EMBED_MAX_CHARS = env_int("PERSONALAB_EMBED_MAX_CHARS", 8000, minimum=1)
# Each chat line through e5 once (its vector with the line before is the sum of both lines'
# token states): half the indexing work, recall@10 -0.005 to -0.015 on the dev chats measured.
# Done for fills of ..._FROM lines or more (a long import, a rebuild; recall through real turns
# moves by up to 0.08 on a set, so not for an ordinary import); 1 = every call, _FROM=0 = none.
PERSONALAB_EMBED_LINES_ONCE = env_bool("PERSONALAB_EMBED_LINES_ONCE", False)
PERSONALAB_EMBED_LINES_ONCE_FROM = env_int("PERSONALAB_EMBED_LINES_ONCE_FROM", 1000, minimum=0)
# Seconds a fill's next passage call waits at most while a turn's recall runs in the process
# (personalab/lib/embedding/give_way.py); 0: fills never wait.
PERSONALAB_FILL_GIVE_WAY_SECONDS = env_float("PERSONALAB_FILL_GIVE_WAY_SECONDS", 2.0)
# The e5 engines are built as the server starts serving (2-5 s, personalab/server_start.py):
# built at the first embedding, they held every other request for 1-3 s (issue 29). Off only
# for tests.
PERSONALAB_EMBED_PRELOAD = env_bool("PERSONALAB_EMBED_PRELOAD", True)
REDIS_URL = env_str("REDIS_URL")
# Where `make run` serves (it passes HOST and PORT on): the bootstrap command prints this address.
SERVE_HOST = env_str("HOST", "127.0.0.1")
SERVE_PORT = env_int("PORT", 8000, minimum=1)
# Per-account limits on the heavy paths (issue 29): each bounds how long one account can hold
# the server or how much disk one upload can fill. A lorebook past 1,000 entries is beyond any
# shared card we know of; 200 vectorized entries embed in seconds on a CPU, not minutes; a CHARX
# of pictures unpacks to about its own size, so 32 MB unpacked and 20x packed catch zero bombs.
PERSONALAB_LORE_ENTRIES_MAX = env_int("PERSONALAB_LORE_ENTRIES_MAX", 1000, minimum=1)
PERSONALAB_LORE_VECTOR_ENTRIES_MAX = env_int("PERSONALAB_LORE_VECTOR_ENTRIES_MAX", 200, minimum=1)
# Per book, as a save embeds them; a turn scores the first 5 linked books that have any, so at
# most 1,000 vectors are read and compared per turn (a turn never embeds them).
PERSONALAB_LORE_VECTOR_BOOKS_MAX = env_int("PERSONALAB_LORE_VECTOR_BOOKS_MAX", 5, minimum=1)
PERSONALAB_CHARX_MAX_BYTES = env_int("PERSONALAB_CHARX_MAX_BYTES", 32 * 2**20, minimum=1)
PERSONALAB_CHARX_UNPACKED_MAX_BYTES = env_int("PERSONALAB_CHARX_UNPACKED_MAX_BYTES", 32 * 2**20,
                                              minimum=1)
PERSONALAB_CHARX_MAX_RATIO = env_int("PERSONALAB_CHARX_MAX_RATIO", 20, minimum=1)
# Exports and imports read or write whole chats and cards: two at once per account is enough
# for a person and keeps one account from filling every worker thread.
# How much one account (or one chat) may hold; 0: no limit (docs/security.md, Limits).
PERSONALAB_PERSONAS_PER_ACCOUNT = env_int("PERSONALAB_PERSONAS_PER_ACCOUNT", 500, minimum=0)
PERSONALAB_CHARACTERS_PER_ACCOUNT = env_int("PERSONALAB_CHARACTERS_PER_ACCOUNT", 5000,
                                            minimum=0)
PERSONALAB_BACKGROUNDS_PER_ACCOUNT = env_int("PERSONALAB_BACKGROUNDS_PER_ACCOUNT", 2000,
                                             minimum=0)
PERSONALAB_LOREBOOKS_PER_ACCOUNT = env_int("PERSONALAB_LOREBOOKS_PER_ACCOUNT", 2000, minimum=0)
PERSONALAB_INSTANCES_PER_ACCOUNT = env_int("PERSONALAB_INSTANCES_PER_ACCOUNT", 5000, minimum=0)
PERSONALAB_SESSIONS_PER_INSTANCE = env_int("PERSONALAB_SESSIONS_PER_INSTANCE", 1000, minimum=0)
PERSONALAB_EXPORTS_PER_ACCOUNT = env_int("PERSONALAB_EXPORTS_PER_ACCOUNT", 2, minimum=1)
PERSONALAB_IMPORTS_PER_ACCOUNT = env_int("PERSONALAB_IMPORTS_PER_ACCOUNT", 2, minimum=1)
# Chat WebSockets one account may hold open on one worker: each connect costs a database check
# on the thread every page view shares, and 1,000 at once from one account held others' pages
# for seconds (red team, 2026-12-02). A player's tabs and devices are far fewer.
PERSONALAB_SOCKETS_PER_ACCOUNT = env_int("PERSONALAB_SOCKETS_PER_ACCOUNT", 200, minimum=1)
# Chat-socket connects one account may make in any minute on one worker (refused ones not
# counted): each costs that database check, a file read and an index follow, and a script
# opening and closing sockets in a loop held no open socket to count. Above
# PERSONALAB_SOCKETS_PER_ACCOUNT, so an account holding its most sockets gets every one back
# after a restart; a page retries at most every 5 s (static/chat/socket.js).
PERSONALAB_SOCKET_CONNECTS_PER_MINUTE = env_int("PERSONALAB_SOCKET_CONNECTS_PER_MINUTE", 240,
                                                minimum=1)
# Replies (turns, rounds, asides, impersonations) and memory actions one account may have
# running at once on one worker (0: no limit): 60 of one account's turns at once over REST made
# another's turn wait 47 s (red team, eighth pass). A player's tabs write a few at most.
PERSONALAB_TURNS_PER_ACCOUNT = env_int("PERSONALAB_TURNS_PER_ACCOUNT", 8, minimum=0)
# Actions (send, trigger, regenerate, continue, aside, impersonate) one chat socket may start
# in a minute; each reads the session store on the thread page views share, and 8 sockets
# sending 350 a second slowed other accounts' pages (red team, 2026-12-02). Ten a second: a
# script playing turns against a fast local model must never meet it.
PERSONALAB_SOCKET_ACTIONS_PER_MINUTE = env_int("PERSONALAB_SOCKET_ACTIONS_PER_MINUTE", 600,
                                               minimum=1)
# Exports run in this many worker processes (chat/import_export/export_process.py), started with
# the first; 0 runs them in the server's own threads (tests).
PERSONALAB_EXPORT_PROCESSES = env_int("PERSONALAB_EXPORT_PROCESSES", 2, minimum=0)
# How often (ms) the server's threads hand the interpreter lock to one waiting for it
# (personalab/asgi.py); Python's own 5 ms made other accounts wait behind a heavy request.
PERSONALAB_GIL_SWITCH_MS = env_float("PERSONALAB_GIL_SWITCH_MS", 0.5, minimum=0.05)

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",  # intcomma: counts shown with the page's digit grouping
    "channels",
    "django_htmx",
    "ninja",  # its own Swagger UI files (static/ninja/), so /api/v1/docs needs no CDN
    "personalab.axes_config.AxesConfig",  # django-axes, its admin heading translated
    "library",
    "chat",
    "director",
    "memory",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "personalab.api.json_errors_middleware",  # JSON 404/405 under /api/v1/
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "personalab.middleware.AppErrorMiddleware",  # a refusal on a page: message or partial
    "axes.middleware.AxesMiddleware",  # last, as django-axes asks
]

ROOT_URLCONF = "personalab.urls"
ASGI_APPLICATION = "personalab.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "chat.pages.context_processors.llm_provider",
                "chat.pages.context_processors.reading",
            ],
        },
    },
]

# Connections are kept (a server database's checked before reuse): opening one per query made a
# burst of 100 WebSocket connects on one worker miss Daphne's 5 s accept deadline (bench/
# concurrency.py --workers 1), and opening SQLite with its pragmas costs ~0.4 ms, paid by every
# turn's trace row between the last token and `done`.
_DATABASE_URL = env_str("DATABASE_URL")
DATABASES = {
    "default": dj_database_url.parse(
        # An empty DATABASE_URL (as `export DATABASE_URL=` leaves it) means the default too.
        _DATABASE_URL or f"sqlite:///{PERSONALAB_DATA_DIR / 'index.sqlite3'}",
        conn_max_age=env_int("PERSONALAB_DB_CONN_MAX_AGE", 60),
        conn_health_checks=bool(_DATABASE_URL),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A new PERSONALAB_DATA_DIR must work on the first `migrate`: sqlite cannot create its folder.
    Path(DATABASES["default"]["NAME"]).parent.mkdir(parents=True, exist_ok=True)
    # The index is rebuildable from the files, so WAL with synchronous=NORMAL is safe here and
    # turns a trace-row commit from milliseconds into microseconds under many concurrent turns.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        init_command="PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        transaction_mode="IMMEDIATE", timeout=20)

# Followers of a streaming reply must not drop tokens while a burst queues up (default 100).
CHANNEL_CAPACITY = 1000


# The Redis read timeout, and how often a connection idle that long is health-checked: it must
# outlast channels-redis's 5 s blocking receive (hence at least 8). The tests of idle sockets
# shorten it, so that sockets idle for a few times it show what a minute would.
PERSONALAB_REDIS_READ_TIMEOUT = env_float("PERSONALAB_REDIS_READ_TIMEOUT", 30.0, minimum=8.0)


def redis_channel_layer(url: str, *, read_timeout: float = PERSONALAB_REDIS_READ_TIMEOUT) -> dict:
    """channels-redis blocks 5 s per receive (BZPOPMIN); redis-py 8's own 5 s socket read
    timeout fires first and closes every idle WebSocket with 1011. The read timeout must
    outlast the blocking receive; keepalive and health checks find a dead peer instead.
    A connection pooled before a Redis restart fails on its next use; one retry on a fresh
    connection lets new tabs follow again without restarting the worker."""
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff
    from redis.exceptions import ConnectionError as RedisConnectionError

    host = {"address": url, "socket_timeout": read_timeout, "socket_connect_timeout": 5,
            "socket_keepalive": True, "health_check_interval": read_timeout,
            "retry": Retry(ExponentialBackoff(cap=1.0, base=0.1), 2),
            "retry_on_error": [RedisConnectionError],
            # redis-py 8 caps a pool at 100 connections and fails the 101st at once; a worker
            # with 100 open tabs needs more (each received event cleans up on its own connection).
            "max_connections": env_int("PERSONALAB_REDIS_MAX_CONNECTIONS", 2000)}
    return {"BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [host], "capacity": CHANNEL_CAPACITY}}


if REDIS_URL:
    CHANNEL_LAYERS = {"default": redis_channel_layer(REDIS_URL)}
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer",
                                  "CONFIG": {"capacity": CHANNEL_CAPACITY}}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"django.contrib.auth.password_validation.{name}"}
    for name in ("UserAttributeSimilarityValidator", "MinimumLengthValidator",
                 "CommonPasswordValidator", "NumericPasswordValidator")
]

# Login throttling (django-axes): after PERSONALAB_LOGIN_FAILURE_LIMIT wrong passwords for one
# username from one address, that pair is locked out for PERSONALAB_LOGIN_COOLOFF_MINUTES.
# Username *and* address, so a stranger cannot lock a player out from elsewhere. Besides,
# PERSONALAB_LOGIN_ADDRESS_FAILURE_LIMIT wrong passwords from one address, whatever the usernames,
# pause logging in from there (0: off): made-up usernames were never locked, and each post hashes
# a password on the thread page views share (personalab/login_throttle.py).
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend",
                           "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = env_int("PERSONALAB_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("PERSONALAB_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_LOCKOUT_TEMPLATE = "login_locked.html"
AXES_HANDLER = "personalab.login_throttle.LoginThrottleHandler"
AXES_LOCKOUT_CALLABLE = "personalab.login_throttle.lockout_response"
PERSONALAB_LOGIN_ADDRESS_FAILURE_LIMIT = env_int("PERSONALAB_LOGIN_ADDRESS_FAILURE_LIMIT", 100,
                                                 minimum=0)
AXES_RESET_ON_SUCCESS = True
# A post refused during a pause is not counted: it writes nothing, so a flood of them costs
# the thread page views share little, and the pause ends its cool-off after the limit was reached.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_VERBOSE = False  # its start-up banner would open every manage.py command's output

LANGUAGE_CODE = "en"
# The UI languages; the browser's Accept-Language picks one until the player chooses (cookie).
LANGUAGES = [("en", "English"), ("zh-hans", "中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
FORMAT_MODULE_PATH = ["personalab.formats"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# Static URLs carry a hash of the files, so browsers keep them until they change
# (personalab/static_files.py; docs/decisions/static-file-caching.md).
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "personalab.static_files.VersionedStaticStorage"},
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
DATA_UPLOAD_MAX_MEMORY_SIZE = 12 * 1024 * 1024
# The largest request body a signed-in request may send (personalab/body_limit.py refuses a
# larger one before Django parses it): the largest upload, a CHARX file, and its multipart framing.
PERSONALAB_REQUEST_MAX_BYTES = max(PERSONALAB_CHARX_MAX_BYTES, DATA_UPLOAD_MAX_MEMORY_SIZE) + 2**20
# The lorebook editor posts about 30 fields per entry: Django's default of 1,000 fields refused
# any book of more than ~33 entries with a bare 400. Room for the largest book allowed.
DATA_UPLOAD_MAX_NUMBER_FIELDS = 40 * PERSONALAB_LORE_ENTRIES_MAX + 200

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_choice("LOG_LEVEL", "INFO", LOG_LEVELS)},
    "loggers": {"django.channels.server": {"level": "WARNING"}},
}

# Content-Security-Policy on every response (django-csp; issue 29). Scripts and styles come only
# from our own static files, so a card, lore or a reply that slips markup past the sanitizer still
# cannot run script, load from another site, frame us or post a form elsewhere.
# First after SecurityMiddleware so that answers made by later middleware (axes' lockout page)
# carry the header too.
MIDDLEWARE.insert(MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1,
                  "csp.middleware.CSPMiddleware")
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        # 'unsafe-inline' for styles only: a page still sets some style attributes the browser
        # tests caught (issue 29 follow-up); styles cannot run script, script-src stays strict.
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],  # CSP 3: 'self' also allows ws:/wss: to this host
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    },
}
