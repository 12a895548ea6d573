from __future__ import annotations

import asyncio
import json
import threading
import time
from contextlib import aclosing
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib.util import find_spec

import pytest

from personalab.lib.llm import GGUFProvider, LLMError, LLMSettings, OpenAIProvider
from personalab.lib.llm_offline import OFFLINE_LABEL, OfflineProvider, offline_pieces
from personalab.lib.llm_providers import provider_for
from personalab.llm_config import llm_settings_from_env
from tests.stub_llm import (
    Empty,
    Fail,
    Garbage,
    Hang,
    HangBeforeHeaders,
    Reply,
    StubLLM,
    refused_url,
    stub_llm,  # noqa: F401 (fixture)
    stub_llm_server,  # noqa: F401 (fixture)
)

MESSAGES = [
    {"role": "system", "content": "You are Alserqi."},
    {"role": "user", "content": "Hello there"},
]


def openai_provider(base_url: str, timeout: float = 5.0) -> OpenAIProvider:
    settings = LLMSettings(base_url=base_url, model="stub-model", timeout=timeout)
    provider = provider_for(settings)
    assert isinstance(provider, OpenAIProvider)
    return provider


async def collect(provider, messages=MESSAGES, **context) -> list[str]:
    return [piece async for piece in provider.stream(messages, context=context)]


async def wait_until(condition, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        await asyncio.sleep(0.02)


# --- OpenAI provider against the stub --------------------------------------------------------


async def test_stream_pieces_arrive_in_order(stub_llm: StubLLM) -> None:
    stub_llm.script(Reply("abcdefghij", chunk_size=3))
    pieces = await collect(openai_provider(stub_llm.base_url))
    assert "".join(pieces) == "abcdefghij" and all(pieces)


async def test_the_request_body_arrives_exactly_whatever_it_holds(stub_llm: StubLLM) -> None:
    messages = [{"role": "system", "content": "你是 Alserqi。\u2028 \"quoted\" \\ 😀"},
                {"role": "user", "content": "x" * 50_000}]
    generation = {"seed": 2 ** 70, "temperature": 0.7}  # an int json takes and orjson refuses
    await collect(openai_provider(stub_llm.base_url), messages=messages, generation=generation)
    [body] = stub_llm.requests
    assert body["messages"] == messages
    assert (body["seed"], body["temperature"], body["stream"]) == (2 ** 70, 0.7, True)


async def test_empty_queue_gets_default_reply(stub_llm: StubLLM) -> None:
    assert "".join(await collect(openai_provider(stub_llm.base_url))) == "stub reply"


async def test_requests_are_recorded_with_messages_and_model(stub_llm: StubLLM) -> None:
    await collect(openai_provider(stub_llm.base_url))
    [body] = stub_llm.requests
    assert body["messages"] == MESSAGES
    assert body["model"] == "stub-model"
    assert body["stream"] is True


async def test_server_error_becomes_llm_error(stub_llm: StubLLM) -> None:
    stub_llm.script(Fail(500, "kaboom"))
    with pytest.raises(LLMError) as caught:
        await collect(openai_provider(stub_llm.base_url))
    assert "500" in caught.value.message and "kaboom" in caught.value.message
    assert len(stub_llm.requests) == 1  # no hidden retries


async def test_bad_key_becomes_llm_error(stub_llm: StubLLM) -> None:
    stub_llm.script(Fail(401, "invalid api key"))
    with pytest.raises(LLMError) as caught:
        await collect(openai_provider(stub_llm.base_url))
    assert "401" in caught.value.message and "OPENAI_API_KEY" in caught.value.message


async def test_hang_mid_stream_ends_in_timeout_error(stub_llm: StubLLM) -> None:
    stub_llm.script(Hang(30))
    with pytest.raises(LLMError) as caught:
        await collect(openai_provider(stub_llm.base_url, timeout=0.5))
    assert "timed out after 0.5s" in caught.value.message


async def test_hang_before_headers_ends_in_timeout_error(stub_llm: StubLLM) -> None:
    stub_llm.script(HangBeforeHeaders(30))
    with pytest.raises(LLMError) as caught:
        await collect(openai_provider(stub_llm.base_url, timeout=0.5))
    assert "timed out" in caught.value.message


async def test_refused_connection_becomes_llm_error() -> None:
    url = refused_url()
    with pytest.raises(LLMError) as caught:
        await collect(openai_provider(url))
    assert caught.value.message == f"cannot connect to the LLM at {url}"


async def test_empty_stream_yields_nothing(stub_llm: StubLLM) -> None:
    stub_llm.script(Empty())
    assert await collect(openai_provider(stub_llm.base_url)) == []


async def test_garbage_stream_becomes_llm_error(stub_llm: StubLLM) -> None:
    stub_llm.script(Garbage())
    with pytest.raises(LLMError) as caught:
        await collect(openai_provider(stub_llm.base_url))
    assert "unreadable" in caught.value.message


async def test_complete_returns_whole_text(stub_llm: StubLLM) -> None:
    stub_llm.script(Reply("the whole answer"))
    text = await openai_provider(stub_llm.base_url).complete(MESSAGES, context={})
    assert text == "the whole answer"
    assert stub_llm.requests[0]["stream"] is False


async def test_complete_maps_errors(stub_llm: StubLLM) -> None:
    stub_llm.script(Fail(503, "overloaded"), Garbage(), Hang(30))
    provider = openai_provider(stub_llm.base_url, timeout=0.5)
    for expected in ("503", "unreadable", "timed out"):
        with pytest.raises(LLMError) as caught:
            await provider.complete(MESSAGES, context={})
        assert expected in caught.value.message


async def test_cancelling_the_reader_closes_the_http_response(stub_llm: StubLLM) -> None:
    stub_llm.script(Reply("x" * 400, chunk_size=1, delay=0.02))
    first_piece = asyncio.Event()

    async def read() -> None:
        async for _ in openai_provider(stub_llm.base_url).stream(MESSAGES, context={}):
            first_piece.set()

    task = asyncio.create_task(read())
    await first_piece.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await wait_until(lambda: stub_llm.disconnects == 1)
    assert stub_llm.disconnects == 1


async def test_stopping_early_with_aclosing_closes_the_http_response(stub_llm: StubLLM) -> None:
    stub_llm.script(Reply("y" * 400, chunk_size=1, delay=0.02))
    provider = openai_provider(stub_llm.base_url)
    async with aclosing(provider.stream(MESSAGES, context={})) as pieces:
        async for piece in pieces:  # the chunks of one network read come as one piece
            assert piece and set(piece) == {"y"} and len(piece) < 400
            break
    await wait_until(lambda: stub_llm.disconnects == 1)
    assert stub_llm.disconnects == 1


async def test_turns_on_one_event_loop_share_one_client(stub_llm: StubLLM) -> None:
    # The app builds a provider per turn; building a client per turn blocked the loop.
    first, second = openai_provider(stub_llm.base_url), openai_provider(stub_llm.base_url)
    assert "".join(await collect(first)) == "".join(await collect(second)) == "stub reply"
    assert first._client() is second._client()
    assert openai_provider(stub_llm.base_url, timeout=3.0)._client() is not first._client()


async def test_another_event_loop_gets_its_own_client(stub_llm: StubLLM) -> None:
    provider = openai_provider(stub_llm.base_url)
    await collect(provider)

    async def in_new_loop() -> tuple[object, str]:
        return provider._client(), "".join(await collect(provider))

    other_client, text = await asyncio.to_thread(asyncio.run, in_new_loop())
    assert text == "stub reply"
    assert other_client is not provider._client()


class _KeepAliveSSE(BaseHTTPRequestHandler):
    """HTTP/1.1 with keep-alive, the body's last byte sent a moment after `[DONE]` (as a
    server ending its chunked body in a separate write does)."""

    protocol_version = "HTTP/1.1"
    connections: list[int] = []

    def setup(self) -> None:
        super().setup()
        self.connections.append(1)

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        chunk = {"choices": [{"index": 0, "delta": {"content": "kept"}}]}
        head = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Content-Length", str(len(head) + 1))
        self.end_headers()
        self.wfile.write(head)
        self.wfile.flush()
        time.sleep(0.01)
        self.wfile.write(b"\n")


async def test_turns_reuse_the_llm_connection_when_the_body_ends_after_done(monkeypatch) -> None:
    # Closing the response at `[DONE]` closed the connection: every turn paid a new connect
    # (and, to a remote endpoint, a new TLS handshake) before its first token.
    # The wait for the body's end is widened: a loaded machine may schedule the server's thread
    # later than the 50 ms a real turn waits, which is not what this checks.
    monkeypatch.setattr("personalab.lib.sse.DRAIN_SECONDS", 2.0)
    _KeepAliveSSE.connections = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _KeepAliveSSE)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        provider = openai_provider(f"http://127.0.0.1:{server.server_address[1]}/v1")
        for _ in range(3):
            assert await collect(provider) == ["kept"]
    finally:
        server.shutdown()
        server.server_close()
    assert len(_KeepAliveSSE.connections) == 1


# --- Settings and provider choice --------------------------------------------------------------


def test_settings_read_env_and_nonempty_overrides(settings) -> None:
    settings.OPENAI_BASE_URL = "http://env/v1"
    settings.OPENAI_API_KEY = "sk-env"
    settings.PERSONALAB_MODEL = "env-model"
    chosen = llm_settings_from_env({"base_url": "http://env/v1", "model": "  "})
    assert (chosen.base_url, chosen.api_key, chosen.model) == (
        "http://env/v1",
        "sk-env",
        "env-model",
    )
    page = llm_settings_from_env({"base_url": "http://page/v1", "api_key": "sk-page"})
    assert (page.base_url, page.api_key) == ("http://page/v1", "sk-page")


def test_provider_choice_follows_settings() -> None:
    assert provider_for(LLMSettings(api_key="sk")).name == "openai"
    assert provider_for(LLMSettings(gguf_path="/m.gguf")).name == "gguf"
    offline = provider_for(LLMSettings())
    assert offline.is_offline_demo and offline.label == OFFLINE_LABEL


@pytest.mark.skipif(find_spec("llama_cpp") is not None, reason="llama-cpp-python is installed")
async def test_gguf_without_llama_cpp_says_how_to_install() -> None:
    with pytest.raises(LLMError, match="pip install"):
        await collect(GGUFProvider(LLMSettings(gguf_path="/nowhere.gguf")))


class _ThinkingLocalModel:
    """llama-cpp-python cannot run here: a stand-in with its create_chat_completion stream."""

    def create_chat_completion(self, *, messages, stream, **sampling):
        for piece in ("Hm. <thi", "nk>Is she lying?</think>", " Go on."):
            yield {"choices": [{"delta": {"content": piece}}]}


async def test_a_local_model_s_think_block_is_reasoning_not_reply(monkeypatch) -> None:
    from personalab.lib.reasoning import Reasoning

    provider = GGUFProvider(LLMSettings(gguf_path="/thinking.gguf"))
    monkeypatch.setattr(provider, "_model", _ThinkingLocalModel)
    pieces = await collect(provider)
    assert "".join(p for p in pieces if not isinstance(p, Reasoning)) == "Hm. Go on."
    assert "".join(p for p in pieces if isinstance(p, Reasoning)) == "Is she lying?"
    assert await provider.complete(MESSAGES, context={}) == "Hm. Go on."


# --- Offline demo ----------------------------------------------------------------------------


async def test_offline_reply_is_deterministic_and_in_character() -> None:
    provider = OfflineProvider(delay=0)
    context = {"character_name": "Alserqi", "turn": 1}
    first = "".join(await collect(provider, **context))
    assert first == "".join(await collect(provider, **context))
    assert "Alserqi" in first and "Hello there" in first


async def test_offline_reply_differs_when_asked_again_about_the_same_line() -> None:
    """"Answer now" twice on one group member (or the same words sent twice) gave the very
    same line."""
    provider = OfflineProvider(delay=0)
    asked = [{"role": "user", "content": "Brenna: The gate is open."}]
    replies = []
    for _ in range(3):
        reply = "".join(await collect(provider, asked, character_name="Alserqi", group=True))
        replies.append(reply)
        asked = [*asked, {"role": "assistant", "content": reply},
                 {"role": "user", "content": "Brenna: The gate is open."}]
    assert replies[0] != replies[1] != replies[2]
    assert all("The gate is open." in reply for reply in replies)


async def test_offline_answers_chinese_in_chinese() -> None:
    messages = [{"role": "user", "content": "你还记得北区据点的事吗"}]
    reply = "".join(await collect(OfflineProvider(delay=0), messages, character_name="阿尔"))
    assert "阿尔" in reply and "北区据点" in reply
    assert not any(word in reply for word in ("the", "you", "I "))


async def test_offline_quotes_a_quoted_line_once() -> None:
    """A line said in quotes came back twice quoted: ""Another stowaway? Wonderful.""."""
    provider = OfflineProvider(delay=0)
    for said, chinese in (('"Another stowaway? Wonderful."', False),
                          ("“又一个偷渡的？好极了。”", True)):
        for variant in range(9):
            reply = "".join(await collect(provider, [{"role": "user", "content": said}],
                                          character_name="Mira", variant=variant))
            assert ('""' if not chinese else "““") not in reply
            assert ('"Another stowaway? Wonderful."' if not chinese
                    else "“又一个偷渡的？好极了。”") in reply
    spoken = "".join(await collect(provider, [{"role": "user",
                                               "content": '"Hi," she said, "come in."'}],
                                   character_name="Mira"))
    assert "'Hi,' she said, 'come in.'" in spoken


async def test_offline_streams_small_pieces_that_join_to_the_reply() -> None:
    provider = OfflineProvider(delay=0)
    context = {"character_name": "Alserqi", "turn": 2}
    pieces = await collect(provider, **context)
    assert len(pieces) > 5
    assert "".join(pieces) == await provider.complete(MESSAGES, context=context)
    assert offline_pieces("你好世界啊 hi there") == ["你好世", "界啊", " ", "hi ", "there"]


async def test_offline_progress_marker_every_third_turn_moves_the_outline_forward() -> None:
    provider = OfflineProvider(delay=0)
    replies = {
        turn: "".join(await collect(provider, turn=turn, outline_length=5, plot_index=3,
                                    plot_status="in_progress"))
        for turn in range(1, 7)
    }
    assert [turn for turn, text in replies.items() if "[PROGRESS:" in text] == [3, 6]
    assert replies[3].endswith("[PROGRESS:3:completed]")
    after_completed = "".join(await collect(provider, turn=6, outline_length=5, plot_index=3,
                                            plot_status="completed"))
    assert after_completed.endswith("[PROGRESS:4:in_progress]")
    story_over = "".join(await collect(provider, turn=6, outline_length=5, plot_index=5,
                                       plot_status="completed"))
    no_outline = "".join(await collect(provider, turn=3, outline_length=0, plot_index=3))
    assert "[PROGRESS:" not in story_over and "[PROGRESS:" not in no_outline


async def test_offline_summarize_returns_paired_events_as_json() -> None:
    conversation = [
        {"role": "system", "content": "Summarize the conversation."},
        {"role": "user", "content": "北区据点有背叛者"},
        {"role": "assistant", "content": "我会去调查。"},
        {"role": "user", "content": "小心Victor"},
        {"role": "assistant", "content": "他跑不掉。"},
        {"role": "user", "content": "我们什么时候出发"},
        {"role": "assistant", "content": "天黑以后。"},
    ]
    text = await OfflineProvider(delay=0).complete(conversation, context={"task": "summarize"})
    events = json.loads(text)["events"]
    assert len(events) == 2
    assert all(event["summary"] and len(event["plot"]) > len(event["summary"]) for event in events)
    assert "背叛者" in events[0]["plot"] and "天黑以后" in events[1]["plot"]


async def test_offline_summary_of_a_long_stretch_is_a_handful_of_events() -> None:
    lines = [{"role": "user" if n % 2 == 0 else "assistant", "content": f"line {n}"}
             for n in range(160)]
    text = await OfflineProvider(delay=0).complete(
        [{"role": "system", "content": "Summarize the conversation."}, *lines],
        context={"task": "summarize"})
    events = json.loads(text)["events"]
    assert len(events) == 8
    assert events[0]["summary"] == "Talk: line 0" and "line 19" in events[0]["plot"]
    assert events[-1]["summary"] == "Talk: line 140"


async def test_offline_summary_names_each_line_as_it_was_said() -> None:
    transcript = [{"role": "user", "content": "北区据点有背叛者", "name": "Ann"},
                  {"role": "assistant", "content": "我会去调查。", "name": "Brenna"},
                  {"role": "assistant", "content": "我也去。"}]
    text = await OfflineProvider(delay=0).complete([], context={
        "task": "summarize", "transcript": transcript})
    plot = json.loads(text)["events"][0]["plot"]
    assert "Ann: 北区据点有背叛者" in plot and "Brenna: 我会去调查。" in plot
    assert "角色: 我也去。" in plot and "用户" not in plot


async def test_offline_memory_and_recap_mention_recent_events() -> None:
    provider = OfflineProvider(delay=0)
    transcript = [{"role": "user", "content": "Victor fled north"}]
    context = {"character_name": "Alserqi", "transcript": transcript}
    persona = await provider.complete([], context={**context, "task": "update_memory"})
    recap = await provider.complete([], context={**context, "task": "recap"})
    assert "Alserqi" in persona and "Victor fled north" in persona
    assert "Victor fled north" in recap and "\n" not in recap


async def test_offline_regenerate_gives_a_different_version_and_continue_goes_on() -> None:
    provider = OfflineProvider(delay=0)
    versions = ["".join(await collect(provider, character_name="Mira", turn=1, variant=n))
                for n in range(3)]
    assert len(set(versions)) == 3
    more = "".join(await collect(provider, character_name="Mira", turn=1,
                                 continue_from=versions[0]))
    assert more and more not in versions[0] and versions[0] not in more


def test_sse_reader_reads_pieces_split_across_network_reads() -> None:
    from personalab.lib.llm import SSEReader

    reader = SSEReader()
    stream = (b': keep-alive\n\ndata: {"choices":[{"delta":{"role":"assistant"}}]}\n\n'
              b'data: {"choices":[{"delta":{"content":"\xe4\xbd\xa0\xe5\xa5\xbd"}}]}\n\n'
              b'data: {"choices":[{"delta":{"content":" there"}}]}\n\ndata: [DONE]\n\n'
              b'data: {"choices":[{"delta":{"content":"after done"}}]}\n\n')
    pieces = []
    for cut in range(0, len(stream), 7):  # reads that end mid-line and mid-character
        pieces += reader.feed(stream[cut:cut + 7])
    assert pieces == ["你好", " there"] and reader.done


@pytest.mark.parametrize("chunk, pieces", [
    ({"choices": [{"delta": {"content": "hi"}}]}, ["hi"]),
    ({"choices": [{"delta": {"content": ""}}]}, []),
    ({"choices": [{"delta": {"content": None, "role": "assistant"}}]}, []),
    ({"choices": [{"delta": {"content": 5}}]}, []),
    ({"choices": [{"delta": {"reasoning_content": "hmm", "content": "ok"}}]}, ["hmm", "ok"]),
    ({"choices": [{"delta": {"reasoning": "hmm", "content": ""}}]}, ["hmm"]),
    ({"choices": [{"delta": ["content"]}]}, []),
    ({"choices": {"0": {"delta": {"content": "x"}}}}, []),
    ({"choices": "delta"}, []),
    ({"choices": []}, []),
    ([1, 2], []),
])
def test_sse_reader_takes_only_text_from_odd_chunks(chunk, pieces) -> None:
    from personalab.lib.llm import SSEReader
    from personalab.lib.reasoning import Reasoning

    got = SSEReader().feed(b"data: " + json.dumps(chunk).encode() + b"\n\n")
    assert got == pieces
    assert [isinstance(piece, Reasoning) for piece in got] == [
        "reason" in json.dumps(chunk) and n == 0 for n in range(len(pieces))]


def test_sse_reader_joins_the_pieces_of_one_read_keeping_reasoning_apart_in_order() -> None:
    from personalab.lib.llm import SSEReader
    from personalab.lib.reasoning import Reasoning

    def line(delta: dict) -> bytes:
        return b"data: " + json.dumps({"choices": [{"delta": delta}]}).encode() + b"\n\n"

    read = b"".join([line({"reasoning_content": "let me "}), line({"reasoning_content": "see"}),
                     line({"content": "Hel"}), line({"content": "lo"}),
                     line({"reasoning": "again"}), line({"content": "!"})])
    got = SSEReader().feed(read)
    assert got == ["let me see", "Hello", "again", "!"]
    assert [isinstance(piece, Reasoning) for piece in got] == [True, False, True, False]


@pytest.mark.parametrize("payloads", [
    [b"[1", b"2]", b"3,4"],  # no line is JSON alone, though the three joined would be
    [b'{"choices": [{"delta": {"content": "a"}}]}', b'{"choices": '],
])
def test_sse_reader_fails_a_read_with_a_bad_line_whatever_its_neighbours(payloads) -> None:
    from personalab.lib.llm import SSEReader

    with pytest.raises(ValueError):
        SSEReader().feed(b"".join(b"data: " + payload + b"\n\n" for payload in payloads))


def test_sse_reader_raises_an_error_event_as_the_llm_error() -> None:
    from personalab.lib.llm import SSEReader

    with pytest.raises(LLMError) as caught:
        SSEReader().feed(b'data: {"error": {"message": "overloaded"}}\n\n')
    assert "overloaded" in caught.value.message


async def test_offline_regenerate_of_a_line_sent_twice_gives_a_new_version() -> None:
    """The same words sent twice, then ↻: version 2 was word for word version 1, as both
    skipped the reply before them to the same next combination (newcomer round)."""
    provider = OfflineProvider(delay=0)
    line = {"role": "user", "content": "Tell me the plan."}
    first = "".join(await collect(provider, [line], character_name="Alserqi"))
    asked = [line, {"role": "assistant", "content": first}, line]
    versions = ["".join(await collect(provider, asked, character_name="Alserqi", variant=v))
                for v in range(3)]
    assert len({first, *versions}) == 4
