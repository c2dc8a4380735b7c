"""The sink's marker metadata (pipeline/markers.py) read back as the JSON object it was
written as, whatever stray text the client library appends after it."""

from __future__ import annotations

import pytest

from pipeline.markers import marker_metadata


def test_the_json_object_is_read_and_what_follows_it_ignored() -> None:
    assert marker_metadata('{"rows": 3, "hash": "ab12"}') == {"rows": 3, "hash": "ab12"}
    assert marker_metadata('{"rows": 3, "hash": "ab12"}x\x01~') == {"rows": 3, "hash": "ab12"}


def test_no_metadata_is_an_empty_object() -> None:
    assert marker_metadata(None) == {}
    assert marker_metadata("") == {}


def test_metadata_that_is_no_object_is_refused() -> None:
    with pytest.raises(ValueError):
        marker_metadata("[1, 2]")
    with pytest.raises(ValueError):
        marker_metadata("not json")
