#!/bin/sh
# bundle.sh DIR - the programs and the benchmarks' helper (syrk_peak) with
# the shared libraries they load, for a machine without the build tools or
# the Debian packages (a lent server): DIR/libexec (the programs), DIR/lib
# (their libraries) and DIR/bin (for each program a two-line wrapper that
# sets LD_LIBRARY_PATH for it alone, so that the machine's own Python and
# numpy never load these libraries). The C library itself is not copied:
# the machine needs glibc 2.34 or later. See bench/README.md. (In bench/lib,
# so that `make bench`, which runs every bench/*.sh, leaves it out.)
set -eu
[ $# = 1 ] || { echo "usage: sh bench/lib/bundle.sh DIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.."
[ -n "${MAKELEVEL:-}" ] || make -s all build/obj/libcal.a  # (make bundle built them)
rm -rf "$out/bin" "$out/lib" "$out/libexec"
mkdir -p build/bench "$out/bin" "$out/lib" "$out/libexec"
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Ilib $(pkg-config --cflags openblas) -o build/bench/syrk_peak \
  bench/syrk_peak.c build/obj/libcal.a $(pkg-config --libs openblas) -lpthread -lm
cp bin/cal-* build/bench/syrk_peak "$out/libexec/"
strip "$out"/libexec/* 2>/dev/null || true
# the libsentencepiece shim, loaded from the programs' folder on first use
cp bin/libcal-spm.so "$out/libexec/"
for f in "$out"/libexec/cal-* "$out"/libexec/syrk_peak; do
  p=$(basename "$f")
  {
    echo '#!/bin/sh'
    echo 'd=$(cd "$(dirname "$0")/.." && pwd)'
    echo 'LD_LIBRARY_PATH=$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec "$d/libexec/'"$p"'" "$@"'
  } >"$out/bin/$p"
  chmod +x "$out/bin/$p"
done
for f in "$out"/libexec/*; do ldd "$f"; done | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
  while read -r lib; do
    case $(basename "$lib") in
      libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) ;;
      *) cp -L "$lib" "$out/lib/" ;;
    esac
  done
echo "bundle: $(du -sh "$out" | cut -f1) in $out"
