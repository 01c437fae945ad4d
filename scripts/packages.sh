# The Debian packages that ./demo.sh, examples/run.sh, ./test.sh and .ci/run need: the one list.
# Source this file; it defines:
#
#   packages_missing SET...   print the packages of these sets that are missing, one a line
#   packages_install SET...   install the missing ones with apt-get (sudo when not root); without
#                             root or a usable sudo, print each missing package, what needs it and
#                             the one apt-get line, and return 1 without installing anything
#
# Sets: demo (the servers the demo and the examples start), tests (everything `mvn -B verify`
# needs), docker (the engine and the image build of the Docker slice, scripts/docker-slice.sh).
# Messages start with the calling script's name (PACKAGES_WHO overrides it).

# package|sets|how it is found|what needs it
PACKAGES_TABLE=(
  "memcached|demo tests|bin memcached|every memcached test (test-servers, backend-spymemcached, integration-tests, cli, the Spring Boot modules, examples) and the demo"
  "redis-server|demo tests|bin redis-server|every Redis test (test-servers, backend-lettuce, integration-tests, cli, the Spring Boot modules, examples) and the demo"
  "nutcracker|tests|bin nutcracker|the twemproxy tests: TwemproxyTest, TwemproxyDropInIT, PeerCompatIT, DetectCommandIT"
  "sasl2-bin|tests|bin saslpasswd2|the SASL memcached tests (saslpasswd2 makes their password database): SecuredFleetTest, SaslIT, SaslRequirementIT, SaslNodeKeepsItsKeysIT, SecuredFleetIT, SecuredConfigIT"
  "libsasl2-modules|tests|sasl_plain|the SASL memcached tests (memcached's PLAIN mechanism; only a Recommends of libsasl2-2): SecuredFleetTest, SaslIT, SaslRequirementIT, SaslNodeKeepsItsKeysIT, SecuredFleetIT, SecuredConfigIT"
  "libmemcached-tools|tests|bin memccp memcp|PeerCompatIT (writes and reads with libmemcached's memccp and memccat)"
  "gcc|tests|bin gcc|PeerCompatIT (compiles a small program on libmemcached)"
  "libmemcached-dev|tests|file /usr/include/libmemcached/memcached.h /usr/local/include/libmemcached/memcached.h|PeerCompatIT (the headers and library of its libmemcached program)"
  "docker.io|docker|bin dockerd|the Docker slice (scripts/docker-slice.sh): the engine its containers run in"
)

# packages_have_binary NAME: on the PATH or in the directories the tests search (nutcracker lives
# in /usr/sbin, which is often not on a non-root PATH).
packages_have_binary() {
  command -v "$1" >/dev/null 2>&1 && return 0
  local dir
  for dir in /usr/bin /usr/sbin /usr/local/bin /usr/local/sbin; do
    [ -x "$dir/$1" ] && return 0
  done
  return 1
}

# packages_present CHECK: whether what the table's third column describes is there.
packages_present() {
  local kind="$1" item
  shift
  case "$kind" in
    bin)
      for item in "$@"; do packages_have_binary "$item" && return 0; done
      ;;
    file)
      for item in "$@"; do [ -f "$item" ] && return 0; done
      ;;
    sasl_plain)
      compgen -G '/usr/lib/*/sasl2/libplain.so*' >/dev/null && return 0
      compgen -G '/usr/lib/sasl2/libplain.so*' >/dev/null && return 0
      ;;
  esac
  return 1
}

# packages_field PACKAGE INDEX: one column of the package's row (0 name, 1 sets, 2 check, 3 use).
packages_field() {
  local row fields
  for row in "${PACKAGES_TABLE[@]}"; do
    IFS='|' read -r -a fields <<<"$row"
    if [ "${fields[0]}" = "$1" ]; then
      echo "${fields[$2]}"
      return 0
    fi
  done
  return 1
}

packages_missing() {
  local row fields set wanted
  for row in "${PACKAGES_TABLE[@]}"; do
    IFS='|' read -r -a fields <<<"$row"
    wanted=false
    for set in "$@"; do
      case " ${fields[1]} " in *" $set "*) wanted=true ;; esac
    done
    if [ "$wanted" = true ]; then
      # shellcheck disable=SC2086 # the check's words are its arguments
      packages_present ${fields[2]} || echo "${fields[0]}"
    fi
  done
}

# packages_as_root: how to run a command as root here (prints nothing when already root), or
# returns 1 when it cannot: not root, and no sudo that works without a password or a terminal.
packages_as_root() {
  [ "$(id -u)" -eq 0 ] && return 0
  command -v sudo >/dev/null 2>&1 || return 1
  if sudo -n true 2>/dev/null || [ -t 0 ]; then
    echo sudo
    return 0
  fi
  return 1
}

packages_install() {
  local missing=() package root who="${PACKAGES_WHO:-$(basename "$0")}"
  mapfile -t missing < <(packages_missing "$@")
  [ "${#missing[@]}" -eq 0 ] && return 0
  if ! root="$(packages_as_root)"; then
    {
      echo "$who: missing Debian packages, and not root and no sudo to install them:"
      for package in "${missing[@]}"; do
        echo "  $package: needed by $(packages_field "$package" 3)"
      done
      echo "install them as root, then run this again:"
      echo "  apt-get install -y ${missing[*]}"
    } >&2
    return 1
  fi
  echo "$who: installing ${missing[*]} with apt-get" >&2
  # A fresh machine may still be running its own apt jobs: wait for the lock instead of failing.
  $root apt-get -o DPkg::Lock::Timeout=300 update -qq >/dev/null
  $root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq "${missing[@]}" >/dev/null
  packages_stop_services "$who" "$root" "${missing[@]}"
  mapfile -t missing < <(packages_missing "$@")
  if [ "${#missing[@]}" -ne 0 ]; then
    echo "$who: still missing after apt-get install: ${missing[*]}" >&2
    return 1
  fi
}

# The packages may start system services on the default ports (or, for docker.io, an engine on
# the default socket); nothing here uses them, so stop what the installation started.
packages_stop_services() {
  local who="$1" root="$2" package service
  shift 2
  command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ] || return 0
  for package in "$@"; do
    case "$package" in
      memcached) service=memcached ;;
      redis-server) service=redis-server ;;
      nutcracker) service=nutcracker ;;
      docker.io) service=docker ;;
      *) continue ;;
    esac
    if systemctl is-active --quiet "$service" 2>/dev/null; then
      $root systemctl stop "$service" || true
      [ "$service" = docker ] && { $root systemctl stop docker.socket || true; }
      echo "$who: stopped the $service service the installation started" \
        "(systemctl start $service to use it)" >&2
    fi
  done
}
