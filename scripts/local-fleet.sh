# Local memcached and Redis servers on loopback ports, for ./demo.sh and examples/run.sh.
# Source this file; it defines:
#
#   fleet_install                install memcached and redis-server with apt-get if missing
#                                (scripts/packages.sh, the list the test command uses too)
#   fleet_start KIND COUNT       start COUNT servers (KIND memcached or redis) on free 127.0.0.1
#                                ports; prints their addresses, comma separated
#   fleet_stop_all               stop every server started here and remove their files
#
# Each server has, in $FLEET_DIR, a pid file (KIND-PORT.pid), a log (KIND-PORT.log) and a script
# that starts it again on the same port (KIND-PORT.start), which the demo uses to bring a killed
# server back. Callers should run `trap fleet_stop_all EXIT`.

# shellcheck source=packages.sh
source "$(dirname "${BASH_SOURCE[0]}")/packages.sh"

FLEET_DIR="${FLEET_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/shardwise-fleet.XXXXXX")}"
export FLEET_DIR

fleet_path() {
  command -v "$1" 2>/dev/null && return 0
  local dir
  for dir in /usr/bin /usr/sbin /usr/local/bin /usr/local/sbin; do
    [ -x "$dir/$1" ] && { echo "$dir/$1"; return 0; }
  done
  return 1
}

# The demo set of scripts/packages.sh, the list ./test.sh and .ci/run install from too.
fleet_install() {
  packages_install demo
}

# fleet_answers KIND PORT: whether a server answers a no-op request on 127.0.0.1:PORT.
fleet_answers() {
  local kind="$1" port="$2" request expect line
  if [ "$kind" = memcached ]; then request='version'; expect='VERSION'; else request='PING'; expect='+PONG'; fi
  (
    exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
    printf '%s\r\n' "$request" >&3
    IFS= read -r -t 1 line <&3 || exit 1
    case "$line" in "$expect"*) exit 0 ;; *) exit 1 ;; esac
  ) 2>/dev/null
}

# fleet_port_free PORT: whether nothing accepts connections on 127.0.0.1:PORT.
fleet_port_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# fleet_launch KIND PORT: writes KIND-PORT.start and runs it; succeeds once the server answers.
fleet_launch() {
  local kind="$1" port="$2" base="$FLEET_DIR/$1-$2" command
  if [ "$kind" = memcached ]; then
    local user_args=""
    [ "$(id -u)" -eq 0 ] && user_args="-u root"
    command="$(fleet_path memcached) -l 127.0.0.1 -p $port -U 0 -m 64 $user_args"
  else
    command="$(fleet_path redis-server) --bind 127.0.0.1 --port $port --save '' --appendonly no"
    command="$command --protected-mode no --dir $FLEET_DIR --dbfilename redis-$port.rdb"
  fi
  cat >"$base.start" <<SCRIPT
#!/usr/bin/env bash
# Starts $kind on 127.0.0.1:$port in the background; its pid goes to $base.pid.
nohup $command >>"$base.log" 2>&1 </dev/null &
echo \$! >"$base.pid"
SCRIPT
  chmod +x "$base.start"
  "$base.start"
  local pid attempt
  pid="$(cat "$base.pid")"
  for attempt in $(seq 1 100); do
    if fleet_answers "$kind" "$port"; then
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.05
  done
  kill -9 "$pid" 2>/dev/null
  return 1
}

fleet_start() {
  local kind="$1" count="$2" addresses=() port tries
  for _ in $(seq 1 "$count"); do
    tries=0
    while :; do
      port=$((20000 + RANDOM % 30000))
      tries=$((tries + 1))
      if fleet_port_free "$port" && fleet_launch "$kind" "$port"; then
        addresses+=("127.0.0.1:$port")
        break
      fi
      rm -f "$FLEET_DIR/$kind-$port".*
      if [ "$tries" -ge 20 ]; then
        echo "could not start $kind; last output: $(tail -n 5 "$FLEET_DIR/$kind-$port.log" 2>/dev/null)" >&2
        return 1
      fi
    done
  done
  (IFS=,; echo "${addresses[*]}")
}

fleet_stop_all() {
  local pidfile pid
  for pidfile in "$FLEET_DIR"/*.pid; do
    [ -e "$pidfile" ] || continue
    pid="$(cat "$pidfile")"
    kill "$pid" 2>/dev/null || true
  done
  for pidfile in "$FLEET_DIR"/*.pid; do
    [ -e "$pidfile" ] || continue
    pid="$(cat "$pidfile")"
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$FLEET_DIR"
}
