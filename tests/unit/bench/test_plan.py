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


def test_the_concurrent_transactions_row_runs_eight_producers() -> None:
    (spec,) = selected(build_plan(False), ["txn-concurrent"])
    assert spec.func == "concurrent_txns_confluent"
    assert spec.params["producers"] == 8 and spec.params["per_txn"] == 10 and spec.params["size"] == 100
    assert spec.metrics == ("txn_s",)


def test_the_table_shows_each_ratio_pair() -> None:
    from bench.report import Results, table

    results = Results(["odradek", "odradek-pg", "tansu"], [("odradek", "tansu"), ("odradek-pg", "odradek")])
    for broker, value in [("odradek", 100.0), ("odradek-pg", 50.0), ("tansu", 80.0)]:
        results.add_value("produce", "produce", "mb_s", broker, value, "")
    header, _, line = table(results, 1).splitlines()
    assert header.split() == ["workload", "odradek", "odradek-pg", "tansu", "odradek/tansu", "odradek-pg/odradek", "unit"]
    assert line.split() == ["produce", "100", "50.0", "80.0", "1.25", "0.50", "MB/s"]


def test_cpu_is_interpolated_between_samples() -> None:
    from bench.cpu import CpuSampler

    values = iter([1.0, 2.0, 3.0])
    sampler = CpuSampler({"b": lambda: next(values)})
    sampler._samples["b"] = ([10.0, 20.0, 30.0], [1.0, 2.0, 3.0])
    sampler._counters = {}  # no more samples
    assert sampler.spent("b", 15.0, 25.0) == 1.0
    assert sampler.spent("b", 5.0, 25.0) is None


def test_the_cluster_rows_have_keys_of_their_own_and_no_other_tag_selects_them() -> None:
    from bench.cluster_rows import cluster_rows, selected_rows

    rows = cluster_rows(False)
    assert [r.key for r in rows] == ["cluster-throughput", "cluster-transactions", "cluster-kill9", "cluster-sigstop"]
    assert [r.key for r in selected_rows(rows, ["cluster"])] == [r.key for r in rows]
    assert [r.key for r in selected_rows(rows, ["sigstop"])] == ["cluster-sigstop"]
    assert [r.params["count"] for r in rows if "kind" in r.params] == [10, 10]
    assert [r.params["count"] for r in cluster_rows(True) if "kind" in r.params] == [3, 3]
    tags = {t for s in build_plan(False) for t in s.tags}
    for tag in tags:
        assert selected_rows(rows, [tag]) == [], tag
    assert selected(build_plan(False), ["cluster"]) == []


def test_failover_percentiles_are_nearest_rank() -> None:
    from bench.cluster_rows import percentile

    values = [0.3, 0.1, 0.2, 1.5, 0.25, 0.22, 0.21, 0.24, 0.23, 0.26]
    assert percentile(values, 0.5) == 0.23
    assert percentile(values, 0.99) == 1.5
    assert percentile([2.0], 0.99) == 2.0
