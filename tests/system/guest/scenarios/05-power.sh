#!/bin/bash
# test_power takes the system to battery, to low battery and back to AC:
# PowerState and every group's boost follow the config (performance
# 50/30/10, interactive 10/5/0), low ends only above the hysteresis, and
# each change is announced with PropertiesChanged.
. /usr/lib/boostd-systest/lib.sh
need_boostd

trap 'set_power on charging 80; kill $mon $perf 2>/dev/null' EXIT
boostctl monitor > /run/monitor.log &
mon=$!
# a process in performance, whose own boost is the group's on schedtune2
sleep 600 &
perf=$!
boostctl classify "$perf" performance || fail "boostctl classify $perf performance failed"
sleep 1

perf_kernel_is() {
	[ "$(kernel_boost performance "$perf")" = "$1" ]
}

# expect STATE PERFORMANCE INTERACTIVE
expect() {
	wait_for $DEADLINE_MS bash -c "[ \"\$(busctl get-property ${BUS[*]} PowerState)\" = 's \"$1\"' ]" ||
		fail "PowerState is $(property PowerState), want $1 ($what)"
	wait_for $DEADLINE_MS effective_is performance "$2" ||
		fail "$what: performance effective $(effective performance), want $2"
	effective_is interactive "$3" ||
		fail "$what: interactive effective $(effective interactive), want $3"
	wait_for $DEADLINE_MS perf_kernel_is "$2" ||
		fail "$what: performance in the kernel $(kernel_boost performance "$perf"), want $2"
	say "$what: $1, performance $2, interactive $3"
}

what="AC, charging 80 %"; set_power on charging 80; expect ac 50 10
what="battery 50 %"; set_power off discharging 50; expect battery 30 5
what="battery 15 %"; set_power off discharging 15; expect low 10 0
what="battery 18 % (within the hysteresis)"; set_power off discharging 18; expect low 10 0
what="battery 25 %"; set_power off discharging 25; expect battery 30 5
what="battery 12 %"; set_power off discharging 12; expect low 10 0
what="AC back, charging 12 %"; set_power on charging 12; expect ac 50 10
sleep 0.5
kill $mon
for s in battery low ac; do
	grep -q "PowerState.*$s" /run/monitor.log || fail "boostctl monitor never showed PowerState $s"
done
grep -q "Groups" /run/monitor.log || fail "boostctl monitor never showed Groups changing"
