"""The bench's plan: every workload resolves, and the Spark rows are selected only on purpose."""

from __future__ import annotations

from bench.__main__ import selected
from bench.pipeline_workloads import PIPELINE_WORKLOADS
from bench.plan import METRICS, build_plan
from bench.workloads import WORKLOADS


def test_every_spec_names_a_workload_and_known_metrics() -> None:
    for quick in (False, True):
        for spec in build_plan(quick):
            assert spec.func in {**WORKLOADS, **PIPELINE_WORKLOADS}, spec.key
            assert set(spec.metrics) <= set(METRICS), spec.key


def test_the_pipeline_rows_are_selected_alone_and_only_by_their_tag() -> None:
    plan = build_plan(False)
    pipeline = selected(plan, ["pipeline"])
    assert [s.key for s in pipeline] == [
        "pipeline-batch-read", "pipeline-batch-write", "pipeline-copy", "pipeline-stream", "pipeline-driver-kill"
    ]
    assert all(s.odradek_only for s in pipeline)
    other_tags = {t for s in plan for t in s.tags} - {"pipeline", "tls", "share"}
    for tag in other_tags:
        assert not any(s.odradek_only for s in selected(plan, [tag])), tag


def test_the_tls_rows_are_selected_by_their_tag_and_get_the_secure_listeners() -> None:
    plan = build_plan(False)
    tls = selected(plan, ["tls"])
    assert [s.key for s in tls] == [
        "tls-producing-1kib", "tls-consuming-1kib", "sasl-ssl-producing-1kib", "sasl-ssl-consuming-1kib"
    ]
    assert all(s.odradek_only and s.secure and s.params["size"] == 1024 for s in tls)
    assert [s.params["protocol"] for s in tls] == ["SSL", "SSL", "SASL_SSL", "SASL_SSL"]
    assert not any(s.secure for s in plan if s not in tls)


def test_the_share_group_rows_are_selected_by_their_tag_on_odradek_alone() -> None:
    plan = build_plan(False)
    share = selected(plan, ["share"])
    assert [(s.key, s.params["members"]) for s in share] == [
        ("share-group-1", 1), ("share-group-2", 2), ("share-group-4", 4)
    ]
    assert all(s.odradek_only and s.params["size"] == 100 for s in share)
    assert not any(s in share for s in selected(plan, ["consume"]))
