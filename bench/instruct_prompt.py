"""What building a text-completion prompt costs: the final message list of a long chat turned
into one string with each built-in instruct template (personalab/lib/instruct.py), and the
stream of a reply read through the text provider against the stub, against the chat provider.

    .venv/bin/python bench/instruct_prompt.py [--messages 400] [--reps 20] [--tokens 2000]

- build_ms: median time of instruct_prompt() for a chat of --messages messages (300 characters
  each, a 4,000-character system block first), per template.
- stream_ms: median time to read a reply of --tokens pieces from the stub through
  TextCompletionProvider (/v1/completions) and OpenAIProvider (/v1/chat/completions).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from personalab.lib.instruct import instruct_prompt, instruct_template_named
from personalab.lib.instruct_presets import BUILT_IN
from personalab.lib.llm import LLMSettings
from personalab.lib.llm_providers import provider_for
from tests.stub_llm import Reply, StubLLM


def _chat(count: int) -> list[dict[str, str]]:
    messages = [{"role": "system", "content": "You are Mira. " * 300}]
    for index in range(count):
        role = "user" if index % 2 else "assistant"
        messages.append({"role": role, "content": f"line {index} " + "word " * 58})
    return messages


def _median_ms(run, reps: int) -> float:
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return round(statistics.median(times), 3)


async def _read(provider, messages: list[dict], context: dict) -> int:
    return sum([len(piece) async for piece in provider.stream(messages, context=context)])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--messages", type=int, default=400)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--tokens", type=int, default=2000)
    args = parser.parse_args()
    messages = _chat(args.messages)
    size = sum(len(m["content"]) for m in messages)
    print(f"chat: {len(messages)} messages, {size:,} characters")
    for key in BUILT_IN:
        template = instruct_template_named(key)
        build = _median_ms(lambda template=template: instruct_prompt(
            messages, template=template, char_name="Mira", user_name="Ann"), args.reps)
        print(f"build_ms {key:9} {build}")
    stub = StubLLM(default=Reply("tok " * args.tokens, chunk_size=4))
    context = {"character_name": "Mira", "user_name": "Ann"}
    short = messages[:3]
    try:
        for api in ("text", "chat"):
            provider = provider_for(LLMSettings(base_url=stub.base_url, model="m",
                                                completion_api=api, instruct_template="chatml"))
            times = []
            for _ in range(max(3, args.reps // 4)):
                started = time.perf_counter()
                asyncio.run(_read(provider, short, context))
                times.append((time.perf_counter() - started) * 1000)
            print(f"stream_ms {api:5} {round(statistics.median(times), 1)} "
                  f"({args.tokens} pieces)")
    finally:
        stub.stop()


if __name__ == "__main__":
    main()
