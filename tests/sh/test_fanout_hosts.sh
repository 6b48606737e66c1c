#!/bin/sh
# test_fanout_hosts.sh - the README's fan-out across hosts, for real: GNU
# parallel -S runs the shards over ssh on "hosts" that are each an sshd in a
# network namespace of its own, made and removed here (sshd -i behind ssh's
# ProxyCommand: the connection is sshd's standard input and output, so the
# namespace needs no address and no packet leaves it). A host may also live
# in a mount namespace that hides the tokenizers (a host without them) or
# swaps a corpus for another build. The merged rows equal the serial run's,
# byte for byte; a failed host, or a host with another corpus, is a one-line
# error at the merge, never fewer rows with status 0; --allow-partial takes
# what came, with a warning and a `partial` line.
. tests/lib.sh
ROOT=$PWD
if [ "$(id -u)" != 0 ]; then skip "fan-out over ssh" "needs root (network namespaces)"; exit 0; fi
for c in ip parallel ssh ssh-keygen /usr/sbin/sshd unshare; do
  command -v "$c" >/dev/null 2>&1 || { skip "fan-out over ssh" "$c is not installed (openssh-server, parallel)"; exit 0; }
done
ns=calkit-$$
if ! ip netns add "$ns-probe" 2>/dev/null; then skip "fan-out over ssh" "network namespaces cannot be made here"; exit 0; fi
ip netns del "$ns-probe"
HOSTS="ok1 ok2 notok other"
cleanup() { for h in $HOSTS; do ip netns del "$ns-$h" 2>/dev/null; done; rm -rf "$T"; }
trap cleanup EXIT
for h in $HOSTS; do ip netns add "$ns-$h" || { not_ok "ip netns add $ns-$h"; exit 0; }; done
mkdir -p /run/sshd "$T/parts" "$T/wd"
ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey" && ssh-keygen -q -t ed25519 -N '' -f "$T/userkey" &&
  cp "$T/userkey.pub" "$T/authorized_keys"
cat >"$T/sshd_config" <<EOF
HostKey $T/hostkey
AuthorizedKeysFile $T/authorized_keys
PermitRootLogin yes
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
UsePAM no
UseDNS no
PidFile none
LogLevel ERROR
EOF
# A different build of the technical corpus: the wiki corpus in its place.
sshd="/usr/sbin/sshd -i -f $T/sshd_config"
hide="mount -t tmpfs none $ROOT/build/tokenizers"
swap="mount --bind $ROOT/build/corpora/wiki.jsonl.zst $ROOT/build/corpora/technical.jsonl.zst"
: >"$T/ssh_config"
for h in $HOSTS; do
  case $h in
    notok) pc="ip netns exec $ns-$h unshare -m sh -c '$hide && exec $sshd'" ;;
    other) pc="ip netns exec $ns-$h unshare -m sh -c '$swap && exec $sshd'" ;;
    *) pc="ip netns exec $ns-$h $sshd" ;;
  esac
  cat >>"$T/ssh_config" <<EOF
Host $h
  ProxyCommand $pc
  IdentityFile $T/userkey
  User root
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  BatchMode yes
EOF
done
check "ssh reaches a host: a shell in its own network namespace (no address)" \
  sh -c "[ \"\$(ssh -F '$T/ssh_config' ok1 'ip -o addr | wc -l')\" = 0 ]"

K=4 SHARDS="0 1 2 3"
shard='cal-read technical --shard {}/'$K' | cal-encode -j 1 -t llama3 -o '"$T"'/parts/part{}.cal'
fan() { # fan HOSTS [parallel options]: the shards over ssh on HOSTS
  h=$1; shift
  rm -f "$T"/parts/*
  # shellcheck disable=SC2086
  parallel --ssh "ssh -F $T/ssh_config" -S "$h" --wd "$T/wd" --env PATH "$@" "$shard" ::: $SHARDS 2>"$T/par.err"
}
merge() { cat "$T"/parts/part*.cal | cal-shuffle --by-id "$@" | cal-pack -l 256 -n 16 -o "$T/rows.cal"; }

cal-read technical | cal-encode -t llama3 | cal-shuffle --by-id | cal-pack -l 256 -n 16 -o "$T/serial.cal"
cal-cat -o "$T/serial.npy" "$T/serial.cal"

# Two good hosts: the merged rows are the serial run's, whatever host ran what.
if fan 1/ok1,1/ok2 --halt now,fail=1 && merge 2>"$T/merge.err" && cal-cat -o "$T/rows.npy" "$T/rows.cal"; then
  same "2 hosts, $K shards over ssh: the merged rows = the serial rows" "$T/rows.npy" "$T/serial.npy"
else
  not_ok "2 hosts, $K shards over ssh" "$(cat "$T/par.err" "$T/merge.err" 2>/dev/null | head -5)"
fi
eq "the merged stream names every shard, whole" \
  "$(cal-cat --summary "$T/rows.cal" | sed -n '/^shards:/{n;p}')" "  cal-read technical --shard I/4: 4 of 4"

# A host without the tokenizers: its shards fail. The README's old merge
# line took what came back with status 0; now the merge names the missing.
fan 1/ok1,1/notok; rc=$?
back=$(ls "$T/parts" | wc -l)
if [ "$rc" != 0 ] && [ "$back" -lt $K ] && [ "$back" -gt 0 ]; then ok "a host without tokenizers: parallel fails, $back of $K parts came back"
else not_ok "a host without tokenizers: parallel fails, some parts missing" "rc $rc, $back parts"; fi
expect_fail "the merge of what came back fails, naming the missing shards" 1 \
  "^cal-shuffle: stdin: byte [0-9]+: shards of 'cal-read technical --shard I/4': $back of 4 present, missing [0-9, -]+ \(did a shard's run fail\?\) \(--allow-partial accepts them\)$" \
  merge
[ -s "$T/rows.cal" ] && [ "$(cal-cat --check "$T/rows.cal" | grep -c ' 16 records')" = 1 ] &&
  ok "no rows file from the failed merge replaces the good one" || not_ok "the failed merge left rows.cal alone"
merge --allow-partial 2>"$T/merge.err"
case "$(cat "$T/merge.err")" in
  *"warning: stdin: shards of 'cal-read technical --shard I/4': $back of 4 present"*"accepted (--allow-partial)"*)
    ok "--allow-partial: merged with a warning" ;;
  *) not_ok "--allow-partial: merged with a warning" "$(cat "$T/merge.err")" ;;
esac
eq "--allow-partial: the rows carry the accepted family" \
  "$(cal-cat "$T/rows.cal" | sed -n 's/^#   partial=//p' | sort -u)" "cal-read technical --shard I/4"
fan 1/ok1,1/notok --halt now,fail=1
[ $? != 0 ] && ok "--halt now,fail=1: parallel stops at the first failed shard" ||
  not_ok "--halt now,fail=1 stops" "$(head -3 "$T/par.err")"

# A host with another build of the corpus: every shard runs, the merge
# refuses shards made from different data.
if fan 1/ok1,1/other --halt now,fail=1; then
  expect_fail "a host with another corpus build: the merge names the differing input" 1 \
    "^cal-shuffle: stdin: byte [0-9]+: shards of 'cal-read technical --shard I/4' were made differently: shards [0-9, -]+ \(input=[0-9a-f]{16} [0-9]+ technical\) vs shards [0-9, -]+ \(input=[0-9a-f]{16} [0-9]+ technical\)" \
    merge
else
  not_ok "the shards run on a host with another corpus" "$(head -3 "$T/par.err")"
fi

# Shards given twice (a glob over two folders, a file copied): refused.
fan 1/ok1,1/ok2 --halt now,fail=1
expect_fail "a shard given twice is refused" 1 "shard 2 of 'cal-read technical --shard I/4' came twice or more" \
  sh -c "cat '$T'/parts/part*.cal '$T/parts/part2.cal' | cal-shuffle --by-id >/dev/null"
