# preamble.sh - sourced first by every bench/*.sh (kept out of bench/*.sh so
# that `make bench` does not run it): strict mode, the repository root as the
# current directory, $BIN the programs (CAL_BIN; also first on PATH), $PY
# a Python with numpy (CAL_PY, else /usr/bin/python3, else python3), $W a
# scratch directory removed at exit.
set -eu
cd "$(dirname "$0")/.."
BIN=${CAL_BIN:-$PWD/bin}
PATH=$BIN:$PATH
export PYTHONUNBUFFERED=1  # lines reach a pipe at once, also when a time limit stops the run
PY=${CAL_PY:-/usr/bin/python3}
"$PY" -c 'import numpy' 2>/dev/null || PY=python3
W=$(mktemp -d "${TMPDIR:-/tmp}/calbench.XXXXXX")
trap 'rm -rf "$W"' EXIT
