"""Story strings rendered here and by SillyTavern's own renderer (Handlebars 4.7.8, the
`public/lib/handlebars.js` of a SillyTavern checkout, run with node): the built-in context
templates and generated story strings mixing `{{#if}}` / `{{#unless}}` / `{{else}}` blocks,
values, spaces, tabs and line breaks. Prints how many render differently (leading newlines
removed on both sides, as SillyTavern removes them; `{{trim}}` left out, a SillyTavern macro
applied after Handlebars).

    .venv/bin/python bench/st_text_handlebars.py --sillytavern /work/st/st-1.12.6 [--count 3000]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from personalab.lib.story_string import BUILT_IN, StoryStringError, story_string_render

VALUES = {"description": "D", "persona": "P", "char": "C", "personality": "x", "system": "S",
          "scenario": ""}
TEXTS = ["\n", "  ", "\n\n", "a", "{{char}}", " \n", "\t", "\r\n"]
OPENERS = ["persona", "scenario"]
NODE = """
const Handlebars = require(process.argv[2]);
const cases = JSON.parse(require('fs').readFileSync(process.argv[3]));
console.log(JSON.stringify(cases.map((text) => {
    try { return Handlebars.compile(text, {noEscape: true})(%s); } catch (e) { return null; }
})));
"""


def story_generated(rng: random.Random) -> str:
    """A balanced story string of up to twelve pieces."""
    out: list[str] = []
    open_blocks: list[str] = []
    for _ in range(rng.randint(1, 12)):
        roll = rng.random()
        if roll < 0.2:
            kind = rng.choice(["if", "unless"])
            out.append(f"{{{{#{kind} {rng.choice(OPENERS)}}}}}")
            open_blocks.append(kind)
        elif roll < 0.35 and open_blocks:
            out.append(f"{{{{/{open_blocks.pop()}}}}}")
        elif roll < 0.4 and open_blocks:
            out.append("{{else}}")
        else:
            out.append(rng.choice(TEXTS))
    out.extend(f"{{{{/{kind}}}}}" for kind in reversed(open_blocks))
    return "".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sillytavern", type=Path, default=Path("/work/st/st-1.12.6"))
    parser.add_argument("--count", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    cases = [entry["story_string"].replace("{{trim}}", "") for entry in BUILT_IN.values()]
    cases += [story_generated(rng) for _ in range(args.count)]
    with tempfile.TemporaryDirectory() as folder:
        script, data = Path(folder) / "render.js", Path(folder) / "cases.json"
        script.write_text(NODE % json.dumps(VALUES))
        data.write_text(json.dumps(cases))
        done = subprocess.run(["node", str(script), str(args.sillytavern / "public" / "lib" /
                                                        "handlebars.js"), str(data)],
                              capture_output=True, text=True, check=True)
    theirs = json.loads(done.stdout)
    compared = differ = 0
    for text, expected in zip(cases, theirs):
        try:
            ours = story_string_render(text, VALUES)
        except StoryStringError:
            continue  # a story string refused here (Handlebars may render it)
        if expected is None:
            continue  # Handlebars refuses it (two {{else}} in a block)
        compared += 1
        if ours != expected.lstrip("\n"):
            differ += 1
            if differ <= 5:
                print(f"differs: {text!r}\n  SillyTavern {expected.lstrip(chr(10))!r}\n"
                      f"  PersonaLab  {ours!r}")
    print(f"st_text_handlebars story_strings={compared} differ={differ}")


if __name__ == "__main__":
    main()
