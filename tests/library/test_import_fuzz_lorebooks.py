"""Lorebooks of other apps (SillyTavern world info, Chub, Agnai, RisuAI, NovelAI) with one field anywhere
replaced by a value of another type: imported or refused by name, never a 500; what imported opens,
saves unchanged, plays a turn and exports. And every base file sent to the wrong import
(tests/library/import_fuzz.py)."""

from __future__ import annotations

import pytest

from tests.library.import_fuzz import (  # noqa: F401 — fixture
    BOOKS,
    CARDS,
    agnai_chat,
    json_body,
    jsonl_body,
    label,
    mutations,
    replaced,
    risu_chat,
    st_chat,
    sweep,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("base", BOOKS)
def test_a_lorebook_with_any_field_of_another_type_imports_or_is_refused_by_name(
        sweep, instance, base):
    doc = BOOKS[base]()
    for path, value in mutations(doc):
        what = label(base, path, value)
        made = sweep.upload(what, "/api/v1/lorebooks/import", "book.json",
                            json_body(replaced(doc, path, value)))
        if made:
            sweep.form_saved(what, f"/library/lorebooks/{made['lorebook_id']}/")
            if sweep.json_post(what, f"/api/v1/instances/{instance}",
                               {"lorebook_ids": [made["lorebook_id"]]}, method="put") is None:
                sweep.failures.append(f"{what}: the imported lorebook cannot be used")
                continue
            sweep.turn(what, instance)
            sweep.page(what, f"/api/v1/lorebooks/{made['lorebook_id']}/export?format=st")
    assert sweep.failures == [], "\n".join(sweep.failures[:40])
    assert sweep.imported > 0



def test_any_of_these_files_uploaded_to_another_import_is_refused_by_name_or_imports(
        sweep, instance):
    files = {**{name: ("x.json", json_body(make())) for name, make in {**CARDS, **BOOKS}.items()},
             "st_chat": ("x.jsonl", jsonl_body(st_chat())), "agnai": ("x.json", json_body(agnai_chat())),
             "risu_chat": ("x.json", json_body(risu_chat()))}
    imports = {"card": "/api/v1/characters/import", "lorebook": "/api/v1/lorebooks/import",
               "chat": f"/api/v1/instances/{instance}/import_chat"}
    for name, (filename, body) in files.items():
        for kind, url in imports.items():
            sweep.upload(f"{name} as a {kind}", url, filename, body)
    assert sweep.failures == [], "\n".join(sweep.failures[:40])
