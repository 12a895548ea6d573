from __future__ import annotations

import hashlib
import socket

import pytest
import tiktoken.registry

from personalab.lib import tokens

# Where tiktoken would download cl100k_base from: its cache file is named after this address.
TIKTOKEN_CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


@pytest.fixture
def fresh_tokenizer(monkeypatch, tmp_path):
    """A process that has never loaded the tokenizer, with an empty cache dir and no network."""
    monkeypatch.setattr(tokens, "_encoding", None)
    monkeypatch.setattr(tokens, "_tokenizer_name", None)
    monkeypatch.setattr(tokens, "_fallback_reason", "")
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken"))
    network_calls = []

    def refuse(*args, **kwargs):
        network_calls.append(args)
        raise OSError("network is off in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    tokens.count_tokens_cache_clear()
    yield network_calls
    tokens.count_tokens_cache_clear()


def test_first_use_loads_cl100k_without_network(fresh_tokenizer, tmp_path):
    assert tokens.count_tokens("hello world") == 2
    assert tokens.tokenizer_name() == "cl100k_base"
    assert tokens.TOKENIZER_NAME == "cl100k_base"
    assert fresh_tokenizer == []
    cache_key = hashlib.sha1(TIKTOKEN_CL100K_URL.encode()).hexdigest()
    assert (tmp_path / "tiktoken" / cache_key).is_file()


def test_counts_match_cl100k_for_chinese_and_special_text(fresh_tokenizer):
    encoding = (
        tiktoken.get_encoding("cl100k_base") if tokens.tokenizer_name() == "cl100k_base" else None
    )
    assert encoding is not None
    text = "你还记得我们之前的约定吗？ <|endoftext|> [PROGRESS:3:in_progress]"
    assert tokens.count_tokens(text) == len(encoding.encode_ordinary(text))
    assert tokens.count_tokens("") == 0


def test_a_corrupt_cache_file_is_replaced_not_downloaded(fresh_tokenizer, tmp_path):
    cache_dir = tmp_path / "tiktoken"
    cache_dir.mkdir()
    (cache_dir / hashlib.sha1(TIKTOKEN_CL100K_URL.encode()).hexdigest()).write_bytes(b"garbage")
    assert tokens.count_tokens("hello world") == 2
    assert fresh_tokenizer == []


def test_missing_vocabulary_falls_back_to_the_documented_approximation(
    fresh_tokenizer, monkeypatch, tmp_path
):
    monkeypatch.setattr(
        tokens, "_bundled_vocabulary_path", lambda: tmp_path / "missing.tiktoken.gz"
    )
    assert tokens.tokenizer_name() == "approx_chars"
    assert tokens.TOKENIZER_NAME == "approx_chars"
    assert "missing.tiktoken.gz" in tokens.tokenizer_fallback_reason()
    # 8 ASCII characters / 4 + 4 CJK characters * 1.25
    assert tokens.count_tokens("abcdefgh你好世界") == 7
    assert fresh_tokenizer == []


def test_repeated_texts_are_counted_once(fresh_tokenizer):
    tokens.count_tokens("the same message")
    tokens.count_tokens("the same message")
    tokens.count_tokens("a long system prompt " * 200)
    tokens.count_tokens("a long system prompt " * 200)
    info = tokens.count_tokens_cache_info()
    assert (info["short"].hits, info["short"].misses) == (1, 1)
    assert (info["long"].hits, info["long"].misses) == (1, 1)
