#!/usr/bin/env bash
# The Docker slice of the tests: the tests that run memcached and Redis as Testcontainers
# containers, on an engine of this machine, with no registry access at all.
#
#   scripts/docker-slice.sh [maven arguments]
#
# 1. installs what is missing (the "tests" and "docker" sets of scripts/packages.sh: the servers,
#    whose Debian packages the images are made from, and docker.io);
# 2. starts its own dockerd on a private socket (never the default one, so that no other test run
#    on the machine switches to Docker), with no bridge network (--bridge=none --iptables=false):
#    every container uses the host's network and listens on 127.0.0.1. With DOCKER_HOST set, it
#    uses that engine instead and starts nothing;
# 3. builds memcached:1.6 and redis:7 from the Debian packages (scripts/docker-images.sh);
# 4. runs the slice with `mvn -B verify` in Docker mode (SHARDWISE_TEST_SERVERS=docker), with
#    Testcontainers' Ryuk and start-up checks off and a pull policy that never pulls
#    (io.shardwise.testing.LocalImagesOnly);
# 5. fails if the engine was asked to pull anything (its debug log records every API call), and
#    stops the dockerd it started, by its PID.
#
# The slice: test-servers' fleet tests in Docker mode (kill, pause/resume, restart on the same
# port, raw access, memcached and Redis, a container that does not start), one failover test per
# backend (kill -9, rerouting, readmission, no old value), the Boot 3.5 and Boot 4
# @ServiceConnection tests with @Container fields, the examples' own tests and the killed-server
# example of test-servers/README.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=packages.sh
source scripts/packages.sh

say() { echo "docker-slice: $*" >&2; }

SLICE_TESTS='MemcachedFleetTest,RedisFleetTest,PersistentRedisTest,DockerStartupFailureTest'
SLICE_ITS='KilledServerExampleIT,MemcachedFailureIT#killMinus9*+failback*,RedisFailureIT#killMinus9*+failback*'
SLICE_ITS="$SLICE_ITS,MemcachedServiceConnectionIT,RedisServiceConnectionIT,QuickStartIT,WebApplicationIT"
SLICE_MODULES='test-servers,integration-tests,spring-boot3-it,spring-boot4-it,examples/plain-java,examples/spring-boot-web'

for tool in java mvn; do
  command -v "$tool" >/dev/null 2>&1 || { say "$tool is required (Java 17 and Maven)"; exit 1; }
done
packages_install tests docker || exit 1

# The *ServiceConnectionIT containers listen on the host's network at the default ports.
for port in 11211 6379; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    say "127.0.0.1:$port is taken (a memcached or Redis service?); the @ServiceConnection tests" \
      "run their server there: stop it first"
    exit 1
  fi
done

work="$(mktemp -d "${TMPDIR:-/tmp}/shardwise-docker-slice.XXXXXX")"
dockerd_pid=""
dockerd_log=""

stop_dockerd() {
  [ -n "$dockerd_pid" ] || return 0
  # Containers the tests left (none, when they pass): gone with the engine's state below.
  docker ps -aq | xargs -r docker rm -f >/dev/null 2>&1 || true
  kill -TERM "$dockerd_pid" 2>/dev/null || true
  for _ in $(seq 1 150); do
    kill -0 "$dockerd_pid" 2>/dev/null || break
    sleep 0.2
  done
  if kill -0 "$dockerd_pid" 2>/dev/null; then
    say "dockerd (pid $dockerd_pid) did not stop in 30 s; killing it"
    kill -KILL "$dockerd_pid" 2>/dev/null || true
  fi
  say "stopped dockerd (pid $dockerd_pid)"
  dockerd_pid=""
}

cleanup() {
  stop_dockerd
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ -n "${DOCKER_HOST:-}" ]; then
  say "using the engine at DOCKER_HOST=$DOCKER_HOST (started and stopped by its owner)"
else
  [ "$(id -u)" -eq 0 ] || { say "starting dockerd needs root (or set DOCKER_HOST to a running engine)"; exit 1; }
  state=/var/lib/shardwise-docker
  run=/run/shardwise-docker
  mkdir -p "$state" "$run"
  dockerd_log="$work/dockerd.log"
  # --debug: the log names every API call, so that a pull attempt can be seen and fail the run.
  dockerd -H "unix://$run/docker.sock" --data-root "$state/data" --exec-root "$run/exec" \
    --pidfile "$run/dockerd.pid" --bridge=none --iptables=false --ip-masq=false --debug \
    >"$dockerd_log" 2>&1 &
  dockerd_pid=$!
  export DOCKER_HOST="unix://$run/docker.sock"
  started=$SECONDS
  until docker version >/dev/null 2>&1; do
    if ! kill -0 "$dockerd_pid" 2>/dev/null || [ $((SECONDS - started)) -ge 60 ]; then
      say "dockerd did not start; its log ends with:"
      tail -n 20 "$dockerd_log" >&2
      exit 1
    fi
    sleep 0.5
  done
  say "dockerd (pid $dockerd_pid) answers on $DOCKER_HOST after $((SECONDS - started)) s"
fi

scripts/docker-images.sh

# Testcontainers: no Ryuk container and no start-up check container (both would be pulled), never
# a pull (an image the engine lacks fails at once, naming scripts/docker-images.sh), and the
# containers' host is this machine's loopback (host networking; it also keeps Testcontainers from
# looking up a bridge network when the machine looks like a container to it, /.dockerenv).
export SHARDWISE_TEST_SERVERS=docker
export TESTCONTAINERS_RYUK_DISABLED=true
export TESTCONTAINERS_CHECKS_DISABLE=true
export TESTCONTAINERS_PULL_POLICY=io.shardwise.testing.LocalImagesOnly
export TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1

say "running the slice"
started=$SECONDS
set +e
mvn -B verify -pl "$SLICE_MODULES" -am -Dmaven.javadoc.skip=true \
  -Dtest="$SLICE_TESTS" -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test="$SLICE_ITS" -Dfailsafe.failIfNoSpecifiedTests=false \
  "$@" 2>&1 | tee "$work/maven.log"
status=${PIPESTATUS[0]}
set -e
took=$((SECONDS - started))

# Maven's per-module totals ("Tests run: N, Failures: F, Errors: E, Skipped: S" without "-- in").
read -r run failed skipped < <(
  sed 's/\x1b\[[0-9;]*m//g' "$work/maven.log" |
    awk '/Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$/ {
           gsub(",", ""); r += $4; f += $6 + $8; s += $10 }
         END { print r + 0, f + 0, s + 0 }')

pulls=""
if [ -n "$dockerd_log" ]; then
  pulls="$(grep -E 'Calling POST /v[0-9.]+/images/create\?fromImage|Calling POST /v[0-9.]+/auth|Calling GET /v[0-9.]+/distribution/' "$dockerd_log" || true)"
fi
pulls="$pulls$(grep -E 'Pulling (docker )?image' "$work/maven.log" || true)"

say "$run tests in Docker mode, $failed failed, $skipped skipped, in $took s (Maven exit $status)"
if [ -n "$pulls" ]; then
  say "a pull was attempted (no registry may be used):"
  echo "$pulls" >&2
  exit 1
fi
if [ -n "$dockerd_log" ]; then
  say "no pull attempted: the engine's log has no images/create?fromImage, auth or distribution call"
fi
if [ "$status" -ne 0 ]; then
  exit "$status"
fi
if [ "$run" -eq 0 ]; then
  say "no test ran"
  exit 1
fi
echo "docker-slice: $((run - failed - skipped)) passed, $failed failed, $skipped skipped"
