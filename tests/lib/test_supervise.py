"""`manage.py serve`'s supervisor (personalab/lib/supervise.py) with a tiny stand-in server:
a server that dies on its own comes back, one that never started or keeps dying is left down,
and a stop ends the server and everything it started."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from personalab.lib.supervise import Policy, death_said, restart_delay, serve_supervise, supervised

ROOT = Path(__file__).resolve().parents[2]
QUICK = Policy(first_delay=0.01, poll=0.02, stop_grace=5.0)

# Stands in for `manage.py serve --no-supervise … --ready-fd N` (run as `stand_in.py MODE
# --no-supervise FOLDER --ready-fd N`): FOLDER holds its marks.
STAND_IN = """
import os, signal, subprocess, sys, time
mode, folder, fd = sys.argv[1], sys.argv[3], int(sys.argv[-1])
if mode == "fails-to-start":
    sys.exit(2)
os.write(fd, b"ready")
if mode == "dies-at-once":
    sys.exit(3)
first = not os.path.exists(os.path.join(folder, "died"))
if first:
    open(os.path.join(folder, "died"), "w").close()
    os.kill(os.getpid(), signal.SIGKILL)
helper = subprocess.Popen(["sleep", "60"])  # what a server starts: a store probe, a worker
with open(os.path.join(folder, "pids.tmp"), "w") as f:
    f.write(f"{os.getpid()} {helper.pid}")
os.replace(os.path.join(folder, "pids.tmp"), os.path.join(folder, "pids"))
time.sleep(60)
"""


@pytest.fixture
def stand_in(tmp_path: Path) -> Path:
    script = tmp_path / "stand_in.py"
    script.write_text(STAND_IN)
    return script


def test_only_serve_is_supervised_and_never_its_own_server_or_help():
    assert supervised(["manage.py", "serve"])
    assert not supervised(["manage.py", "serve", "--no-supervise"])
    assert not supervised(["manage.py", "serve", "--help"])
    assert not supervised(["manage.py", "migrate"])


def test_restarts_back_off_and_stop_after_the_fifth_death_in_a_row():
    policy = Policy(first_delay=1.0, fast_deaths_max=5)
    assert [restart_delay(fast_deaths=n, policy=policy) for n in range(6)] == [
        1.0, 2.0, 4.0, 8.0, 16.0, None]


def test_the_line_names_the_signal_and_what_it_usually_means():
    assert death_said(-signal.SIGSEGV) == "was killed by SIGSEGV (a crash in native code)"
    assert death_said(-signal.SIGKILL).startswith("was killed by SIGKILL (")
    assert death_said(1) == "exited with code 1"


def test_a_server_that_never_started_is_not_started_again(stand_in: Path, tmp_path: Path):
    said: list[str] = []
    status = serve_supervise(argv=[str(stand_in), "fails-to-start", str(tmp_path)],
                             policy=QUICK, say=said.append)
    assert status == 2
    assert len(said) == 1 and "did not start" in said[0]


def test_a_server_dying_at_once_again_and_again_is_given_up(stand_in: Path, tmp_path: Path):
    said: list[str] = []
    status = serve_supervise(argv=[str(stand_in), "dies-at-once", str(tmp_path)],
                             policy=Policy(**{**QUICK.__dict__, "fast_deaths_max": 3}),
                             say=said.append)
    assert status == 3
    died = "PersonaLab's server exited with code 3"
    assert [line.split(";")[0] for line in said[:2]] == [died, died]
    assert "3 times in a row" in said[-1] and "not starting it again" in said[-1]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc for what lives")
def test_a_killed_server_comes_back_and_a_stop_leaves_nothing_running(
        stand_in: Path, tmp_path: Path):
    supervisor = subprocess.Popen(
        [sys.executable, "-c", "import sys; from personalab.lib.supervise import Policy, "
         "serve_supervise; sys.exit(serve_supervise(argv=sys.argv[1:], policy=Policy("
         "first_delay=0.01, poll=0.02)))", str(stand_in), "comes-back", str(tmp_path)],
        cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        server, helper = map(int, _wait_for(tmp_path / "pids").split())
        supervisor.send_signal(signal.SIGTERM)
        assert supervisor.wait(timeout=10) == 0
    finally:
        supervisor.kill()
    said = supervisor.stderr.read()
    assert "was killed by SIGKILL" in said and "starting it again" in said
    assert not _alive(server) and not _alive(helper)


def _wait_for(path: Path) -> str:
    deadline = time.monotonic() + 20
    while not path.exists():
        assert time.monotonic() < deadline, "the server was not started again"
        time.sleep(0.02)
    return path.read_text()


def _alive(pid: int) -> bool:
    """A process that still runs (a zombie waiting for whoever adopted it has ended)."""
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return False
        if state == "Z":
            return False
        time.sleep(0.02)
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="descriptor limits of Linux")
def test_the_supervisor_waits_on_a_descriptor_numbered_past_1024(stand_in: Path, tmp_path: Path):
    """select() refuses such a descriptor ("filedescriptor out of range"): a full run's test
    worker, holding many files, failed the test above so."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1400:
        pytest.skip("this machine allows fewer than 1,400 open files")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1400), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        said: list[str] = []
        status = serve_supervise(argv=[str(stand_in), "fails-to-start", str(tmp_path)],
                                 policy=QUICK, say=said.append)
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    assert status == 2 and "did not start" in said[0]
