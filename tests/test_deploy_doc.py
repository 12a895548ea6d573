"""docs/deploy.md's proxy set-up keeps the login throttle per player (red team, 2026-12-02):
behind the proxy every connection comes from the proxy's address."""

from __future__ import annotations

import re
from pathlib import Path

DEPLOY = Path(__file__).resolve().parent.parent / "docs" / "deploy.md"


def test_the_workers_behind_the_proxy_read_the_players_address_from_the_proxy():
    text = DEPLOY.read_text(encoding="utf-8")
    commands = re.findall(r"^daphne .*$", text, flags=re.M)
    assert commands and all("--proxy-headers" in command for command in commands)
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in text
