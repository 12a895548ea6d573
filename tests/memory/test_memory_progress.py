"""Memory-action progress is readable from any worker: a poll may land on another process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory.runtime import progress_get, progress_set

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def _in_another_worker(data_dir: Path, code: str) -> str:
    script = ("import django; django.setup()\n"
              "from memory.runtime import progress_get, progress_set\n" + code)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "personalab.settings",
           "PERSONALAB_DATA_DIR": str(data_dir)}
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=60, check=True)
    return done.stdout.strip()


def _worker_holding_progress(data_dir: Path, instance: str, text: str) -> subprocess.Popen:
    """Another worker that sets the progress of a memory action and keeps running."""
    script = ("import django, sys; django.setup()\n"
              "from memory.runtime import progress_set\n"
              f"progress_set({instance!r}, {text!r}); print('set', flush=True)\n"
              "sys.stdin.read()\n")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "personalab.settings",
           "PERSONALAB_DATA_DIR": str(data_dir)}
    worker = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert worker.stdout.readline().strip() == "set"
    return worker


def test_progress_set_by_one_worker_is_seen_by_another(data_dir, instance):
    worker = _worker_holding_progress(data_dir, instance, "正在总结第 2 段")
    try:
        assert progress_get(instance) == "正在总结第 2 段"
    finally:
        worker.kill()
        worker.wait()
    progress_set(instance, "写入新会话")
    assert _in_another_worker(data_dir, f"print(progress_get({instance!r}))") == "写入新会话"
    progress_set(instance, None)
    assert _in_another_worker(data_dir, f"print(progress_get({instance!r}))") == "None"


def test_a_stage_is_written_without_waiting_for_the_disk(instance, monkeypatch):
    """A recap rebuild says its stage on the event loop once a part (2,000 parts for a
    10,000-turn chat): each fsync held every other request, up to 164 ms on a loaded disk."""
    def fsync_refused(fd):
        raise AssertionError("a progress line waited for the disk")

    monkeypatch.setattr(os, "fsync", fsync_refused)
    progress_set(instance, "Recapping turns %(first)s–%(last)s", {"first": 1, "last": 5})
    assert progress_get(instance) == "Recapping turns %(first)s–%(last)s"
    progress_set(instance, None)
    assert progress_get(instance) is None


def test_progress_left_by_a_killed_action_stops_showing(data_dir, instance):
    from personalab.lib.filestore.jsonfile import write_json_atomic

    write_json_atomic(data_dir / "instances" / instance / ".memory_progress.json",
                      {"text": "开始", "at": 0})
    assert progress_get(instance) is None


def test_an_action_whose_process_was_killed_says_it_stopped(data_dir, instance, alice_client):
    from memory.runtime import progress_state

    worker = _worker_holding_progress(data_dir, instance, "正在总结第 1 段")
    url = f"/instances/{instance}/memory/progress"
    assert progress_state(instance) == ("running", "正在总结第 1 段", {})
    assert "Working" in alice_client.get(url).content.decode()
    worker.kill()  # kill -9 mid-summarize
    worker.wait()
    assert progress_state(instance) == ("stopped", None, {})
    assert alice_client.get(url).content.decode().startswith("Stopped")


def test_a_stage_with_numbers_reads_in_the_readers_language(data_dir, instance, alice_client):
    """Summarize on a long chat asks in parts: the page says which part, in English or 中文."""
    progress_set(instance, "Asking the model for the story events, part %(part)s of %(parts)s",
                 {"part": 2, "parts": 5})
    url = f"/instances/{instance}/memory/progress"
    assert alice_client.get(url).content.decode() == (
        "Working… Asking the model for the story events, part 2 of 5")
    assert alice_client.get(url, HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode().endswith(
        "请模型整理情节点（第 2 部分，共 5 部分）")
