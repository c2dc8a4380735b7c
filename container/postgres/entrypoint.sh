#!/bin/sh
# Creates the cluster on the first start (POSTGRES_USER, POSTGRES_PASSWORD or
# POSTGRES_PASSWORD_FILE, POSTGRES_DB; password authentication from the network), then runs
# the server in the foreground, durable: fsync and synchronous_commit on.
set -eu
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
DATA=/var/lib/postgresql/data
USER_NAME=${POSTGRES_USER:-odradek}
DB=${POSTGRES_DB:-$USER_NAME}
if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
  PASSWORD=$(head -n 1 "$POSTGRES_PASSWORD_FILE")
else
  PASSWORD=${POSTGRES_PASSWORD:?POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE is required}
fi
if [ ! -s "$DATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s\n' "$PASSWORD" > "$pwfile"
  "$BIN/initdb" -D "$DATA" -U "$USER_NAME" --pwfile="$pwfile" -A scram-sha-256 -E UTF8 --locale=C >/dev/null
  rm -f "$pwfile"
  echo "host all all 0.0.0.0/0 scram-sha-256" >> "$DATA/pg_hba.conf"
  echo "host all all ::/0 scram-sha-256" >> "$DATA/pg_hba.conf"
  if [ "$DB" != postgres ]; then
    echo "CREATE DATABASE \"$DB\" OWNER \"$USER_NAME\";" | "$BIN/postgres" --single -D "$DATA" -j postgres >/dev/null
  fi
  echo "odradek-postgres: cluster created for user $USER_NAME, database $DB"
fi
exec "$BIN/postgres" -D "$DATA" -c listen_addresses='*' -c unix_socket_directories=/run/postgresql \
  -c fsync=on -c synchronous_commit=on -c full_page_writes=on
