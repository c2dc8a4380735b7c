"""Round-trip properties for every message at every version, with values drawn from
strategies derived from `schemas/` (only the fields present at that version are set).

This is the only generated-value coverage for the versions kio lacks (the ones Kafka 4
dropped) and for the non-API schemas (consumer protocol, coordinator records)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings

from protocol.codegen.generator import generate_all
from protocol.message import Message
from tests.unit.protocol.protocol_model import ROOT, Target, all_targets, message_strategy

TARGETS = all_targets()

# The oldest version kio (generated from Kafka 4) has, where Kafka 4 dropped older ones.
KIO_MIN_VERSION = {0: 3, 1: 4, 2: 1, 8: 2, 9: 1, 19: 2, 20: 1, 27: 1, 32: 1}


@pytest.mark.parametrize("target", [pytest.param(t, id=t.id) for t in TARGETS])
def test_roundtrip(target: Target) -> None:
    # More examples where this is the only generated-value coverage (no kio counterpart).
    only_here = target.cls.API_KEY < 0 or target.version < KIO_MIN_VERSION.get(target.cls.API_KEY, 0)

    @settings(max_examples=20 if only_here else 8)
    @given(value=message_strategy(target.cls, target.version))
    def check(value: Message) -> None:
        wire = value.encode(target.version)
        decoded = target.cls.decode(wire, target.version)
        assert decoded == value
        assert decoded.encode(target.version) == wire

    check()


@pytest.mark.parametrize("target", [pytest.param(t, id=t.id) for t in TARGETS])
def test_default_value_roundtrips(target: Target) -> None:
    wire = target.cls().encode(target.version)
    assert target.cls.decode(wire, target.version).encode(target.version) == wire


def test_every_spec_is_covered() -> None:
    names = {t.cls.NAME for t in TARGETS}
    on_disk = {p.stem for p in (ROOT / "schemas").rglob("*.json")}
    assert names == on_disk


def test_generated_code_is_up_to_date() -> None:
    generated = generate_all(Path(ROOT / "schemas"))
    out_dir = ROOT / "protocol" / "messages"
    on_disk = {p.name: p.read_text() for p in out_dir.glob("*.py")}
    assert sorted(generated) == sorted(on_disk)
    stale = [name for name, text in generated.items() if on_disk[name] != text]
    assert stale == [], f"stale generated modules, run `make codegen`: {stale}"
