#!/bin/sh
# fetch-unicode.sh - the pinned Unicode data that lib/tok's tables are
# generated from (scripts/gen-unicode.mjs; see man/cal-encode.1, UNICODE):
# npm @unicode/unicode-{8.0.0,9.0.0,16.0.0,17.0.0}@2.0.7, checked against
# scripts/unicode.sha256 and unpacked into build/unicode/VERSION/. The
# reference tokenizers take their Unicode data from four versions: 9.0 for
# the normalizers, 16.0 for the regex engines and grapheme clusters, 17.0
# for Rust's char methods, 8.0 for the unicode_categories crate (BERT).
# Idempotent: an unpacked version whose tarball checks out is kept.
set -eu
cd "$(dirname "$0")/.."
PKG_VERSION=2.0.7
OUT=build/unicode
SUMS=scripts/unicode.sha256
die() { echo "fetch-unicode: $*" >&2; exit 1; }
command -v npm >/dev/null || die "npm not found (Debian: apt-get install npm); it fetches the Unicode data the build generates tables from"
mkdir -p "$OUT"
for v in 8.0.0 9.0.0 16.0.0 17.0.0; do
  tgz=unicode-$v-$PKG_VERSION.tgz
  want=$(awk -v f="$tgz" '$2 == f { print $1 }' "$SUMS")
  if [ -f "$OUT/$tgz" ] && [ -f "$OUT/$v/package/package.json" ] &&
     [ "$(sha256sum <"$OUT/$tgz" | cut -d' ' -f1)" = "$want" ]; then
    continue
  fi
  echo "fetch-unicode: @unicode/unicode-$v@$PKG_VERSION" >&2
  (cd "$OUT" && npm pack --silent "@unicode/unicode-$v@$PKG_VERSION" >/dev/null 2>npm-pack.log) ||
    die "npm pack @unicode/unicode-$v@$PKG_VERSION failed: $(tail -1 "$OUT/npm-pack.log")"
  [ -f "$OUT/unicode-unicode-$v-$PKG_VERSION.tgz" ] && mv -f "$OUT/unicode-unicode-$v-$PKG_VERSION.tgz" "$OUT/$tgz"
  got=$(sha256sum <"$OUT/$tgz" | cut -d' ' -f1)
  [ "$got" = "$want" ] || die "$tgz: checksum mismatch (got $got, want $want)"
  rm -rf "$OUT/$v" && mkdir -p "$OUT/$v" && tar xzf "$OUT/$tgz" -C "$OUT/$v"
done
rm -f "$OUT/npm-pack.log"
