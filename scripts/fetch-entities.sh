#!/bin/sh
# fetch-entities.sh - the pinned HTML named character references that
# lib/jinja's html.unescape (the striptags filter) is generated from
# (scripts/gen-entities.mjs): npm character-entities@2.0.2 (the WHATWG list,
# names without their semicolon) and character-entities-legacy@3.0.0 (the
# names HTML also takes without one), checked against scripts/entities.sha256
# and unpacked into build/entities/NAME/. Together they are Python's
# html.entities.html5, name for name. Idempotent, as fetch-unicode.sh.
set -eu
cd "$(dirname "$0")/.."
OUT=build/entities
SUMS=scripts/entities.sha256
die() { echo "fetch-entities: $*" >&2; exit 1; }
command -v npm >/dev/null || die "npm not found (Debian: apt-get install npm); it fetches the HTML entity list the build generates a table from"
mkdir -p "$OUT"
for pv in character-entities@2.0.2 character-entities-legacy@3.0.0; do
  name=${pv%@*} ver=${pv#*@}
  tgz=$name-$ver.tgz
  want=$(awk -v f="$tgz" '$2 == f { print $1 }' "$SUMS")
  if [ -f "$OUT/$tgz" ] && [ -f "$OUT/$name/package/index.js" ] &&
     [ "$(sha256sum <"$OUT/$tgz" | cut -d' ' -f1)" = "$want" ]; then
    continue
  fi
  echo "fetch-entities: $pv" >&2
  (cd "$OUT" && npm pack --silent "$pv" >/dev/null 2>npm-pack.log) ||
    die "npm pack $pv failed: $(tail -1 "$OUT/npm-pack.log")"
  got=$(sha256sum <"$OUT/$tgz" | cut -d' ' -f1)
  [ "$got" = "$want" ] || die "$tgz: checksum mismatch (got $got, want $want)"
  rm -rf "$OUT/$name" && mkdir -p "$OUT/$name" && tar xzf "$OUT/$tgz" -C "$OUT/$name"
done
rm -f "$OUT/npm-pack.log"
