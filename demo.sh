#!/usr/bin/env bash
# The Shardwise demo: on a Debian machine with Java 17 and Maven, installs memcached and
# redis-server if missing (apt-get; sudo when not root), starts three of each on free loopback
# ports, builds the example module, and runs io.shardwise.examples.Demo: keys written and counted
# per server, one server killed (traffic rerouted), brought back (readmitted). Everything it
# started is stopped on exit, also on failure or Ctrl-C.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

# shellcheck source=scripts/local-fleet.sh
source scripts/local-fleet.sh
trap fleet_stop_all EXIT
trap 'exit 130' INT TERM

# Maven with -q still prints colour resets on some systems; drop them.
quiet_mvn() {
  mvn -B -q "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g'
}

for tool in java mvn; do
  command -v "$tool" >/dev/null 2>&1 || { echo "demo: $tool is required (Java 17 and Maven)" >&2; exit 1; }
done

echo "== servers"
fleet_install
MEMCACHED="$(fleet_start memcached 3)"
REDIS="$(fleet_start redis 3)"
echo "memcached: $MEMCACHED"
echo "redis:     $REDIS"

echo
echo "== build (the example and the modules it needs; the first run downloads dependencies)"
started=$SECONDS
quiet_mvn install -Dmaven.test.skip=true -Dmaven.javadoc.skip=true -pl examples/plain-java -am
quiet_mvn -pl examples/plain-java dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
echo "built in $((SECONDS - started)) s"

java \
  -Dorg.slf4j.simpleLogger.log.io.shardwise=error \
  -Ddemo.dir="$FLEET_DIR" \
  -Ddemo.memcached="$MEMCACHED" \
  -Ddemo.redis="$REDIS" \
  -cp "examples/plain-java/target/classes:$(cat examples/plain-java/target/classpath.txt)" \
  io.shardwise.examples.Demo

echo
echo "== done: stopping the 6 servers this demo started"
