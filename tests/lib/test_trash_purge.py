"""The trash is emptied of what was deleted before the cut-off only (personalab/lib/filestore/
trash_purge.py): a younger copy stays restorable, a copy being restored is left alone, and an
id whose files are gone stays claimed."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from personalab.lib.filestore.trash import kept_bring_back, kept_newest
from personalab.lib.filestore.trash_purge import trash_purge

CUT = datetime(2026, 11, 3, tzinfo=UTC)
OLD, YOUNG = "20261001T000000000000Z", "20261103T000000000001Z"


def _kept(root: Path, item_id: str, stamp: str, *, claimed: bool = True) -> Path:
    kept = root / "trash" / "characters" / f"{item_id}.{stamp}"
    kept.mkdir(parents=True)
    (kept / "definition.json").write_text(f'{{"name": "{item_id}"}}')
    if claimed:
        (root / "characters" / item_id).mkdir(parents=True, exist_ok=True)
    return kept


def test_only_copies_deleted_before_the_cut_off_go_and_the_younger_one_comes_back(tmp_path):
    _kept(tmp_path, "char_mira", OLD)
    young = _kept(tmp_path, "char_mira", YOUNG)
    _kept(tmp_path, "char_old", OLD)
    assert trash_purge(tmp_path, before=CUT) == [f"characters/char_mira.{OLD}",
                                                 f"characters/char_old.{OLD}"]
    assert sorted(p.name for p in (tmp_path / "trash" / "characters").iterdir()) == [young.name]
    assert kept_newest(tmp_path / "trash" / "characters", "char_mira") == young
    assert kept_bring_back(young, tmp_path / "characters" / "char_mira")
    assert (tmp_path / "characters" / "char_old").is_dir()  # its id is still taken


def test_a_dry_run_lists_and_removes_nothing(tmp_path):
    kept = _kept(tmp_path, "char_old", OLD)
    assert trash_purge(tmp_path, before=CUT, dry_run=True) == [f"characters/char_old.{OLD}"]
    assert (kept / "definition.json").exists()


def test_an_id_deleted_before_folders_were_kept_stays_claimed_once_its_files_go(tmp_path):
    _kept(tmp_path, "char_early", OLD, claimed=False)
    trash_purge(tmp_path, before=CUT)
    assert list((tmp_path / "characters" / "char_early").iterdir()) == []


def test_a_copy_being_restored_is_left_and_a_stopped_purges_leftover_goes(tmp_path):
    restoring = _kept(tmp_path, "char_back", OLD + ".restoring")
    leftover = _kept(tmp_path, "char_gone", OLD + ".purging")
    assert trash_purge(tmp_path, before=CUT) == []
    assert restoring.is_dir() and not leftover.exists()
