"""Faults: a full disk during turns, library edits and atomic writes; oversized messages;
ids that try to leave the data folder; malformed WebSocket frames; corrupt session lines;
LLM failures seen through the REST API."""

from __future__ import annotations

import builtins
import errno
import io
import json
import os
from pathlib import Path
from typing import Any, Callable

import pytest
from channels.testing import WebsocketCommunicator
from django.test import Client

from chat.models import ApiToken
from personalab.asgi import application
from personalab.lib.filestore.jsonfile import write_json_atomic
from tests.socket_tabs import session_cookie
from tests.stub_llm import Fail, Garbage, Hang, Reply, refused_url

pytestmark = pytest.mark.django_db(transaction=True)

ENOSPC_TEXT = os.strerror(errno.ENOSPC)


# --- a disk that fills up ------------------------------------------------------------------


class DiskFull:
    """Writes to files under `root` (accepted by `only`) fail with ENOSPC once `free` bytes
    are used up, starting with the write after the first `skip` ones. The bytes that still fit
    are written first, as on a real full disk, so a write can be torn. `failures` limits how
    many writes fail before space comes back."""

    def __init__(self, root: Path, *, free: int = 0, only: Callable[[Path], bool] | None = None,
                 failures: int | None = None, skip: int = 0):
        self.root = Path(root).resolve()
        self.free = free
        self.skip = skip
        self.only = only or (lambda path: True)
        self.failures_left = failures
        self.failed = 0

    @property
    def full(self) -> bool:
        return self.failures_left is None or self.failures_left > 0

    def watches(self, target: Any, mode: str) -> bool:
        if not any(flag in mode for flag in "wax+"):
            return False
        if isinstance(target, int):
            try:
                target = os.readlink(f"/proc/self/fd/{target}")
            except OSError:
                return False
        path = Path(os.fspath(target)).resolve()
        return path.is_relative_to(self.root) and self.only(path)

    def charge(self, size: int) -> int | None:
        """How many bytes of a write of `size` fit, or None when all of it fits."""
        if self.skip > 0:
            self.skip -= 1
            return None
        if not self.full or size <= self.free:
            self.free = self.free - size if self.full else self.free
            return None
        fit, self.free = self.free, 0
        self.failed += 1
        if self.failures_left is not None:
            self.failures_left -= 1
        return fit


class _FullFile:
    def __init__(self, handle: Any, disk: DiskFull):
        self._handle = handle
        self._disk = disk

    def write(self, data: Any) -> int:
        raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        fit = self._disk.charge(len(raw))
        if fit is None:
            return self._handle.write(data)
        if fit:
            piece = raw[:fit]
            self._handle.write(piece.decode("utf-8", "ignore") if isinstance(data, str) else piece)
            self._handle.flush()
        raise OSError(errno.ENOSPC, ENOSPC_TEXT)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)

    def __iter__(self):
        return iter(self._handle)

    def __enter__(self) -> "_FullFile":
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()


@pytest.fixture
def disk_full(monkeypatch, data_dir):
    """Call it to make the data folder's disk full: `disk_full(free=..., only=...)`."""
    real_open = io.open

    def arm(**kwargs: Any) -> DiskFull:
        disk = DiskFull(data_dir, **kwargs)

        def fake_open(file, mode="r", *args, **kw):
            handle = real_open(file, mode, *args, **kw)
            return _FullFile(handle, disk) if disk.watches(file, mode) else handle

        monkeypatch.setattr(io, "open", fake_open)
        monkeypatch.setattr(builtins, "open", fake_open)
        return disk

    yield arm
    monkeypatch.setattr(io, "open", real_open)
    monkeypatch.setattr(builtins, "open", real_open)


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".lock" and "event_library" not in p.parts}


def _temp_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and p.name.endswith(".tmp")]


def _is_session(path: Path) -> bool:
    return path.suffix == ".jsonl" and path.parent.name == "sessions"


@pytest.fixture
def token(alice):
    return ApiToken.issue(alice)


@pytest.fixture
def api(token):
    client = Client(raise_request_exception=False)

    def call(method, url, body=None, **extra):
        payload = (json.dumps(body, ensure_ascii=False) if isinstance(body, (dict, list))
                   else body)
        return getattr(client, method)(url, data=payload, content_type="application/json",
                                       HTTP_AUTHORIZATION=f"Bearer {token}", **extra)
    return call


def _json_error(response) -> dict:
    assert response["Content-Type"].startswith("application/json"), response.content[:300]
    return response.json()["error"]


@pytest.fixture
def read_only(monkeypatch, data_dir):
    """Make the data folder read-only the way a remounted disk is (root ignores chmod)."""
    root = Path(data_dir).resolve()
    real_open, real_os_open = io.open, os.open
    writes = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC

    def inside(file: Any) -> bool:
        return isinstance(file, (str, os.PathLike)) and Path(os.fspath(file)).resolve(
            ).is_relative_to(root) and "event_library" not in Path(os.fspath(file)).parts

    def refuse(file: Any) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(file))

    def fake_open(file, mode="r", *args, **kw):
        if inside(file) and any(flag in mode for flag in "wax+"):
            refuse(file)
        return real_open(file, mode, *args, **kw)

    def fake_os_open(path, flags, *args, **kw):
        if inside(path) and flags & writes and not str(path).endswith(".lock"):
            refuse(path)
        return real_os_open(path, flags, *args, **kw)

    monkeypatch.setattr(io, "open", fake_open)
    monkeypatch.setattr(builtins, "open", fake_open)
    monkeypatch.setattr(os, "open", fake_os_open)


def test_read_only_data_folder_refuses_a_turn_clearly_and_changes_nothing(
        api, instance, data_dir, use_stub, read_only):
    before = _snapshot(data_dir)
    response = api("post", "/api/v1/chat", {"instance_id": instance, "query": "你好"})
    error = _json_error(response)
    assert response.status_code >= 500
    assert "read-only" in error["message"].lower()
    assert _snapshot(data_dir) == before
    assert use_stub.requests == []


def test_read_only_data_folder_refuses_a_library_edit_clearly(api, character, data_dir,
                                                               read_only):
    before = _snapshot(data_dir)
    response = api("put", f"/api/v1/characters/{character}", {"name": "Renamed"})
    assert response.status_code >= 500
    assert "read-only" in _json_error(response)["message"].lower()
    assert _snapshot(data_dir) == before


# --- atomic JSON writes --------------------------------------------------------------------


@pytest.mark.parametrize("free", [0, 1, 17, 200])
def test_atomic_write_on_a_full_disk_keeps_the_old_file_and_no_temp(data_dir, disk_full, free):
    path = data_dir / "instances" / "inst_001" / "instance_state.json"
    write_json_atomic(path, {"version": 1, "text": "旧"})
    before = path.read_bytes()
    disk_full(free=free)
    with pytest.raises(OSError) as failure:
        write_json_atomic(path, {"version": 2, "text": "新" * 500})
    assert failure.value.errno == errno.ENOSPC
    assert path.read_bytes() == before
    assert _temp_files(data_dir) == []


def test_atomic_write_failing_at_fsync_keeps_the_old_file(data_dir, monkeypatch):
    # Delayed allocation: ext4 and NFS report a full disk only when the data is flushed.
    path = data_dir / "characters" / "char_a" / "definition.json"
    write_json_atomic(path, {"name": "A"})

    def fsync(fd):
        raise OSError(errno.ENOSPC, ENOSPC_TEXT)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OSError):
        write_json_atomic(path, {"name": "B"})
    monkeypatch.undo()
    assert json.loads(path.read_text()) == {"name": "A"}
    assert _temp_files(data_dir) == []


def test_session_create_on_a_full_disk_leaves_no_session(store, disk_full):
    disk_full(free=10)
    with pytest.raises(OSError):
        store.session_create("inst_001", "sess_001", lines=[{"type": "summary", "content": "x"}])
    assert not store.session_path("inst_001", "sess_001").exists()
    assert store.session_ids("inst_001") == []


def test_session_create_on_a_full_disk_leaves_no_temp_file(store, disk_full):
    disk_full(free=10)
    with pytest.raises(OSError):
        store.session_create("inst_001", "sess_001", lines=[{"type": "summary", "content": "x"}])
    assert _temp_files(store.root) == []


@pytest.mark.parametrize("free", [5, 40])
def test_torn_session_append_on_a_full_disk_is_rolled_back(store, disk_full, free):
    store.session_create("inst_001", "sess_001")
    store.session_append("inst_001", "sess_001", {"role": "user", "content": "ok", "turn": 1})
    path = store.session_path("inst_001", "sess_001")
    before = path.read_bytes()
    disk_full(free=free, only=_is_session)
    with pytest.raises(OSError):
        store.session_append("inst_001", "sess_001",
                             {"role": "user", "content": "长" * 100, "turn": 2})
    assert path.read_bytes() == before


# --- a full disk during a turn -------------------------------------------------------------


def test_full_disk_at_the_user_line_leaves_every_file_unchanged(api, instance, data_dir,
                                                                 disk_full, use_stub):
    before = _snapshot(data_dir)
    disk_full(free=0, only=_is_session)
    response = api("post", "/api/v1/chat", {"instance_id": instance, "query": "你好"})
    assert response.status_code >= 500
    assert _snapshot(data_dir) == before
    assert use_stub.requests == []


def test_full_disk_at_the_user_line_is_a_json_error(api, instance, disk_full, use_stub):
    disk_full(free=0, only=_is_session)
    response = api("post", "/api/v1/chat", {"instance_id": instance, "query": "你好"})
    error = _json_error(response)
    assert response.status_code in (500, 507)
    assert "space" in error["message"].lower()


def test_disk_filling_once_mid_stream_ends_in_a_whole_error_line(api, instance, store,
                                                                 disk_full, use_stub):
    # Paced, so each piece is a network read of its own and a write of its own (the relay
    # writes what one read brought in one write).
    use_stub.script(Reply("第一段。第二段。第三段。", chunk_size=2, delay=0.05))
    path = store.session_path(instance, "sess_001")
    # The user line, the head of the reply and one token fit; the next token does not.
    disk_full(skip=3, only=_is_session, failures=1)
    response = api("post", "/api/v1/chat", {"instance_id": instance, "query": "说"})
    assert response.status_code == 200
    body = response.json()
    assert body["error"] and ENOSPC_TEXT in body["error"]
    assert body["answer_text"] == body["error"] and body["answer_text"].startswith("第一\n")
    read = store.session_read(instance, "sess_001")
    assert read.problems == [] and read.partial is None
    last = read.messages[-1]
    assert last["error"] is True and last["content"] == body["answer_text"]
    assert [json.loads(line) for line in path.read_text().splitlines()][-1] == last


async def _ws(user, path: str):
    headers = [(b"origin", b"http://127.0.0.1:8000"), (b"host", b"127.0.0.1:8000"),
               (b"cookie", await session_cookie(user))]
    communicator = WebsocketCommunicator(application, path, headers=headers)
    connected, _ = await communicator.connect()
    return communicator, connected


async def _until_done(communicator, timeout=10) -> list[dict]:
    events = []
    while True:
        event = await communicator.receive_json_from(timeout=timeout)
        events.append(event)
        # A stream error (no "code") is followed by "done"; a refused or failed turn is not.
        if event["type"] == "done" or (event["type"] == "error" and "code" in event):
            return events


async def test_disk_full_for_the_whole_stream_tells_the_client_and_recovers(
        alice, instance, store, disk_full, use_stub):
    # Paced: a write per piece (the relay writes what one network read brought at once).
    use_stub.script(Reply("半句话然后磁盘满了" * 5, chunk_size=3, delay=0.02), Reply("恢复了"))
    communicator, connected = await _ws(alice, f"/ws/chat/{instance}/")
    assert connected
    disk = disk_full(skip=4, only=_is_session)
    await communicator.send_json_to({"type": "send", "content": "开始"})
    events = await _until_done(communicator)
    errors = [e for e in events if e["type"] == "error"]
    assert errors and ENOSPC_TEXT in errors[-1]["message"]
    assert disk.failed >= 1
    assert store.instance_lock(instance).acquire().release() is None  # the lock was released

    disk.failures_left = 0  # space is back
    await communicator.send_json_to({"type": "send", "content": "再试"})
    events = await _until_done(communicator)
    assert events[-1]["type"] == "done" and not events[-1]["error"]
    await communicator.disconnect()
    read = store.session_read(instance, "sess_001")
    assert read.problems == [] and read.partial is None
    assert [m["content"] for m in read.messages if m["role"] == "user"] == ["开始", "再试"]
    assert read.messages[-1]["content"] == "恢复了"
    raw = store.session_path(instance, "sess_001").read_text().splitlines()
    assert all(json.loads(line) for line in raw)


def test_full_disk_for_the_trace_keeps_the_reply_and_the_state(api, instance, store, data_dir,
                                                                disk_full, use_stub):
    use_stub.script(Reply("好。[PROGRESS:1:completed]"))
    state_before = (store.instance_dir(instance) / "instance_state.json").read_bytes()
    disk_full(free=0, only=lambda p: p.parent.name in ("traces", instance)
              and p.suffix in (".json", ".tmp") or p.name.endswith(".tmp"))
    response = api("post", "/api/v1/chat", {"instance_id": instance, "query": "走吧"})
    assert response.status_code >= 500 or response.json().get("error")
    assert (store.instance_dir(instance) / "instance_state.json").read_bytes() == state_before
    assert _temp_files(data_dir) == []
    read = store.session_read(instance, "sess_001")
    assert read.problems == [] and read.partial is None
    assert read.messages[-1]["content"] == "好。[PROGRESS:1:completed]"


# --- a full disk during library edits ------------------------------------------------------


def test_full_disk_during_a_character_edit_changes_nothing(api, alice, character, data_dir,
                                                          disk_full):
    before = _snapshot(data_dir)
    disk_full(free=30)
    response = api("put", f"/api/v1/characters/{character}", {"base_persona": "新的设定" * 50})
    assert response.status_code >= 500
    assert _snapshot(data_dir) == before and _temp_files(data_dir) == []
    page = Client(raise_request_exception=False)
    page.force_login(alice)
    response = page.post(f"/library/characters/{character}/", {"name": "X", "base_persona": "y"})
    assert response.status_code >= 400
    assert _snapshot(data_dir) == before and _temp_files(data_dir) == []


def test_full_disk_during_a_library_edit_is_a_json_error(api, character, disk_full):
    disk_full(free=0)
    response = api("put", f"/api/v1/characters/{character}", {"base_persona": "新"})
    error = _json_error(response)
    assert response.status_code in (500, 507) and error["code"]


def test_full_disk_during_an_outline_edit_keeps_the_outline(alice, background, data_dir,
                                                             disk_full):
    before = _snapshot(data_dir)
    disk_full(free=0)
    client = Client(raise_request_exception=False)
    client.force_login(alice)
    response = client.post(f"/library/backgrounds/{background}/outline",
                           {"action": "add", "content": "新的一点"})
    assert response.status_code != 200 or "新的一点" not in response.content.decode()
    assert _snapshot(data_dir) == before and _temp_files(data_dir) == []


# --- oversized messages --------------------------------------------------------------------

TEN_MB = 10 * 1024 * 1024


@pytest.mark.parametrize("query", ["x" * TEN_MB, "长" * (TEN_MB // 3)])
def test_a_10_mb_message_over_rest_is_413_and_writes_nothing(api, instance, store, query,
                                                             use_stub):
    path = store.session_path(instance, "sess_001")
    before = path.read_bytes()
    response = api("post", "/api/v1/chat", {"instance_id": instance, "query": query})
    assert response.status_code == 413
    assert _json_error(response)["code"] == "too_large"
    assert path.read_bytes() == before and use_stub.requests == []


def test_a_body_over_the_upload_limit_is_a_json_413(api, instance):
    response = api("post", "/api/v1/chat", {"instance_id": instance, "query": "x" * (13 << 20)})
    assert response.status_code == 413
    assert _json_error(response)["code"] == "too_large"


async def test_a_10_mb_frame_over_websocket_is_refused_and_writes_nothing(alice, instance, store):
    path = store.session_path(instance, "sess_001")
    before = path.read_bytes()
    communicator, _ = await _ws(alice, f"/ws/chat/{instance}/")
    await communicator.send_to(text_data=json.dumps({"type": "send", "content": "x" * TEN_MB}))
    event = await communicator.receive_json_from(timeout=10)
    assert event["type"] == "error" and event["code"] == "bad_frame"
    await communicator.send_json_to({"type": "ping"})
    assert (await communicator.receive_json_from())["type"] == "pong"
    await communicator.disconnect()
    assert path.read_bytes() == before


async def test_a_message_over_the_limit_inside_a_small_frame_is_413(alice, instance, store,
                                                                    settings):
    settings.PERSONALAB_MAX_MESSAGE_CHARS = 1000
    path = store.session_path(instance, "sess_001")
    before = path.read_bytes()
    communicator, _ = await _ws(alice, f"/ws/chat/{instance}/")
    await communicator.send_json_to({"type": "send", "content": "y" * 1001})
    event = await communicator.receive_json_from(timeout=10)
    assert event["type"] == "error" and event["code"] == "too_large"
    await communicator.disconnect()
    assert path.read_bytes() == before


# --- malformed WebSocket frames ------------------------------------------------------------


@pytest.mark.parametrize("frame", [
    {"bytes_data": b"\x00\x01binary"},
    {"bytes_data": json.dumps({"type": "send", "content": "hi"}).encode()},
    {"text_data": "42"}, {"text_data": "null"}, {"text_data": '"send"'},
    {"text_data": "true"}, {"text_data": " "}, {"text_data": "\ud800"},
    {"text_data": "{" * 300 + "}" * 300},
])
async def test_malformed_frames_get_an_error_and_the_connection_stays_usable(
        alice, instance, store, use_stub, frame):
    communicator, _ = await _ws(alice, f"/ws/chat/{instance}/")
    await communicator.send_to(**frame)
    event = await communicator.receive_json_from(timeout=5)
    assert event["type"] == "error" and event["code"] in ("bad_frame", "bad_json")
    await communicator.send_json_to({"type": "send", "content": "still here?"})
    events = await _until_done(communicator)
    assert events[-1]["type"] == "done" and not events[-1]["error"]
    await communicator.disconnect()
    assert store.session_read(instance, "sess_001").messages[-2]["content"] == "still here?"


@pytest.mark.parametrize("content", [None, 42, ["a"], {"text": "hi"}, ""])
async def test_send_without_text_content_is_refused(alice, instance, store, content):
    before = store.session_path(instance, "sess_001").read_bytes()
    communicator, _ = await _ws(alice, f"/ws/chat/{instance}/")
    await communicator.send_json_to({"type": "send", "content": content})
    event = await communicator.receive_json_from(timeout=5)
    assert event["type"] == "error" and event["code"] == "bad_request"
    await communicator.disconnect()
    assert store.session_path(instance, "sess_001").read_bytes() == before


# --- ids that try to leave the data folder -------------------------------------------------


@pytest.fixture
def outside(tmp_path, data_dir):
    """A file next to the data folder that no request may read, write or create near."""
    secret = tmp_path / "secret.json"
    secret.write_text(json.dumps({"current_session_id": "x", "name": "TOPSECRET"}))
    (tmp_path / "sessions").mkdir()

    def untouched() -> bool:
        found = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")
                       if data_dir not in p.parents and p != data_dir)
        return found == ["secret.json", "sessions"] and "TOPSECRET" in secret.read_text()
    return untouched


ESCAPES = ["..", "%2e%2e", "%2E%2E", "..%2F..%2Fsecret", "%2e%2e%2f%2e%2e%2fsecret",
           "..%5C..%5Csecret", "inst_001%2F..%2F..", "%252e%252e", "..%00", "inst_001%00",
           "%2Fetc%2Fpasswd", "secret.json", "INST_001", "-rf"]


@pytest.mark.parametrize("bad", ESCAPES)
def test_escaping_ids_in_api_urls_are_refused(api, instance, outside, bad):
    urls = [f"/api/v1/instances/{bad}", f"/api/v1/sessions/{bad}",
            f"/api/v1/traces/{bad}", f"/api/v1/characters/{bad}",
            f"/api/v1/backgrounds/{bad}", f"/api/v1/characters/{bad}/card.json",
            f"/api/v1/instances/{instance}/sessions/{bad}/current_response",
            f"/api/v1/instances/{instance}/sessions/{bad}/export",
            f"/api/v1/instances/{bad}/sessions/sess_001/current_response",
            f"/api/v1/sessions/sess_001?instance_id={bad}"]
    for url in urls:
        response = api("get", url)
        assert response.status_code in (400, 404), (url, response.status_code)
        assert b"TOPSECRET" not in response.content
    for url in (f"/api/v1/characters/{bad}", f"/api/v1/backgrounds/{bad}"):
        assert api("put", url, {"name": "x"}).status_code in (400, 404), url
        assert api("delete", url).status_code in (400, 404), url
    assert api("post", f"/api/v1/instances/{bad}/background",
               {"background_id": None}).status_code in (400, 404)
    assert outside()


@pytest.mark.parametrize("bad", ["../secret", "../../x", "a/b", "/etc/passwd", "..", "x\x00",
                                 "secret.json", 7, ["inst_001"], {"id": 1}])
def test_escaping_ids_in_api_bodies_are_refused(api, instance, outside, bad, data_dir):
    before = _snapshot(data_dir)
    calls = [
        ("/api/v1/chat", {"instance_id": bad, "query": "hi"}),
        ("/api/v1/instances", {"character_id": bad}),
        ("/api/v1/instances", {"character_id": "char_alserqi", "background_id": bad}),
        (f"/api/v1/instances/{instance}/background", {"background_id": bad}),
        ("/api/v1/characters", {"name": "X", "character_id": bad}),
        ("/api/v1/backgrounds", {"name": "X", "background_id": bad}),
    ]
    for url, body in calls:
        response = api("post", url, body)
        assert response.status_code in (400, 404), (url, body, response.status_code)
        assert b"TOPSECRET" not in response.content
    assert outside()
    unchanged = {k: v for k, v in _snapshot(data_dir).items() if k in before}
    assert unchanged == before


@pytest.mark.parametrize("bad", ["%2e%2e", "..%2F..%2Fsecret", "%2F..", "..", "inst_001%2F..",
                                 "INST_001", "%00"])
def test_escaping_ids_in_page_urls_are_404(alice_client, instance, outside, bad):
    for url in (f"/instances/{bad}/", f"/instances/{bad}/messages", f"/traces/{bad}/",
                f"/library/characters/{bad}/", f"/library/backgrounds/{bad}/",
                f"/library/lorebooks/{bad}/", f"/instances/{bad}/outline"):
        response = alice_client.get(url)
        assert response.status_code == 404, (url, response.status_code)
    for url in (f"/instances/{bad}/authors_note", f"/instances/{bad}/background",
                f"/library/backgrounds/{bad}/outline", f"/library/lorebooks/{bad}/test"):
        response = alice_client.post(url, {"text": "x", "action": "add", "content": "x"})
        assert response.status_code == 404, (url, response.status_code)
    assert outside()


@pytest.mark.parametrize("bad", ["..", "%2e%2e", "..%2F..%2Fsecret", "inst_001%2F..%2F..",
                                 "INST_001", "%00"])
async def test_escaping_ids_in_the_websocket_path_are_refused(alice, instance, outside, bad):
    try:
        communicator, connected = await _ws(alice, f"/ws/chat/{bad}/")
    except ValueError as no_route:  # a decoded slash matches no route: the socket never opens
        assert "No route found" in str(no_route)
    else:
        assert not connected
        await communicator.disconnect()
    assert outside()


# --- corrupt lines in the middle of a session ----------------------------------------------


def test_corrupt_lines_in_the_middle_warn_and_the_file_keeps_them(api, instance, store,
                                                                  use_stub):
    path = store.session_path(instance, "sess_001")
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"role":"user","content":"第一句","turn":1,"timestamp":"t"}\n')
        handle.write('{"role":"assistant","content":"断了\n')
        handle.write("\x00\x01 binary junk \xff\n")
        handle.write('["a", "list"]\n')
        handle.write('{"role":"assistant","content":"第一句的回答","turn":1,"timestamp":"t"}\n')
    before = path.read_bytes()
    response = api("post", "/api/v1/chat", {"instance_id": instance, "query": "第二句"})
    assert response.status_code == 200
    body = response.json()
    assert body["turn"] == 2 and body["answer_text"] == "stub reply" and not body["error"]
    [warning] = [w for w in body["warnings"] if w["category"] == "corrupt_session_lines"]
    assert warning["current_value"] == 3
    after = path.read_bytes()
    assert after.startswith(before)  # nothing rewritten, the bad lines are still there
    added = [json.loads(line) for line in after[len(before):].decode().splitlines()]
    assert [(line["role"], line["turn"]) for line in added] == [("user", 2), ("assistant", 2)]
    sent = use_stub.requests[-1]["messages"]
    assert [m["content"] for m in sent[-3:]] == ["第一句", "第一句的回答", "第二句"]


# --- LLM failures through the REST API -----------------------------------------------------


@pytest.mark.parametrize("step, words", [
    (Fail(500, "boom"), "500"), (Fail(401, "bad key"), "401"), (Fail(429, "slow down"), "429"),
    (Garbage(), ""), (Hang(10), "timed out"), ("refused", "cannot connect")])
def test_llm_failures_over_rest_are_200_with_a_whole_error_line(api, instance, store, use_stub,
                                                                settings, step, words):
    if step == "refused":
        settings.OPENAI_BASE_URL = refused_url()
    else:
        use_stub.script(step)
    settings.PERSONALAB_LLM_TIMEOUT = 0.5
    response = api("post", "/api/v1/chat", {"instance_id": instance, "query": "你好"})
    assert response.status_code == 200
    body = response.json()
    assert body["error"] and body["error"].startswith("(系统错误: ") and words in body["error"]
    assert body["answer_text"] == body["error"]
    assert not body["interrupted"] and not body["empty"]
    read = store.session_read(instance, "sess_001")
    assert read.problems == [] and read.partial is None
    last = read.messages[-1]
    assert last["error"] is True and last["content"] == body["error"]
    assert last["trace_id"] == body["trace_id"]
    trace = api("get", f"/api/v1/traces/{body['trace_id']}").json()
    assert trace["reply"]["error"] is True
    current = api("get", f"/api/v1/instances/{instance}/sessions/sess_001/current_response").json()
    assert current["status"] == "complete" and current["error"] is True


async def test_llm_failure_over_sse_sends_error_then_done(async_client, instance, use_stub,
                                                          token):
    use_stub.script(Fail(500, "boom"))
    response = await async_client.post(
        "/api/v1/chat", data=json.dumps({"instance_id": instance, "query": "hi", "stream": True}),
        content_type="application/json", headers={"Authorization": f"Bearer {token}"})
    body = b"".join([chunk async for chunk in response.streaming_content]).decode()
    kinds = [block.split("\n")[0].removeprefix("event: ") for block in body.strip().split("\n\n")]
    assert kinds[-2:] == ["error", "done"]
    done = json.loads(body.strip().split("\n\n")[-1].split("\n")[1].removeprefix("data: "))
    assert done["error"] is True


# --- a full disk during a change at the end of a session (personalab/lib/session_tail.py) --


@pytest.mark.parametrize("only", [_is_session, lambda path: ".tail." in path.name],
                         ids=["the session's new tail", "the journal"])
def test_a_change_on_a_full_disk_leaves_the_session_as_it_was(store, disk_full, only):
    store.session_create("inst_001", "sess_001")
    for turn in (1, 2):
        store.session_append("inst_001", "sess_001", {"role": "user", "content": "q", "turn": turn})
        store.session_append("inst_001", "sess_001",
                             {"role": "assistant", "content": "a", "turn": turn})
    path = store.session_path("inst_001", "sess_001")
    before = path.read_bytes()
    disk_full(free=20, only=only, failures=1)  # writing over bytes already there still works
    with pytest.raises(OSError):
        store.session_tail_replace("inst_001", "sess_001", first=3, lines=[
            {"role": "assistant", "content": "长" * 200, "turn": 2}])
    assert path.read_bytes() == before
    assert _temp_files(store.root) == []
    assert not list(path.parent.glob(".*.tail"))
    assert store.session_read("inst_001", "sess_001").lines[-1]["content"] == "a"
