"""Crafted .npz archives that unpack far past what they declare.

Shared by the tests of the two .npz loaders (saved games and positions
files): each builds a one-member zip by hand, so the sizes in its
directory can say what they like.
"""

from __future__ import annotations

import bz2
import struct
import zipfile
import zlib


def one_member_zip(name: str, payload: bytes, method: int, declared: int) -> bytes:
    """A zip of one member ``name``: ``payload`` compressed with ``method``
    (deflate or bzip2), declared to unpack to ``declared`` bytes."""
    if method == zipfile.ZIP_BZIP2:
        packed = bz2.compress(payload, 9)
    else:
        deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
        packed = deflate.compress(payload) + deflate.flush()
    crc = zlib.crc32(payload[:declared])
    raw = name.encode()
    local = struct.pack(
        "<IHHHHHIIIHH", 0x04034B50, 46, 0, method, 0, 0, crc, len(packed), declared, len(raw), 0
    )
    central = struct.pack(
        "<IHHHHHHIIIHHHHHII",
        0x02014B50, 46, 46, 0, method, 0, 0, crc, len(packed), declared, len(raw), 0, 0, 0, 0, 0, 0,
    )  # fmt: skip
    where = len(local) + len(raw) + len(packed)  # (of the central directory)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central) + len(raw), where, 0)
    return local + raw + packed + central + raw + end


def npy_claiming_header(zeros: int) -> bytes:
    """A .npy 2.0 member whose header claims to be 2 GiB long, then ``zeros`` zero bytes.

    numpy reads a header whole before it checks its length: one read of
    2 GiB, which zipfile inflates in one piece.
    """
    return b"\x93NUMPY\x02\x00" + struct.pack("<I", 2**31) + bytes(zeros)
