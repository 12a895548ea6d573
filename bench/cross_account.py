"""Does one account's attack slow another account? Account B's API latency while account A runs
each attack of issue 29 against a real server (issue 29, "Done when": B stays under 0.5 s).

    .venv/bin/python bench/cross_account.py [--attacks regex,long_line,useless,exports,charx,vectors]
                                            [--idle 10] [--messages 116000]

Method. Two stub LLMs run as processes of their own (tests/stub_llm.py), one streaming a 30 MB
`data:` line with no newline, one flooding empty deltas for 60 s; a third answers normally. One
Daphne server serves the app; two accounts are made through the app's own code. For each attack
B (a process of its own) GETs its own instance (`/api/v1/instances/{id}`, session cookie) every 50 ms while A:

- regex:     saves a lorebook with the key `/(?:a{2000}){2000}/` (PUT, API token), then saves
             the costliest book the bounds accept and runs "Test this text" on it five times;
- long_line: a turn against the 30 MB line;
- useless:   a turn against the flood of empty deltas (`--idle` sets PERSONALAB_LLM_IDLE_SECONDS;
             the issue's 60 s, shortened);
- exports:   4 parallel JSONL exports of a chat of `--messages` messages;
- charx:     4 parallel imports of a 62 KB CHARX holding 4 x 15 MB of zeros;
- vectors:   a book of 1,000 vectorized entries on A's chat, then one turn (it does not wait
             for the vectors, which the save asked for in the background), then A waits until
             the 200 vectors (PERSONALAB_LORE_VECTOR_ENTRIES_MAX) are on disk and runs one more
             turn: B is probed while the server embeds them;
- cpu:       no request at all: `--burn` processes spinning in pure Python for `--burn-seconds`
             (the export workers' share of the cores), to tell CPU contention from our code;
- big_turn:  one ordinary turn in the chat of `--messages` messages (not an attack of the issue:
             how much a very long chat costs everyone else).

Prints, per attack, what A got and how long it took, the load average before and after, and
B's n / median / p95 / max in ms.
The endpoint for a turn is switched through the settings file (data/modules/llm.json) as the
settings page does.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import io
import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import _harness as h

ATTACKS = ("regex", "long_line", "useless", "exports", "charx", "vectors", "big_turn", "cpu")
GOAL_MS = 500.0


# --- setup (run as a subprocess with the server's environment) ---------------------------


def _account(store, user_model, name: str, *, character: str, background: str) -> dict:
    # The app's modules need django.setup() first, which only the setup subprocess runs.
    from django.test import Client

    from chat.models import ApiToken
    from chat.services.instances import instance_create

    user = user_model.objects.create_user(name, password="bench-password-123")
    instance = instance_create(store, owner=user, character_id=character,
                               background_id=background)
    client = Client()
    client.force_login(user)
    return {"session_key": client.cookies["sessionid"].value, "token": ApiToken.issue(user),
            "instance": instance}


def _big_chat(store, instance: str, messages: int) -> str:
    """`messages` lines appended to the instance's session file at once (as a long import
    would leave them): the same lines a turn writes, without running the turns."""
    session_id = store.instance_state_read(instance)["current_session_id"]
    path = store.session_path(instance, session_id)
    with path.open("a", encoding="utf-8") as out:
        for number in range(messages):
            turn = number // 2 + 1
            role = "user" if number % 2 == 0 else "assistant"
            line = {"role": role, "content": f"第{turn}轮：" + "风从废墟吹过，" * 12,
                    "turn": turn, "timestamp": "2026-01-01T10:00:00Z"}
            out.write(json.dumps(line, ensure_ascii=False) + "\n")
    return session_id


def _setup_main(args: argparse.Namespace) -> None:
    import django

    django.setup()
    # Only now may the app's modules be imported (they need the settings loaded).
    from django.contrib.auth import get_user_model

    from chat.services.instances import instance_create
    from library.background_services import background_save
    from library.character_services import character_save
    from personalab.storage import get_store

    store = get_store()
    store.module_write("memory", {"recall_enabled": False})
    character = character_save(store, data={"name": "Alserqi", "base_persona": "废土黑帮老大。",
                                            "greeting": "", "tags": "废土"}, character_id=None)
    background = background_save(store, data={"name": "废土复仇记",
                                              "world_setting": "2087年，核战后50年。",
                                              "story_outline": ["发现背叛者的线索"]})
    users = get_user_model()
    a = _account(store, users, "attacker_a", character=character, background=background)
    b = _account(store, users, "bystander_b", character=character, background=background)
    # The big chat is an instance of its own: the turn attacks run on a short chat, so what
    # they measure is the attack, not the length of A's chat.
    a["big"] = instance_create(store, owner=users.objects.get(username="attacker_a"),
                               character_id=character, background_id=background)
    a["session_id"] = _big_chat(store, a["big"], args.messages)
    print(json.dumps({"a": a, "b": b}))


def setup_run(data_dir: Path, env: dict[str, str], messages: int) -> dict:
    subprocess.run([h.PYTHON, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=h.REPO,
                   env=env, check=True)
    done = subprocess.run([h.PYTHON, __file__, "setup", "--messages", str(messages)],
                          cwd=h.REPO, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- the bystander -----------------------------------------------------------------------


async def probe(client, url: str, stop: asyncio.Event, out: list[float]) -> None:
    while not stop.is_set():
        started = time.perf_counter()
        response = await client.get(url)
        out.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"B's probe answered {response.status_code}")
        try:
            await asyncio.wait_for(stop.wait(), 0.05)
        except TimeoutError:
            pass


async def _probe_main(args: argparse.Namespace) -> None:
    """B in a process of its own: A's client reading 4 x 44 MB exports, or zipping a CHARX, in
    the same process (and event loop) once showed up as 1-2 s "spikes" of B's that the server
    never had. Probes until stdin closes, then prints the latencies."""
    import httpx

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_reader(sys.stdin.fileno(), stop.set)
    out: list[float] = []
    lags: list[float] = []
    async with httpx.AsyncClient(cookies={"sessionid": args.session}, timeout=900) as client:
        await client.get(args.url)  # warm-up
        print("ready", flush=True)
        beat = asyncio.create_task(heartbeat(stop, lags))
        await probe(client, args.url, stop, out)
        await beat
    print(json.dumps({"ms": [round(v, 1) for v in out], "lag": [round(v, 1) for v in lags]}),
          flush=True)


async def heartbeat(stop: asyncio.Event, lags: list[float]) -> None:
    """How late B's own process wakes from a 20 ms sleep: B does next to nothing, so a late
    wake-up is the machine's CPU not given to it, not the server's doing."""
    while not stop.is_set():
        started = time.perf_counter()
        await asyncio.sleep(0.02)
        lags.append((time.perf_counter() - started) * 1000 - 20)


async def while_probed(b: dict, b_url: str, attack) -> tuple[dict, str, float]:
    prober = await asyncio.create_subprocess_exec(
        h.PYTHON, __file__, "probe", "--url", b_url, "--session", b["session_key"],
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 26)
    await prober.stdout.readline()  # "ready"
    await asyncio.sleep(0.3)  # B's loop is running before A starts
    started = time.perf_counter()
    try:
        outcome = await attack()
    finally:
        took = time.perf_counter() - started
        prober.stdin.close()
        out = json.loads((await prober.stdout.readline()) or b'{"ms": [], "lag": []}')
        await prober.wait()
    return out, outcome, took


# --- the attacks -------------------------------------------------------------------------


def _api(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _regex_book(keys: list[str]) -> dict:
    return {"name": "Regex", "entries": [{"keys": [key], "content": f"entry {number}"}
                                         for number, key in enumerate(keys)]}


async def attack_regex(ctx: dict) -> str:
    client, token = ctx["a_client"], ctx["a"]["token"]
    created = await client.post(f"{ctx['origin']}/api/v1/lorebooks", headers=_api(token),
                                json=_regex_book(["tower"]))
    book = created.json()["lorebook_id"]
    url = f"{ctx['origin']}/api/v1/lorebooks/{book}"
    hostile = await client.put(url, headers=_api(token),
                               json=_regex_book(["/(?:a{2000}){2000}/"]))
    # The costliest book the bounds accept: 20 keys of 99 x 99 units (a book may hold 200,000).
    accepted = await client.put(url, headers=_api(token),
                                json=_regex_book(["/(?:a{99}){99}b/"] * 20))
    page = await client.get(f"{ctx['origin']}/library/lorebooks/{book}/")
    csrf = client.cookies.get("csrftoken", "")
    statuses = []
    for _ in range(5):
        tested = await client.post(f"{ctx['origin']}/library/lorebooks/{book}/test",
                                   data={"text": "a" * 20000}, headers={"X-CSRFToken": csrf})
        statuses.append(tested.status_code)
    return (f"hostile key PUT {hostile.status_code}, accepted book PUT {accepted.status_code}, "
            f"page {page.status_code}, 5x test {statuses}")


def _llm_point(ctx: dict, base_url: str) -> None:
    path = ctx["data_dir"] / "modules" / "llm.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"base_url": base_url, "model": "stub-model"}), encoding="utf-8")


async def _turn(ctx: dict, base_url: str, *, instance: str = "instance") -> str:
    _llm_point(ctx, base_url)
    async with h.ws_connect(ctx["server"], ctx["a"]["session_key"], ctx["a"][instance]) as ws:
        result = await h.ws_turn(ws, "hello", timeout=900)
    if result.errors:
        return "turn error: " + str(result.errors[0].get("message"))[:100]
    return f"turn done, {len(result.text)} chars"


async def attack_long_line(ctx: dict) -> str:
    return await _turn(ctx, ctx["stubs"]["long_line"].base_url)


async def attack_useless(ctx: dict) -> str:
    return await _turn(ctx, ctx["stubs"]["useless"].base_url)


async def attack_exports(ctx: dict) -> str:
    a = ctx["a"]
    url = (f"{ctx['origin']}/api/v1/instances/{a['big']}/sessions/{a['session_id']}"
           "/export?format=jsonl")
    answers = await asyncio.gather(*(ctx["a_client"].get(url, headers=_api(a["token"]))
                                     for _ in range(4)))
    return "4 exports: " + ", ".join(f"{r.status_code} ({len(r.content) / 1e6:.1f} MB)"
                                     for r in answers)


def _zero_bomb() -> bytes:
    card = {"spec": "chara_card_v3", "spec_version": "3.0",
            "data": {"name": "Mira", "description": "A medic.", "first_mes": "Hold still."}}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("card.json", json.dumps(card))
        for number in range(4):
            archive.writestr(f"assets/other/zeros{number}.bin", b"\0" * (15 * 2**20))
    return buffer.getvalue()


async def attack_charx(ctx: dict) -> str:
    bomb = ctx["bomb"]
    url = f"{ctx['origin']}/api/v1/characters/import"
    answers = await asyncio.gather(*(
        ctx["a_client"].post(url, headers=_api(ctx["a"]["token"]),
                             files={"file": ("mira.charx", bomb, "application/zip")})
        for _ in range(4)))
    return f"4 imports of a {len(bomb) / 1e3:.0f} KB CHARX: " + ", ".join(
        str(r.status_code) for r in answers)


async def attack_vectors(ctx: dict) -> str:
    client, a = ctx["a_client"], ctx["a"]
    lore = "，".join(f"第{i}条传闻说废土北区的据点里藏着旧世界的武器" for i in range(8))
    book = {"name": "Vectors", "entries": [
        {"keys": [f"key{number}"], "content": f"{number}: {lore}", "vectorized": True}
        for number in range(1000)]}
    created = await client.post(f"{ctx['origin']}/api/v1/lorebooks", headers=_api(a["token"]),
                                json=book)
    linked = await client.put(f"{ctx['origin']}/api/v1/instances/{a['instance']}",
                              headers=_api(a["token"]),
                              json={"lorebook_ids": [created.json()["lorebook_id"]]})
    started = time.perf_counter()
    turn = await _turn(ctx, ctx["stubs"]["plain"].base_url)
    first = time.perf_counter() - started
    folder = ctx["data_dir"] / "lore_vectors"
    embedded = 0
    while embedded < 200 and time.perf_counter() - started < 600:
        await asyncio.sleep(1.0)
        embedded = sum(1 for _ in folder.rglob("*.f32"))
    waited = time.perf_counter() - started
    second = await _turn(ctx, ctx["stubs"]["plain"].base_url)
    return (f"book {created.status_code}, linked {linked.status_code}, first {turn} after "
            f"{first:.1f} s; {embedded} vectors on disk after {waited:.0f} s; then {second}")


async def attack_cpu(ctx: dict) -> str:
    burners = [await asyncio.create_subprocess_exec(h.PYTHON, "-c", "while True: pass")
               for _ in range(ctx["burn"])]
    try:
        await asyncio.sleep(ctx["burn_seconds"])
    finally:
        for burner in burners:
            burner.kill()
            await burner.wait()
    return f"{ctx['burn']} pure-Python CPU burners for {ctx['burn_seconds']:g} s"


async def attack_big_turn(ctx: dict) -> str:
    return await _turn(ctx, ctx["stubs"]["plain"].base_url, instance="big")


# --- main --------------------------------------------------------------------------------


def stubs_start(data_dir: Path) -> dict[str, h.Stub]:
    modes = {"long_line": ["--long-line", "30000000"], "useless": ["--useless", "60"],
             "plain": ["--reply-tokens", "50"]}
    stubs = {}
    for name, flags in modes.items():
        port = h.port_free()
        process = h.child_start([h.PYTHON, str(h.REPO / "tests" / "stub_llm.py"), "--port",
                                 str(port), *flags], h.base_env(data_dir),
                                log=data_dir / f"stub-{name}.log")
        h.port_wait(port, process)
        stubs[name] = h.Stub(process, port)
    return stubs


def _load() -> str:
    return "load " + "/".join(f"{value:.1f}" for value in os.getloadavg())


def summary(values: list[float]) -> str:
    if not values:
        return "n=0"
    worst = max(values)
    verdict = "ok" if worst < GOAL_MS else "OVER 0.5 s"
    return (f"n={len(values)} median {h.median(values):.0f}  p95 "
            f"{h.percentile(values, 0.95):.0f}  max {worst:.0f} ms  {verdict}")


async def measure(ctx: dict, attacks: list[str]) -> list[tuple[str, list[float], str, float]]:
    import httpx

    b = ctx["b"]
    b_url = f"{ctx['origin']}/api/v1/instances/{b['instance']}"
    rows = []
    ctx["bomb"] = await asyncio.to_thread(_zero_bomb)  # zipped before anyone is probed
    async with httpx.AsyncClient(cookies={"sessionid": ctx["a"]["session_key"]},
                                 timeout=900) as a_client:
        ctx["a_client"] = a_client

        async def idle() -> str:
            await asyncio.sleep(2.0)
            return "nothing"

        rows.append(("idle", *await while_probed(b, b_url, idle), _load()))
        for name in attacks:
            attack = functools.partial(globals()[f"attack_{name}"], ctx)
            before = _load()
            rows.append((name, *await while_probed(b, b_url, attack),
                         f"{before} -> {_load()}"))
            print(f"{name}: done", file=sys.stderr, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command")
    setup = commands.add_parser("setup")
    setup.add_argument("--messages", type=int, default=116_000)
    prober = commands.add_parser("probe")
    prober.add_argument("--url")
    prober.add_argument("--session")
    parser.add_argument("--attacks", default=",".join(ATTACKS))
    parser.add_argument("--idle", type=float, default=10.0, help="PERSONALAB_LLM_IDLE_SECONDS")
    parser.add_argument("--messages", type=int, default=116_000)
    parser.add_argument("--keep", action="store_true", help="keep the data folder and logs")
    parser.add_argument("--burn", type=int, default=2, help="cpu: processes spinning")
    parser.add_argument("--burn-seconds", type=float, default=20.0)
    args = parser.parse_args()
    if args.command == "setup":
        _setup_main(args)
        return
    if args.command == "probe":
        asyncio.run(_probe_main(args))
        return
    attacks = [name for name in args.attacks.split(",") if name]
    unknown = set(attacks) - set(ATTACKS)
    if unknown:
        parser.error(f"unknown attacks: {sorted(unknown)}")
    with h.data_dir_temp(keep=args.keep) as data_dir:
        stubs = stubs_start(data_dir)
        accounts = setup_run(data_dir, h.base_env(data_dir), args.messages)
        server = h.server_start(data_dir, stubs["plain"],
                                services={"PERSONALAB_LLM_IDLE_SECONDS": str(args.idle)})
        ctx = {**accounts, "data_dir": data_dir, "server": server, "origin": server.origin,
               "stubs": stubs, "burn": args.burn, "burn_seconds": args.burn_seconds}
        rows = asyncio.run(measure(ctx, attacks))
        if args.keep:
            print(f"data folder and logs kept: {data_dir}")
    print(f"machine: {h.machine_describe()}; idle {args.idle:g} s; chat of {args.messages} "
          "messages")
    for name, values, outcome, took, load in rows:
        print(f"{name:9} A: {outcome} [{took:.1f} s; {load}]")
        print(f"{'':9} B GET ms: {summary(values['ms'])}")
        lags = values["lag"]
        if lags:
            print(f"{'':9} B's own process, late from a 20 ms sleep: p95 "
                  f"{h.percentile(lags, 0.95):.0f}  max {max(lags):.0f} ms")


if __name__ == "__main__":
    main()
