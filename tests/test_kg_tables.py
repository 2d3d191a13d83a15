"""kg.tables: the mapped string tables and sorted lookups a replica serves the graph from."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from kgrag.kg.tables import (
    SAMPLE_EVERY,
    IntLookup,
    Lookup,
    SortedStrings,
    Strings,
    ragged,
    ragged_strings,
    write_ints,
    write_ragged,
    write_ragged_strings,
    write_sorted_strings,
    write_strings,
)


def test_a_table_gives_back_every_string_as_written(tmp_path: Path) -> None:
    values = ["zürich", "", "Ümlaut «quoted» 東京", "a b", "x"]
    assert write_strings(tmp_path, "t", values) == 5
    table = Strings.load(tmp_path, "t")
    assert len(table) == 5 and list(table) == values
    assert [table[i] for i in range(5)] == values and table[-1] == "x"
    assert table[1:4] == values[1:4] and table.run(2, 2) == [] and table[::2] == values[::2]
    with pytest.raises(IndexError):
        table[5]


def test_an_empty_table_maps_nothing_and_reads_empty(tmp_path: Path) -> None:
    write_sorted_strings(tmp_path, "empty", [])
    table = SortedStrings.load(tmp_path, "empty")
    assert len(table) == 0 and list(table) == [] and "a" not in table and table.position("a") is None


def test_a_sorted_lookup_finds_every_key_and_refuses_the_rest(tmp_path: Path) -> None:
    mapping = {"lothair ii": (3, 9), "lothair": (4,), "ermengarde of tours": (1,), "é": (2,), "z": ()}
    ordered = sorted(mapping)
    write_sorted_strings(tmp_path, "m.keys", ordered)
    write_ragged(tmp_path, "m", [mapping[k] for k in ordered])
    lookup = Lookup(SortedStrings.load(tmp_path, "m.keys"), ragged(tmp_path, "m"))
    assert dict(lookup) == mapping and len(lookup) == 5
    for missing in ("", "lothair i", "lothair iii", "zz", "a", "ermengarde"):
        assert missing not in lookup and lookup.get(missing) is None
        with pytest.raises(KeyError):
            lookup[missing]


def test_an_int_lookup_uses_the_sorted_ids(tmp_path: Path) -> None:
    write_ints(tmp_path, "ids", [2, 5, 11, 40])
    ids = np.load(tmp_path / "ids.npy", mmap_mode="r")
    lookup = IntLookup(ids, lambda i: i * 10)
    assert dict(lookup) == {2: 0, 5: 10, 11: 20, 40: 30} and lookup[np.int64(11)] == 20
    assert 6 not in lookup and 41 not in lookup and 0 not in lookup and "2" not in lookup


def test_lookups_across_many_sample_blocks_find_each_key_at_its_place(tmp_path: Path) -> None:
    keys = sorted({f"k{n * 7919 % 100_003:06d}" for n in range(SAMPLE_EVERY * 9 + 5)} | {"ä", "z", "東京"})
    write_sorted_strings(tmp_path, "big", keys)
    table = SortedStrings.load(tmp_path, "big")
    assert [table.position(k) for k in keys] == list(range(len(keys)))
    assert all(table.position(k + "0") is None and table.position(k[:-1]) is None for k in keys[1:-3])
    with pytest.raises(ValueError, match="code point order"):
        write_sorted_strings(tmp_path, "bad", ["b", "a"])


def test_rows_of_strings_come_back_row_by_row_empty_rows_included(tmp_path: Path) -> None:
    rows = [("zürich", "zurich"), (), ("", "東京 tower"), ("x",)]
    write_ragged_strings(tmp_path, "r.indptr", "r", rows)
    row = ragged_strings(tmp_path, "r.indptr", "r")
    assert [row(i) for i in range(len(rows))] == rows
