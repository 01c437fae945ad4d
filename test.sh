#!/usr/bin/env bash
# The whole test suite, set-up included: on a Debian machine with Java 17 and Maven, installs the
# Debian packages the tests need when any is missing (the "tests" set of scripts/packages.sh, the
# list ./demo.sh installs from too; apt-get, with sudo when not root), then runs `mvn -B verify`
# with this script's arguments passed through:
#
#   ./test.sh                                  everything
#   ./test.sh -pl integration-tests -am -Dit.test=TwemproxyDropInIT
#
# Where nothing can be installed (not root, no sudo) and a package is missing, it stops before
# Maven starts and says which packages, which tests need them, and the apt-get line.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"

# shellcheck source=scripts/packages.sh
source scripts/packages.sh

for tool in java mvn; do
  command -v "$tool" >/dev/null 2>&1 || { echo "test.sh: $tool is required (Java 17 and Maven)" >&2; exit 1; }
done

packages_install tests || exit 1
exec mvn -B verify "$@"
