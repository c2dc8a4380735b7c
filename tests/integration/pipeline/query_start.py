"""Starting a streaming query on a loaded machine.

A Python data source's streaming reader is driven from the driver by Spark's
PythonStreamingSourceRunner, which starts a fresh Python process for each query and gives
it a hardcoded 10 s to connect back (PythonWorkerFactory.createSimpleWorker: no setting
raises it; `spark.python.worker.reuse` and the daemon serve the executors' tasks, not this
runner). That process imports pyspark.sql and pyarrow before it connects, under a second on
a quiet machine and past 10 s on a loaded one: the query then dies before its first batch
("Python worker failed to connect back"), having written nothing, and is started again
from its checkpoint."""

from __future__ import annotations

from collections.abc import Callable

from pyspark.sql.streaming import StreamingQuery

CONNECT_BACK_FAILED = "Python worker failed to connect back"
# Each start is a fresh process against the same 10 s: a machine loaded enough to miss it
# once may miss it again.
ATTEMPTS = 3


def caught_up(start: Callable[[], StreamingQuery]) -> StreamingQuery:
    """`start()`s a query and returns it, still running, once it has processed all that is
    available (processAllAvailable); started again (up to ATTEMPTS in all) while its source's
    Python process did not connect back in time. A query that failed is stopped."""
    attempt = 1
    while True:
        query = start()
        try:
            query.processAllAvailable()
            return query
        except BaseException as exc:
            query.stop()
            if attempt == ATTEMPTS or not connect_back_failed(exc, query):
                raise
        attempt += 1


def connect_back_failed(exc: BaseException, query: StreamingQuery) -> bool:
    """`exc` ended `query` before its first batch because its source's runner never connected."""
    return CONNECT_BACK_FAILED in str(exc) and not query.recentProgress
