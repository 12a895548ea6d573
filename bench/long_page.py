"""A long chat drawn on a phone: "Go to message number" 5 of a 1,236-message chat, and a reload
on that line, in headless Chromium at 390×844 (3×, touch) with the CPU slowed 4× (CDP
Emulation.setCPUThrottlingRate), as a mid-range phone.

    .venv/bin/python bench/long_page.py [--messages 1236] [--target 5] [--runs 3]

The chat is written through the app's own store (bench/chat_page.py's lines: Markdown, one
reply in five with reasoning), served by Daphne with no language model. Per run, on a fresh
page: the jump (the drawer's form submitted, until the message has the focus and two frames
are drawn), then a reload (until the line is back at the top of the view and drawn). For each
it prints the wall ms, the long read's own ms (asked until its last byte: the server's part),
the longest task (the longest the page could not answer a tap), the ms until every line is
drawn and the longest task after the line was shown (the lines drawn later), and the
main thread's script, style and layout ms (CDP Performance.getMetrics, differences), median of
the runs. Needs /usr/bin/chromium and the playwright package, as tests/e2e does.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench import _harness
from bench.chat_page import turn_lines
from tests.browser import CHROMIUM, CHROMIUM_ARGS

METRICS = {"script_ms": "ScriptDuration", "style_ms": "RecalcStyleDuration",
           "layout_ms": "LayoutDuration", "task_ms": "TaskDuration"}

# Long tasks seen since the page opened, kept by an observer set before the page's scripts run.
LONG_TASKS = """window.__longTasks = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push(
  [e.startTime, e.duration]); }).observe({type: "longtask", buffered: true});"""

FRAMES = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"

JUMP = """async (index) => {
  const form = document.getElementById("message-jump");
  form.elements.index.value = String(index);
  const start = performance.now();
  form.requestSubmit();
  const focused = () => document.activeElement?.dataset?.index === String(index);
  while (!focused()) await new Promise(done => setTimeout(done, 5));
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
  return {start, ms: performance.now() - start};
}"""

# Every line's Markdown drawn (a long read draws the lines away from the view after).
ALL_DRAWN = "() => !document.querySelector('#messages .md:not([data-rendered])')"

# How long the long read itself took, asked until its last byte came (the server's part).
READ_MS = """() => { const read = performance.getEntriesByType("resource")
  .filter(e => e.name.includes("shown=")).pop();
  return read ? read.responseEnd - read.startTime : 0; }"""

PLACED = """(index) => {
  const line = document.querySelector(`#messages .msg[data-index="${index}"]`);
  if (!line) return false;
  const box = document.getElementById("messages").getBoundingClientRect();
  return Math.abs(line.getBoundingClientRect().top - box.top) < 60;
}"""


def chat_write(instance_id: str, messages: int) -> None:
    # after main() has set the data folder's environment and Django up
    from personalab.storage import get_store

    store = get_store()
    session_id = store.instance_state_read(instance_id)["current_session_id"]
    for turn in range(1, messages // 2 + 1):
        for line in turn_lines(turn):
            store.session_append(instance_id, session_id, line)


def metrics(cdp) -> dict[str, float]:
    shown = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return {key: shown[name] * 1000 for key, name in METRICS.items()}


def longest_task(page, since: float) -> float:
    tasks = page.evaluate("() => window.__longTasks")
    return max((duration for start, duration in tasks if start + duration >= since), default=0.0)


def profile_print(profile: dict) -> None:
    """The jump's 15 functions by own time (a sampled JavaScript profile; time in layout or
    style that a script forced is counted in the script's frame)."""
    interval = statistics.mean(profile["timeDeltas"]) / 1000 if profile["timeDeltas"] else 0
    own: dict[str, float] = {}
    nodes = {node["id"]: node for node in profile["nodes"]}
    for sample in profile["samples"]:
        frame = nodes[sample]["callFrame"]
        name = (f"{frame['functionName'] or '(anonymous)'} {frame['url'].rsplit('/', 1)[-1]}"
                f":{frame['lineNumber'] + 1}")
        own[name] = own.get(name, 0.0) + interval
    for name, ms in sorted(own.items(), key=lambda item: -item[1])[:15]:
        print(f"  {ms:8.0f} ms  {name}")


def run_once(browser, origin: str, session_key: str, instance_id: str, target: int, *,
             profile: bool = False, scale: float = 3) -> dict:
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=scale,
                                  is_mobile=True, has_touch=True)
    context.add_cookies([{"name": "sessionid", "value": session_key, "url": origin}])
    context.add_init_script(LONG_TASKS)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": 4})
    page.goto(f"{origin}/instances/{instance_id}/")
    page.wait_for_selector("#messages .msg[data-index]")
    page.wait_for_timeout(1500)  # the page's own start (socket, budget) settles
    figures: dict[str, float] = {}
    before = metrics(cdp)
    if profile:
        cdp.send("Profiler.enable")
        cdp.send("Profiler.start")
    jump = page.evaluate(JUMP, target)
    if profile:
        profile_print(cdp.send("Profiler.stop")["profile"])
    after = metrics(cdp)
    figures["jump_ms"] = jump["ms"]
    figures["jump_read_ms"] = page.evaluate(READ_MS)
    figures["jump_longest_task_ms"] = longest_task(page, jump["start"])
    figures.update({f"jump_{key}": after[key] - before[key] for key in METRICS})
    figures["jump_drawn"] = page.evaluate("() => document.querySelectorAll('.msg').length")
    page.wait_for_function(ALL_DRAWN, timeout=300_000, polling=100)
    figures["jump_all_drawn_ms"] = page.evaluate("() => performance.now()") - jump["start"]
    figures["jump_later_longest_task_ms"] = longest_task(page, jump["start"] + jump["ms"])
    page.reload(wait_until="commit")
    page.wait_for_function(PLACED, arg=target, timeout=120_000, polling=20)
    page.evaluate(FRAMES)
    after = metrics(cdp)  # the new document's, from its start
    figures["reload_ms"] = page.evaluate("() => performance.now()")
    placed = figures["reload_ms"]
    page.wait_for_function(ALL_DRAWN, timeout=300_000, polling=100)
    figures["reload_all_drawn_ms"] = page.evaluate("() => performance.now()")
    figures["reload_later_longest_task_ms"] = longest_task(page, placed)
    figures["reload_read_ms"] = page.evaluate(READ_MS)
    figures["reload_longest_task_ms"] = longest_task(page, 0.0)
    figures.update({f"reload_{key}": after[key] for key in METRICS})
    context.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=1236)
    parser.add_argument("--target", type=int, default=5)
    parser.add_argument("--scale", type=float, default=3, help="device pixels per CSS pixel")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="the jump's JavaScript profile")
    args = parser.parse_args()
    with _harness.data_dir_temp() as data_dir:
        setup = _harness.app_setup(data_dir, instances=1)
        os.environ.update(_harness.base_env(data_dir))
        import django

        django.setup()
        instance_id = setup.instance_ids[0]
        chat_write(instance_id, args.messages)
        server = _harness.server_start(data_dir, _NoModel())
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                                 args=CHROMIUM_ARGS)
            runs = [run_once(browser, server.origin, setup.session_key, instance_id, args.target,
                             profile=args.profile, scale=args.scale) for _ in range(args.runs)]
            browser.close()
        for number, run in enumerate(runs, 1):
            print(f"run {number}: " + json.dumps({k: round(v) for k, v in run.items()}))
        medians = {key: round(statistics.median(run[key] for run in runs)) for key in runs[0]}
        print("median: " + json.dumps({"messages": args.messages, "target": args.target,
                                       **medians}))


class _NoModel:
    """No language model: nothing is played, the page only reads."""
    base_url = "http://127.0.0.1:9/v1"


if __name__ == "__main__":
    main()
