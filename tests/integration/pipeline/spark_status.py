"""What Spark itself reports about the jobs a test ran."""

from __future__ import annotations

from pyspark.sql import SparkSession


def failed_tasks(spark: SparkSession, job_group: str) -> int:
    """Failed task attempts of the jobs of a job group (a streaming run's group is its run id)."""
    tracker = spark.sparkContext.statusTracker()
    failed = 0
    for job_id in tracker.getJobIdsForGroup(job_group):
        job = tracker.getJobInfo(job_id)
        for stage_id in job.stageIds if job else []:
            stage = tracker.getStageInfo(stage_id)
            failed += stage.numFailedTasks if stage else 0
    return failed
