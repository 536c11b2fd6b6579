#!/bin/bash
# Units and scopes a rule maps to performance have all their PIDs,
# children included, in that group (the time it took is reported): a system service
# started with systemd-run, a service that existed before boostd started,
# and an app scope of alice's (lingering) user manager. A unit no rule
# names stays in root. On schedtune2 (the 6.12 series) a system unit's own
# cgroup gets the class's boost in place (cpu.boost), system.slice enough
# for it, a restarted unit's new cgroup gets it again, and stopping boostd
# gives both back.
. /usr/lib/boostd-systest/lib.sh
need_boostd

sys=/sys/fs/cgroup/system.slice
cleanup() {
	systemctl stop systest-perf-a.service systest-perf-early.service \
		systest-other.service systest-perf-r.service 2>/dev/null
	rm -f /run/systemd/system/systest-perf-r.service
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

[ "$BACKEND" = schedtune2 ] || exit 0

# cpu_boost_is CGROUP_DIR VALUE
cpu_boost_is() {
	[ "$(cat "$1/cpu.boost" 2>/dev/null)" = "$2" ]
}
# what system.slice had before boostd raised it (the journal's line)
slice_found=$(awk '$NF == "/system.slice" { print $3 }' /run/boostd/journal 2>/dev/null)
wait_for $DEADLINE_MS cpu_boost_is "$sys/systest-perf-a.service" 50 ||
	fail "systest-perf-a.service's cpu.boost is $(cat "$sys/systest-perf-a.service/cpu.boost" 2>&1), want 50 (in place)"
[ "$(cat "$sys/cpu.boost")" -ge 50 ] || fail "system.slice's cpu.boost is $(cat "$sys/cpu.boost"), below its unit's 50"
[ -n "$slice_found" ] || fail "the journal has no line for system.slice: $(cat /run/boostd/journal)"
[ ! -e "$sys/systest-other.service/cpu.boost" ] || cpu_boost_is "$sys/systest-other.service" 0 ||
	fail "systest-other.service's cpu.boost is $(cat "$sys/systest-other.service/cpu.boost" 2>&1), want 0"
say "in place: systest-perf-a.service cpu.boost 50, system.slice $(cat "$sys/cpu.boost") (found $slice_found)," \
	"CPUWeight $(systemctl show -p CPUWeight --value systest-perf-a.service)"

# A unit whose cgroup systemd re-creates (restart): the new one gets it.
cat > /run/systemd/system/systest-perf-r.service << 'EOF'
[Service]
ExecStart=/bin/sleep 600
EOF
systemctl daemon-reload
systemctl start systest-perf-r.service || fail "systemctl start systest-perf-r.service failed"
wait_for $DEADLINE_MS cpu_boost_is "$sys/systest-perf-r.service" 50 ||
	fail "systest-perf-r.service's cpu.boost is $(cat "$sys/systest-perf-r.service/cpu.boost" 2>&1), want 50"
ino=$(stat -c %i "$sys/systest-perf-r.service")
systemctl restart systest-perf-r.service || fail "systemctl restart systest-perf-r.service failed"
t0=$(now_ms)
wait_for $DEADLINE_MS bash -c "[ \$(stat -c %i $sys/systest-perf-r.service) != $ino ] &&
	[ \"\$(cat $sys/systest-perf-r.service/cpu.boost)\" = 50 ]" ||
	fail "the restarted systest-perf-r.service has cpu.boost $(cat "$sys/systest-perf-r.service/cpu.boost" 2>&1) (inode $(stat -c %i "$sys/systest-perf-r.service"), was $ino)"
say "restarted unit: a new cgroup (inode $ino -> $(stat -c %i "$sys/systest-perf-r.service")) at cpu.boost 50 after $(( $(now_ms) - t0 )) ms"
grep -q " performance /system.slice/systest-perf-r.service$" /run/boostd/journal ||
	fail "the journal has no line for systest-perf-r.service: $(cat /run/boostd/journal)"

# Stop: both units and the slice get back what boostd found.
systemctl stop boostd || fail "systemctl stop boostd failed"
cpu_boost_is "$sys/systest-perf-a.service" 0 ||
	fail "after stop systest-perf-a.service's cpu.boost is $(cat "$sys/systest-perf-a.service/cpu.boost")"
cpu_boost_is "$sys/systest-perf-r.service" 0 ||
	fail "after stop systest-perf-r.service's cpu.boost is $(cat "$sys/systest-perf-r.service/cpu.boost")"
cpu_boost_is "$sys" "$slice_found" || fail "after stop system.slice's cpu.boost is $(cat "$sys/cpu.boost"), found $slice_found"
say "stop: the units at 0, system.slice back at $slice_found"
systemctl start boostd || fail "systemctl start boostd failed"
