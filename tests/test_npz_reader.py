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


def archive_of(members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> zipfile.ZipFile:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return zipfile.ZipFile(buffer)


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
    members = {f"a{i}.npy": saved(a) for i, a in enumerate(arrays)}
    archive = archive_of(members, method)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as copy:
        for name, data in members.items():
            copy.writestr(name, data)
    buffer.seek(0)
    with np.load(buffer, allow_pickle=False) as reference:
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
    (HEAD % ("|u1", str((1,) * 40)), "has a bad shape: \\(1, 1,"),
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
