"""Three rules of the house (issue 31) that nothing else holds: a module imports the project's
modules at its top, where the import contract (`lint-imports`) sees them, save a few that say
why they cannot; the app's settings are read from the environment in personalab/settings.py
alone, parsed once and strictly, never again at a request or a turn; and no function of the
app runs over 80 lines (a longer one has grown parts that want names of their own)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("personalab", "library", "memory", "director", "chat")
LOCAL_IMPORTS_MAX = 5
FUNCTION_LINES_MAX = 80
# Read from the environment by the app's own settings only. Others (TIKTOKEN_CACHE_DIR,
# XDG_CACHE_HOME, OMP_WAIT_POLICY, DJANGO_SETTINGS_MODULE's default) belong to libraries.
SETTING_PREFIXES = ("PERSONALAB_", "OPENAI_", "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS",
                    "DATABASE_", "REDIS_", "CHROMA_")


def _modules() -> list[tuple[Path, ast.Module, list[str]]]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            found.append((path, ast.parse(text), text.splitlines()))
    return found


def _project(module: str | None) -> bool:
    return bool(module) and module.split(".")[0] in PACKAGES


def test_a_project_import_inside_a_function_is_rare_and_says_why() -> None:
    local, silent = [], []
    for path, tree, lines in _modules():
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                names = ([node.module] if isinstance(node, ast.ImportFrom) and not node.level
                         else [alias.name for alias in node.names]
                         if isinstance(node, ast.Import) else [])
                if not any(_project(name) for name in names):
                    continue
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                local.append(where)
                line, above = lines[node.lineno - 1], lines[node.lineno - 2].strip()
                if "#" not in line and not above.startswith("#"):
                    silent.append(where)
    assert silent == [], "a function-local import without a comment saying why"
    assert len(local) <= LOCAL_IMPORTS_MAX, local


def test_no_function_of_the_app_is_over_80_lines() -> None:
    long = [f"{path.relative_to(ROOT)}:{node.lineno} {node.name} "
            f"({node.end_lineno - node.lineno + 1} lines)"
            for path, tree, _lines in _modules() for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno - node.lineno + 1 > FUNCTION_LINES_MAX]
    assert long == []


def _environment_read(node: ast.AST) -> str | None:
    """The variable's name when `node` reads one: os.environ.get("X"), os.environ["X"],
    os.getenv("X")."""
    def named(value: ast.AST) -> bool:
        return (isinstance(value, ast.Attribute) and value.attr == "environ"
                or isinstance(value, ast.Name) and value.id == "environ")

    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
        callee = node.func
        if (isinstance(callee, ast.Attribute) and callee.attr in ("get", "setdefault")
                and named(callee.value)) or (
                isinstance(callee, ast.Attribute) and callee.attr == "getenv"):
            return str(node.args[0].value)
    if (isinstance(node, ast.Subscript) and named(node.value)
            and isinstance(node.slice, ast.Constant) and isinstance(node.ctx, ast.Load)):
        return str(node.slice.value)
    return None


def test_the_apps_settings_are_read_from_the_environment_in_settings_alone() -> None:
    settings = ROOT / "personalab" / "settings.py"
    outside = [f"{path.relative_to(ROOT)}:{node.lineno} {name}"
               for path, tree, _ in _modules() if path != settings
               for node in ast.walk(tree)
               if (name := _environment_read(node)) and name.startswith(SETTING_PREFIXES)]
    assert outside == []
    # the scan finds such reads: settings.py's own are seen
    tree = ast.parse(settings.read_text(encoding="utf-8"))
    assert any(_environment_read(node) == "SECRET_KEY" for node in ast.walk(tree))
