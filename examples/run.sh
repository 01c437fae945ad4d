#!/usr/bin/env bash
# Runs an example against three local servers that it starts (and stops on exit):
#
#   examples/run.sh plain-java [memcached|redis]        QuickStart: configure, write, read, exit
#   examples/run.sh spring-boot-web [memcached|redis]   the web app on http://localhost:8080 (Ctrl-C stops it)
#
# With SHARDWISE_SERVERS set (e.g. 10.0.0.1:11211,10.0.0.2:11211) it uses those servers instead.
# Needs Java 17 and Maven; memcached and redis-server are installed with apt-get if missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage() {
  echo "usage: examples/run.sh plain-java|spring-boot-web [memcached|redis]" >&2
  exit 2
}
example="${1:-}"
backend="${2:-memcached}"
case "$example" in plain-java | spring-boot-web) ;; *) usage ;; esac
case "$backend" in memcached | redis) ;; *) usage ;; esac

# Maven with -q still prints colour resets on some systems; drop them.
quiet_mvn() {
  mvn -B -q "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g'
}

# shellcheck source=../scripts/local-fleet.sh
source scripts/local-fleet.sh
trap fleet_stop_all EXIT
trap 'exit 130' INT TERM

if [ -z "${SHARDWISE_SERVERS:-}" ]; then
  fleet_install
  SHARDWISE_SERVERS="$(fleet_start "$backend" 3)"
  echo "started 3 $backend servers: $SHARDWISE_SERVERS"
fi

echo "building examples/$example (the first run downloads dependencies) ..."
quiet_mvn install -Dmaven.test.skip=true -Dmaven.javadoc.skip=true -pl "examples/$example" -am
quiet_mvn -pl "examples/$example" dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt
classpath="examples/$example/target/classes:$(cat "examples/$example/target/classpath.txt")"

if [ "$example" = plain-java ]; then
  java -Dshardwise.backend="$backend" -Dshardwise.servers="$SHARDWISE_SERVERS" \
    -cp "$classpath" io.shardwise.examples.QuickStart
else
  cat <<HINT
starting the web app on http://localhost:${PORT:-8080}; try, in another terminal:
  curl localhost:${PORT:-8080}/books/7          # slow (300 ms) the first time, then from the cache
  curl -X PUT 'localhost:${PORT:-8080}/books/7?title=Dune'
  curl -X DELETE localhost:${PORT:-8080}/books  # @CacheEvict(allEntries = true)
  curl localhost:${PORT:-8080}/actuator/health  # every server's state
  curl localhost:${PORT:-8080}/actuator/metrics/shardwise.requests
Ctrl-C stops the app and the servers.
HINT
  SHARDWISE_BACKEND="$backend" SHARDWISE_SERVERS="$SHARDWISE_SERVERS" \
    java -cp "$classpath" io.shardwise.examples.web.WebApplication
fi
