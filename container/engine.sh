#!/usr/bin/env bash
# Finds a container engine and makes it usable; sourced by container/test.sh.
#
# Docker where an engine answers. Otherwise rootful podman from Debian, set up for a host
# without a registry or systemd: containers.conf limits that fit the host's hard limits
# (rootful podman asks for more than a host without CAP_SYS_RESOURCE can grant), runc
# (crun 1.8 refuses cgroups in v1/v2 hybrid mode), and local base images
# (`debian:<codename>` from debootstrap, a python base built on it) tagged under the names
# the Dockerfiles use, so FROM never pulls. The base images stay in podman's storage as a
# cache between runs.

ENGINE=""
COMPOSE=()
CONTAINER_TOOLS=${CONTAINER_TOOLS:-/var/tmp/odradek-container-tools}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

step_start() { STEP_T0=$EPOCHREALTIME; echo "== $*"; }
step_end() { awk -v a="$STEP_T0" -v b="$EPOCHREALTIME" 'BEGIN{printf "   %.1f s\n", b-a}'; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }

apt_install() {
  local missing=()
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  command -v apt-get >/dev/null || return 1
  step_start "apt-get install ${missing[*]}"
  as_root apt-get update -q >/dev/null && \
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -q "${missing[@]}" >/dev/null || return 1
  step_end
}

write_containers_conf() {
  local conf=/etc/containers/containers.conf
  if [ -f "$conf" ] && ! grep -q '^# written by odradek container/engine.sh' "$conf"; then
    return 0  # someone else's configuration: left alone
  fi
  local nofile nproc
  nofile=$(ulimit -Hn); [ "$nofile" = unlimited ] && nofile=1048576
  nproc=$(ulimit -Hu); { [ "$nproc" = unlimited ] || [ "$nproc" -gt 32768 ]; } && nproc=32768
  as_root mkdir -p /etc/containers
  as_root tee "$conf" >/dev/null <<CONF
# written by odradek container/engine.sh
[containers]
default_ulimits = ["nofile=$nofile:$nofile", "nproc=$nproc:$nproc"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
}

codename() { . /etc/os-release; echo "${VERSION_CODENAME:-bookworm}"; }

build_debian_base() {
  local name=localhost/debian:$1 dir mirror
  podman image exists "$name" && return 0
  apt_install debootstrap || return 1
  mirror=$(awk -v c="$1" '/^URIs:/{u=$2} /^Suites:/{ if ($0 ~ ("(^| )" c "( |$)")) {print u; exit} }' \
             /etc/apt/sources.list.d/debian.sources 2>/dev/null)
  [ -n "$mirror" ] || mirror=$(awk -v c="$1" '$1=="deb" && $3==c {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
  [ -n "$mirror" ] || { echo "no Debian mirror for $1 in the apt sources" >&2; return 1; }
  dir=$(mktemp -d /var/tmp/odradek-rootfs.XXXXXX)
  step_start "debootstrap $1 (base image, cached afterwards)"
  as_root debootstrap --variant=minbase "$1" "$dir" "$mirror" >/dev/null || { rm -rf "$dir"; return 1; }
  rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
  # The host's sources (security updates included) replace the bootstrap one-liner.
  [ -f /etc/apt/sources.list.d/debian.sources ] && rm -f "$dir"/etc/apt/sources.list
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then
    cp /etc/apt/sources.list.d/debian.sources "$dir/etc/apt/sources.list.d/"
  fi
  tar --numeric-owner -C "$dir" -c . | podman import \
    --change 'CMD ["/bin/bash"]' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' - "$name" >/dev/null
  local rc=$?
  rm -rf "$dir"
  step_end
  return $rc
}

build_python_base() {
  local name=localhost/odradek-python-base:$1 ctx
  podman image exists "$name" || {
    ctx=$(mktemp -d /var/tmp/odradek-pybase.XXXXXX)
    mkdir -p "$ctx/ca"
    # Outbound TLS may be intercepted: the host's extra CAs go into the image so pip works.
    cp /usr/local/share/ca-certificates/*.crt "$ctx/ca/" 2>/dev/null || true
    cp "$HERE/python-base.Dockerfile" "$ctx/Dockerfile"
    step_start "python base image on debian:$1"
    podman build -q --build-arg BASE=localhost/debian:"$1" -t "$name" "$ctx" >/dev/null || { rm -rf "$ctx"; return 1; }
    rm -rf "$ctx"
    step_end
  }
  # The Dockerfiles say python:3.11-slim; locally that name is this base.
  podman tag "$name" docker.io/library/python:3.11-slim
}

compose_tool() {
  # podman-compose talks to podman directly: no API service, no healthcheck pump.
  if [ ! -x "$CONTAINER_TOOLS/bin/podman-compose" ]; then
    step_start "podman-compose into $CONTAINER_TOOLS"
    python3 -m venv "$CONTAINER_TOOLS" && "$CONTAINER_TOOLS/bin/pip" install -q podman-compose==1.6.0 || return 1
    step_end
  fi
  COMPOSE=("$CONTAINER_TOOLS/bin/podman-compose")
}

find_engine() {
  if command -v docker >/dev/null && docker info >/dev/null 2>&1 && docker compose version >/dev/null 2>&1; then
    ENGINE=docker
    COMPOSE=(docker compose)
    return 0
  fi
  command -v podman >/dev/null || apt_install podman buildah runc || return 1
  command -v runc >/dev/null || apt_install runc || return 1
  write_containers_conf
  ENGINE=podman
  local c; c=$(codename)
  build_debian_base "$c" && build_python_base "$c" && compose_tool
}
