# preamble.sh - sourced first by every bench/*.sh (kept out of bench/*.sh so
# that `make bench` does not run it): strict mode, the repository root as the
# current directory, $BIN the programs (also first on PATH), $PY the Python
# with numpy, $W a scratch directory removed at exit.
set -eu
cd "$(dirname "$0")/.."
BIN=${CAL_BIN:-$PWD/bin}
PATH=$BIN:$PATH
PY=/usr/bin/python3
W=$(mktemp -d "${TMPDIR:-/tmp}/calbench.XXXXXX")
trap 'rm -rf "$W"' EXIT
