#!/usr/bin/env bash
# Writes libmemcached.tsv, late-hash.tsv and orders.tsv from the installed libmemcached (Debian:
# libmemcached-dev 1.1.4) with lmorder.c, for the keys of libmemcached.tsv's first column. Run in
# this directory. No server is contacted.
set -euo pipefail
gcc -O1 -Wall -Wextra -o "${TMPDIR:-/tmp}/lmorder" lmorder.c -lmemcached
lmorder="${TMPDIR:-/tmp}/lmorder"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tail -n +2 libmemcached.tsv | cut -f1 > "$work/keys"
plain="$(paste -sd, servers)"
weighted="$(paste -sd, weighted.servers)"
hashes=(default md5 crc fnv1_64 fnv1a_64 fnv1_32 fnv1a_32 murmur jenkins murmur3)

# One column: the steps of lmorder, with "servers" and "weighted" for the lists, "servers:1-4" and
# "servers:5" for the first four servers and the fifth.
column() {
  local steps=()
  for step in "$@"; do
    case "$step" in
      servers) steps+=("servers=$plain") ;;
      weighted) steps+=("servers=$weighted") ;;
      servers:1-4) steps+=("servers=$(head -4 servers | paste -sd,)") ;;
      servers:5) steps+=("servers=$(sed -n 5p servers)") ;;
      *) steps+=("$step") ;;
    esac
  done
  "$lmorder" "${steps[@]}" place < "$work/keys"
}

# Every hash and distribution, set before the servers are added.
header=key
columns=()
for h in "${hashes[@]}"; do
  column hash=$h servers > "$work/$h.modula"
  column distribution=consistent hash=$h servers > "$work/$h.consistent"
  column distribution=consistent ketama_weighted=1 hash=$h weighted > "$work/$h.weighted"
  header+=$'\t'"$h:modula"$'\t'"$h:consistent"$'\t'"$h:consistent_weighted"
  columns+=("$work/$h.modula" "$work/$h.consistent" "$work/$h.weighted")
done
{ echo "$header"; paste "$work/keys" "${columns[@]}"; } > libmemcached.tsv

# The continuum built with one hash, the key hash set afterwards to another.
header=key
columns=()
for k in "${hashes[@]}"; do
  for p in "${hashes[@]}"; do
    if [ "$k" != "$p" ]; then
      column hash=$p servers distribution=consistent hash=$k > "$work/$k.$p"
      header+=$'\t'"$k:consistent:points=$p"
      columns+=("$work/$k.$p")
    fi
  done
done
{ echo "$header"; paste "$work/keys" "${columns[@]}"; } > late-hash.tsv

# Call orders: which behaviour set when gives which placement.
orders=(
  "servers ketama=1"
  "servers ketama=1 hash=fnv1a_32"
  "servers distribution=consistent hash=jenkins"
  "hash=fnv1a_32 servers ketama=1"
  "servers hash=fnv1a_32 ketama=1"
  "ketama=1 hash=fnv1a_32 servers"
  "hash=md5 servers ketama=1 hash=murmur"
  "servers ketama=1 hash=jenkins clone"
  "servers ketama=1 hash=jenkins distribution=consistent"
  "servers:1-4 ketama=1 hash=murmur3 servers:5"
  "servers ketama=1 hash=fnv1a_32 ketama=0"
  "servers hash=crc"
  "weighted ketama_weighted=1"
  "weighted ketama_weighted=1 hash=murmur"
)
header=key
columns=()
for i in "${!orders[@]}"; do
  # shellcheck disable=SC2086 # the steps are words
  column ${orders[$i]} > "$work/order.$i"
  header+=$'\t'"${orders[$i]}"
  columns+=("$work/order.$i")
done
{ echo "$header"; paste "$work/keys" "${columns[@]}"; } > orders.tsv
