"""The house rule that keeps a file to one job (issue 31, docs/architecture.md): no module of
the app — Python under the apps and personalab/, the page's own JavaScript — runs over 600
lines. Migrations and vendored files are not ours to split."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ("personalab", "library", "memory", "director", "chat")
MAX_LINES = 600


def _app_files() -> list[Path]:
    files = [path for app in APPS for path in (ROOT / app).rglob("*.py")
             if "migrations" not in path.parts]
    files += [path for path in (ROOT / "static").rglob("*.js") if "vendor" not in path.parts]
    return files


def test_no_app_module_is_over_600_lines() -> None:
    files = _app_files()
    assert len(files) > 100  # the walk found the app, not an empty folder
    over = {str(path.relative_to(ROOT)): lines for path in files
            if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert over == {}, f"split these by job: {over}"
