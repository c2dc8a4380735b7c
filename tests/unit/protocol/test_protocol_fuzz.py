"""A bounded decode fuzz run: random bytes and mutated valid encodings against every
message x version decode. Only the DecodeError family may escape."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import DecodeError
from tests.unit.protocol.protocol_model import Target, all_targets, message_strategy

# Broad comparisons over every message and version: `make test` runs them, `make check` not.
pytestmark = pytest.mark.property

TARGETS = all_targets()


@st.composite
def _mutated(draw: st.DrawFn, target: Target) -> bytes:
    wire = bytearray(draw(message_strategy(target.cls, target.version)).encode(target.version))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["set", "insert", "delete", "truncate"]))
        pos = draw(st.integers(0, len(wire)))
        if op == "set" and pos < len(wire):
            wire[pos] = draw(st.sampled_from([0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF]) | st.integers(0, 255))
        elif op == "insert":
            wire[pos:pos] = draw(st.binary(min_size=1, max_size=4))
        elif op == "delete":
            del wire[pos : pos + draw(st.integers(1, 4))]
        else:
            del wire[pos:]
    return bytes(wire)


@pytest.mark.parametrize("target", [pytest.param(t, id=t.id) for t in TARGETS])
@settings(max_examples=12)
@given(data=st.data())
def test_decode_fuzz(target: Target, data: st.DataObject) -> None:
    wire = data.draw(st.binary(max_size=64) | _mutated(target))
    try:
        value = target.cls.decode(wire, target.version)
    except DecodeError:
        return
    # Whatever decodes must encode again (it may differ: trailing bytes are ignored, and a
    # non-canonical varint or boolean byte is normalised).
    value.encode(target.version)
