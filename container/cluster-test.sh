#!/usr/bin/env bash
# The compose file's `cluster` profile, run for real (tests/integration/container/
# test_cluster_profile.py): PostgreSQL and three brokers over it; `odradek cluster describe`
# through a published port sees the three brokers and a controller; records produced with
# aiokafka (idempotent, acks=all) over partitions led by the three brokers are read back;
# broker 2 stopped with SIGTERM exits 0 after handing its partitions over (controlled
# shutdown), and the same records are read back from the other two; then everything is torn
# down. Runs one at a time with container/test.sh (the same lock: the image names are shared).
#
# Exit 0 passed, 1 failed, 77 skipped (no engine can be found or installed; reason printed).
# PYTHON: the interpreter with aiokafka and this checkout's odradek (default .venv/bin/python).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=container/engine.sh
source container/engine.sh

PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
PROJECT=odradek-cluster-test
LOCK=/tmp/${COMPOSE_PROJECT_NAME:-odradek-container-test}.lock
TOPIC=cluster-test
RECORDS=300
WORK=$(mktemp -d /tmp/odradek-cluster-test.XXXXXX)
T_START=$EPOCHREALTIME

elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}'; }
compose() { "${COMPOSE[@]}" -f "$ROOT/docker-compose.yml" -p "$PROJECT" --profile cluster "$@"; }
container_of() {
  $ENGINE ps -a -q --filter "label=com.docker.compose.project=$PROJECT" \
    --filter "label=com.docker.compose.service=$1" | head -n1
}
show_state() {
  [ -n "$ENGINE" ] || return 0
  $ENGINE ps -a --filter "label=com.docker.compose.project=$PROJECT" >&2 || true
  for service in cluster-postgres cluster-broker-1 cluster-broker-2 cluster-broker-3; do
    local id; id=$(container_of $service)
    [ -n "$id" ] && { echo "--- logs of $service" >&2; $ENGINE logs --tail 30 "$id" >&2 || true; }
  done
}
fail() { echo "FAILED: $*" >&2; show_state; exit 1; }
teardown() {
  local rc=$?
  trap - EXIT INT TERM HUP
  if [ -n "$ENGINE" ]; then
    compose down -t 10 -v --remove-orphans >/dev/null 2>&1
    local ids; ids=$($ENGINE ps -a -q --filter "label=com.docker.compose.project=$PROJECT")
    [ -n "$ids" ] && $ENGINE rm -f $ids >/dev/null 2>&1
    for volume in cluster-postgres-data cluster-broker-1-data cluster-broker-2-data cluster-broker-3-data; do
      $ENGINE volume rm -f "${PROJECT}_$volume" >/dev/null 2>&1
    done
  fi
  rm -rf "$WORK" "$LOCK"
  exit $rc
}
until_true() {  # until_true SECONDS COMMAND...: polls COMMAND every half second
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.5
  done
}
describe() { PYTHONPATH="$ROOT" "$PYTHON" -m odradek cluster describe --json --timeout 5 --bootstrap-server "$1"; }
cluster_is() {  # cluster_is BOOTSTRAP BROKERS: that many brokers, a controller, every partition led
  describe "$1" > "$WORK/describe.json" && "$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not (len(d["brokers"]) == int(sys.argv[2]) and d["controller_id"] >= 0 and d["partitions_without_leader"] == 0))
' "$WORK/describe.json" "$2"
}

if [ -n "${CONTAINER_TEST_SKIP:-}" ]; then echo "SKIP: CONTAINER_TEST_SKIP is set"; exit 77; fi
if ! find_engine; then
  echo "SKIP: no docker engine answers and podman could not be installed (needs root or sudo, and apt-get)"
  exit 77
fi
[ -x "$PYTHON" ] || { echo "FAILED: no Python with aiokafka at $PYTHON" >&2; exit 1; }

lock_deadline=$((SECONDS + ${CONTAINER_TEST_LOCK_WAIT:-900}))
until mkdir "$LOCK" 2>/dev/null; do
  holder=$(cat "$LOCK/pid" 2>/dev/null)
  if [ -n "$holder" ] && ! kill -0 "$holder" 2>/dev/null; then
    rm -rf "$LOCK"; continue
  fi
  [ $SECONDS -lt $lock_deadline ] || { echo "FAILED: another container test (pid $holder) still runs" >&2; exit 1; }
  sleep 1
done
echo $$ > "$LOCK/pid"
trap teardown EXIT
trap 'exit 143' INT TERM HUP
compose down -t 5 -v --remove-orphans >/dev/null 2>&1  # a killed earlier run's leftovers

free_port() { "$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
for n in 1 2 3; do export "ODRADEK_CLUSTER_HOST_PORT_$n=$(free_port)"; done
export ODRADEK_HOST_ADDRESS=127.0.0.1
ONE=127.0.0.1:$ODRADEK_CLUSTER_HOST_PORT_1
THREE=127.0.0.1:$ODRADEK_CLUSTER_HOST_PORT_3

echo "== build the images"
compose build odradek cluster-postgres >"$WORK/build.log" 2>&1 || { tail -30 "$WORK/build.log"; fail "build"; }
echo "== start PostgreSQL, then the three brokers"
# PostgreSQL first and ready: podman-compose does not wait for `service_healthy`.
compose up -d cluster-postgres >"$WORK/up.log" 2>&1 || { cat "$WORK/up.log"; fail "compose up cluster-postgres"; }
PG=$(container_of cluster-postgres)
until_true 90 $ENGINE exec "$PG" pg_isready -h 127.0.0.1 -U odradek -d odradek || fail "PostgreSQL never became ready"
compose up -d cluster-broker-1 cluster-broker-2 cluster-broker-3 >>"$WORK/up.log" 2>&1 \
  || { cat "$WORK/up.log"; fail "compose up the brokers"; }
until_true 120 cluster_is "$ONE" 3 || fail "cluster describe never showed three brokers and a controller"
cat "$WORK/describe.json"

echo "== produce $RECORDS records through broker 1, read them back"
PYTHONPATH="$ROOT" "$PYTHON" -m odradek topics create "$TOPIC" --partitions 6 --bootstrap-server "$ONE" >/dev/null \
  || fail "create $TOPIC"
until_true 60 cluster_is "$ONE" 3 || fail "the topic's partitions never all had leaders"
"$PYTHON" container/check.py produce "$ONE" "$TOPIC" "$RECORDS" "$WORK/expected.json" || fail "produce"
"$PYTHON" container/check.py consume "$ONE" "$TOPIC" "$WORK/expected.json" || fail "consume"

echo "== stop broker 2 with SIGTERM (controlled shutdown)"
B2=$(container_of cluster-broker-2)
t0=$EPOCHREALTIME
$ENGINE stop -t 30 "$B2" >/dev/null 2>>"$WORK/engine.log" || fail "stop broker 2"
echo "   stopped in $(elapsed "$t0") s"
code=$($ENGINE inspect --format '{{.State.ExitCode}}' "$B2")
[ "$code" = 0 ] || fail "broker 2 exited with $code after SIGTERM"
until_true 60 cluster_is "$THREE" 2 || fail "the other two never led every partition"
"$PYTHON" container/check.py consume "$THREE" "$TOPIC" "$WORK/expected.json" || fail "records after broker 2 stopped"

compose down -t 30 -v --remove-orphans >/dev/null 2>&1 || fail "compose down"
echo
echo "cluster profile test passed with $ENGINE in $(elapsed "$T_START") s"
