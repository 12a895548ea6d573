"""Issue 32 item 6 side by side: the five cards of bench/st_side_by_side.py played in text
completion, in SillyTavern 1.12.6 (Text Completion, API type KoboldCpp, which posts to
`/v1/completions`) and in PersonaLab (`PERSONALAB_COMPLETION_API=text`), with the same instruct
template and its matching context template (SillyTavern's own presets: ChatML, Llama 3 Instruct,
Mistral V2 & V3, Alpaca; PersonaLab's built-ins chatml, llama3, mistral, alpaca), the same
persona and the same messages, both apps' requests captured by one recording stub.

    .venv/bin/python bench/st_text_side_by_side.py --sillytavern /work/st/st-1.12.6
        [--templates chatml,llama3] [--cards amy,brin] [--save both.json]
    .venv/bin/python bench/st_text_side_by_side.py --st-load both.json   (SillyTavern's saved
        requests; PersonaLab is played again: what a fix changes, without driving SillyTavern)
    .venv/bin/python bench/st_text_side_by_side.py --load both.json      (compare again, no apps)

SillyTavern is set up as a user would (its settings file: Text Completion, KoboldCpp at the
stub, instruct mode on with the preset, the context template, an empty system prompt as
PersonaLab's default main prompt (SillyTavern's "Neutral - Chat" is a line PersonaLab does not
send; a card's system prompt is used in both), a local tokenizer) and driven with Playwright
(Debian's Chromium, tests/browser.py) through st_side_by_side's card import and input box. Compared per turn: the
prompt string (exactly; no whitespace is normalised), the stop strings (as a set) and the
sampler fields KoboldCpp and llama.cpp's server read (the value each server would apply, its own
default where a field is not sent).
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import st_side_by_side as side

from tests.stub_llm import Reply, StubLLM

# PersonaLab's built-in instruct and context template -> SillyTavern's preset of both.
TEMPLATES = {"chatml": "ChatML", "llama3": "Llama 3 Instruct", "mistral": "Mistral V2 & V3",
             "alpaca": "Alpaca", "gemma": "Gemma 2", "phi": "Phi"}
# Sampler fields as each server reads them from a `/v1/completions` body, with its default when
# the field is not sent (KoboldCpp 1.76 koboldcpp.py `transform_genparams` / `generate`;
# llama.cpp examples/server README "POST /completion", which /v1/completions shares).
SERVER_FIELDS: dict[str, dict[str, tuple[tuple[str, ...], Any]]] = {
    "koboldcpp": {"temperature": (("temperature",), 0.7), "top_p": (("top_p",), 0.92),
                  "top_k": (("top_k",), 100), "min_p": (("min_p",), 0.0),
                  "repetition penalty": (("rep_pen", "repetition_penalty", "repeat_penalty"),
                                         1.0),
                  "presence_penalty": (("presence_penalty", "frequency_penalty"), 0.0),
                  "max reply tokens": (("max_tokens",), 180), "seed": (("seed",), -1)},
    "llamacpp": {"temperature": (("temperature",), 0.8), "top_p": (("top_p",), 0.95),
                 "top_k": (("top_k",), 40), "min_p": (("min_p",), 0.05),
                 "repetition penalty": (("repeat_penalty",), 1.0),
                 "presence_penalty": (("presence_penalty",), 0.0),
                 "frequency_penalty": (("frequency_penalty",), 0.0),
                 "max reply tokens": (("n_predict", "max_tokens"), -1), "seed": (("seed",), -1)},
}


def served(body: dict, server: str) -> dict[str, Any]:
    """The sampler values `server` applies to a request body (KoboldCpp takes the largest of its
    three repetition penalty names)."""
    out = {}
    for label, (names, default) in SERVER_FIELDS[server].items():
        given = [body[name] for name in names if body.get(name) is not None]
        if label == "repetition penalty" and server == "koboldcpp":
            out[label] = max(given, default=default)
        else:
            out[label] = given[0] if given else default
    return out


# --- SillyTavern -----------------------------------------------------------------------------

def st_settings_text(data: Path, stub: StubLLM, key: str, st_root: Path, pristine: dict,
                     server: str) -> None:
    path = data / "default-user" / "settings.json"
    path.write_text(json.dumps(pristine))
    side.st_settings(data, stub.base_url)
    settings = json.loads(path.read_text())
    presets = st_root / "default" / "content" / "presets"
    instruct = json.loads((presets / "instruct" / f"{TEMPLATES[key]}.json").read_text())
    context = json.loads((presets / "context" / f"{TEMPLATES[key]}.json").read_text())
    settings["main_api"] = "textgenerationwebui"
    settings["amount_gen"] = 300
    settings["max_context"] = 16384
    textgen = settings["textgenerationwebui_settings"]
    textgen.update({"type": server, "streaming": False,
                    "server_urls": {server: stub.base_url.removesuffix("/v1")}})
    power = settings["power_user"]
    power.update({"instruct": {**instruct, "enabled": True, "preset": instruct["name"]},
                  "context": {**context, "preset": context["name"]},
                  # A fresh install's System Prompt, which PersonaLab sends in text completion
                  # too since 2026-12-03 (a card's system prompt replaces it in both apps).
                  "sysprompt": {"enabled": True, "name": "Neutral - Chat",
                                "content": "Write {{char}}'s next reply in a fictional chat "
                                           "between {{char}} and {{user}}."},
                  "tokenizer": 3})  # LLaMA's, local: no token-count calls to the stub
    path.write_text(json.dumps(settings, indent=2))


def st_capture(root: Path, runs: list[tuple[str, str]], names: list[str], stub: StubLLM,
               save: Path | None) -> dict[str, dict]:
    cards = side.cards_build()
    out: dict[str, dict] = {}
    with side.st_started(root) as (url, data):
        pristine = json.loads((data / "default-user" / "settings.json").read_text())
        for key, server in runs:
            st_settings_text(data, stub, key, root, pristine, server)
            stub.reset()
            out[_run_name(key, server)] = side.st_drive(url, cards, names, stub)
            if save:  # kept as each template ends: a later failure loses nothing
                save.write_text(json.dumps({"sillytavern": out}, indent=1))
    return out


# --- PersonaLab ------------------------------------------------------------------------------

def pl_capture(runs: list[tuple[str, str]], names: list[str], stub: StubLLM) -> dict[str, dict]:
    cards = side.cards_build()
    out = {}
    for key, server in runs:
        stub.reset()
        # side.pl_run's child inherits the environment (tests/cluster.py worker_env).
        os.environ.update({"PERSONALAB_COMPLETION_API": "text",
                           "PERSONALAB_INSTRUCT_TEMPLATE": key,
                           "PERSONALAB_CONTEXT_TEMPLATE": key})
        out[_run_name(key, server)] = _pl_run_retried(cards, names, stub)
    return out


def _pl_run_retried(cards: dict, names: list[str], stub: StubLLM, tries: int = 3) -> dict:
    """side.pl_run, played again when its child dies on the way out ("terminate called
    without an active exception", seen on this loaded machine after all turns were sent)."""
    for attempt in range(1, tries + 1):
        stub.reset()
        try:
            return side.pl_run(cards, names, stub)
        except SystemExit as failed:
            if attempt == tries:
                raise
            print(f"PersonaLab side failed, played again: {str(failed)[-200:]}",
                  file=sys.stderr)
    raise AssertionError("unreachable")


def _run_name(key: str, server: str) -> str:
    return key if server == "koboldcpp" else f"{key}@{server}"


# --- comparison ------------------------------------------------------------------------------

def compare_turn(a: dict, b: dict, server: str) -> list[str]:
    lines = []
    pa, pb = a.get("prompt") or "", b.get("prompt") or ""
    if pa != pb:
        diff = difflib.unified_diff(pa.splitlines(keepends=True), pb.splitlines(keepends=True),
                                    "SillyTavern", "PersonaLab", n=1)
        # SillyTavern trims a card's system prompt before putting {{original}} in: an empty
        # one leaves a space at the line's end that PersonaLab does not send.
        spaces = _line_ends(pa) == _line_ends(pb)
        lines.append("     prompt differs" + (" (spaces at line ends only)" if spaces else "")
                     + ":")
        lines.extend("       " + json.dumps(line)[1:-1] for line in diff)
    stop_a, stop_b = a.get("stop") or [], b.get("stop") or []
    if set(stop_a) != set(stop_b):
        lines.append(f"     stop: SillyTavern {stop_a!r}, PersonaLab {stop_b!r}")
    va, vb = served(a, server), served(b, server)
    changed = [f"{label} {va[label]!r}/{vb[label]!r}" for label in va if va[label] != vb[label]]
    if changed:
        lines.append(f"     samplers ({server}, SillyTavern/PersonaLab): {', '.join(changed)}")
    return lines


def _line_ends(text: str) -> str:
    return "\n".join(line.rstrip(" ") for line in text.split("\n"))


def compare(st: dict, pl: dict, names: list[str]) -> tuple[list[str], dict[str, dict[str, int]]]:
    lines, counts = [], {}
    for run, cards in st.items():
        server = run.split("@")[1] if "@" in run else "koboldcpp"
        count = {"turns": 0, "prompt": 0, "prompt_spaces": 0, "stop": 0, "samplers": 0}
        for name in names:
            played = zip(cards.get(name, []), pl.get(run, {}).get(name, []))
            for turn, (a, b) in enumerate(played, start=1):
                found = compare_turn(a, b, server)
                count["turns"] += 1
                for kind in ("prompt", "stop", "samplers"):
                    count[kind] += any(line.lstrip().startswith(kind) for line in found)
                count["prompt_spaces"] += any("(spaces at line ends only)" in line
                                              for line in found)
                if found:
                    lines.append(f"== {run} {name} turn {turn}")
                    lines.extend(found)
        counts[run] = count
    return lines, counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sillytavern", type=Path, help="a SillyTavern checkout (npm installed)")
    parser.add_argument("--templates", default="chatml,llama3,mistral,alpaca",
                        help=f"of {', '.join(TEMPLATES)}")
    parser.add_argument("--servers", default="koboldcpp",
                        help="SillyTavern API types: koboldcpp, llamacpp (the first template only)")
    parser.add_argument("--cards", default="amy,brin,cato,dara,eli")
    parser.add_argument("--save", type=Path, help="write both apps' requests to this JSON file")
    parser.add_argument("--load", type=Path, help="compare the requests a --save wrote")
    parser.add_argument("--st-load", type=Path, help="SillyTavern's requests from a --save; "
                        "PersonaLab is played again")
    args = parser.parse_args()
    names = [n for n in args.cards.split(",") if n]
    templates = [t for t in args.templates.split(",") if t]
    servers = [s for s in args.servers.split(",") if s]
    runs = [(key, "koboldcpp") for key in templates if "koboldcpp" in servers]
    runs += [(templates[0], server) for server in servers if server != "koboldcpp"]
    if args.load:
        saved = json.loads(args.load.read_text())
        st, pl = saved["sillytavern"], saved["personalab"]
    else:
        stub = StubLLM(default=Reply("A short reply."))
        try:
            if args.st_load:
                st = json.loads(args.st_load.read_text())["sillytavern"]
                runs = [(run.split("@")[0], run.split("@")[1] if "@" in run else "koboldcpp")
                        for run in st]
            elif args.sillytavern:
                st = st_capture(args.sillytavern.resolve(), runs, names, stub, args.save)
            else:
                parser.error("--sillytavern, --st-load or --load is needed")
            pl = pl_capture(runs, names, stub)
        finally:
            stub.stop()
        if args.save:
            args.save.write_text(json.dumps({"sillytavern": st, "personalab": pl}, indent=1))
    lines, counts = compare(st, pl, names)
    print("\n".join(lines))
    print("== summary (turns with a difference)")
    for run, count in counts.items():
        print(f"{run:16} turns={count['turns']} prompt={count['prompt']} (of which spaces at "
              f"line ends only: {count['prompt_spaces']}) stop={count['stop']} "
              f"samplers={count['samplers']}")


if __name__ == "__main__":
    main()
