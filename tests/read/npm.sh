#!/bin/sh
# npm.sh [PKG@VERSION...] - installs the pinned test-only npm packages (the
# ones named, by default the Parquet readers) into build/npm (idempotent;
# fast when present). Prints the node_modules path.
set -eu
cd "$(dirname "$0")/../.."
PKGS="${*:-@duckdb/node-api@1.5.6-r.1 hyparquet-writer@0.17.0}"
NM=build/npm/node_modules
ok=1
for pv in $PKGS; do
  p=${pv%@*} v=${pv##*@}
  got=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$NM/$p/package.json" 2>/dev/null | head -1)
  [ "$got" = "$v" ] || ok=0
done
if [ "$ok" = 0 ]; then
  # shellcheck disable=SC2086
  npm install --silent --no-audit --no-fund --prefix build/npm $PKGS >/dev/null 2>&1 || {
    echo "npm.sh: cannot install $PKGS" >&2; exit 1; }
fi
echo "$PWD/$NM"
