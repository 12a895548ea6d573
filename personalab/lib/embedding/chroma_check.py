"""Whether the embedded Chroma store's vector segments can be searched, without loading them.

Chroma's native code (hnswlib in chromadb_rust_bindings) reads a segment's files as they are.
After kill -9s during the memory fill and `reindex --memory`, the `turns` segment's header.bin
(and index_metadata.pickle) were older than its data_level0.bin: 3,251 elements in the header,
19,569 in the data, whose neighbour ids ran past the header's 4,096 slots. Every search failed
("Error querying knn") or killed the process (segfault), which no `except` catches. So:

- `segments_damaged` compares each segment's file sizes with its header and checks that its
  graph's neighbour ids stay within its elements: no chromadb, one read of the link lists
  and of chroma.sqlite3; it names only what it recognizes.
- `collections_probe` opens each collection and runs one search in a child process
  (personalab/lib/embedding/chroma_probe.py): damage the sizes do not show (garbled neighbour
  ids) kills the child, not the caller.
- `collections_delete` deletes collections in a child too (Chroma never loads a segment to
  delete it; the caller's process keeps chromadb unloaded).
"""

from __future__ import annotations

import sqlite3
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np

HEADER_SIZE = 100  # hnswlib's persisted header, version 1: an int, then 12 fields
HEADER_FORMAT = "<i6Qii3QdQ"
LINKS_CHUNK = 8192  # elements of data_level0.bin read at a time: a bounded buffer at any size
HEADER_VERSION = 1
HNSW_SEGMENT = "urn:chroma:segment/vector/hnsw-local-persisted"
PROBE_MODULE = "personalab.lib.embedding.chroma_probe"
PROJECT_ROOT = Path(__file__).resolve().parents[3]  # the child imports it from any cwd
PROBE_SECONDS = 120.0
OPENED = "(store)"  # the child's first "ok": it opened the store


def segment_ids(chroma_path: Path) -> dict[str, str]:
    """Each collection's name -> the id (and folder name) of its HNSW vector segment, read
    from chroma.sqlite3 read-only; {} when there is none or it cannot be read (a corrupt file
    is memory.runtime.index_renewed's case)."""
    database = chroma_path / "chroma.sqlite3"
    if not database.is_file():
        return {}
    try:
        connection = sqlite3.connect(f"{database.as_uri()}?mode=ro", uri=True, timeout=5)
        try:
            rows = connection.execute(
                "SELECT c.name, s.id FROM segments s JOIN collections c ON s.collection = c.id"
                " WHERE s.scope = 'VECTOR' AND s.type = ?", (HNSW_SEGMENT,)).fetchall()
        finally:
            connection.close()
    except sqlite3.Error:
        return {}
    return {str(name): str(segment) for name, segment in rows}


def segment_problem(folder: Path) -> str:
    """Why the segment files in `folder` cannot be what their header says, or "" (also when
    the folder holds no persisted segment yet, or a header of a format this does not know)."""
    try:
        header = (folder / "header.bin").read_bytes()
    except FileNotFoundError:
        return ""
    except OSError as exc:
        return f"header.bin unreadable: {exc}"
    if len(header) < 4 or struct.unpack_from("<i", header)[0] != HEADER_VERSION:
        return ""  # another hnswlib format: not judged
    if len(header) != HEADER_SIZE:
        return f"header.bin holds {len(header)} bytes, not {HEADER_SIZE}"
    _, max_elements, count, element_size = struct.unpack_from("<4Q", header, 4)
    if element_size <= 0 or count > max_elements:
        return f"header.bin is inconsistent ({count} of {max_elements} elements)"
    sizes = {}
    for name in ("data_level0.bin", "length.bin", "link_lists.bin"):
        try:
            sizes[name] = (folder / name).stat().st_size
        except FileNotFoundError:
            return f"{name} is missing"
    stored, remainder = divmod(sizes["data_level0.bin"], element_size)
    # A segment persisted before its first element holds its initial slots; one with
    # elements holds exactly those the header counts.
    if remainder or not (stored == count or (count == 0 and stored <= max_elements)):
        return (f"data_level0.bin holds {sizes['data_level0.bin'] / element_size:g} elements, "
                f"header.bin {count}")
    if sizes["length.bin"] != 4 * stored:
        return f"length.bin holds {sizes['length.bin'] / 4:g} elements, data_level0.bin {stored}"
    return links_problem(folder, header)


def links_problem(folder: Path, header: bytes) -> str:
    """Why the segment's graph points outside its elements, or "": a neighbour id past the
    header's count (sizes intact) made every search read past the index and kill the process.
    Reads data_level0.bin's link lists (the vectors are skipped a chunk at a time) and
    link_lists.bin; "" for a layout this does not know."""
    (_, offset, _, count, element_size, _, _, top_level, entry, max_m, max_m0,
     *_) = struct.unpack(HEADER_FORMAT, header)
    if count == 0:
        return ""
    if not 0 <= entry < count or top_level < 0:
        return f"header.bin's entry point {entry} (level {top_level}) is not among its {count}"
    first = offset // 4
    if element_size % 4 or offset % 4 or first + 1 + max_m0 > element_size // 4:
        return ""
    level0 = np.memmap(folder / "data_level0.bin", dtype="<u4", mode="r",
                       shape=(count, element_size // 4))
    for start in range(0, count, LINKS_CHUNK):
        problem = _lists_problem(np.asarray(level0[start:start + LINKS_CHUNK,
                                                   first:first + 1 + max_m0]), count, max_m0)
        if problem:
            return f"data_level0.bin: {problem}"
    return _upper_problem(folder / "link_lists.bin", count, max_m)


def _lists_problem(lists: np.ndarray, count: int, width: int) -> str:
    """Rows of [size, id * width] (hnswlib keeps the size in the low 16 bits)."""
    sizes = lists[:, 0] & 0xFFFF
    if np.any(sizes > width):
        return f"a list of {int(sizes.max())} neighbours, at most {width} fit"
    used = np.arange(width) < sizes[:, None]
    bad = used & (lists[:, 1:] >= count)
    if np.any(bad):
        return f"{int(bad.sum())} neighbour ids past its {count} elements"
    return ""


def _upper_problem(path: Path, count: int, max_m: int) -> str:
    """link_lists.bin: per element a u32 byte size, then that many bytes of its upper levels'
    lists ([size, id * max_m] each)."""
    data = path.read_bytes()
    level_bytes = 4 * (1 + max_m)
    at, blocks = 0, []
    for _ in range(count):
        if at + 4 > len(data):
            return f"link_lists.bin ends before its {count} elements"
        (size,) = struct.unpack_from("<I", data, at)
        at += 4
        if size % level_bytes or at + size > len(data):
            return f"link_lists.bin holds a list of {size} bytes it cannot hold"
        if size:
            blocks.append(data[at:at + size])
        at += size
    if not blocks:
        return ""
    lists = np.frombuffer(b"".join(blocks), dtype="<u4").reshape(-1, 1 + max_m)
    problem = _lists_problem(lists, count, max_m)
    return f"link_lists.bin: {problem}" if problem else ""


def segments_damaged(chroma_path: Path) -> dict[str, str]:
    """collection name -> what is wrong with its vector segment's files, for those found
    damaged."""
    found = {}
    for name, segment in segment_ids(chroma_path).items():
        problem = segment_problem(chroma_path / segment)
        if problem:
            found[name] = problem
    return found


def collections_probe(chroma_path: Path, names: list[str], *,
                      seconds: float = PROBE_SECONDS) -> dict[str, str]:
    """collection name -> why its one search failed, for those of `names` whose search raised,
    killed the child process or outlasted `seconds`. A child that dies is started again for
    the collections after the one it died on."""
    failed: dict[str, str] = {}
    left = list(names)
    while left:
        done, died = _probe_run(chroma_path, ["probe", *left], seconds)
        if OPENED not in done:  # the store itself cannot be opened: nothing to tell apart
            raise RuntimeError(f"the memory store could not be checked: {died}")
        for name in left:
            if name in done and done[name]:
                failed[name] = done[name]
        pending = [name for name in left if name not in done]
        if not pending:
            break
        failed[pending[0]] = died
        left = pending[1:]
    return failed


def collections_delete(chroma_path: Path, names: list[str], *,
                       seconds: float = PROBE_SECONDS) -> None:
    """Delete the collections `names` (their files, their rows), in a child process."""
    done, died = _probe_run(chroma_path, ["delete", *names], seconds)
    failed = {name: why for name, why in done.items() if why and name != OPENED}
    lost = [name for name in names if name not in done]
    if failed or lost:
        raise RuntimeError(f"collections not deleted: {failed or lost} ({died or 'failed'})")


def _probe_run(chroma_path: Path, args: list[str], seconds: float) -> tuple[dict[str, str], str]:
    """Run the child; the names it finished (-> "" when fine, or the error it caught; OPENED
    once it opened the store), and why it stopped early ("" when it did not)."""
    try:
        result = subprocess.run(
            [sys.executable, "-m", PROBE_MODULE, str(chroma_path.resolve()), *args],
            cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=seconds, check=False)
        output, code = result.stdout, result.returncode
        stopped = "" if code == 0 else (
            f"the check process died (signal {-code})" if code < 0
            else f"the check process exited with {code}: {result.stderr.strip()[-300:]}")
    except subprocess.TimeoutExpired as exc:
        output = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (
            exc.stdout or "")
        stopped = f"the check took over {seconds:g} s"
    done: dict[str, str] = {}
    for line in output.splitlines():
        word, _, rest = line.partition(" ")
        name, _, why = rest.partition(" ")
        if word == "ok":
            done[name] = ""
        elif word == "failed":
            done[name] = why or "failed"
    return done, stopped
