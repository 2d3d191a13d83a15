"""Memory-mapped string tables and sorted lookups: the serving graph's keys, names and aliases without a
Python object per string.

At a million chunks a graph holds millions of keys, names, aliases and title prefixes. Making a str, a
tuple and a dict entry for each when a replica loaded the graph was most of its 10 s load and 1.8 GB.
Here a table is one file of NUL-terminated UTF-8 plus an array of offsets, both mapped: a string is
decoded when it is read, and a lookup is a binary search over a sorted table (about twenty decodes at
two million keys, microseconds). Pages nobody reads stay on disk, and replicas on one host share them.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import mmap
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

V = TypeVar("V")
_END = b"\x00"
"""Ends every string. Every string comes from Postgres text, which cannot hold NUL."""


def write_strings(folder: Path, name: str, values: Iterable[str]) -> int:
    """``name.txt`` (each string's UTF-8 and a NUL) and ``name.offsets.npy`` (where each starts, then the
    end); returns how many strings."""
    offsets = [0]
    with (folder / f"{name}.txt").open("wb") as fh:
        for value in values:
            data = value.encode() + _END
            fh.write(data)
            offsets.append(offsets[-1] + len(data))
    np.save(folder / f"{name}.offsets.npy", np.asarray(offsets, dtype=np.int64))
    return len(offsets) - 1


def write_ints(folder: Path, name: str, values: Iterable[int] | np.ndarray) -> None:
    np.save(folder / f"{name}.npy", np.asarray(values if isinstance(values, np.ndarray) else list(values),
                                              dtype=np.int64))


def write_ragged(folder: Path, name: str, rows: Iterable[Sequence[int]]) -> None:
    """Rows of ints as ``name.indptr.npy`` and ``name.values.npy`` (CSR without columns)."""
    indptr, values = [0], []
    for row in rows:
        values.extend(row)
        indptr.append(len(values))
    write_ints(folder, f"{name}.indptr", indptr)
    write_ints(folder, f"{name}.values", values)


def write_ragged_strings(folder: Path, indptr_name: str, strings_name: str, rows: Sequence[Sequence[str]]) -> None:
    """Rows of strings: one table ``strings_name`` of every row's strings, and ``indptr_name.npy`` (where
    each row starts in it, then the end)."""
    write_ints(folder, indptr_name, [0, *itertools.accumulate(len(row) for row in rows)])
    write_strings(folder, strings_name, (value for row in rows for value in row))


def map_file(path: Path) -> bytes | mmap.mmap:
    """The file's bytes, mapped read-only (an empty file cannot be mapped: its bytes are b"")."""
    if path.stat().st_size == 0:
        return b""
    with path.open("rb") as fh:
        return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)


def map_ints(folder: Path, name: str) -> memoryview:
    """An int64 .npy, mapped, as a memoryview: indexing it gives Python ints at list speed."""
    array = np.load(folder / f"{name}.npy", mmap_mode="r")
    return memoryview(array) if array.size else memoryview(np.zeros(0, dtype=np.int64))


class Strings(Sequence[str]):
    """A table written by ``write_strings``; ``table[i]`` decodes one string."""

    def __init__(self, blob: bytes | mmap.mmap, offsets: memoryview) -> None:
        self._blob, self._offsets = blob, offsets
        self._n = len(offsets) - 1

    @classmethod
    def load(cls, folder: Path, name: str) -> Strings:
        return cls(map_file(folder / f"{name}.txt"), map_ints(folder, f"{name}.offsets"))

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            start, stop, step = i.indices(self._n)
            return self.run(start, stop) if step == 1 else [self[j] for j in range(start, stop, step)]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        return self._blob[self._offsets[i]:self._offsets[i + 1] - 1].decode()

    def run(self, start: int, stop: int) -> list[str]:
        """Strings ``start``..``stop`` with one decode (a fuzzy bucket, or the whole table)."""
        if stop <= start:
            return []
        return self._blob[self._offsets[start]:self._offsets[stop] - 1].decode().split("\x00")

    def __iter__(self) -> Iterator[str]:
        return iter(self.run(0, self._n))


SAMPLE_EVERY = 64
"""A sorted table also keeps every 64th string (``write_sorted_strings``), read whole at load: a lookup
is then a binary search of that list in C plus one decoded block of 64, not twenty decodes in Python."""


def write_sorted_strings(folder: Path, name: str, values: Sequence[str]) -> int:
    """``write_strings`` of strings already in code point order, and the sample a lookup starts from."""
    if any(a >= b for a, b in itertools.pairwise(values)):
        raise ValueError(f"{name}: a sorted table's strings must be distinct and in code point order")
    write_strings(folder, f"{name}.sample", values[::SAMPLE_EVERY])
    return write_strings(folder, name, values)


class SortedStrings(Strings):
    """A table written by ``write_sorted_strings``: membership and position are a binary search."""

    def __init__(self, blob: bytes | mmap.mmap, offsets: memoryview, sample: list[str]) -> None:
        super().__init__(blob, offsets)
        self._sample = sample

    @classmethod
    def load(cls, folder: Path, name: str) -> SortedStrings:
        sample = list(Strings.load(folder, f"{name}.sample"))
        return cls(map_file(folder / f"{name}.txt"), map_ints(folder, f"{name}.offsets"), sample)

    def position(self, key: str) -> int | None:
        block = bisect.bisect_right(self._sample, key) - 1
        if block < 0:
            return None
        start = block * SAMPLE_EVERY
        strings = self.run(start, min(start + SAMPLE_EVERY, self._n))
        i = bisect.bisect_left(strings, key)
        return start + i if i < len(strings) and strings[i] == key else None

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.position(key) is not None


class Lookup(Mapping[str, V]):
    """A read-only str → V mapping over a sorted table; ``value(i)`` makes the value of the i-th key."""

    def __init__(self, keys: SortedStrings, value: Callable[[int], V], *, cache: int = 0) -> None:
        """``cache``: how many recent values to keep made (for values dear to make and often asked for)."""
        self.keys_table = keys
        self._value = functools.lru_cache(maxsize=cache)(value) if cache else value

    def __getitem__(self, key: str) -> V:
        i = self.keys_table.position(key)
        if i is None:
            raise KeyError(key)
        return self._value(i)

    def __contains__(self, key: object) -> bool:
        return key in self.keys_table

    def __len__(self) -> int:
        return len(self.keys_table)

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys_table)


class IntLookup(Mapping[int, V]):
    """A read-only int → V mapping over a sorted int64 array (numpy's binary search)."""

    def __init__(self, keys: np.ndarray, value: Callable[[int], V]) -> None:
        self._keys, self._value = keys, value

    def position(self, key: int) -> int | None:
        i = int(np.searchsorted(self._keys, key))
        return i if i < len(self._keys) and int(self._keys[i]) == key else None

    def __getitem__(self, key: int) -> V:
        i = self.position(int(key)) if isinstance(key, (int, np.integer)) else None
        if i is None:
            raise KeyError(key)
        return self._value(i)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[int]:
        return iter(self._keys.tolist())


def ragged(folder: Path, name: str) -> Callable[[int], tuple[int, ...]]:
    """Row i of a ``write_ragged`` table, as a tuple."""
    indptr, values = map_ints(folder, f"{name}.indptr"), map_ints(folder, f"{name}.values")
    return lambda i: tuple(values[indptr[i]:indptr[i + 1]].tolist())


def ragged_strings(folder: Path, indptr_name: str, strings_name: str) -> Callable[[int], tuple[str, ...]]:
    """Row i of a ``write_ragged_strings`` table, as a tuple (one decode per row)."""
    indptr, table = map_ints(folder, indptr_name), Strings.load(folder, strings_name)
    return lambda i: tuple(table.run(indptr[i], indptr[i + 1]))
