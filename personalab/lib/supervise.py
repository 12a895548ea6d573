"""`manage.py serve` (what `make run` runs) keeps its server up: the server runs in a child
process (`serve --no-supervise`), and this small parent starts it again when it dies on its own
(a crash in native code, such as a damaged embedded Chroma segment, which no Python code in the
server can catch: the next start mends the store, docs/decisions/chroma-damaged-store.md).

The parent never loads Django (that would be ~110 MB and ~3 s of CPU at every `make run`), so
manage.py calls it before Django's own command line. Framework-free: stdlib only."""

from __future__ import annotations

import contextlib
import ctypes
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

READY_OPTION = "--ready-fd"
NO_SUPERVISE = "--no-supervise"
PR_SET_PDEATHSIG = 1
# Signals that mean the server itself failed (rather than someone stopping it).
CRASHES = {signal.SIGSEGV: "a crash in native code", signal.SIGBUS: "a crash in native code",
           signal.SIGABRT: "an abort in native code", signal.SIGILL: "a crash in native code",
           signal.SIGKILL: "killed: out of memory, or by hand"}


@dataclass(frozen=True)
class Policy:
    """How soon a dead server is started again, and when the parent stops trying."""

    first_delay: float = 1.0     # seconds; doubled after each death soon after a start
    fast_seconds: float = 60.0   # a server that dies sooner after its start died "at once"
    fast_deaths_max: int = 5     # that many in a row: something is wrong that a restart won't mend
    stop_grace: float = 15.0     # a server asked to stop is killed after this long
    poll: float = 0.5


def supervised(argv: list[str]) -> bool:
    """Whether this command line is `serve` to be run under the supervisor."""
    return len(argv) > 1 and argv[1] == "serve" and not {NO_SUPERVISE, "-h", "--help"} & set(argv)


def restart_delay(*, fast_deaths: int, policy: Policy) -> float | None:
    """Seconds to wait before the next start after `fast_deaths` deaths in a row each soon
    after its start (0: it had run a while); None: give up."""
    if fast_deaths >= policy.fast_deaths_max:
        return None
    return policy.first_delay * 2 ** fast_deaths


def death_said(returncode: int) -> str:
    """How the server ended, for the line the supervisor prints."""
    if returncode >= 0:
        return f"exited with code {returncode}"
    try:
        sig = signal.Signals(-returncode)
    except ValueError:
        return f"was killed by signal {-returncode}"
    why = CRASHES.get(sig)
    return f"was killed by {sig.name}" + (f" ({why})" if why else "")


@dataclass
class _Stop:
    """What Ctrl-C, SIGTERM and SIGHUP did: the first stops the server cleanly (passed on to it),
    a second kills it at once."""

    child: subprocess.Popen | None = None
    asked: int = 0
    stop_signal: int = signal.SIGTERM
    deadline: float | None = None
    grace: float = 15.0
    previous: dict[int, object] = field(default_factory=dict)

    def install(self) -> None:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            self.previous[sig] = signal.signal(sig, self._on_signal)

    def uninstall(self) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)

    def watch(self, child: subprocess.Popen) -> None:
        self.child = child
        if self.asked:  # asked while it was being started
            self.pass_on()

    def _on_signal(self, signum: int, _frame) -> None:
        self.asked += 1
        # Daphne stops cleanly on SIGINT and SIGTERM alike; a closed terminal (SIGHUP) is a
        # stop too.
        self.stop_signal = signal.SIGINT if signum == signal.SIGINT else signal.SIGTERM
        if self.asked == 1:
            self.pass_on()
        elif self.child is not None:
            _group_signal(self.child.pid, signal.SIGKILL)

    def pass_on(self) -> None:
        if self.child is not None and self.deadline is None:
            self.deadline = time.monotonic() + self.grace
            self.child.send_signal(self.stop_signal)  # nothing once it is reaped
            if self.child.returncode is None:  # a stopped server (Ctrl-Z) acts on it once woken
                _group_signal(self.child.pid, signal.SIGCONT)


def serve_supervise(*, argv: list[str], policy: Policy = Policy(),
                    say: Callable[[str], None] | None = None) -> int:
    """Run `argv` (manage.py's own command line) as the server, starting it again after it
    dies on its own; the exit status for the parent."""
    say = say or _say
    child_argv = [sys.executable, argv[0], *argv[1:2], NO_SUPERVISE, *argv[2:]]
    stop = _Stop(grace=policy.stop_grace)
    stop.install()
    try:
        return _loop(child_argv, policy=policy, stop=stop, say=say)
    finally:
        stop.uninstall()


def _loop(child_argv: list[str], *, policy: Policy, stop: _Stop,
          say: Callable[[str], None]) -> int:
    fast_deaths, ever_ready = 0, False
    while not stop.asked:
        started = time.monotonic()
        returncode, ready = _run_once(child_argv, policy=policy, stop=stop)
        if stop.asked or returncode == 0:
            return 0
        if not ready and not ever_ready:
            say("PersonaLab's server did not start (see above); not starting it again.")
            return returncode if returncode > 0 else 1
        ever_ready = ever_ready or ready
        fast_deaths = fast_deaths + 1 if time.monotonic() - started < policy.fast_seconds else 0
        delay = restart_delay(fast_deaths=fast_deaths, policy=policy)
        if delay is None:
            say(f"PersonaLab's server {death_said(returncode)}: {fast_deaths} times in a row "
                f"soon after its start, so not starting it again (see the errors above).")
            return returncode if returncode > 0 else 1
        say(f"PersonaLab's server {death_said(returncode)}; starting it again in {delay:g} s "
            f"(same port).")
        _sleep(delay, stop=stop, step=policy.poll)
    return 0


def _run_once(child_argv: list[str], *, policy: Policy, stop: _Stop) -> tuple[int, bool]:
    """One server, from its start to its end (and its helpers' end): its exit status (minus a
    signal's number when killed by one) and whether it said it was ready."""
    ready_read, ready_write = os.pipe()
    try:
        child = subprocess.Popen([*child_argv, READY_OPTION, str(ready_write)],
                                 pass_fds=(ready_write,), process_group=0,
                                 preexec_fn=_child_setup())
    finally:
        os.close(ready_write)
    stop.watch(child)
    ready = _wait(child, ready_read, policy=policy, stop=stop)
    stop.child, stop.deadline = None, None
    # Whatever the server started (a store probe, export workers) ends with it: a leftover
    # holding the memory store open would keep the next server from checking it.
    _group_end(child.pid, grace=2.0)
    return child.returncode, ready


def _wait(child: subprocess.Popen, ready_read: int, *, policy: Policy, stop: _Stop) -> bool:
    ready, reading = False, True
    try:
        while child.poll() is None:
            if reading:
                if _readable(ready_read, policy.poll):
                    ready = bool(os.read(ready_read, 64))
                    reading = False  # said ready, or ended
            else:
                time.sleep(policy.poll)
            if stop.deadline is not None and time.monotonic() > stop.deadline:
                _group_signal(child.pid, signal.SIGKILL)
        if reading and _readable(ready_read, 0):  # said so, then died at once
            ready = bool(os.read(ready_read, 64))
    finally:
        os.close(ready_read)
    return ready


def _readable(fd: int, timeout: float) -> bool:
    """poll, not select: select refuses a descriptor numbered 1024 or more, which a process
    holding many files (a test worker) hands out."""
    poller = selectors.DefaultSelector()
    with poller:
        poller.register(fd, selectors.EVENT_READ)
        return bool(poller.select(timeout))


def _group_end(pgid: int, *, grace: float) -> None:
    _group_signal(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.05)
    _group_signal(pgid, signal.SIGKILL)


def _group_signal(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def _sleep(seconds: float, *, stop: _Stop, step: float) -> None:
    deadline = time.monotonic() + seconds
    while not stop.asked and time.monotonic() < deadline:
        time.sleep(min(step, max(0.0, deadline - time.monotonic())))


def _child_setup() -> Callable[[], None]:
    """The server runs in a process group of its own, so the terminal's Ctrl-C reaches only the
    parent (which passes it on once). There it is a background group: a terminal set to
    `stty tostop` would stop it at its first line of output, unless it ignores that signal.
    On Linux it is also told to stop when the parent dies, even by SIGKILL: no orphan keeps
    the port."""
    prctl = ctypes.CDLL(None, use_errno=True).prctl if sys.platform.startswith("linux") else None

    def setup() -> None:
        signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        signal.signal(signal.SIGTTIN, signal.SIG_IGN)
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    return setup


def _say(line: str) -> None:
    print(f"\n  {line}\n", file=sys.stderr, flush=True)
