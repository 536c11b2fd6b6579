#!/bin/bash
# Units and scopes a rule maps to performance have all their PIDs,
# children included, in that group (the time it took is reported): a system service
# started with systemd-run, a service that existed before boostd started,
# and an app scope of alice's (lingering) user manager. A unit no rule
# names stays in root.
. /usr/lib/boostd-systest/lib.sh
need_boostd

sys=/sys/fs/cgroup/system.slice
cleanup() {
	systemctl stop systest-perf-a.service systest-perf-early.service \
		systest-other.service 2>/dev/null
	runuser -u alice -- env XDG_RUNTIME_DIR=/run/user/1000 \
		systemctl --user stop app-systest-perf-game.scope 2>/dev/null
}
trap cleanup EXIT

# placed T0 CGROUP WHAT: all PIDs of CGROUP come to performance; says how
# long after T0 (when the unit had started).
placed() {
	local t0=$1 cg=$2 what=$3
	wait_for $DEADLINE_MS all_in_group "$cg" performance ||
		fail "$what: not all of $(cat "$cg"/cgroup.procs | tr '\n' ' ') in performance after $((DEADLINE_MS / 1000)) s"
	say "$what: all PIDs in performance after $(( $(now_ms) - t0 )) ms"
}

# A service forking children at once and a grandchild later.
systemd-run --quiet --unit=systest-perf-a.service /bin/bash -c \
	'sleep 600 & sleep 600 & (sleep 0.5; exec sleep 600) & wait' ||
	fail "systemd-run systest-perf-a.service failed"
t0=$(now_ms)
placed "$t0" "$sys/systest-perf-a.service" "systest-perf-a.service"
wait_for $DEADLINE_MS bash -c "[ \$(wc -l < $sys/systest-perf-a.service/cgroup.procs) -ge 4 ]" ||
	fail "systest-perf-a.service never had its 4 processes"
all_in_group "$sys/systest-perf-a.service" performance ||
	fail "a child forked later is not in performance"

# A unit no rule names: DefaultClass (root).
systemd-run --quiet --unit=systest-other.service sleep 600 || fail "systemd-run systest-other failed"
sleep 1
other=$(cat $sys/systest-other.service/cgroup.procs)
for g in $(boost_groups); do
	! in_group "$other" "$g" || fail "systest-other.service ($other) was moved to $g"
done

# A matching service that exists before boostd starts.
systemctl stop boostd || fail "systemctl stop boostd failed"
systemd-run --quiet --unit=systest-perf-early.service sleep 600 || fail "systemd-run early failed"
systemctl start boostd || fail "systemctl start boostd failed"
t0=$(now_ms)
placed "$t0" "$sys/systest-perf-early.service" "systest-perf-early.service (before boostd)"

# An app scope of a user manager (alice lingers, so user@1000 runs).
wait_for $((DEADLINE_MS * 2)) bash -c '[ "$(systemctl show -p ActiveState --value user@1000.service)" = active ]' ||
	fail "user@1000.service is not active (lingering)"
runuser -u alice -- env XDG_RUNTIME_DIR=/run/user/1000 \
	systemd-run --user --quiet --scope --unit=app-systest-perf-game.scope \
	sleep 600 &
scope=/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/app-systest-perf-game.scope
wait_for $DEADLINE_MS has_pids "$scope" || fail "alice's scope never appeared at $scope"
t0=$(now_ms)
placed "$t0" "$scope" "alice's app-systest-perf-game.scope"
runuser -u alice -- env XDG_RUNTIME_DIR=/run/user/1000 \
	systemctl --user is-active --quiet app-systest-perf-game.scope ||
	fail "systemctl --user does not show app-systest-perf-game.scope active"
