#!/usr/bin/env bash
# Builds the images the Docker mode of the tests runs, memcached:1.6 and redis:7, on this machine
# from its Debian packages, with no registry access: each image is a root filesystem made of the
# files of the installed packages (the server's, the packages of the libraries it links, dash for
# the entrypoint), loaded with `docker import`. The entrypoints behave like the official images'
# on the arguments the tests pass: arguments starting with '-' (or, for Redis, a *.conf file) get
# the server prepended; memcached runs as the user memcache, Redis as the user redis in /data.
#
#   scripts/docker-images.sh          build both (the engine of DOCKER_HOST, or the default one)
#
# Needs root (or a user allowed to use the engine) and the packages memcached and redis-server
# installed (./test.sh installs them).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { echo "docker-images: $*" >&2; }

for tool in docker dpkg ldd; do
  command -v "$tool" >/dev/null 2>&1 || { say "$tool is required"; exit 1; }
done

# package_of FILE: the Debian package that installed FILE (its path with or without /usr).
package_of() {
  local file="$1" candidate owner
  for candidate in "$file" "$(realpath "$file")" "${file#/usr}" "/usr${file}"; do
    owner="$(dpkg -S "$candidate" 2>/dev/null | head -n 1)" || true
    if [ -n "$owner" ]; then
      echo "${owner%%:*}"
      return 0
    fi
  done
  say "no package owns $file"
  return 1
}

# packages_for BINARY...: the packages of the binaries and of every library they link.
packages_for() {
  local binary library
  for binary in "$@"; do
    package_of "$binary"
    package_of "$(realpath "$binary")" # redis-server is a link to redis-tools' redis-check-rdb
    for library in $(ldd "$binary" | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }'); do
      package_of "$library"
    done
  done | sort -u
}

# add_packages ROOT PACKAGE...: copies the packages' files (not their docs, manuals, service
# scripts) into ROOT; ROOT's merged-/usr links put /lib/x/y in /usr/lib/x/y, as on the machine.
add_packages() {
  local root="$1" path
  shift
  dpkg -L "$@" | while IFS= read -r path; do
    [ -d "$path" ] && continue
    case "$path" in
      /usr/share/doc/* | /usr/share/man/* | /usr/share/lintian/* | /etc/init.d/* | /lib/systemd/* | /usr/lib/systemd/* | /etc/logrotate.d/*) continue ;;
    esac
    if [ -e "$path" ] || [ -L "$path" ]; then
      printf '%s\n' "${path#/}"
    fi
  done | tar -C / -c --no-recursion -T - | tar -C "$root" -x --keep-directory-symlink
}

# build TAG USER UID HOME BINARY ENTRYPOINT-SCRIPT DOCKER-IMPORT-CHANGES...
build() {
  local tag="$1" user="$2" uid="$3" home="$4" binary="$5" entrypoint="$6"
  shift 6
  local root
  root="$(mktemp -d "${TMPDIR:-/tmp}/shardwise-image.XXXXXX")"
  # shellcheck disable=SC2064 # the directory is known now
  trap "rm -rf '$root'" RETURN
  mkdir -p "$root/usr/bin" "$root/usr/sbin" "$root/usr/lib" "$root/usr/lib64" "$root/usr/local/bin" \
    "$root/etc" "$root/tmp" "$root$home" "$root/proc" "$root/sys" "$root/dev"
  ln -s usr/bin "$root/bin"
  ln -s usr/sbin "$root/sbin"
  ln -s usr/lib "$root/lib"
  ln -s usr/lib64 "$root/lib64"
  chmod 1777 "$root/tmp"
  # shellcheck disable=SC2046 # one package name a word
  add_packages "$root" $(packages_for "$binary" /bin/dash)
  ln -sf dash "$root/usr/bin/sh"
  printf 'root:x:0:0:root:/root:/bin/sh\n%s:x:%s:%s::%s:/usr/sbin/nologin\n' "$user" "$uid" "$uid" "$home" >"$root/etc/passwd"
  printf 'root:x:0:\n%s:x:%s:\n' "$user" "$uid" >"$root/etc/group"
  chown "$uid:$uid" "$root$home"
  printf '%s' "$entrypoint" >"$root/usr/local/bin/docker-entrypoint.sh"
  chmod 755 "$root/usr/local/bin/docker-entrypoint.sh"
  local changes=() change
  for change in \
    'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    "USER $user" \
    'ENTRYPOINT ["docker-entrypoint.sh"]' \
    "$@"; do
    changes+=(--change "$change")
  done
  local previous
  previous="$(docker image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)"
  tar -C "$root" --numeric-owner -c . | docker import "${changes[@]}" \
    --message "built by scripts/docker-images.sh from the Debian packages $(packages_for "$binary" /bin/dash | tr '\n' ' ')" \
    - "$tag" >/dev/null
  if [ -n "$previous" ] && [ "$previous" != "$(docker image inspect --format '{{.Id}}' "$tag")" ]; then
    docker image rm "$previous" >/dev/null 2>&1 || true # still used by a container: kept
  fi
  say "built $tag ($(docker image inspect --format '{{.Size}}' "$tag" | awk '{ printf "%.0f MB", $1 / 1e6 }'))"
}

memcached="$(command -v memcached || echo /usr/bin/memcached)"
redis="$(command -v redis-server || echo /usr/bin/redis-server)"
for binary in "$memcached" "$redis"; do
  [ -x "$binary" ] || { say "$binary is missing; ./test.sh installs it (or apt-get install -y memcached redis-server)"; exit 1; }
done

build memcached:1.6 memcache 11211 /home/memcache "$memcached" '#!/bin/sh
set -e
# as the official image: a first argument starting with - is an option of memcached
if [ "${1#-}" != "$1" ]; then
  set -- memcached "$@"
fi
exec "$@"
' 'CMD ["memcached"]' 'EXPOSE 11211'

build redis:7 redis 999 /data "$redis" '#!/bin/sh
set -e
# as the official image: a first argument starting with - or ending in .conf is for redis-server
if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
  set -- redis-server "$@"
fi
um="$(umask)"
if [ "$um" = 0022 ]; then
  umask 0077
fi
exec "$@"
' 'CMD ["redis-server"]' 'EXPOSE 6379' 'WORKDIR /data'
