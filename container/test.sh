#!/usr/bin/env bash
# `make container-test`: the image and the compose project, tested for real.
#
# Builds the image and starts docker-compose.yml with the engine it finds (container/engine.sh),
# waits for the broker's HEALTHCHECK, checks the demo service produced and consumed over the
# compose network, produces and consumes through the published port with aiokafka, stops the
# broker with SIGTERM and checks its clean-shutdown marker in the volume, starts it again on
# the same volume and reads the same records back; then the `postgres` profile: PostgreSQL and
# a broker on it (odradek-pg), records produced, consumed, and read back after a restart of
# that broker; then tears everything down.
#
# Exit 0 passed, 1 failed, 77 skipped (no engine can be found or installed; reason printed).
# PYTHON: the interpreter with aiokafka (default .venv/bin/python).
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=container/engine.sh
source container/engine.sh

PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
PROJECT=${COMPOSE_PROJECT_NAME:-odradek-container-test}
export COMPOSE_PROJECT_NAME=$PROJECT
LOCK=/tmp/$PROJECT.lock
TOPIC=container-test
RECORDS=200
WORK=$(mktemp -d /tmp/odradek-container-test.XXXXXX)
T_START=$EPOCHREALTIME
declare -a TIMINGS=()

elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}'; }
# fd 3: the script's own output, also where a step's output is sent to a log file.
exec 3>&1
CHILD=""
timed() {  # timed LABEL COMMAND...: runs it, records how long it took
  local label=$1 t0=$EPOCHREALTIME rc; shift
  echo "== $label" >&3
  # In the background and waited on, so a TERM is handled at once, not after the step.
  "$@" & CHILD=$!
  wait $CHILD; rc=$?
  CHILD=""
  TIMINGS+=("$label: $(elapsed "$t0") s")
  return $rc
}
fail() { echo "FAILED: $*" >&2; show_state; exit 1; }

compose() { "${COMPOSE[@]}" -f "$ROOT/docker-compose.yml" -p "$PROJECT" "$@"; }

broker_id() {
  $ENGINE ps -a -q --filter "label=com.docker.compose.project=$PROJECT" \
    --filter "label=com.docker.compose.service=$1" | head -n1
}

show_state() {
  [ -n "$ENGINE" ] || return 0
  $ENGINE ps -a --filter "label=com.docker.compose.project=$PROJECT" >&2 || true
  for service in odradek demo postgres odradek-pg; do
    local id; id=$(broker_id $service)
    [ -n "$id" ] && { echo "--- logs of $service" >&2; $ENGINE logs --tail 40 "$id" >&2 || true; }
  done
}

teardown() {
  local rc=$?
  trap - EXIT INT TERM HUP
  if [ -n "$ENGINE" ]; then
    compose --profile postgres down -t 10 -v --remove-orphans >/dev/null 2>&1
    # Whatever a killed earlier run or a partial `down` left behind.
    local ids; ids=$($ENGINE ps -a -q --filter "label=com.docker.compose.project=$PROJECT")
    [ -n "$ids" ] && $ENGINE rm -f $ids >/dev/null 2>&1
    $ENGINE volume rm -f "${PROJECT}_odradek-data" "${PROJECT}_postgres-data" "${PROJECT}_odradek-pg-data" >/dev/null 2>&1
  fi
  rm -rf "$WORK" "$LOCK"
  exit $rc
}

log_has() {  # log_has CONTAINER TEXT: through a file, as `logs | grep -q` under pipefail fails
  # when grep stops reading before a long log ends (SIGPIPE)
  $ENGINE logs "$1" >"$WORK/container.log" 2>&1
  grep -qF -- "$2" "$WORK/container.log"
}

pg_ready() {  # pg_ready CONTAINER SECONDS: PostgreSQL in it accepts TCP connections
  local deadline=$((SECONDS + $2))
  until $ENGINE exec "$1" pg_isready -h 127.0.0.1 -U odradek -d odradek >/dev/null 2>&1; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 1
  done
}

wait_healthy() {  # wait_healthy CONTAINER SECONDS
  local deadline=$((SECONDS + $2)) status
  while [ $SECONDS -lt $deadline ]; do
    if [ "$ENGINE" = podman ]; then
      # podman 4 schedules health checks with systemd timers, which this host may lack:
      # run the image's HEALTHCHECK directly.
      $ENGINE healthcheck run "$1" >/dev/null 2>&1 && return 0
    else
      status=$($ENGINE inspect --format '{{.State.Health.Status}}' "$1" 2>/dev/null)
      [ "$status" = healthy ] && return 0
    fi
    sleep 0.5
  done
  return 1
}

wait_exited() {  # wait_exited CONTAINER SECONDS -> exit code of the container
  local deadline=$((SECONDS + $2))
  while [ $SECONDS -lt $deadline ]; do
    [ "$($ENGINE inspect --format '{{.State.Status}}' "$1")" = exited ] && {
      $ENGINE inspect --format '{{.State.ExitCode}}' "$1"; return 0; }
    sleep 0.5
  done
  return 1
}

in_volume() {  # in_volume COMMAND...: runs it in a throwaway container on the broker's volume
  $ENGINE run --rm -v "${PROJECT}_odradek-data:/data" --entrypoint "$1" localhost/odradek:latest "${@:2}"
}

# --- the engine ------------------------------------------------------------------------------
if [ -n "${CONTAINER_TEST_SKIP:-}" ]; then echo "SKIP: CONTAINER_TEST_SKIP is set"; exit 77; fi
if ! find_engine; then
  echo "SKIP: no docker engine answers and podman could not be installed (needs root or sudo, and apt-get)"
  exit 77
fi
TIMINGS+=("engine ready ($ENGINE): $(elapsed "$T_START") s")
[ -x "$PYTHON" ] || { echo "FAILED: no Python with aiokafka at $PYTHON" >&2; exit 1; }

# One run at a time on a host (the image names are shared): wait for another checkout's run,
# take over the lock of one that died.
lock_deadline=$((SECONDS + ${CONTAINER_TEST_LOCK_WAIT:-900}))
until mkdir "$LOCK" 2>/dev/null; do
  holder=$(cat "$LOCK/pid" 2>/dev/null)
  if [ -n "$holder" ] && ! kill -0 "$holder" 2>/dev/null; then
    rm -rf "$LOCK"; continue
  fi
  [ $SECONDS -lt $lock_deadline ] || { echo "FAILED: another container test (pid $holder) still runs" >&2; exit 1; }
  [ -n "${lock_told:-}" ] || { echo "waiting for another container test (pid $holder)"; lock_told=1; }
  sleep 1
done
echo $$ > "$LOCK/pid"
trap teardown EXIT
trap '[ -n "$CHILD" ] && kill "$CHILD" 2>/dev/null; exit 143' INT TERM HUP
compose --profile postgres down -t 5 -v --remove-orphans >/dev/null 2>&1  # a killed earlier run's leftovers

free_port() { "$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
METRICS_PORT=$(free_port)
export ODRADEK_HOST_PORT=$PORT ODRADEK_HOST_ADDRESS=127.0.0.1 ODRADEK_METRICS_HOST_PORT=$METRICS_PORT
BOOTSTRAP=127.0.0.1:$PORT

# --- build and start -------------------------------------------------------------------------
timed "build the images" compose build >"$WORK/build.log" 2>&1 || { tail -30 "$WORK/build.log"; fail "build"; }
SIZE=$($ENGINE image inspect --format '{{.Size}}' localhost/odradek:latest)
BASE_SIZE=$($ENGINE image inspect --format '{{.Size}}' python:3.11-slim 2>/dev/null || echo 0)
timed "compose up" compose up -d >"$WORK/up.log" 2>&1 || { cat "$WORK/up.log"; fail "compose up"; }
BROKER=$(broker_id odradek)
[ -n "$BROKER" ] || fail "no broker container"
timed "broker healthy (ApiVersions round trip)" wait_healthy "$BROKER" 60 || fail "the broker never became healthy"
[ "$($ENGINE exec "$BROKER" id -u)" != 0 ] || fail "the broker runs as root"

# --- the demo service, over the compose network ----------------------------------------------
DEMO=$(broker_id demo)
[ -n "$DEMO" ] || fail "no demo container"
timed "demo service produces and consumes" wait_exited "$DEMO" 90 >"$WORK/demo.code" || fail "the demo did not finish"
code=$(cat "$WORK/demo.code")
[ "$code" = 0 ] || fail "the demo exited with $code"
log_has "$DEMO" "demo done: 10 records" || fail "the demo did not read its records back"

# --- through the published port --------------------------------------------------------------
timed "produce $RECORDS records through $BOOTSTRAP" \
  "$PYTHON" container/check.py produce "$BOOTSTRAP" "$TOPIC" "$RECORDS" "$WORK/expected.json" || fail "produce"
timed "consume them back" "$PYTHON" container/check.py consume "$BOOTSTRAP" "$TOPIC" "$WORK/expected.json" \
  || fail "consume"
timed "metrics endpoint through its published port" \
  "$PYTHON" container/check.py metrics "http://127.0.0.1:$METRICS_PORT" "$RECORDS" "$TOPIC" 3 || fail "metrics"

# --- SIGTERM: a clean shutdown within the grace period ---------------------------------------
t0=$EPOCHREALTIME
timed "stop with SIGTERM" $ENGINE stop -t 30 "$BROKER" >/dev/null 2>>"$WORK/engine.log" || fail "stop"
STOP_SECONDS=$(elapsed "$t0")
awk -v s="$STOP_SECONDS" 'BEGIN{exit !(s < 25)}' || fail "stopping took ${STOP_SECONDS} s: SIGTERM was not handled"
code=$($ENGINE inspect --format '{{.State.ExitCode}}' "$BROKER")
[ "$code" = 0 ] || fail "the broker exited with $code after SIGTERM"
log_has "$BROKER" '"broker stopped"' || fail "no 'broker stopped' in the log"
in_volume test -f /data/.clean_shutdown 2>>"$WORK/engine.log" || fail "no clean-shutdown marker in the volume"
echo "   clean-shutdown marker present; exit code 0 after ${STOP_SECONDS} s"

# --- restart on the same volume --------------------------------------------------------------
timed "start again on the same volume" $ENGINE start "$BROKER" >/dev/null 2>>"$WORK/engine.log" || fail "restart"
timed "broker healthy again" wait_healthy "$BROKER" 60 || fail "the broker never became healthy after the restart"
timed "the same records read back" "$PYTHON" container/check.py consume "$BOOTSTRAP" "$TOPIC" "$WORK/expected.json" \
  || fail "records after the restart"

# --- the postgres profile: a broker whose log is in PostgreSQL ------------------------------
PG_PORT=$(free_port)
export ODRADEK_PG_HOST_PORT=$PG_PORT
PG_BOOTSTRAP=127.0.0.1:$PG_PORT
timed "build the postgres profile's image" compose --profile postgres build postgres >"$WORK/build-pg.log" 2>&1 \
  || { tail -30 "$WORK/build-pg.log"; fail "build postgres"; }
# PostgreSQL first and ready: podman-compose does not wait for `service_healthy`, and a
# broker that cannot reach PostgreSQL at start exits (docs/postgresql.md).
timed "compose up PostgreSQL" compose --profile postgres up -d postgres >"$WORK/up-pg.log" 2>&1 \
  || { cat "$WORK/up-pg.log"; fail "compose up postgres"; }
PG_SERVER=$(broker_id postgres)
[ -n "$PG_SERVER" ] || fail "no postgres container"
timed "PostgreSQL ready" pg_ready "$PG_SERVER" 90 || fail "PostgreSQL never became ready"
timed "compose up odradek-pg" compose --profile postgres up -d odradek-pg >>"$WORK/up-pg.log" 2>&1 \
  || { cat "$WORK/up-pg.log"; fail "compose up odradek-pg"; }
PG_BROKER=$(broker_id odradek-pg)
[ -n "$PG_BROKER" ] || fail "no odradek-pg container"
timed "odradek-pg healthy" wait_healthy "$PG_BROKER" 90 || fail "odradek-pg never became healthy"
log_has "$PG_BROKER" '"storage on PostgreSQL"' || fail "odradek-pg does not say its log is in PostgreSQL"
timed "produce $RECORDS records through $PG_BOOTSTRAP (PostgreSQL engine)" \
  "$PYTHON" container/check.py produce "$PG_BOOTSTRAP" "$TOPIC" "$RECORDS" "$WORK/expected-pg.json" || fail "produce (pg)"
timed "consume them back (PostgreSQL engine)" \
  "$PYTHON" container/check.py consume "$PG_BOOTSTRAP" "$TOPIC" "$WORK/expected-pg.json" || fail "consume (pg)"
timed "stop odradek-pg with SIGTERM" $ENGINE stop -t 30 "$PG_BROKER" >/dev/null 2>>"$WORK/engine.log" || fail "stop (pg)"
code=$($ENGINE inspect --format '{{.State.ExitCode}}' "$PG_BROKER")
[ "$code" = 0 ] || fail "odradek-pg exited with $code after SIGTERM"
timed "start odradek-pg again" $ENGINE start "$PG_BROKER" >/dev/null 2>>"$WORK/engine.log" || fail "restart (pg)"
timed "odradek-pg healthy again" wait_healthy "$PG_BROKER" 90 || fail "odradek-pg never became healthy after the restart"
timed "the same records read back from PostgreSQL" \
  "$PYTHON" container/check.py consume "$PG_BOOTSTRAP" "$TOPIC" "$WORK/expected-pg.json" || fail "records after the restart (pg)"

timed "compose down" compose --profile postgres down -t 30 -v --remove-orphans >/dev/null 2>&1 || fail "compose down"

echo
echo "container test passed with $ENGINE (${COMPOSE[*]##*/})"
awk -v s="$SIZE" -v b="$BASE_SIZE" 'BEGIN{printf "image localhost/odradek:latest: %.1f MB (base python:3.11-slim %.1f MB)\n", s/1e6, b/1e6}'
printf '  %s\n' "${TIMINGS[@]}"
echo "  total: $(elapsed "$T_START") s"
