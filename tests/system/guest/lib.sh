# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Helpers of the guest scenarios (sourced).

lib=/usr/lib/boostd-systest
stune=/dev/stune
BUS=(org.boostd.Boost1 /org/boostd/Boost1 org.boostd.Boost1)

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

say() {
	echo "  $*"
}

# ms since the epoch
now_ms() {
	date +%s%3N
}

# How long a scenario waits for what must happen before it fails. It is
# a deadline, not a latency budget: on a loaded host a TCG guest can take
# a second for what takes milliseconds on a quiet one. Latencies are
# reported (say) as figures, never asserted.
DEADLINE_MS=15000

# wait_for MS COMMAND...: poll every 50 ms until COMMAND succeeds.
wait_for() {
	local deadline=$(( $(now_ms) + $1 ))
	shift
	while ! "$@" 2>/dev/null; do
		[ "$(now_ms)" -lt "$deadline" ] || return 1
		sleep 0.05
	done
}

# effective GROUP / base GROUP
effective() {
	boostctl get "$1" | awk '{ print $2 }'
}

base() {
	boostctl get "$1" | awk '{ print $1 }'
}

effective_is() {
	[ "$(effective "$1")" = "$2" ]
}

property() {
	busctl get-property "${BUS[@]}" "$1" | sed 's/^[a-z]* //; s/"//g'
}

# in_group PID GROUP
in_group() {
	grep -qx "$1" "$stune/$2/cgroup.procs"
}

# all_in_group CGROUP_DIR GROUP: every PID of a unit's cgroup (and its
# children) is in GROUP, and there is at least one.
all_in_group() {
	local pids p
	pids=$(cat "$1"/cgroup.procs "$1"/*/cgroup.procs 2>/dev/null)
	[ -n "$pids" ] || return 1
	for p in $pids; do
		in_group "$p" "$2" || return 1
	done
}

# The groups boostd made (children of the schedtune mount).
boost_groups() {
	find "$stune" -mindepth 1 -maxdepth 1 -type d -printf '%f\n'
}

boostd_main_pid() {
	systemctl show -p MainPID --value boostd
}

# median of the numbers on stdin
median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'
}

set_power() {
	local p=/sys/module/test_power/parameters
	echo "$1" > $p/ac_online
	echo "$1" > $p/usb_online
	echo "$2" > $p/battery_status
	echo "$3" > $p/battery_capacity
}

# has_pids CGROUP_DIR: a cgroup has a process (cgroupfs files have size 0,
# so test -s cannot tell).
has_pids() {
	grep -q . "$1/cgroup.procs"
}

# Scenarios after start need a running boostd (also when run alone).
need_boostd() {
	systemctl start boostd || fail "systemctl start boostd failed"
}
