"""The Deleted items list of one account stays cheap however much another account deletes: a
kept copy's note is read once per process, and only the account's own copies have their item
folder looked at (red team, 2026-12-02: 30,000 of bob's deletes made alice's list take 2 s)."""

from __future__ import annotations

from personalab.lib.filestore import trash
from personalab.lib.filestore.trash import NOTE, kept_listed, kept_note


def _kept(root, item_id: str, owner: str, stamp: str):
    kept = root / "trash" / "characters" / f"{item_id}.{stamp}Z"
    kept.mkdir(parents=True)
    (kept / NOTE).write_text(f'{{"owner": "{owner}", "name": "{item_id}"}}')
    (root / "characters" / item_id).mkdir(parents=True)  # the id stays claimed, empty
    return kept


def test_only_the_accounts_own_kept_copies_have_their_folder_read(tmp_path, monkeypatch):
    for n in range(5):
        _kept(tmp_path, f"char_bob{n}", "bob", f"2026120{n}T000000000000")
    _kept(tmp_path, "char_alice", "alice", "20261209T000000000000")
    looked = []
    live = trash.folder_live
    monkeypatch.setattr(trash, "folder_live", lambda folder: looked.append(folder.name)
                        or live(folder))
    mine = kept_listed(tmp_path / "trash" / "characters", tmp_path / "characters",
                       keep=lambda path: kept_note(path, "definition.json")["owner"] == "alice")
    assert [kept.item_id for kept in mine] == ["char_alice"] and looked == ["char_alice"]


def test_a_kept_copys_note_is_read_once(tmp_path):
    kept = _kept(tmp_path, "char_a", "alice", "20261202T000000000000")
    assert kept_note(kept, "definition.json")["owner"] == "alice"
    (kept / NOTE).unlink()
    assert kept_note(str(kept), "definition.json")["owner"] == "alice"


def test_a_listing_of_the_latest_asks_nothing_of_older_copies(tmp_path):
    for n in range(6):
        _kept(tmp_path, f"char_{n}", "alice", f"2026120{n}T000000000000")
    asked = []
    mine = kept_listed(tmp_path / "trash" / "characters", tmp_path / "characters",
                       keep=lambda path: asked.append(path) or not path.startswith(
                           str(tmp_path / "trash" / "characters" / "char_4.")), limit=2)
    assert [kept.item_id for kept in mine] == ["char_5", "char_3"]
    assert len(asked) == 3  # char_5, char_4 (not kept), char_3
