"""Rewrite imports of the names chat.services, library.services and memory.services used to
re-export (issue 31 item 5) so they come from the module that holds them.

    python tools/imports_holding.py [files...]      (default: every .py under the current folder)

For a branch written before the re-exports went: `from chat.services import instance_create`
becomes `from chat.services.instances import instance_create`; `from library import services`
with `services.character_save(...)` becomes `from library.character_services import
character_save` with `character_save(...)` (continuation lines follow), or the holding module
(`instances.instance_create(...)`) where the file has its own name for the action. A file it
cannot rewrite safely is named and left as it was. Run `ruff check --select I001 --fix` on the
files it names afterwards where their imports were sorted. A one-off: delete it once every branch
is merged.
"""

from __future__ import annotations

import ast
import pathlib
import sys

LINE = 100
MODULE_ALIASES = {"errors": "service_errors"}

HOLDERS: dict[str, dict[str, tuple[str, ...]]] = {
    "chat.services": {
        "chat.services.errors": ("InstanceUpdateError", "NotFound",),
        "chat.services.generation": (
            "generation_defaults_read", "generation_defaults_update", "generation_for_instance",
        ),
        "chat.services.index": ("instance_index", "reindex_all", "trace_index",),
        "chat.services.instance_settings": (
            "MAX_INSTANCE_NAME", "MAX_PERSONA_NAME", "UNSET", "instance_background_switch",
            "instance_play_as", "instance_update",
        ),
        "chat.services.instances": (
            "INITIAL_PLOT_STATE", "MAX_MEMBERS", "greeting_lines", "instance_create",
            "instance_for_user", "instances_visible_to",
        ),
        "chat.services.members": (
            "instance_member_add", "instance_member_change", "instance_member_remove",
        ),
        "chat.services.session_export": ("session_export", "session_regroup",),
        "chat.services.session_import": ("session_import",),
        "chat.services.sessions": (
            "session_archive_and_restart", "session_live_check", "session_read_repaired",
            "session_summary",
        ),
        "chat.services.settings_reset": ("SETTINGS_SECTIONS", "settings_section_reset",),
        "chat.services.traces": (
            "SECTION_FIGURES", "TRACE_FIGURES", "trace_rebuild", "trace_sections",
        ),
    },
    "library.services": {
        "library.avatars": ("AVATAR_MAX_BYTES",),
        "library.background_services": (
            "background_delete", "background_outline_edit", "background_save",
        ),
        "library.card_export": ("character_export_card",),
        "library.card_import": ("MAX_CARD_BYTES",),
        "library.character_services": (
            "character_avatar_save", "character_delete", "character_save",
        ),
        "library.errors": (
            "LibraryConflict", "LibraryError", "LibraryForbidden", "LibraryNotFound",
        ),
        "library.fields": (
            "CARD_TEXT_FIELDS", "MAX_CARD_TEXT", "MAX_NAME_CHARS", "MAX_TAGS", "MAX_TAG_CHARS",
            "MAX_TEXT", "lorebook_ids_checked",
        ),
        "library.index_rows": (
            "background_index", "character_index", "lorebook_index", "persona_index",
            "user_for_username",
        ),
        "library.item_chats": ("chat_copies_keep",),
        "library.item_copy": ("COPY_KINDS", "background_copy", "character_copy", "lorebook_copy",),
        "library.lorebook_services": ("lorebook_save",),
        "library.persona_services": (
            "PERSONA_DESCRIPTION_LIMIT", "VISIBILITIES", "persona_avatar_save", "persona_create",
            "persona_default_set", "persona_delete", "persona_update",
        ),
    },
    "memory.services": {
        "memory.authors_note": (
            "AUTHORS_NOTE_DEFAULT", "AUTHORS_NOTE_FILE", "NOTE_ROLES", "authors_note_read",
            "authors_note_save",
        ),
        "memory.biography": (
            "BIOGRAPHY_FILE", "biography_add", "biography_from_persona", "biography_items",
            "biography_remove", "biography_reorder", "biography_update",
        ),
        "memory.errors": ("MemoryActionError",),
        "memory.evolved_persona": (
            "PERSONA_LEDGER", "evolved_persona_read", "memory_update_persona", "persona_member",
            "persona_restore", "persona_set_manual", "persona_versions", "recent_turn_lines",
        ),
        "memory.pinned": (
            "PINNED_FILE", "PINNED_MAX_CHARS", "pinned_members", "pinned_override_set",
            "pinned_overrides_read", "pinned_prompt_effective", "pinned_prompt_set",
        ),
        "memory.recaps": (
            "RECAPS_FILE", "recap_items", "recap_maybe_roll", "recap_pending", "recap_rebuild",
            "recap_remove", "recap_reorder", "recap_update",
        ),
        "memory.summarize": ("memory_summarize", "parse_events_json", "summary_seed_lines",),
    },
}


def fmt_import(indent: str, module: str, names: list[str]) -> str:
    # isort's order (ruff's default): CONSTANTS, then Classes, then functions.
    def key(n: str) -> tuple[int, str]:
        base = n.split(" as ")[0]
        if base.upper() == base:
            return (0, base)
        if base[:1].isupper():
            return (1, base)
        return (2, base)

    names = sorted(set(names), key=key)
    one = f"{indent}from {module} import {', '.join(names)}"
    if len(one) <= LINE:
        return one
    body = "".join(f"{indent}    {n},\n" for n in names)
    return f"{indent}from {module} import (\n{body}{indent})"


def byte_col_to_char(line: str, col: int) -> int:
    return len(line.encode("utf-8")[:col].decode("utf-8"))


def bound_names(tree: ast.AST) -> set[str]:
    names = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            names.add(n.id)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, ast.arg):
            names.add(n.arg)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                names.add((a.asname or a.name).split(".")[0])
    return names


def continuation_dedents(tree: ast.AST, lines: list[str], shifts) -> dict[int, int]:
    """Lines aligned past a shortened `alias.name` move left with it (0-based line -> spaces)."""
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    in_string = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Constant, ast.JoinedStr)) and node.end_lineno > node.lineno:
            in_string.update(range(node.lineno, node.end_lineno))  # 0-based lines after the first
    out: dict[int, int] = {}
    for attr, col, removed in shifts:
        top = attr
        while not isinstance(parents.get(top), ast.stmt) and top in parents:
            if getattr(parents[top], "end_lineno", None) is None:
                break  # a `with` item or the like: the expression found so far is the span
            top = parents[top]
        first = attr.lineno - 1
        for i in range(first + 1, top.end_lineno):
            if i in in_string:
                continue
            line = lines[i]
            indent = len(line) - len(line.lstrip(" "))
            if line.strip() and indent >= col:
                out[i] = out.get(i, 0) + removed
    return out


def rewrite(path: pathlib.Path, pkg: str, hmap: dict[str, str], report: list) -> bool:
    src = path.read_text()
    try:
        tree = ast.parse(src)
    except SyntaxError as error:  # a merge conflict left in it: take one side first
        report.append(f"{path}: not Python ({error.msg}, line {error.lineno})")
        return False
    lines = src.splitlines(keepends=True)
    parent_pkg, leaf = pkg.rsplit(".", 1)
    edits = []  # (start_line0, start_char, end_line0, end_char, text)
    aliases: dict[str, ast.ImportFrom] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.level:
            continue
        if node.module == pkg:
            groups: dict[str, list[str]] = {}
            for a in node.names:
                mod = hmap.get(a.name)
                if mod is None:
                    report.append(f"{path}:{node.lineno} unknown name {a.name}")
                    return False
                groups.setdefault(mod, []).append(a.name + (f" as {a.asname}" if a.asname else ""))
            first = lines[node.lineno - 1]
            indent = first[: len(first) - len(first.lstrip())]
            text = "\n".join(fmt_import(indent, m, ns) for m, ns in sorted(groups.items()))
            edits.append((node.lineno - 1, 0, node.end_lineno - 1,
                          len(lines[node.end_lineno - 1].rstrip("\n")), text))
        elif node.module == parent_pkg and any(a.name == leaf for a in node.names):
            for a in node.names:
                if a.name == leaf:
                    aliases[a.asname or a.name] = node
    if aliases:
        bound = bound_names(tree)
        attr_nodes = []
        alias_loads = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in aliases:
                attr_nodes.append(n)
        attr_values = {id(n.value) for n in attr_nodes}
        for n in ast.walk(tree):
            if isinstance(n, ast.Name) and n.id in aliases and id(n) not in attr_values:
                alias_loads.setdefault(n.id, []).append(n.lineno)
        if alias_loads:
            report.append(f"{path}: alias used bare {alias_loads}")
            return False
        needed: dict[ast.ImportFrom, dict[str, list[str]]] = {}
        shifts = []
        for n in attr_nodes:
            name = n.attr
            mod = hmap.get(name)
            if mod is None:
                report.append(f"{path}:{n.lineno} unknown attribute {n.value.id}.{name}")
                return False
            line = lines[n.lineno - 1]
            s = byte_col_to_char(line, n.col_offset)
            e = byte_col_to_char(lines[n.end_lineno - 1], n.end_col_offset)
            if name in bound:
                # The caller has its own `name` (a route named as the action): the module, then.
                mod_parent, mod_leaf = mod.rsplit(".", 1)
                if mod_leaf in bound:
                    report.append(f"{path}:{n.lineno} name clash {name} and {mod_leaf}")
                    return False
                alias = MODULE_ALIASES.get(mod_leaf, mod_leaf)
                needed.setdefault(aliases[n.value.id], {}).setdefault(mod_parent, []).append(
                    mod_leaf if alias == mod_leaf else f"{mod_leaf} as {alias}")
                text = f"{alias}.{name}"
            else:
                needed.setdefault(aliases[n.value.id], {}).setdefault(mod, []).append(name)
                text = name
            edits.append((n.lineno - 1, s, n.end_lineno - 1, e, text))
            shifts.append((n, e, e - s - len(text)))
        for node in {id(v): v for v in aliases.values()}.values():
            first = lines[node.lineno - 1]
            indent = first[: len(first) - len(first.lstrip())]
            rest = [a for a in node.names if a.name != leaf]
            parts = []
            if rest:
                parts.append(fmt_import(indent, parent_pkg, [
                    a.name + (f" as {a.asname}" if a.asname else "") for a in rest]))
            for m, ns in sorted(needed.get(node, {}).items()):
                parts.append(fmt_import(indent, m, ns))
            edits.append((node.lineno - 1, 0, node.end_lineno - 1,
                          len(lines[node.end_lineno - 1].rstrip("\n")), "\n".join(parts)))
    if not edits:
        return False
    dedent = continuation_dedents(tree, lines, shifts if aliases else [])
    edits.sort(key=lambda e: (e[0], e[1]), reverse=True)
    for sl, sc, el, ec, text in edits:
        head = lines[sl][:sc]
        tail = lines[el][ec:]
        new = head + text + tail
        lines[sl:el + 1] = [new] + [""] * (el - sl)
    for i, amount in dedent.items():
        line = lines[i]
        lines[i] = line[amount:] if amount >= 0 else " " * -amount + line
    path.write_text("".join(lines))
    return True


def main() -> None:
    files = [pathlib.Path(f) for f in sys.argv[1:]] or [
        p for p in pathlib.Path(".").rglob("*.py")
        if not any(x in p.parts for x in (".venv", "node_modules", "migrations"))]
    report: list[str] = []
    changed = set()
    for pkg, holders in HOLDERS.items():
        hmap = {name: mod for mod, names in holders.items() for name in names}
        for p in files:
            if rewrite(p, pkg, hmap, report):
                changed.add(str(p))
    print("\n".join(report + sorted(changed)))
    print(f"{len(changed)} files changed")


if __name__ == "__main__":
    main()
