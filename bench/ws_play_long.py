"""A long chat played over a running server's WebSocket, as the page plays it: one player line a
turn from a bench conversation (../shared/bench/realtalk-dev by default), a summarize and an
update-memory every --summarize-every turns through the REST API, and the figures that must not
grow: ms per turn, the server's RSS (anonymous and file-backed), the instance folder's bytes
per turn, the index's lines against its embedded ones (memory jobs piling up).

    PERSONALAB_DATA_DIR=/tmp/l2data HOST=127.0.0.1 PORT=8591 \\
        OPENAI_BASE_URL=http://127.0.0.1:8599/v1 OPENAI_API_KEY=x PERSONALAB_MODEL=stub-model \\
        .venv/bin/python manage.py serve --no-supervise &
    .venv/bin/python bench/ws_play_long.py --stub 8599 --stub-context 4096   # in another shell
    .venv/bin/python bench/ws_play_long.py --port 8591 --data-dir /tmp/l2data --turns 300 \\
        [--group] [--background bg_wasteland] [--server-pid PID] [--state FILE]

--stub PORT serves tests/stub_llm.py until stopped, with a context of --stub-context tokens in
its model list and a 400 "maximum context length" above it (chars / 4 + max_tokens), events JSON
to a summarize, a line to a recap or a persona update, and a `[PROGRESS:N:completed]` marker for
the outline point the prompt names every twelfth reply. --state keeps the instance and the next
turn, so a run killed (or a server killed under it) goes on where it was; a turn cut by the
server going away is sent again once it answers. Prints a line per ten turns and a summary line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import threading
import time
from pathlib import Path

import httpx
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from play_long import conversation_texts

GOAL = re.compile(r"故事大纲第(\d+)点|outline point (\d+)")


def stub_serve(port: int, context: int) -> None:
    # The tests' stub, imported only in this mode: the player needs none of pytest.
    from tests.stub_llm import Fail, Reply, StubLLM

    class SmallContext(StubLLM):
        def _take(self, body, path=""):
            step, wake, number = super()._take(body, path)
            messages = body.get("messages") or [{"content": body.get("prompt", "")}]
            text = "\n".join(str(m.get("content") or "") for m in messages)
            goal = GOAL.search(text)
            if '"events"' in text:
                step = Reply(json.dumps({"events": [{"summary": f"Event {number}: they talked.",
                                                     "plot": "They talked."}]}))
            elif "recap" in text[:600].lower() or "前情提要" in text[:600]:
                step = Reply("They talked and agreed to meet again.")
            elif "evolved persona" in text[:800]:
                step = Reply("Warmer now, trusts the other person more.")
            elif goal and number % 12 == 0:
                step = Reply(f"We found it. [PROGRESS:{goal.group(1) or goal.group(2)}:completed]")
            if len(text) // 4 + int(body.get("max_tokens") or 0) > context:
                step = Fail(400, f"This model's maximum context length is {context} tokens.")
            with self._lock:
                self.requests.clear()  # a long run keeps no request bodies
            return step, wake, number

    stub = SmallContext(port=port, default=Reply("I hear you. " * 12, chunk_size=8))
    stub.models = [{"id": "stub-model", "object": "model", "created": 0, "owned_by": "stub",
                    "context_length": context}]
    print(f"stub at {stub.base_url}, context {context}", flush=True)
    threading.Event().wait()


def login(base: str, data_dir: Path) -> httpx.Client:
    client = httpx.Client(base_url=base, timeout=900)
    client.get("/login/")
    password = (data_dir / ".admin_password").read_text().strip()
    client.post("/login/", data={"username": "admin", "password": password,
                                 "csrfmiddlewaretoken": client.cookies["csrftoken"]},
                headers={"Referer": base + "/login/"})
    client.headers["X-CSRFToken"] = client.cookies["csrftoken"]
    return client


def chat_make(client: httpx.Client, args) -> dict:
    persona = "She keeps the lighthouse, reads the weather and remembers every ship by name. "
    ids = []
    for name in ("Mira", "Rook", "Sable")[:3 if args.group else 1]:
        answer = client.post("/api/v1/characters", json={
            "name": name, "base_persona": persona * max(1, args.card_tokens // 16),
            "greeting": "", "visibility": "private"})
        ids.append(answer.json().get("character_id") or answer.json().get("id"))
    body: dict = {"character_ids": ids} if args.group else {"character_id": ids[0]}
    if args.background:
        body["background_id"] = args.background
    return {"instance_id": client.post("/api/v1/instances", json=body).json()["instance_id"],
            "next": 1}


def server_memory(pid: int | None) -> str:
    """The server's RSS and its two parts: anonymous (the heap: what a leak grows) and
    file-backed (pages of memory-mapped files, such as the embedding tables' rows a text has
    touched: shared with the page cache, bounded by the files' size, given back under pressure)."""
    if not pid:
        return "rss ? MB"
    kinds = {line.split(":")[0]: int(line.split()[1]) / 1024
             for line in Path(f"/proc/{pid}/status").read_text().splitlines()
             if line.startswith(("VmRSS", "RssAnon", "RssFile"))}
    return (f"rss {kinds.get('VmRSS', 0):.0f} MB (anon {kinds.get('RssAnon', 0):.0f}, "
            f"file {kinds.get('RssFile', 0):.0f})")


async def turn_play(socket, text: str, *, group: bool) -> dict:
    """One turn's events up to its `done` (a group's: the round's), or a refusal."""
    started, kinds, record = time.perf_counter(), {}, {}
    await socket.send(json.dumps({"type": "send", "content": text}))
    while True:
        event = json.loads(await asyncio.wait_for(socket.recv(), 300))
        kinds[event["type"]] = kinds.get(event["type"], 0) + 1
        if event["type"] == "warning":
            record.setdefault("warnings", []).append(str(event.get("message"))[:120])
        if event["type"] == "error":
            record["error"] = [event.get("code"), str(event.get("message"))[:160]]
            if event.get("code"):
                break
        if event["type"] == "done" and (not group or event.get("round_end")):
            break
    return {**record, "ms": round((time.perf_counter() - started) * 1000), "events": kinds}


async def play(args) -> None:
    base = f"http://127.0.0.1:{args.port}"
    mine, _, _ = conversation_texts(args.lines)
    client = login(base, args.data_dir)
    state = json.loads(args.state.read_text()) if args.state and args.state.exists() \
        else chat_make(client, args)
    instance_id = state["instance_id"]
    folder = args.data_dir / "instances" / instance_id
    rows, socket = [], None
    while state["next"] <= args.turns:
        number = state["next"]
        try:
            socket = socket or await websockets.connect(
                f"ws://127.0.0.1:{args.port}/ws/chat/{instance_id}/", max_size=None,
                additional_headers={"Cookie": f"sessionid={client.cookies['sessionid']}",
                                    "Origin": base})
            row = {"turn": number, **await turn_play(socket, mine[number * 7 % len(mine)],
                                                     group=args.group)}
        except (OSError, websockets.ConnectionClosed, asyncio.TimeoutError) as exc:
            print(f"turn {number}: {exc!r}; again once the server answers", flush=True)
            socket = None
            await asyncio.sleep(2)
            client = await asyncio.to_thread(_login_again, base, args.data_dir, client)
            continue
        if row.get("error", [None])[0] == "busy":
            await asyncio.sleep(2)
            continue
        rows.append(row)
        if row.get("error"):
            print(f"turn {number}: {row['error']}", flush=True)
        if number % 10 == 0:
            detail = client.get(f"/api/v1/instances/{instance_id}").json()
            director = detail.get("director") or {}
            print(f"turn {number}: {row['ms']} ms, {server_memory(args.server_pid)}, "
                  f"folder {sum(f.stat().st_size for f in folder.rglob('*') if f.is_file())} B, "
                  f"index {detail.get('index')}, sessions {len(detail.get('sessions') or [])}, "
                  f"outline point {director.get('current_index')} "
                  f"done {director.get('points_done')}", flush=True)
        if args.summarize_every and number % args.summarize_every == 0:
            for action in ("summarize", "update_memory"):
                started = time.perf_counter()
                answer = client.post(f"/api/v1/instances/{instance_id}/{action}", json={})
                print(f"turn {number}: {action} {answer.status_code} "
                      f"{time.perf_counter() - started:.1f} s", flush=True)
        state["next"] = number + 1
        if args.state:
            args.state.write_text(json.dumps(state))
    times = [row["ms"] for row in rows]
    print(f"ws_play_long turns={len(rows)} refused={sum(1 for r in rows if r.get('error'))} "
          f"median_ms_first40={statistics.median(times[:40] or [0]):.0f} "
          f"median_ms_last40={statistics.median(times[-40:] or [0]):.0f} "
          f"slowest_ms={max(times or [0])} {server_memory(args.server_pid)}", flush=True)


def _login_again(base: str, data_dir: Path, client: httpx.Client) -> httpx.Client:
    try:
        return login(base, data_dir)
    except httpx.HTTPError:
        return client


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stub", type=int, metavar="PORT")
    parser.add_argument("--stub-context", type=int, default=4096)
    parser.add_argument("--port", type=int, default=8591)
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/l2data"))
    parser.add_argument("--lines", type=Path, default=Path("../shared/bench/realtalk-dev"))
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--group", action="store_true")
    parser.add_argument("--background", default="")
    parser.add_argument("--card-tokens", type=int, default=900)
    parser.add_argument("--summarize-every", type=int, default=100)
    parser.add_argument("--server-pid", type=int)
    parser.add_argument("--state", type=Path)
    args = parser.parse_args()
    if args.stub:
        stub_serve(args.stub, args.stub_context)
    else:
        asyncio.run(play(args))


if __name__ == "__main__":
    main()
