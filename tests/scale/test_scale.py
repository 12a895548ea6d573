"""Two Daphne workers sharing one data folder, with real Redis, PostgreSQL and a Chroma server,
checked through real WebSockets and REST the way players would meet them (issue 16).

Skips with the reason when redis-server or PostgreSQL is not installed (`.ci/run` installs them
as root). The idle sockets' wait (Redis's read timeout shortened to 8 s and outlived 2.5 times:
tests/scale/test_followers.py) runs while the other checks do; the Redis outage comes last
because it closes the open sockets.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.sync.client import ClientConnection
from websockets.sync.client import connect as connect_sync

from personalab.lib.filestore.store import FileStore
from tests import cluster
from tests.memory.memory_turns import window_newest_keep
from tests.redis_server import RedisServer
from tests.scale.followed_replies import IDLE_READ_TIMEOUT, IDLE_SECONDS, followed_text
from tests.stub_llm import Reply, StubLLM

pytestmark = pytest.mark.scale
LOREBOOKS_MAX = 3  # the account's limit: only the race below makes lorebooks


@dataclass
class ScaleSet:
    workers: cluster.Workers
    redis: RedisServer
    stub: StubLLM
    data_dir: Path
    session_key: str
    token: str
    instance_id: str  # where the checks talk
    quiet_instance_id: str  # where the idle sockets wait: nothing is sent there until the end
    chroma: cluster.ChromaServer
    idle: list[ClientConnection] = field(default_factory=list)
    idle_since: float = 0.0

    def store(self) -> FileStore:
        return FileStore(self.data_dir)

    def rest(self, worker: int) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.workers.origin(worker), timeout=60,
                                 headers={"Authorization": f"Bearer {self.token}"})


@pytest.fixture(scope="module")
def scale(tmp_path_factory) -> Iterator[ScaleSet]:
    reason = cluster.missing_reason() or cluster.chroma_missing_reason()
    if reason:
        pytest.skip(reason)
    root = tmp_path_factory.mktemp("scale")
    (root / "data").mkdir()
    postgres, redis = cluster.PostgresServer(), RedisServer(root)
    chroma, stub = cluster.ChromaServer(root / "chroma"), StubLLM()
    with contextlib.ExitStack() as stack:
        stack.callback(postgres.remove)
        stack.callback(redis.stop)
        stack.callback(chroma.stop)
        stack.callback(stub.stop)
        try:
            postgres.start()
        except RuntimeError as exc:
            pytest.skip(f"PostgreSQL cannot be started here: {exc}")
        redis.start()
        chroma.start()
        env = cluster.worker_env(
            root / "data", REDIS_URL=redis.url, DATABASE_URL=postgres.url,
            PERSONALAB_CHROMA_URL=chroma.url, OPENAI_BASE_URL=stub.base_url,
            OPENAI_API_KEY="scale-key", PERSONALAB_MODEL="stub-model", PERSONALAB_LLM_TIMEOUT="30",
            PERSONALAB_REDIS_READ_TIMEOUT=str(IDLE_READ_TIMEOUT),
            PERSONALAB_LOREBOOKS_PER_ACCOUNT=str(LOREBOOKS_MAX))
        workers = cluster.Workers(env, root)
        stack.callback(workers.stop)
        workers.launch(2)  # they import while the database is migrated
        setup = cluster.app_setup(env, instances=2, memory_indexing=True)
        workers.wait()
        scale = ScaleSet(workers=workers, redis=redis, stub=stub, data_dir=root / "data",
                         session_key=setup["session_key"], token=setup["api_token"],
                         instance_id=setup["instance_ids"][0],
                         quiet_instance_id=setup["instance_ids"][1], chroma=chroma)
        scale.idle = [stack.enter_context(_connect_sync(scale, worker)) for worker in (0, 1)]
        scale.idle_since = time.monotonic()
        yield scale


# --- clients -----------------------------------------------------------------------------


def _connect_sync(scale: ScaleSet, worker: int) -> ClientConnection:
    # No client pings: the socket is idle in both directions, as a tab left open is.
    return connect_sync(scale.workers.ws_url(worker, scale.quiet_instance_id),
                        origin=scale.workers.origin(worker), open_timeout=30, ping_interval=None,
                        additional_headers={"Cookie": f"sessionid={scale.session_key}"})


@contextlib.asynccontextmanager
async def _socket(scale: ScaleSet, worker: int,
                  instance_id: str | None = None) -> AsyncIterator[Any]:
    async with connect(scale.workers.ws_url(worker, instance_id or scale.instance_id),
                       origin=scale.workers.origin(worker), open_timeout=30, ping_interval=None,
                       additional_headers={"Cookie": f"sessionid={scale.session_key}"}) as ws:
        yield ws


@dataclass
class Heard:
    events: list[dict] = field(default_factory=list)
    token_times: list[float] = field(default_factory=list)
    done_at: float = 0.0


async def _until_done(ws: Any, timeout: float = 60) -> Heard:
    heard = Heard()
    async with asyncio.timeout(timeout):
        while not heard.events or heard.events[-1]["type"] != "done":
            event = json.loads(await ws.recv())
            heard.events.append(event)
            if event["type"] == "token":
                heard.token_times.append(time.monotonic())
    heard.done_at = time.monotonic()
    return heard


def _last_assistant(scale: ScaleSet, instance_id: str) -> dict:
    return scale.store().session_read(instance_id, "sess_001").messages[-1]


# --- the checks ----------------------------------------------------------------------------


async def test_a_follower_on_worker_2_gets_worker_1s_reply_live_and_whole(scale):
    # Three seconds of reply: CI once stalled worker 2 for a second on a loaded machine, and the
    # whole of a 0.8 s reply reached its follower just after the sender's `done`.
    reply = "她把灯笼举高了一点，照见了门后的影子。" * 6
    scale.stub.script(Reply(reply, chunk_size=3, delay=0.08))
    async with _socket(scale, 0) as sender, _socket(scale, 1) as follower:
        await sender.send(json.dumps({"type": "send", "content": "门后是谁？"}))
        sent, followed = await asyncio.gather(_until_done(sender), _until_done(follower))
    assert followed_text(followed.events) == reply == followed_text(sent.events)
    assert len(followed.token_times) > 1 and followed.token_times[0] < sent.done_at  # live
    assert _last_assistant(scale, scale.instance_id)["content"] == reply


async def test_a_hundred_players_stream_at_once_on_one_worker(scale):
    # redis-py's 100-connection pool closed some of these tabs with 1011 mid-reply; and with
    # one new PostgreSQL connection per query, 100 connects at once missed Daphne's deadline.
    async with scale.rest(0) as one:
        detail = (await one.get(f"/api/v1/instances/{scale.instance_id}")).json()
        body = {"character_id": detail["character_id"], "background_id": detail["background_id"]}
        created = await asyncio.gather(*[one.post("/api/v1/instances", json=body)
                                         for _ in range(100)])
    instances = [response.json()["instance_id"] for response in created]
    reply = "每个人都听见了自己的回答。" * 6
    scale.stub.script(*[Reply(reply, chunk_size=1, delay=0.02) for _ in instances])
    async with contextlib.AsyncExitStack() as stack:
        tabs = []
        for start in range(0, 100, 25):  # 25 at a time: within Daphne's 5 s accept on a busy box
            tabs += await asyncio.gather(*[stack.enter_async_context(_socket(scale, 0, iid))
                                           for iid in instances[start:start + 25]])
        await asyncio.gather(*[ws.send(json.dumps({"type": "send", "content": "说吧。"}))
                               for ws in tabs])
        heard = await asyncio.gather(*[_until_done(ws) for ws in tabs], return_exceptions=True)
    assert [followed_text(tab.events) if isinstance(tab, Heard) else repr(tab) for tab in heard] \
        == [reply] * 100


async def test_simultaneous_sends_on_two_workers_give_one_reply_and_one_busy(scale):
    reply = "只能有一个人先说话。" * 8
    scale.stub.script(Reply(reply, chunk_size=2, delay=0.02))
    asked_before = len(scale.stub.requests)
    async with _socket(scale, 0) as first, _socket(scale, 1) as second:
        await asyncio.gather(first.send(json.dumps({"type": "send", "content": "我先说！"})),
                             second.send(json.dumps({"type": "send", "content": "不，我先！"})))
        heard = await asyncio.gather(_until_done(first), _until_done(second))
    busy = [event for side in heard for event in side.events
            if event["type"] == "error" and event.get("code") == "busy"]
    assert len(busy) == 1 and busy[0]["message"]
    assert len(scale.stub.requests) == asked_before + 1
    # the loser follows it
    assert followed_text(heard[0].events) == reply == followed_text(heard[1].events)
    lines = scale.store().session_read(scale.instance_id, "sess_001").messages
    assert lines[-1]["content"] == reply
    assert [line["content"] for line in lines[-2:-1]] in (["我先说！"], ["不，我先！"])
    assert sum(line["content"] in ("我先说！", "不，我先！") for line in lines) == 1


async def test_creating_at_once_on_two_workers_never_fails(scale):
    async with scale.rest(0) as one, scale.rest(1) as two:
        detail = (await one.get(f"/api/v1/instances/{scale.instance_id}")).json()
        body = {"character_id": detail["character_id"], "background_id": detail["background_id"]}
        created = await asyncio.gather(
            *[(one, two)[n % 2].post("/api/v1/instances", json=body) for n in range(8)],
            *[(one, two)[n % 2].post("/api/v1/characters", json={"name": f"Racer {n}"})
              for n in range(8)])
    assert [response.status_code for response in created] == [201] * 16, \
        [response.text for response in created if response.status_code != 201]
    instances = {response.json()["instance_id"] for response in created[:8]}
    characters = {response.json()["character_id"] for response in created[8:]}
    assert len(instances) == 8 and len(characters) == 8
    assert all((scale.data_dir / "instances" / iid / "instance_state.json").exists()
               for iid in instances)


async def test_lorebooks_created_at_once_on_two_workers_never_pass_the_limit(scale):
    """Eight creates at once, four on each worker, for an account that may own three: none
    fails otherwise, and the data folder never holds more than three of its books, whatever
    the order in which the workers' rows reach PostgreSQL."""
    async with scale.rest(0) as one, scale.rest(1) as two:
        answers = await asyncio.gather(
            *[(one, two)[n % 2].post("/api/v1/lorebooks", json={"name": f"Racer book {n}",
                                                                "entries": []})
              for n in range(8)])
    codes = [answer.status_code for answer in answers]
    assert set(codes) <= {201, 403} and 201 in codes, [answer.text for answer in answers]
    assert all(answer.json()["error"]["code"] == "limit_reached"
               for answer in answers if answer.status_code == 403)
    written = [path for path in (scale.data_dir / "lorebooks").glob("*/lorebook.json")
               if json.loads(path.read_text())["name"].startswith("Racer book")]
    assert len(written) == codes.count(201) <= LOREBOOKS_MAX


async def _indexed(scale: ScaleSet, instance_id: str, text: str, timeout: float = 240) -> bool:
    # A wait, not a speed check: a worker builds its embedding engine at the first turn it
    # indexes, which took over 60 s at load 20 with the suite's other worker busy beside it (the
    # scale file now starts first: issue 31); a passing run waits no longer.
    import chromadb

    client = await asyncio.to_thread(chromadb.HttpClient, host="127.0.0.1",
                                     port=scale.chroma.port)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):  # the collection appears with the first write
            found = await asyncio.to_thread(client.get_collection("turns").get,
                                            where={"instance_id": instance_id})
            if any(text in document for document in found["documents"]):
                return True
        await asyncio.sleep(0.5)
    return False


async def _said_on_1_recalled_on_2(scale: ScaleSet, said: str, asked: str, fact: str) -> None:
    """`said` answered with `fact` on worker 1, indexed, then `asked` on worker 2 recalls it."""
    scale.stub.script(Reply(fact), Reply("记得。"))
    async with scale.rest(0) as one, scale.rest(1) as two:
        told = await one.post("/api/v1/chat", json={"instance_id": scale.instance_id,
                                                    "query": said})
        assert told.status_code == 200, told.text
        assert await _indexed(scale, scale.instance_id, fact), "worker 1 never indexed it"
        window_newest_keep(scale.store(), 1)  # recall brings back what the prompt does not show
        question = await two.post("/api/v1/chat", json={"instance_id": scale.instance_id,
                                                         "query": asked})
        assert question.status_code == 200, question.text
        trace = (await two.get(f"/api/v1/traces/{question.json()['trace_id']}")).json()
    recalled = [hit["text"] for hit in trace["retrievals"]["hits"][:5]]
    assert any(fact in text for text in recalled), recalled


async def test_a_turn_on_worker_1_is_recalled_on_worker_2(scale):
    await _said_on_1_recalled_on_2(scale, "我们定一个接头暗号吧。", "你还记得我们的接头暗号吗？",
                                   "好，暗号就定为『青鸟衔枝』，千万别告诉别人。")


async def test_with_chroma_stopped_turns_go_on_and_recall_returns_without_a_restart(scale):
    """The turn written while Chroma was down is indexed once it is back, with no manual step:
    the next turn's index sync catches up on everything behind the file's watermark."""
    scale.chroma.stop()
    scale.stub.script(Reply("灯塔那边一直没人。"))
    async with scale.rest(0) as one:
        said = await one.post("/api/v1/chat", json={"instance_id": scale.instance_id,
                                                    "query": "你还记得灯塔那边的事吗？"})
    assert said.status_code == 200, said.text
    warnings = said.json()["warnings"]
    assert [w for w in warnings if w["category"] == "recall_unavailable"], warnings
    scale.chroma.start()
    await _said_on_1_recalled_on_2(scale, "备用钥匙放哪了？", "你还记得备用钥匙放在哪吗？",
                                   "备用钥匙在灯塔第三级台阶下面。")
    assert await _indexed(scale, scale.instance_id, "灯塔那边一直没人。"), \
        "the reply written while Chroma was down was never indexed"


def test_idle_sockets_on_both_workers_live_a_while_then_follow_a_reply(scale):
    time.sleep(max(0.0, IDLE_SECONDS - (time.monotonic() - scale.idle_since)))
    for ws in scale.idle:
        ws.send(json.dumps({"type": "ping"}))
        assert json.loads(ws.recv(timeout=10))["type"] == "pong"
    reply = "安静了一阵之后，她终于开口。"
    scale.stub.script(Reply(reply, chunk_size=2, delay=0.01))
    sender, follower = scale.idle
    sender.send(json.dumps({"type": "send", "content": "你还在吗？"}))
    for ws in (sender, follower):
        events = []
        while not events or events[-1]["type"] != "done":
            events.append(json.loads(ws.recv(timeout=30)))
        assert followed_text(events) == reply


async def test_redis_stopped_is_a_clear_error_and_coming_back_needs_no_restart(scale):
    scale.redis.stop()
    async with scale.rest(0) as one, scale.rest(1) as two:
        refused = await one.post("/api/v1/chat", json={"instance_id": scale.instance_id,
                                                       "query": "有人吗？"})
        assert refused.status_code == 503, refused.text
        error = refused.json()["error"]
        assert error["code"] == "lock_unavailable" and "Redis" in error["message"]
        scale.redis.start()
        scale.stub.script(Reply("在的，刚才断了一下。"), Reply("我一直都在。"))
        answered = await two.post("/api/v1/chat", json={"instance_id": scale.instance_id,
                                                        "query": "有人吗？"})
        assert answered.status_code == 200, answered.text
        assert answered.json()["answer_text"] == "在的，刚才断了一下。"
    async with _socket(scale, 0) as sender, _socket(scale, 1) as follower:
        await sender.send(json.dumps({"type": "send", "content": "那就继续吧。"}))
        sent, followed = await asyncio.gather(_until_done(sender), _until_done(follower))
    assert followed_text(sent.events) == "我一直都在。" == followed_text(followed.events)
