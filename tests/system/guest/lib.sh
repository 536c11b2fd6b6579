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

# The backend boostd runs on this kernel: schedtune (the 6.1 series: v1
# groups under $stune) or schedtune2 (the 6.12 series: cgroup v2 only,
# per-task boosts and units' boosts in place).
if grep -qw '^schedtune' /proc/cgroups 2>/dev/null; then
	BACKEND=schedtune
else
	BACKEND=schedtune2
fi

# The class boostd says decides for the process (GetProcess's second
# string: the first, the group it is in, is "" where no process moves).
class_of() {
	busctl call "${BUS[@]}" GetProcess u "$1" 2>/dev/null | awk '{ gsub(/"/, "", $3); print $3 }'
}

# in_group PID GROUP: on schedtune the PID is in the group's cgroup.procs;
# on schedtune2 boostd has it in GROUP and every thread of it has that
# group's boost as its own in the kernel (0 for root).
in_group() {
	local want t b
	if [ "$BACKEND" = schedtune ]; then
		grep -qx "$1" "$stune/$2/cgroup.procs"
		return
	fi
	[ "$(class_of "$1")" = "$2" ] || return 1
	if [ "$2" = root ]; then want=0; else want=$(effective "$2"); fi
	for t in /proc/"$1"/task/*; do
		b=$($lib/task-boost "${t##*/}" 2>/dev/null) || continue  # exited meanwhile
		[ "$b" = "$want" ] || return 1
	done
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

# kernel_boost GROUP PID: the boost the kernel has for GROUP: its
# schedtune.boost on schedtune; on schedtune2, where a class is no cgroup,
# the own boost of PID's main thread (a process boostd placed in GROUP).
kernel_boost() {
	if [ "$BACKEND" = schedtune ]; then
		cat "$stune/$1/schedtune.boost"
	else
		$lib/task-boost "$2"
	fi
}

# The tag of the duty program's samples: the kernel's boost of GROUP
# (DUTY_TAG_FILE, see duty.c), for a duty task placed in it.
duty_tag() {
	if [ "$BACKEND" = schedtune ]; then echo "$stune/$1/schedtune.boost"; else echo self; fi
}

# The groups boostd made (children of the schedtune mount); on schedtune2
# the classes boostctl status lists.
boost_groups() {
	if [ "$BACKEND" = schedtune ]; then
		find "$stune" -mindepth 1 -maxdepth 1 -type d -printf '%f\n'
	else
		boostctl status | awk '$2 == "base" && $1 != "root" { print $1 }'
	fi
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

# start_game WHEN: systest-game in the background, which the Comm= rule of
# 50-systest.conf puts in performance; sets $game and adds it to the
# caller's $pids (killed by its EXIT trap). WHEN ends the failure message.
start_game() {
	/usr/local/bin/systest-game 600 &
	game=$!
	pids+=("$game")
	wait_for $DEADLINE_MS in_group "$game" performance ||
		fail "systest-game ($game) not in performance $1"
}
