"""Settings are parsed once, strictly, at start-up (personalab/settings.py): a value that does not
parse stops the start with the variable's name instead of being silently read as something else."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
START = "import django; django.setup(); from django.conf import settings; print(settings.DEBUG)"


def _start(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "personalab.settings",
                   "SECRET_KEY": "test-secret", "PERSONALAB_DATA_DIR": str(tmp_path / "data"),
                   **env}
    return subprocess.run([sys.executable, "-c", START], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("name, value", [
    ("DEBUG", "ture"), ("PERSONALAB_EMBED_THREADS", "x"), ("PERSONALAB_LLM_TIMEOUT", "soon"),
    ("PERSONALAB_MAX_MESSAGE_CHARS", "20k"), ("LOG_LEVEL", "loud")])
def test_an_unparsable_variable_stops_the_start_naming_it(tmp_path, name, value):
    done = _start(tmp_path, **{name: value})
    assert done.returncode != 0
    assert "ImproperlyConfigured" in done.stderr
    assert f"{name}={value!r}" in done.stderr


@pytest.mark.parametrize("value, shown", [("true", "True"), ("on", "True"), ("0", "False"),
                                          ("", "False")])
def test_a_good_debug_value_starts(tmp_path, value, shown):
    done = _start(tmp_path, DEBUG=value, PERSONALAB_EMBED_THREADS="3", LOG_LEVEL="warning")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == shown
