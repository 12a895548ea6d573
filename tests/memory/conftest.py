"""Fixtures of the memory tests."""

from __future__ import annotations

import pytest

from memory import runtime
from tests.rest_client import bearer_caller


@pytest.fixture
def rest(client, alice):
    """REST calls with a bearer token of alice, the instance's owner."""
    return bearer_caller(client, alice)


@pytest.fixture
def brenna(shared_brenna):
    """The memory tests' Brenna is the shared one (tests/conftest.py), not the private one."""
    return shared_brenna


@pytest.fixture
def no_background(monkeypatch):
    """The queued sync never runs: what recall finds comes from the import alone."""
    queued = []
    monkeypatch.setattr(runtime, "schedule_sync", lambda store, **kw: queued.append(kw))
    return queued
