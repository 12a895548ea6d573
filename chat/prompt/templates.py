"""Prompt templates: the master files in chat/prompt_templates/ merged with the data folder's
copy and the user's overrides (a later file wins key by key), reloaded when a file changes; and
the warning dicts whose words the templates hold."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from director.logic import SEED_WORDS, DirectorWords
from personalab.lib.jsontext import json_loads
from personalab.lib.template_sandbox import TemplateError

MASTER_TEMPLATES_DIR = Path(__file__).resolve().parent.parent / "prompt_templates"
DEFAULT_LOCALE = "zh"
LOCALE_PATTERN = re.compile(r"^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?$")


@dataclass(frozen=True)
class TemplateSet:
    """Master templates merged with the data copy and the user's overrides (user wins)."""

    locale: str
    data: dict[str, Any]
    master: dict[str, Any]
    problems: tuple[str, ...] = ()

    def label(self, name: str) -> str:
        return str(self.data.get("labels", {}).get(name, ""))

    def section_source(self, name: str) -> str:
        return str(self.data.get("sections", {}).get(name, ""))

    def master_source(self, name: str) -> str:
        return str(self.master.get("sections", {}).get(name, ""))

    def status_label(self, status: str) -> str:
        return str(self.data.get("status_labels", {}).get(status, status))

    def order(self, template_key: str) -> tuple[list[str], list[str]]:
        templates = self.data.get("templates", {})
        chosen = templates.get(template_key) or templates.get("chat") or {}
        return list(chosen.get("head", [])), list(chosen.get("middle", []))

    def tail(self, template_key: str) -> list[str]:
        templates = self.data.get("templates", {})
        chosen = templates.get(template_key) or templates.get("chat") or {}
        return list(chosen.get("tail", []))

    def default(self, name: str) -> str:
        return str(self.data.get("defaults", {}).get(name, ""))

    def text(self, key: str) -> str:
        return str(self.data.get("messages", {}).get(key, ""))

    def warning_text(self, category: str) -> dict[str, str]:
        found = self.data.get("messages", {}).get("warnings", {}).get(category, {})
        return found if isinstance(found, dict) else {}


def director_words(templates: TemplateSet) -> DirectorWords:
    """The director's words in the prompt's language (a template without them: the seed's)."""
    return DirectorWords(**{field: templates.text(f"director_{field}") or getattr(SEED_WORDS, field)
                            for field in ("instruction", "goal", "reminder", "point", "hold")})


def template_locale_validate(locale: str) -> str:
    if not isinstance(locale, str) or not LOCALE_PATTERN.fullmatch(locale):
        raise TemplateError(f"invalid locale {locale!r}: use a code like 'zh', 'en' or 'zh-Hans'")
    return locale


def templates_merge(
    base: dict[str, Any], override: dict[str, Any], problems: list[str], where: str
) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        current = base.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            merged[key] = templates_merge(current, value, problems, f"{where}.{key}")
        elif isinstance(current, dict):
            problems.append(f"{where}.{key} must be an object; the override is ignored")
        else:
            merged[key] = value
    return merged


def _json_object_read(path: Path) -> dict[str, Any]:
    data = json_loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise TypeError("the file must hold a JSON object")
    return data


def templates_load(locale: str, master_path: Path, override_paths: list[Path]) -> TemplateSet:
    master = _json_object_read(master_path)
    merged, problems = master, []
    for path in override_paths:
        if not path.is_file():
            continue
        try:
            override = _json_object_read(path)
        except (OSError, ValueError, TypeError) as error:
            problems.append(f"{path.name} ignored: {error}")
            continue
        merged = templates_merge(merged, override, problems, path.name)
    return TemplateSet(locale=locale, data=merged, master=master, problems=tuple(problems))


def _file_signature(path: Path) -> tuple[str, int | None, int | None]:
    try:
        stat = path.stat()
    except OSError:
        return (str(path), None, None)
    return (str(path), stat.st_mtime_ns, stat.st_size)


class TemplateStore:
    """Loads chat/prompt_templates/{locale}.json, then data/prompt_templates/{locale}.json, then
    {locale}.user.json; a later file wins key by key. Reloads when any of them changes."""

    def __init__(self, data_templates_dir: Path, master_dir: Path = MASTER_TEMPLATES_DIR):
        self.data_templates_dir = Path(data_templates_dir)
        self.master_dir = Path(master_dir)
        self._cache: dict[str, tuple[tuple[Any, ...], TemplateSet]] = {}
        self._lock = threading.Lock()

    def paths(self, locale: str) -> tuple[Path, list[Path]]:
        locale = template_locale_validate(locale)
        master = self.master_dir / f"{locale}.json"
        if not master.is_file():
            master = self.master_dir / f"{DEFAULT_LOCALE}.json"
        overrides = [
            self.data_templates_dir / f"{locale}.json",
            self.data_templates_dir / f"{locale}.user.json",
        ]
        return master, overrides

    def get(self, locale: str) -> TemplateSet:
        master, overrides = self.paths(locale)
        signature = tuple(_file_signature(path) for path in [master, *overrides])
        with self._lock:
            cached = self._cache.get(locale)
            if cached is not None and cached[0] == signature:
                return cached[1]
            loaded = templates_load(locale, master, overrides)
            self._cache[locale] = (signature, loaded)
            return loaded

    def reload(self) -> None:
        with self._lock:
            self._cache.clear()


def warning_make(
    templates: TemplateSet, category: str, current: Any, threshold: Any, **extra: Any
) -> dict[str, Any]:
    words = templates.warning_text(category)
    return {
        "type": "warning",
        "category": category,
        "message": words.get("message", category),
        "current_value": current,
        "threshold": threshold,
        "suggestion": words.get("suggestion", ""),
        **extra,
    }


def template_problem_add(templates: TemplateSet, warnings: list[dict[str, Any]], detail: str) -> None:
    warnings.append(warning_make(templates, "template_error", None, None, detail=detail))
