"""The bounded .npz member reader both loaders use (``_validate.read_npy``)."""

from __future__ import annotations

import io
import struct
import warnings
import zipfile

import numpy as np
import pytest

import numsweeper as ns
from numsweeper._validate import open_npz, read_npy


def zipped(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def archive_of(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> zipfile.ZipFile:
    return zipfile.ZipFile(io.BytesIO(zipped(members, method)))


def npy(header: str, data: bytes = b"") -> bytes:
    """A version 1.0 .npy member with this header text, padded as numpy pads it."""
    body = header.encode() + b" " * (63 - len(header) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(body)) + body + data


def saved(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_gives_what_np_load_gives(method: int) -> None:
    rng = np.random.default_rng(3)
    arrays = [
        np.arange(12, dtype=np.int64).reshape(3, 4),
        np.asfortranarray(rng.random((5, 7))),
        rng.integers(0, 9, size=(2, 3, 4)).astype(">i4"),
        np.array("a JSON text, say"),
        np.zeros((0, 5), dtype=np.uint8),
        rng.random(200_000),  # past one 1 MB read
        np.array([(1, 2.5)], dtype=[("a", "<i2"), ("b", "<f8")]),
        np.datetime64("2026-12-02") + np.arange(3),
    ]
    raw = zipped({f"a{i}.npy": saved(a) for i, a in enumerate(arrays)}, method)
    archive = zipfile.ZipFile(io.BytesIO(raw))
    with np.load(io.BytesIO(raw), allow_pickle=False) as reference:
        for i in range(len(arrays)):
            got = read_npy(archive, archive.getinfo(f"a{i}.npy"), 10**8)
            want = reference[f"a{i}"]
            assert got.dtype == want.dtype and got.shape == want.shape
            assert got.flags.f_contiguous == want.flags.f_contiguous
            np.testing.assert_array_equal(got, want)
            assert got.flags.writeable


HEAD = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }"
BAD_MEMBERS = [
    (HEAD % ("|u1", "(False,)"), "has a bad shape: \\(False,\\)"),
    (HEAD % ("|u1", "(-1, -1)"), "has a bad shape: \\(-1, -1\\)"),
    (HEAD % ("|u1", str((1,) * 65)), "has a bad shape: \\(1, 1,"),
    (HEAD % ("|u1", str((2**62, 2**62))), "claims .* items, more than 1000000"),
    (HEAD % ("(2,)u1", "(2,)"), "which numpy never writes"),
    (HEAD % ("|V0", "(3,)"), "which numpy never writes"),
    ("{'descr': [('a', '|O')], 'fortran_order': False, 'shape': (1,), }", "Object arrays"),
    # numpy warns about a Python 2 long suffix: under -W error it raises it
    (HEAD % ("|u1", "(2L,)"), "is damaged"),
    (HEAD % ("|u1", "(1000,)"), "more than its 82 bytes can hold"),
    (HEAD % ("|u1", "(4,)"), "holds more than the 4 bytes of data expected"),
]


@pytest.mark.parametrize(("header", "match"), BAD_MEMBERS, ids=[m for _, m in BAD_MEMBERS])
def test_bad_members_raise_our_error_naming_them(header: str, match: str) -> None:
    archive = archive_of({"bad.npy": npy(header, bytes(8))})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (as the test configuration has it)
        with pytest.raises(ns.InvalidGameFileError, match=f"bad.npy .*{match}|bad.npy {match}"):
            read_npy(archive, archive.getinfo("bad.npy"), 10**6)


def test_a_long_zip_directory_is_refused_before_zipfile_reads_it() -> None:
    # zipfile makes an object of every entry: a few megabytes of directory
    # can list millions. Ours list a few members; 64 KB is the most.
    many = {f"member_with_a_long_name_{i:05d}_{'x' * 40}.npy": b"" for i in range(1000)}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in many.items():
            archive.writestr(name, data)
    with pytest.raises(ns.InvalidGameFileError, match=r"its zip directory takes 1\d\d,\d{3} bytes"):
        open_npz(buffer)
    few = io.BytesIO()
    with zipfile.ZipFile(few, "w") as archive:
        archive.writestr("a.npy", saved(np.zeros(3)))
    assert list(open_npz(few)[1]) == ["a"]


def test_a_member_listed_twice_is_refused() -> None:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (zipfile warns of the duplicate it writes)
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("header.npy", saved(np.zeros(3)))
            archive.writestr("header", saved(np.ones(3)))
    with pytest.raises(ns.InvalidGameFileError, match="member 'header' is listed twice"):
        open_npz(buffer)


def test_zipfiles_end_record_finder_is_what_open_npz_reads() -> None:
    # open_npz reads the directory's size through zipfile's own (private)
    # finder, before zipfile reads the directory: if a Python release changes
    # it, this fails rather than the check going quiet.
    buffer = io.BytesIO()
    np.savez(buffer, a=np.zeros(3), b=np.ones(2))
    end = zipfile._EndRecData(buffer)  # type: ignore[attr-defined]
    archive = zipfile.ZipFile(buffer)
    directory = sum(46 + len(info.filename) + len(info.extra) for info in archive.infolist())
    assert end[5] == directory


def test_what_a_member_claims_costs_nothing_until_it_arrives() -> None:
    # A header claiming 50 MB, its zip entry declaring as much, and 10 bytes
    # of data: the buffer grows with the data, so the claim is never paid.
    import tracemalloc

    count = 50_000_000
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "|u1", "fortran_order": False, "shape": (count,)}
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a.npy", header.getvalue() + bytes(10))
    raw = bytearray(buffer.getvalue())
    entry = raw.index(b"PK\x01\x02")  # the directory entry: its file_size at offset 24
    struct.pack_into("<I", raw, entry + 24, count + len(header.getvalue()))
    archive = zipfile.ZipFile(io.BytesIO(bytes(raw)))
    tracemalloc.start()
    try:
        with pytest.raises(ns.InvalidGameFileError, match="holds 10 bytes of data, expected 5"):
            read_npy(archive, archive.getinfo("a.npy"), 10**8)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, peak
