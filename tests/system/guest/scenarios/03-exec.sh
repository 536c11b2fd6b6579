#!/bin/bash
# An exec of a program a Comm= rule or an Exe= rule names lands in its
# group (from the process connector's exec event), while a program no rule
# names stays in root. All run inside this test's own service, which no
# unit rule matches.
. /usr/lib/boostd-systest/lib.sh
need_boostd

pids=()
trap 'kill "${pids[@]}" 2>/dev/null' EXIT

t0=$(now_ms)
/usr/local/bin/systest-game 600 &
game=$!
pids+=("$game")
wait_for $DEADLINE_MS in_group "$game" performance ||
	fail "systest-game ($game, Comm= rule) not in performance after $((DEADLINE_MS / 1000)) s"
say "systest-game in performance after $(( $(now_ms) - t0 )) ms"

t0=$(now_ms)
$lib/bg-indexer 600 &
idx=$!
pids+=("$idx")
wait_for $DEADLINE_MS in_group "$idx" background ||
	fail "bg-indexer ($idx, Exe= rule) not in background after $((DEADLINE_MS / 1000)) s"
say "bg-indexer in background after $(( $(now_ms) - t0 )) ms"

# A shell that execs a matching program: the same PID changes class. It
# execs only once it has been seen out of performance, whatever the load.
rm -f /run/exec-go
bash -c 'while [ ! -e /run/exec-go ]; do sleep 0.05; done; exec /usr/local/bin/systest-game 600' &
late=$!
pids+=("$late")
sleep 0.2
! in_group "$late" performance || fail "the shell $late was in performance before its exec"
t0=$(now_ms)
: > /run/exec-go
wait_for $DEADLINE_MS in_group "$late" performance || fail "PID $late not in performance after its exec"
say "the shell $late in performance $(( $(now_ms) - t0 )) ms after it was let exec"

sleep 600 &
plain=$!
pids+=("$plain")
sleep 1
for g in $(boost_groups); do
	! in_group "$plain" "$g" || fail "plain sleep ($plain) was moved to $g"
done
