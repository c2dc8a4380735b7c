"""The checker on small hand-written histories, one per anomaly family (as Jepsen's
`kafka_test.clj`), and on a clean one that has none."""

from __future__ import annotations

from pathlib import Path

import pytest

from faults.checker import FAMILIES, check
from faults.errors import classify
from faults.history import HistoryWriter, Op, read_history


def op(process: str, type_: str, f: str, value: list, t: float, **extra: object) -> Op:
    return Op(process, type_, f, value, t, **extra)  # type: ignore[arg-type]


def send(process: str, t: float, key: str, value: int, offset: int | None, type_: str = "ok") -> list[Op]:
    return [
        op(process, "invoke", "send", [["send", key, value, None]], t),
        op(process, type_, "send", [["send", key, value, offset]], t + 0.1),
    ]


def poll(process: str, t: float, key: str, records: list[list[int]]) -> list[Op]:
    return [
        op(process, "invoke", "poll", [], t),
        op(process, "ok", "poll", [["poll", key, records]], t + 0.1),
    ]


def anomalies(history: list[Op]) -> dict[str, int]:
    return {name: count for name, count in check(history).counts.items() if count}


def clean() -> list[Op]:
    return [
        *send("p1", 1, "t-0", 1, 0),
        *send("p1", 2, "t-0", 2, 1),
        op("p2", "invoke", "txn", [["send", "t-0", 3, None], ["send", "t-1", 4, None]], 3),
        op("p2", "ok", "txn", [["send", "t-0", 3, 3], ["send", "t-1", 4, 0]], 3.5, commit_at=3.4),
        *send("p1", 4, "t-0", 5, 2, type_="fail"),  # refused: never in the log
        *send("p1", 5, "t-1", 6, None, type_="info"),  # unknown, and indeed never read
        op("c1", "ok", "assign", [], 5.5),
        *poll("c1", 6, "t-0", [[0, 1], [1, 2], [3, 3]]),
        *poll("c1", 7, "t-1", [[0, 4]]),
    ]


def test_clean_history_has_no_anomaly() -> None:
    report = check(clean())
    assert report.valid, report.table()
    assert report.acknowledged == 4
    assert report.read_values == 4
    assert report.worst_lag == pytest.approx(6.1 - 1.1)  # value 1: acked at 1.1, first read at 6.1


def test_duplicate() -> None:
    history = [*send("p1", 1, "t-0", 1, 0), *poll("c1", 2, "t-0", [[0, 1], [1, 1]])]
    report = check(history)
    assert anomalies(history) == {"duplicate": 1}
    assert report.anomalies["duplicate"] == [{"key": "t-0", "value": 1, "offsets": [0, 1]}]


def test_inconsistent_offsets() -> None:
    history = [*send("p1", 1, "t-0", 1, 0), *send("p1", 2, "t-0", 2, 1), *poll("c1", 3, "t-0", [[0, 2]])]
    found = anomalies(history)
    assert found["inconsistent-offsets"] == 1
    assert check(history).anomalies["inconsistent-offsets"][0] == {
        "key": "t-0",
        "offset": 0,
        "values": [1, 2],
    }


def test_lost_write() -> None:
    history = [*send("p1", 1, "t-0", 1, 0), *send("p1", 2, "t-0", 2, 1), *poll("c1", 3, "t-0", [[1, 2]])]
    assert anomalies(history) == {"lost-write": 1}
    assert check(history).anomalies["lost-write"][0] == {
        "key": "t-0",
        "value": 1,
        "offset": 0,
        "highest_read": 1,
    }


def test_unseen() -> None:
    history = [*send("p1", 1, "t-0", 1, 0), *send("p1", 2, "t-0", 2, 1), *poll("c1", 3, "t-0", [[0, 1]])]
    assert anomalies(history) == {"unseen": 1}


def test_aborted_read() -> None:
    history = [
        op("p1", "invoke", "txn", [["send", "t-0", 1, None]], 1),
        op("p1", "fail", "txn", [["send", "t-0", 1, 0]], 2, error="aborted"),
        *poll("c1", 3, "t-0", [[0, 1]]),
    ]
    assert anomalies(history) == {"G1a": 1}
    assert check(history).anomalies["G1a"][0]["writer"] == "p1"


def test_precommitted_read() -> None:
    history = [
        op("p1", "invoke", "txn", [["send", "t-0", 1, None]], 1),
        *poll("c1", 1.5, "t-0", [[0, 1]]),
        op("p1", "ok", "txn", [["send", "t-0", 1, 0]], 3, commit_at=2.5),
    ]
    assert anomalies(history) == {"precommitted-read": 1}


def test_poll_skip() -> None:
    history = [
        *send("p1", 1, "t-0", 1, 0),
        *send("p1", 2, "t-0", 2, 1),
        *send("p1", 3, "t-0", 3, 2),
        op("c1", "ok", "assign", [], 3.5),
        *poll("c1", 4, "t-0", [[0, 1]]),
        *poll("c1", 5, "t-0", [[2, 3]]),
        *poll("c2", 6, "t-0", [[1, 2]]),
    ]
    assert anomalies(history) == {"poll-skip": 1}
    assert check(history).anomalies["poll-skip"][0]["skipped"] == [1]


def test_nonmonotonic_poll() -> None:
    history = [
        *send("p1", 1, "t-0", 1, 0),
        *send("p1", 2, "t-0", 2, 1),
        op("c1", "ok", "assign", [], 3),
        *poll("c1", 4, "t-0", [[0, 1], [1, 2]]),
        *poll("c1", 5, "t-0", [[1, 2]]),
        *poll("g1", 5, "t-0", [[1, 2], [0, 1]]),  # a group member may be moved back: not checked
        op("c1", "ok", "assign", [], 5.5),  # a new session may start over: no anomaly
        *poll("c1", 6, "t-0", [[0, 1]]),
    ]
    assert anomalies(history) == {"nonmonotonic-poll": 1}


def test_nonmonotonic_send() -> None:
    history = [
        *send("p1", 1, "t-0", 1, 5),
        *send("p1", 2, "t-0", 2, 3),
        *poll("c1", 3, "t-0", [[3, 2], [5, 1]]),
    ]
    assert anomalies(history) == {"nonmonotonic-send": 1}


def test_every_family_has_a_history() -> None:
    assert set(FAMILIES) == {
        "duplicate", "inconsistent-offsets", "lost-write", "G1a", "precommitted-read",
        "poll-skip", "nonmonotonic-poll", "nonmonotonic-send", "unseen",
        "share-redelivered", "share-lost",
    }  # fmt: skip


def share_send(t: float, value: str, offset: int) -> list[Op]:
    return [
        op("p1", "invoke", "share-send", [["send", "s-0", value, None]], t),
        op("p1", "ok", "share-send", [["send", "s-0", value, offset]], t + 0.1),
    ]


def deliver(process: str, t: float, records: list[list[object]]) -> list[Op]:
    """records: [offset, value, delivery count]"""
    return [
        op(process, "invoke", "share-poll", [], t),
        op(process, "ok", "share-poll", [["deliver", "s-0", records]], t + 0.1),
    ]


def ack(process: str, t: float, records: list[list[object]], type_: str = "ok") -> list[Op]:
    """records: [offset, value, accept | release | reject]"""
    return [
        op(process, "invoke", "ack", [["ack", "s-0", records]], t),
        op(process, type_, "ack", [["ack", "s-0", records]], t + 0.1),
    ]


def share_clean() -> list[Op]:
    return [
        *share_send(1, "a", 0),
        *share_send(1.2, "b", 1),
        *share_send(1.4, "c", 2),
        *share_send(1.6, "d", 3),
        *deliver("s1", 2, [[0, "a", 1], [1, "b", 1]]),
        *deliver("s2", 2.05, [[2, "c", 1], [3, "d", 1]]),
        *ack("s1", 3, [[0, "a", "accept"], [1, "b", "release"]]),
        *ack("s2", 3, [[2, "c", "reject"], [3, "d", "accept"]], type_="info"),  # indefinite
        *deliver("s2", 4, [[1, "b", 2], [3, "d", 2]]),  # d: its accept may not have happened
        *ack("s2", 5, [[1, "b", "accept"], [3, "d", "accept"]]),
    ]


def test_share_clean_history_has_no_anomaly() -> None:
    report = check(share_clean())
    assert report.valid, report.table()
    assert report.ops["share-poll:ok"] == 3 and report.ops["ack:info"] == 1


def test_share_redelivered_after_an_answered_accept() -> None:
    history = [*share_clean(), *deliver("s1", 6, [[0, "a", 2]])]
    assert anomalies(history) == {"share-redelivered": 1}


def test_share_redelivered_after_an_answered_reject() -> None:
    history = [*share_clean()[:-2], *ack("s2", 5, [[1, "b", "accept"], [3, "d", "reject"]]),
               *ack("s2", 5.5, [[2, "c", "reject"]]), *deliver("s1", 6, [[2, "c", 2]])]  # fmt: skip
    assert anomalies(history) == {"share-redelivered": 1}


def test_share_lost_never_delivered() -> None:
    assert anomalies([*share_clean(), *share_send(7, "e", 4)]) == {"share-lost": 1}


def test_share_lost_released_and_never_delivered_again() -> None:
    """b released, never delivered again (and below the delivery limit): lost; d, whose
    accept is indefinite, is not; a record released at its last allowed delivery is
    archived, not lost."""
    history = [*share_clean()[:-4], *share_send(7, "e", 4), *deliver("s1", 8, [[4, "e", 5]]),
               *ack("s1", 9, [[4, "e", "release"]])]  # fmt: skip
    report = check(history)
    assert {name: n for name, n in report.counts.items() if n} == {"share-lost": 1}
    assert [e["value"] for e in report.anomalies["share-lost"]] == ["b"]


def test_unfinished_invocation_is_indefinite() -> None:
    """A client killed mid-send leaves only the invocation: its value may or may not be
    read, neither is an anomaly."""
    history = [op("p1", "invoke", "send", [["send", "t-0", 1, None]], 1), *poll("c1", 2, "t-0", [[0, 1]])]
    report = check(history)
    assert report.valid
    assert report.ops["send:info"] == 1


def test_history_round_trip(tmp_path: Path) -> None:
    writer = HistoryWriter(tmp_path / "p1.jsonl", "p1")
    writer.record("invoke", "txn", [["send", "t-0", 1, None]])
    writer.record("ok", "txn", [["send", "t-0", 1, 0]], commit_at=1.0)
    writer.close()
    (tmp_path / "p1.jsonl").open("a").write('{"process": "p1", "ty')  # torn by a kill
    history = read_history([tmp_path / "p1.jsonl"])
    assert [(o.type, o.f, o.commit_at) for o in history] == [("invoke", "txn", None), ("ok", "txn", 1.0)]


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ("KafkaError{code=_TIMED_OUT,val=-185}", "info"),
        ("KafkaTimeoutError", "info"),
        ("KafkaConnectionError: connection lost", "info"),
        ("KafkaError{code=PRODUCER_FENCED}", "fail"),
        ("ProducerFenced", "fail"),
        ("OutOfOrderSequenceNumber", "fail"),
        ("TopicAuthorizationFailedError", "fail"),
        ("KafkaError{code=INVALID_PRODUCER_EPOCH}", "fail"),
        ("something unheard of", "info"),
    ],
)
def test_error_classification(error: str, kind: str) -> None:
    assert classify(error) == kind
