"""One env-driven settings module; every variable is listed in the README."""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: bool) -> bool:
    return os.environ.get(name, str(default)).strip().lower() in ("1", "true", "yes", "on")


def envint(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def envlist(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def _secret_key() -> str:
    """Generated once and kept outside git when SECRET_KEY is unset."""
    if os.environ.get("SECRET_KEY"):
        return os.environ["SECRET_KEY"]
    key_file = Path(os.environ.get("PERSONALAB_SECRET_FILE", BASE_DIR / ".secret_key"))
    if key_file.exists():
        return key_file.read_text().strip()
    key = secrets.token_urlsafe(50)
    key_file.write_text(key)
    key_file.chmod(0o600)
    return key


SECRET_KEY = _secret_key()
DEBUG = envbool("DEBUG", False)
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "http://127.0.0.1:8000,http://localhost:8000")

PERSONALAB_DATA_DIR = Path(os.environ.get("PERSONALAB_DATA_DIR", BASE_DIR / "data")).resolve()
PERSONALAB_CHROMA_URL = os.environ.get("PERSONALAB_CHROMA_URL", "")
# A server process indexes what the files hold and the index does not at startup and then every
# this many seconds (memory/sync.py); 0 turns the catch-up off (each turn still syncs its own).
PERSONALAB_INDEX_CATCHUP_SECONDS = float(os.environ.get("PERSONALAB_INDEX_CATCHUP_SECONDS", "60"))
PERSONALAB_MODEL = os.environ.get("PERSONALAB_MODEL", "")
PERSONALAB_GGUF = os.environ.get("PERSONALAB_GGUF", "")
PERSONALAB_LLM_TIMEOUT = float(os.environ.get("PERSONALAB_LLM_TIMEOUT", "60"))
PERSONALAB_LLM_CONNECT_TIMEOUT = float(os.environ.get("PERSONALAB_LLM_CONNECT_TIMEOUT", "10"))
PERSONALAB_MAX_MESSAGE_CHARS = envint("PERSONALAB_MAX_MESSAGE_CHARS", 20000)
PERSONALAB_MAX_REPLY_CHARS = envint("PERSONALAB_MAX_REPLY_CHARS", 100_000)
REDIS_URL = os.environ.get("REDIS_URL", "")
# Per-account limits on the heavy paths (issue 29): each bounds how long one account can hold
# the server or how much disk one upload can fill. A lorebook past 1,000 entries is beyond any
# shared card we know of; 200 vectorized entries embed in seconds on a CPU, not minutes; a CHARX
# of pictures unpacks to about its own size, so 32 MB unpacked and 20x packed catch zero bombs.
PERSONALAB_LORE_ENTRIES_MAX = envint("PERSONALAB_LORE_ENTRIES_MAX", 1000)
PERSONALAB_LORE_VECTOR_ENTRIES_MAX = envint("PERSONALAB_LORE_VECTOR_ENTRIES_MAX", 200)
PERSONALAB_CHARX_MAX_BYTES = envint("PERSONALAB_CHARX_MAX_BYTES", 32 * 2**20)
PERSONALAB_CHARX_UNPACKED_MAX_BYTES = envint("PERSONALAB_CHARX_UNPACKED_MAX_BYTES", 32 * 2**20)
PERSONALAB_CHARX_MAX_RATIO = envint("PERSONALAB_CHARX_MAX_RATIO", 20)
# Exports and imports read or write whole chats and cards: two at once per account is enough
# for a person and keeps one account from filling every worker thread.
PERSONALAB_EXPORTS_PER_ACCOUNT = envint("PERSONALAB_EXPORTS_PER_ACCOUNT", 2)
PERSONALAB_IMPORTS_PER_ACCOUNT = envint("PERSONALAB_IMPORTS_PER_ACCOUNT", 2)

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "django_htmx",
    "ninja",  # its own Swagger UI files (static/ninja/), so /api/v1/docs needs no CDN
    "axes",
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
                "chat.context_processors.llm_provider",
            ],
        },
    },
]

# Connections are kept (a server database's checked before reuse): opening one per query made a
# burst of 100 WebSocket connects on one worker miss Daphne's 5 s accept deadline (bench/
# concurrency.py --workers 1), and opening SQLite with its pragmas costs ~0.4 ms, paid by every
# turn's trace row between the last token and `done`.
_DATABASE_URL = os.environ.get("DATABASE_URL", "")
DATABASES = {
    "default": dj_database_url.parse(
        # An empty DATABASE_URL (as `export DATABASE_URL=` leaves it) means the default too.
        _DATABASE_URL or f"sqlite:///{PERSONALAB_DATA_DIR / 'index.sqlite3'}",
        conn_max_age=envint("PERSONALAB_DB_CONN_MAX_AGE", 60),
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


def redis_channel_layer(url: str) -> dict:
    """channels-redis blocks 5 s per receive (BZPOPMIN); redis-py 8's own 5 s socket read
    timeout fires first and closes every idle WebSocket with 1011. The read timeout must
    outlast the blocking receive; keepalive and health checks find a dead peer instead.
    A connection pooled before a Redis restart fails on its next use; one retry on a fresh
    connection lets new tabs follow again without restarting the worker."""
    from redis.asyncio.retry import Retry
    from redis.backoff import ExponentialBackoff
    from redis.exceptions import ConnectionError as RedisConnectionError

    host = {"address": url, "socket_timeout": 30, "socket_connect_timeout": 5,
            "socket_keepalive": True, "health_check_interval": 30,
            "retry": Retry(ExponentialBackoff(cap=1.0, base=0.1), 2),
            "retry_on_error": [RedisConnectionError],
            # redis-py 8 caps a pool at 100 connections and fails the 101st at once; a worker
            # with 100 open tabs needs more (each received event cleans up on its own connection).
            "max_connections": envint("PERSONALAB_REDIS_MAX_CONNECTIONS", 2000)}
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
# Username *and* address, so a stranger cannot lock a player out from elsewhere.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend",
                           "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = envint("PERSONALAB_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=envint("PERSONALAB_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_LOCKOUT_TEMPLATE = "login_locked.html"
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False  # its start-up banner would open every manage.py command's output

LANGUAGE_CODE = "en"
# The UI languages; the browser's Accept-Language picks one until the player chooses (cookie).
LANGUAGES = [("en", "English"), ("zh-hans", "中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"
DATA_UPLOAD_MAX_MEMORY_SIZE = 12 * 1024 * 1024

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "INFO")},
    "loggers": {"django.channels.server": {"level": "WARNING"}},
}
