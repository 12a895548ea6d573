"""Every refusal the REST API can give, found in the source: each call of an AppError subclass
(`raise NotFound(f"…")`, `error = Conflict("…")`) in a module personalab/api.py imports, directly
or through other project modules, is one site. Its message is rebuilt with each `{value}` of an
f-string as a sample ("7"), then said through personalab.error_words with 中文 active: a site
counts as worded when the answer differs from the English, or when its message is a gettext call
(said where it is raised). A message that passes on another error's words (`str(exc)`,
`exc.message`: counted at that error's own site) and one built at run time (a variable, `%`,
`.format`, a class's own constructor) cannot be rebuilt and count apart. Used by
bench/error_words_coverage.py and tests/api/test_error_words_reach.py."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import django
from django.utils import translation

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("personalab", "chat", "library", "director", "memory")
SAMPLE = "7"


def module_path(name: str) -> Path | None:
    base = ROOT / Path(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def imported(name: str, tree: ast.Module) -> set[str]:
    found = set()
    package = name if module_path(name).name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return {n for n in found if n.split(".")[0] in PACKAGES and module_path(n)}


def reachable(start: str = "personalab.api") -> dict[str, ast.Module]:
    seen: dict[str, ast.Module] = {}
    todo = [start]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        tree = ast.parse(module_path(name).read_text(encoding="utf-8"))
        seen[name] = tree
        parts = name.split(".")
        todo += [".".join(parts[:i]) for i in range(1, len(parts))]  # packages run first
        todo += sorted(imported(name, tree) - seen.keys())
    return seen


def sample_text(node: ast.expr) -> str | None:
    """The message an expression makes, each formatted value as SAMPLE; None when unknown."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = []
        for part in node.values:
            if isinstance(part, ast.Constant):
                out.append(str(part.value))
            else:
                out.append(repr(SAMPLE) if part.conversion == ord("r") or _shown(part.value)
                           else SAMPLE)
        return "".join(out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = sample_text(node.left), sample_text(node.right)
        return None if left is None or right is None else left + right
    return None


def _shown(node: ast.expr) -> bool:
    """`value_shown(x)` (personalab/lib/shown.py): a short value comes out as its repr."""
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "value_shown")


GETTEXT = {"gettext", "gettext_lazy", "ngettext", "pgettext", "_"}


def message_kind(node: ast.expr) -> str:
    """'said' (a gettext call in it), 'passed' (another error's words) or 'built'."""
    if any(isinstance(part, ast.Call) and isinstance(part.func, ast.Name)
           and part.func.id in GETTEXT for part in ast.walk(node)):
        return "said"
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str"
            or isinstance(node, ast.Attribute) and node.attr == "message"):
        return "passed"
    return "built"


def sites() -> list[tuple[str, int, str, str | None]]:
    django.setup()
    # The app's modules after django.setup(): the script runs them outside a server.
    from personalab.lib.errors import AppError
    found = []
    for name, tree in sorted(reachable().items()):
        module = importlib.import_module(name)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            callee = node.func
            label = callee.id if isinstance(callee, ast.Name) else (
                callee.attr if isinstance(callee, ast.Attribute) else None)
            target = getattr(module, label, None) if isinstance(callee, ast.Name) else None
            if isinstance(callee, ast.Attribute) and isinstance(callee.value, ast.Name):
                owner = getattr(module, callee.value.id, None)
                target = getattr(owner, label, None) if owner is not None else None
            if not (isinstance(target, type) and issubclass(target, AppError)):
                continue
            words = node.args[0] if node.args else next(
                (k.value for k in node.keywords if k.arg == "message"), None)
            if words is None:  # the class's own message (TooLarge), or one it builds
                try:
                    text = target().message or None
                except TypeError:  # built from its keywords (LimitReached)
                    text = "built"
            else:
                text = sample_text(words)
                text = text if text is not None else message_kind(words)
            found.append((f"{module_path(name).relative_to(ROOT)}", node.lineno, label, text))
    return found


def site_states() -> list[tuple[str, int, str, str, str]]:
    """(path, line, class, sample message, state) of every site: state "zh" (said in 中文),
    "english", "said" (gettext where raised), "passed" or "built"."""
    # The app's modules after django.setup() (sites() sets Django up when a script calls it).
    from personalab.error_words import error_said
    rows = sites()
    states = []
    for path, line, label, text in rows:
        if text in ("said", "passed", "built"):
            state = text
        else:
            with translation.override("zh-hans"):
                state = "zh" if error_said(text) != text else "english"
        states.append((path, line, label, text, state))
    return states
