#!/bin/sh
# deps.sh MODE [--install] - make sure the Debian packages calkit needs are present.
#   build    packages to compile (checked before every make)
#   test     packages the test suite needs as well (checked by make check)
#   install  build + test + tools for corpora, tokenizers, fuzzing
# Names the missing packages in one line and fails. Only with --install (make
# deps, make setup) and as root does it run apt-get: a plain make never does.
set -eu
BUILD="gcc g++ make pkg-config libutf8proc-dev libsentencepiece-dev libzstd-dev libxxhash-dev zlib1g-dev libsnappy-dev libpcre2-dev libopenblas-dev libjansson-dev liblzma-dev libbz2-dev libgmp-dev"
# python3-torch: the torch generator's reference (test_rng_peers.sh) and
# dump-activations.py (test_hessian_torch.sh); both skip without it off Debian.
# python3-jinja2: the chat-template reference (test_jinja.sh).
# python3-sklearn: the k-means and TF-IDF references of cal-select (test_select.sh).
# xz-utils, bzip2: the references of cal-read's .xz/.bz2 input; librsvg2-bin:
# renders cal-cat --plot's SVG (test_summary.sh).
TEST="python3-numpy python3-torch python3-jinja2 python3-sklearn sentencepiece python3-sentencepiece zstd gzip xz-utils bzip2 man-db groff-base parallel librsvg2-bin"
# Tools that may come from elsewhere (nodesource ships npm inside nodejs):
# only installed from Debian when the command is missing. The build needs
# them too: lib/tok's Unicode tables are generated from pinned npm packages
# (scripts/fetch-unicode.sh, scripts/gen-unicode.mjs).
TOOLS="node:nodejs npm:npm"
# clang: fuzzing. openssh-server and slurm-wlm: the fan-out tests over ssh and
# on a one-node Slurm (test_fanout_hosts.sh, test_slurm.sh), which skip
# without them: installed by make deps, not required by make check.
EXTRA="clang openssh-server slurm-wlm"
# python3-scipy: the significance tests of the quality bench (bench/quality/
# report.py; test_quality.sh runs it small).
TEST="$TEST python3-scipy"
case "${1:-build}" in
  build) want="$BUILD" ;;
  test) want="$BUILD $TEST" ;;
  install) want="$BUILD $TEST $EXTRA" ;;
  *) echo "deps.sh: unknown mode $1" >&2; exit 2 ;;
esac
command -v dpkg-query >/dev/null 2>&1 || exit 0   # not Debian: trust pkg-config
missing=""
for t in $TOOLS; do
  command -v "${t%%:*}" >/dev/null 2>&1 || missing="$missing ${t#*:}"
done
for p in $want; do
  st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
  case "$st" in ii*) ;; *) missing="$missing $p" ;; esac
done
[ -z "$missing" ] && exit 0
if [ "${2:-}" = --install ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "deps: installing$missing" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >&2
else
  echo "deps: missing Debian packages:$missing (run: make deps, or: sudo apt-get install$missing)" >&2
  exit 1
fi
