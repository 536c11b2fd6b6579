#!/bin/bash
# A uinput keyboard made by a test program types: interactive's effective
# boost rises to the [Input] boost, stays while the user types, falls back
# DurationMs= after the last key, and the CPU running an interactive task
# follows it (that task samples its own CPU's frequency while it runs).
. /usr/lib/boostd-systest/lib.sh
need_boostd

pids=()
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
[ "$(property PowerState)" = ac ] || fail "not on AC at the start"
b0=$(effective interactive)
boost=60

# 20 % busy on CPU 3, in interactive.
$lib/duty 3 8 40 15000 > /run/duty.log &
duty=$!
pids+=("$duty")
boostctl classify "$duty" interactive || fail "boostctl classify $duty interactive failed"
sleep 3
t_before=$(now_ms)

$lib/uinput-keys 1500 20 100 3000 > /run/keys.log &
pids+=("$!")
wait_for $DEADLINE_MS grep -q typing /run/keys.log || fail "uinput-keys never started typing"
t_typing=$(now_ms)
wait_for $DEADLINE_MS effective_is interactive $boost ||
	fail "interactive effective is $(effective interactive), not $boost, $((DEADLINE_MS / 1000)) s after the first key"
t_up=$(now_ms)
say "interactive effective $b0 -> $boost $(( t_up - t_typing )) ms after the first key"
[ "$(cat $stune/interactive/schedtune.boost)" = $boost ] ||
	fail "interactive schedtune.boost is $(cat $stune/interactive/schedtune.boost), not $boost"
wait_for $DEADLINE_MS grep -q done /run/keys.log || fail "uinput-keys never finished typing"
t_done=$(now_ms)
effective_is interactive $boost || fail "the boost fell while the user was typing"
wait_for $DEADLINE_MS effective_is interactive "$b0" ||
	fail "interactive effective still $(effective interactive) $((DEADLINE_MS / 1000)) s after the last key"
t_down=$(now_ms)
say "back to $b0 $(( t_down - t_done )) ms after the last key (DurationMs=1500)"
[ $(( t_down - t_done )) -ge 1200 ] || fail "the boost fell after $(( t_down - t_done )) ms, before DurationMs=1500"
sleep 2.5
kill "$duty"
t_end=$(now_ms)

# Medians of the samples before typing, while boosted and after.
window() {
	awk -v a="$1" -v b="$2" '$1 >= a && $1 < b && $2 > 0 { print $2 }' /run/duty.log | median
}
f_before=$(window $((t_before - 2000)) "$t_typing")
f_during=$(window $((t_up + 200)) "$t_done")
f_after=$(window $((t_down + 500)) "$t_end")
say "CPU 3 frequency (median kHz): before $f_before, boosted $f_during, after $f_after"
[ "$f_during" -ge $(( f_before + 400000 )) ] ||
	fail "CPU 3 ran at $f_during kHz while boosted, not 400 MHz above $f_before kHz before"
[ "$f_after" -le $(( f_during - 400000 )) ] ||
	fail "CPU 3 still at $f_after kHz after the boost fell (boosted: $f_during kHz)"
