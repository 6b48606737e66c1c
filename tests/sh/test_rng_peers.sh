#!/bin/sh
# test_rng_peers.sh - base/anyrng's python, numpy and torch generators give
# the real CPython random, numpy default_rng and torch CPU draws (many seeds,
# ranges up to 2^64 - 1, permutations, shuffles); torch parts skip without
# python3-torch.
. tests/lib.sh
$PY tests/py/rng_peers.py "$CAL_UNIT/test_base_rng_peers"
