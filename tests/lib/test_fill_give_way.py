"""A fill's embedding gives way to a turn's recall (personalab/lib/embedding/give_way.py): its
next call waits while a recall is held, its running batch is stopped and run again after, and a
recall that never ends slows the fill but does not stop it."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from personalab.lib.embedding import engine as engine_module
from personalab.lib.embedding import give_way
from personalab.lib.embedding.embeddings import model_load, second_load
from personalab.lib.embedding.give_way import (
    fill_give_way,
    fill_marked,
    recall_held,
    run_giving_way,
)


class Options:
    """ONNX Runtime's RunOptions as far as the gate uses it."""

    def __init__(self) -> None:
        self.terminate = False


def test_a_fill_call_waits_while_a_turn_holds_recall():
    held, release, waited = threading.Event(), threading.Event(), []

    def turn() -> None:
        with recall_held():
            held.set()
            release.wait(5)

    def fill() -> None:
        with fill_marked():
            waited.append(fill_give_way(limit=5))

    recall = threading.Thread(target=turn)
    recall.start()
    held.wait(5)
    filler = threading.Thread(target=fill)
    filler.start()
    filler.join(0.3)
    assert filler.is_alive(), "the fill went on while the recall was held"
    release.set()
    filler.join(5)
    recall.join(5)
    assert not filler.is_alive() and waited[0] >= 0.3
    assert fill_give_way(limit=5) == 0.0, "with no recall held a fill does not wait"


def test_a_running_fill_batch_is_stopped_by_a_recall_and_run_again_after_it():
    started, runs = threading.Event(), []

    def run(options: Options | None) -> str:
        runs.append(options)
        started.set()
        while options is not None and len(runs) == 1:  # the first run: until stopped
            if options.terminate:
                raise RuntimeError("Exiting due to terminate flag being set to true.")
            time.sleep(0.005)
        return "rows"

    result: list[str] = []
    filler = threading.Thread(target=lambda: result.append(run_giving_way(run, Options)))
    filler.start()
    started.wait(5)
    with recall_held():
        time.sleep(0.2)
        assert len(runs) == 1 and runs[0].terminate, "the running batch was not stopped"
    filler.join(5)
    assert result == ["rows"] and len(runs) == 2


def test_a_recall_held_for_ever_slows_a_fill_but_does_not_stop_it(monkeypatch):
    monkeypatch.setattr(give_way, "GIVE_WAY_SECONDS", 0.05)
    with recall_held():
        started = time.monotonic()
        assert run_giving_way(lambda options: "rows", Options) == "rows"
        assert 0.04 < time.monotonic() - started < 2


def test_turns_one_after_another_do_not_stop_a_fill_for_good(monkeypatch):
    # Each turn starts before a stopped batch could finish again: after GIVE_WAY_SECONDS of
    # giving way the batch runs to its end.
    monkeypatch.setattr(give_way, "GIVE_WAY_SECONDS", 0.2)
    done = threading.Event()

    def turns() -> None:
        while not done.is_set():
            with recall_held():
                time.sleep(0.02)
            time.sleep(0.02)

    def run(options: Options | None) -> str:
        until = time.monotonic() + 0.1
        while time.monotonic() < until:
            if options is not None and options.terminate:
                raise RuntimeError("Exiting due to terminate flag being set to true.")
            time.sleep(0.002)
        return "rows"

    player = threading.Thread(target=turns)
    player.start()
    try:
        started = time.monotonic()
        assert run_giving_way(run, Options) == "rows"
        assert time.monotonic() - started < 1.5
    finally:
        done.set()
        player.join(5)


def test_an_error_of_a_batch_no_recall_stopped_is_raised():
    def run(options: Options | None) -> str:
        raise ValueError("bad input")

    with pytest.raises(ValueError):
        run_giving_way(run, Options)


@pytest.mark.embedding_uncached
def test_the_engines_fill_batch_stopped_by_a_recall_gives_the_vectors_it_gives_alone(monkeypatch):
    engine = model_load(role="passage")
    texts = [f"Line {n}: we walked the dog by the lake and talked about the new job." * 2
             for n in range(6)]
    alone = engine.encode(texts)
    made: list[object] = []

    def options_made():
        options = give_way_options()
        made.append(options)
        return options

    give_way_options = engine_module.run_options
    monkeypatch.setattr(engine_module, "run_options", options_made)
    rows: list[np.ndarray] = []

    def fill() -> None:
        with fill_marked():
            rows.append(engine.encode(texts))

    filler = threading.Thread(target=fill)
    filler.start()
    deadline = time.monotonic() + 10
    while not made and time.monotonic() < deadline:
        time.sleep(0.001)
    with recall_held():
        time.sleep(0.1)
    filler.join(30)
    assert any(options.terminate for options in made), "no batch was stopped"
    np.testing.assert_allclose(rows[0], alone, atol=1e-5)


def test_a_turns_minilm_batches_do_not_queue_behind_a_fill_giving_way(monkeypatch):
    # MiniLM is one engine for queries and passages: a fill's batches wait in a pool of their
    # own, so a turn's (its unembedded lines, several batches) never waits for them.
    model = second_load()
    if model is None:
        pytest.skip("MiniLM is not installed")
    monkeypatch.setattr(give_way, "GIVE_WAY_SECONDS", 20)
    waiting = threading.Event()
    wait = give_way.fill_give_way

    def fill_waits(**kwargs) -> float:
        waiting.set()
        return wait(**kwargs)

    monkeypatch.setattr(give_way, "fill_give_way", fill_waits)
    texts = [f"line {n} about the lake " * 40 for n in range(4)]  # two batches
    with recall_held():
        def fill() -> None:
            with fill_marked():
                model.encode(texts)

        filler = threading.Thread(target=fill)
        filler.start()
        assert waiting.wait(20), "the fill's batches never gave way"
        time.sleep(0.1)  # both of its batches are waiting in their pool
        started = time.monotonic()
        model.encode(texts)
        assert time.monotonic() - started < 10
    filler.join(30)
