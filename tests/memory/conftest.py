"""Fixtures of the memory tests."""

from __future__ import annotations

import pytest

from tests.rest_client import bearer_caller


@pytest.fixture
def rest(client, alice):
    """REST calls with a bearer token of alice, the instance's owner."""
    return bearer_caller(client, alice)
