"""A test module holds tests: what another module needs from it lives in a helper module named
after what it holds (docs/architecture.md, "Tests"). No test module, helper or bench script
imports a test module, at its top or inside a function."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _test_module_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                 else [alias.name for alias in node.names] if isinstance(node, ast.Import)
                 else [])
        found += [f"{path.relative_to(ROOT)}:{node.lineno} {name}" for name in names
                  if name.startswith("tests.") and name.rsplit(".", 1)[-1].startswith("test_")]
    return found


def test_no_module_imports_a_test_module():
    files = sorted([*(ROOT / "tests").rglob("*.py"), *(ROOT / "bench").rglob("*.py")])
    assert len(files) > 300
    found = [line for path in files for line in _test_module_imports(path)]
    assert found == [], "\n".join(found)
