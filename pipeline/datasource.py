"""The `odradek` data source: the entry point Spark instantiates for every read and write."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pyspark.sql.datasource import (
    DataSource,
    DataSourceReader,
    DataSourceStreamReader,
    DataSourceStreamWriter,
    DataSourceWriter,
)
from pyspark.sql.types import StructType

from pipeline.options import parse_bool
from pipeline.schema import source_ddl

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class OdradekDataSource(DataSource):
    @classmethod
    def name(cls) -> str:
        return "odradek"

    def schema(self) -> str:
        return source_ddl(parse_bool(self.options, "includeHeaders", False))

    def reader(self, schema: StructType) -> DataSourceReader:
        from pipeline.options import parse_source_options
        from pipeline.source import BatchReader

        return BatchReader(parse_source_options(self.options, streaming=False))

    def streamReader(self, schema: StructType) -> DataSourceStreamReader:
        from pipeline.options import parse_source_options
        from pipeline.source import StreamReader

        return StreamReader(parse_source_options(self.options, streaming=True))

    def writer(self, schema: StructType, overwrite: bool) -> DataSourceWriter:
        from pipeline.sink import BatchWriter
        from pipeline.sink_options import check_sink_schema, parse_sink_options

        options = parse_sink_options(self.options)
        check_sink_schema(schema, options)
        return BatchWriter(options)

    def streamWriter(self, schema: StructType, overwrite: bool) -> DataSourceStreamWriter:
        from pipeline.sink import StreamWriter
        from pipeline.sink_options import check_sink_schema, parse_sink_options

        options = parse_sink_options(self.options)
        check_sink_schema(schema, options)
        return StreamWriter(options)


def register(spark: SparkSession) -> None:
    spark.dataSource.register(OdradekDataSource)
