"""Coverage-guided fuzz targets (atheris), one module per target.

Each runs alone for long runs, with libFuzzer's flags, for example
`python -m fuzz.requests -max_total_time=600`; see docs/fuzzing.md.
"""
