"""A data folder migrated, bootstrapped and seeded with the demo once per run, copied
for every test (or browser-test module) that starts its own Daphne: Django's start-up and the
migrations were most of their setup (a kill -9 test ran manage.py four times, ~30 s on a busy
two-core machine; each browser module once more). A copy is as fresh as a new folder: the
index database, the admin's password, an API token and the secret key all live in it."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_PREPARE = """
import django
django.setup()
from django.core.management import call_command
from chat.models import ApiToken
from django.contrib.auth import get_user_model
call_command("migrate", interactive=False, verbosity=0)
call_command("bootstrap")
call_command("seed_demo")
print(ApiToken.issue(get_user_model().objects.get(username="admin")))
"""


@dataclass(frozen=True)
class Prepared:
    data: Path  # the data folder (its index.sqlite3 included)
    secret: Path  # the PERSONALAB_SECRET_FILE it was made with
    token: str  # an API token of "admin"

    @property
    def password(self) -> str:
        return (self.data / ".admin_password").read_text().strip()


def prepared_env(data: Path, secret: Path) -> dict[str, str]:
    """The environment of a process on `data`: no outside services, the default sqlite index."""
    env = {**os.environ, "PERSONALAB_DATA_DIR": str(data), "PERSONALAB_SECRET_FILE": str(secret)}
    for name in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL", "PERSONALAB_GGUF",
                 "PERSONALAB_CHROMA_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY",
                 "PERSONALAB_MODEL"):
        env.pop(name, None)
    return env


@pytest.fixture(scope="session")
def prepared_data(tmp_path_factory: pytest.TempPathFactory) -> Prepared:
    """Made once per run by the first worker that asks, in the run's temp folder above the
    workers' own, and read by the others (about 4 s of CPU a worker: issue 31). Nobody writes
    in it: every use copies it (prepared_copy)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    base = root / "prepared"
    token = base / "token"
    with (root / "prepared.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not token.is_file():
            token_text = _prepare(base)
            token.write_text(token_text)  # last: the folder is whole once the token is there
    return Prepared(base / "data", base / "secret", token.read_text())


def _prepare(base: Path) -> str:
    """The demo's folder under `base` (a half-made one from a failed attempt replaced); the
    admin's API token."""
    shutil.rmtree(base, ignore_errors=True)
    data = base / "data"
    (data / "modules").mkdir(parents=True)
    # Recall would embed every turn on a background thread; the servers' tests do not need it.
    (data / "modules" / "memory.json").write_text('{"recall_enabled": false}')
    # The browser tests' settings (tests/server_settings.py): the admin's password is hashed
    # with their fast hasher, so no server's first login verifies a PBKDF2 hash (~0.3 s of CPU
    # a server, about 7 s a run: issue 31). Every server that logs in with it runs those
    # settings; the kill -9 tests' servers (the app's settings) use the API token.
    env = {**prepared_env(data, base / "secret"), "DJANGO_SETTINGS_MODULE": "tests.server_settings"}
    done = subprocess.run([sys.executable, "-c", _PREPARE], cwd=ROOT, check=True, env=env,
                          capture_output=True, text=True, timeout=300)
    return done.stdout.strip().splitlines()[-1]


def prepared_copy(prepared: Prepared, target: Path) -> Prepared:
    """A private copy of the prepared folder under `target` (which must not hold `data`)."""
    target.mkdir(parents=True, exist_ok=True)
    shutil.copytree(prepared.data, target / "data")
    shutil.copy2(prepared.secret, target / "secret")
    return Prepared(target / "data", target / "secret", prepared.token)
