#!/bin/sh
# cal-read's memory stays bounded: a document or line longer than the 1 GiB
# record limit (CAL_MAX_PAYLOAD) is an error found while reading, naming the
# file and byte, not after buffering all of it (cal-read -f text /dev/zero
# once grew to 23 GiB). Run under ulimit -v, so that a regression fails here
# ("out of memory") instead of eating the machine. The other layouts' limits
# are checked in-process with a small limit (tests/unit/test_text_split.c).
. tests/lib.sh
if [ "${CAL_SANITIZE:-}" = 1 ]; then
  skip "record limit under ulimit -v" "ASan reserves terabytes of virtual memory, so ulimit -v cannot apply"
  exit 0
fi
# 1 GiB of document plus its buffer's doubling (virtual), plus the program
LIMIT_KB=2800000
expect_fail "-f text /dev/zero: the limit while reading" 1 \
  '^cal-read: /dev/zero: byte 0: document of more than 1073741824 bytes \(the record limit\)$' \
  sh -c "ulimit -v $LIMIT_KB; exec cal-read -f text /dev/zero"
expect_fail "-f jsonl /dev/zero: a line over the limit" 1 \
  '^cal-read: /dev/zero: byte 0: line of more than 1073741824 bytes \(the record limit\)$' \
  sh -c "ulimit -v $LIMIT_KB; exec cal-read -f jsonl /dev/zero"
