#!/bin/bash
# A uinput keyboard made by a test program types: interactive's effective
# boost and the kernel's (its schedtune.boost, or on schedtune2 the own
# boost of the interactive task) rise to the [Input] boost and fall back
# after the last key (how long after is reported), and the CPU running an
# interactive task follows it (that task samples its own CPU's frequency
# while it runs).
. /usr/lib/boostd-systest/lib.sh
need_boostd

pids=()
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
[ "$(property PowerState)" = ac ] || fail "not on AC at the start"
b0=$(effective interactive)
boost=60

# 20 % busy on CPU 3, in interactive.
# Each sample also has the kernel's boost for it read right after it.
DUTY_TAG_FILE=$(duty_tag interactive) $lib/duty 3 8 40 15000 > /run/duty.log &
duty=$!
pids+=("$duty")
boostctl classify "$duty" interactive || fail "boostctl classify $duty interactive failed"
sleep 3
t_before=$(now_ms)
# what the kernel has for the CPU (6.12: its boost and each queued task's)
if [ -r /sys/kernel/debug/sched/schedtune ]; then
	say "before typing: $(grep -E '^cpu3|^ ' /sys/kernel/debug/sched/schedtune | tr '\n' ' ' | head -c 400)"
	say "duty $duty: cgroup $(cut -d: -f3 /proc/$duty/cgroup), own boost $($lib/task-boost $duty), sysctl $(cat /proc/sys/kernel/sched_cfs_boost)"
fi

$lib/uinput-keys 1500 20 100 3000 > /run/keys.log &
pids+=("$!")
wait_for $DEADLINE_MS grep -q typing /run/keys.log || fail "uinput-keys never started typing"
t_typing=$(now_ms)
# The API and the kernel agree, at one poll: under load the boost can come
# and go between two separate reads.
boosted_to() {
	effective_is interactive "$1" &&
		[ "$(kernel_boost interactive "$duty")" = "$1" ]
}
wait_for $DEADLINE_MS boosted_to $boost ||
	fail "interactive is at $(effective interactive) (in the kernel $(kernel_boost interactive "$duty")), not $boost, $((DEADLINE_MS / 1000)) s after the first key"
t_up=$(now_ms)
say "interactive effective $b0 -> $boost $(( t_up - t_typing )) ms after the first key"
wait_for $DEADLINE_MS grep -q done /run/keys.log || fail "uinput-keys never finished typing"
t_done=$(now_ms)
# Whether the boost still held when the typing was seen to end, and when it
# fell, depend on how late boostd and this script ran: figures, not checks
# (tests/dbus checks that activity keeps the boost past DurationMs=).
held=yes
effective_is interactive $boost || held=no
wait_for $DEADLINE_MS boosted_to "$b0" ||
	fail "interactive still at $(effective interactive) $((DEADLINE_MS / 1000)) s after the last key"
t_down=$(now_ms)
say "boost held at the last key: $held; back to $b0 $(( t_down - t_done )) ms after it (DurationMs=1500)"
sleep 2.5
kill "$duty"
t_end=$(now_ms)

# Medians of the samples by the boost in force when each was taken: no
# time window, which a loaded host would shift.
by_boost() {
	awk -v b="$1" -v a="$2" '$3 == b && $1 >= a && $2 > 0 { print $2 }' /run/duty.log
}
n_boosted=$(by_boost $boost 0 | wc -l)
f_before=$(by_boost "$b0" 0 | median)
f_during=$(by_boost $boost 0 | median)
f_after=$(by_boost "$b0" "$t_down" | median)
say "CPU 3 frequency (median kHz): at boost $b0 $f_before ($(by_boost "$b0" 0 | wc -l) samples), at boost $boost $f_during ($n_boosted samples), at $b0 after the fall $f_after"
[ "$n_boosted" -ge 5 ] || fail "only $n_boosted samples of CPU 3 while interactive was at $boost"
[ "$f_during" -ge $(( f_before + 400000 )) ] ||
	fail "CPU 3 ran at $f_during kHz while boosted, not 400 MHz above $f_before kHz at boost $b0"
[ "$f_after" -le $(( f_during - 400000 )) ] ||
	fail "CPU 3 still at $f_after kHz after the boost fell (boosted: $f_during kHz)"
