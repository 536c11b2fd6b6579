#!/bin/bash
# D-Bus from the unprivileged user alice, decided by the real polkitd:
# SetBoost and classifying root's process are denied with AccessDenied
# and change nothing; reading, classifying her own process and holding a
# boost are allowed (50-boostd-systest.rules); a hold ends when its client
# exits, and when it is killed.
. /usr/lib/boostd-systest/lib.sh
need_boostd

pids=()
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
as_alice() {
	runuser -u alice -- "$@"
}
denied='org.freedesktop.DBus.Error.AccessDenied'
perf=$(base performance)

as_alice boostctl get performance > /run/get.txt || fail "alice cannot read a group's boost"

if as_alice boostctl set performance 70 2> /run/err.txt; then
	fail "alice's SetBoost succeeded"
fi
grep -q "$denied" /run/err.txt || fail "alice's SetBoost: $(cat /run/err.txt), not $denied"
[ "$(base performance)" = "$perf" ] || fail "a denied SetBoost changed performance to $(base performance)"
say "SetBoost from alice: $(cat /run/err.txt)"

sleep 600 &
rootpid=$!
pids+=("$rootpid")
if as_alice boostctl classify "$rootpid" background 2> /run/err.txt; then
	fail "alice classified root's process $rootpid"
fi
grep -q "$denied" /run/err.txt || fail "alice's Classify of root's process: $(cat /run/err.txt)"
! in_group "$rootpid" background || fail "a denied Classify moved $rootpid"

# setpriv execs the command itself: $! is alice's process.
setpriv --reuid=alice --regid=alice --init-groups sleep 600 &
own=$!
pids+=("$own")
wait_for $DEADLINE_MS bash -c "[ \"\$(stat -c %U /proc/$own)\" = alice ]" || fail "alice's sleep did not start"
as_alice boostctl classify "$own" background || fail "alice cannot classify her own process $own"
in_group "$own" background || fail "alice's process $own is not in background"

# A hold while a command runs, gone when it exits.
as_alice boostctl hold performance 90 -- sleep 3 &
wait_for $DEADLINE_MS effective_is performance 90 || fail "alice's hold did not raise performance to 90"
wait_for $DEADLINE_MS effective_is performance "$perf" || fail "alice's hold outlived its command"

# A hold whose client is killed: the bus tells boostd it left.
as_alice boostctl hold performance 95 -- sleep 600 &
wait_for $DEADLINE_MS effective_is performance 95 || fail "alice's second hold did not raise performance to 95"
pkill -KILL -u alice -x boostctl || fail "no boostctl of alice's to kill"
wait_for $DEADLINE_MS effective_is performance "$perf" ||
	fail "the hold of a killed client is still in force ($(effective performance))"
say "denied calls denied, allowed calls work, holds end with their client"
