"""Settings are parsed once, strictly, at start-up (personalab/settings.py): a value that does not
parse stops the start with the variable's name instead of being silently read as something else."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = ROOT / "personalab" / "settings.py"
START = "import django; django.setup(); from django.conf import settings; print(settings.DEBUG)"


def _environment(tmp_path: Path, **env: str) -> dict[str, str]:
    return {**os.environ, "DJANGO_SETTINGS_MODULE": "personalab.settings",
            "SECRET_KEY": "test-secret", "PERSONALAB_DATA_DIR": str(tmp_path / "data"), **env}


def _start(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", START], check=False, cwd=ROOT,
                          env=_environment(tmp_path, **env), capture_output=True, text=True,
                          timeout=120)


def _parsed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **env: str) -> dict[str, Any]:
    """settings.py run as a start runs it, in this process, under `env`: what a start would
    read (a Django start costs a subprocess 1.5 s of CPU; the two subprocess tests below prove
    that a start goes through this parse)."""
    for name, value in _environment(tmp_path, **env).items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(SETTINGS), run_name="personalab.settings")


def test_an_unparsable_variable_stops_a_real_start_naming_it(tmp_path):
    done = _start(tmp_path, DEBUG="ture")
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr
    assert "DEBUG='ture'" in done.stderr


@pytest.mark.parametrize("name, value", [
    ("DEBUG", "ture"), ("PERSONALAB_EMBED_THREADS", "x"), ("PERSONALAB_LLM_TIMEOUT", "soon"),
    ("PERSONALAB_MAX_MESSAGE_CHARS", "20k"), ("LOG_LEVEL", "loud"),
    ("PERSONALAB_PERSONAS_PER_ACCOUNT", "-1"), ("PERSONALAB_SESSIONS_PER_INSTANCE", "lots"),
    ("PERSONALAB_TRASH_DAYS", "30d")])
def test_an_unparsable_variable_stops_the_start_naming_it(tmp_path, monkeypatch, name, value):
    with pytest.raises(ImproperlyConfigured) as stopped:
        _parsed(tmp_path, monkeypatch, **{name: value})
    assert f"{name}={value!r}" in str(stopped.value)


def test_a_good_debug_value_starts_for_real(tmp_path):
    done = _start(tmp_path, DEBUG="on", PERSONALAB_EMBED_THREADS="3", LOG_LEVEL="warning")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


@pytest.mark.parametrize("value, shown", [("true", True), ("on", True), ("0", False),
                                          ("", False)])
def test_a_good_debug_value_starts(tmp_path, monkeypatch, value, shown):
    parsed = _parsed(tmp_path, monkeypatch, DEBUG=value, PERSONALAB_EMBED_THREADS="3",
                     LOG_LEVEL="warning")
    assert parsed["DEBUG"] is shown


def test_migrate_creates_a_new_data_folder_and_prints_no_login_throttles_banner(tmp_path):
    """`export DATABASE_URL=` (empty) means the default sqlite index too, not a traceback; and
    a manage.py command's output does not open with django-axes' banner. One real `migrate`
    (a manage.py start costs seconds of CPU); that an unset DATABASE_URL gives the same
    settings is the next test."""
    data = tmp_path / "fresh" / "data"
    env = {**os.environ, "PERSONALAB_DATA_DIR": str(data),
           "PERSONALAB_SECRET_FILE": str(tmp_path / "secret"),
           "DJANGO_SETTINGS_MODULE": "personalab.settings", "DATABASE_URL": ""}
    done = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], check=False,
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    assert (data / "index.sqlite3").is_file()
    assert "AXES" not in done.stdout + done.stderr


def test_an_unset_or_empty_database_url_is_the_sqlite_index_of_a_new_data_folder(
        tmp_path, monkeypatch):
    monkeypatch.delenv("DATABASE_URL", raising=False)
    unset = _parsed(tmp_path, monkeypatch)["DATABASES"]
    assert (tmp_path / "data").is_dir()  # made for sqlite, which cannot make its folder
    empty = _parsed(tmp_path, monkeypatch, DATABASE_URL="")["DATABASES"]
    assert unset == empty
    assert unset["default"]["NAME"] == str(tmp_path / "data" / "index.sqlite3")


@pytest.mark.parametrize("value, secure", [("", False), ("true", True), ("0", False)])
def test_secure_cookies_are_a_switch_for_a_tls_deployment(tmp_path, monkeypatch, value, secure):
    parsed = _parsed(tmp_path, monkeypatch, PERSONALAB_SECURE_COOKIES=value)
    assert (parsed["SESSION_COOKIE_SECURE"], parsed["CSRF_COOKIE_SECURE"],
            parsed["LANGUAGE_COOKIE_SECURE"]) == (secure, secure, secure)
