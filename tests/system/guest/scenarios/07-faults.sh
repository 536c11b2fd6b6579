#!/bin/bash
# Faults: kill -9 of boostd (systemd restarts it; groups, PIDs and the
# values set through the API are as before), an invalid config on reload
# (rejected, the old one stays in force), a flood of bad calls and holds
# from one client (the daemon stays responsive, its memory bounded), a
# class renamed 20 times (each reload removes the old name's group, so the
# kernel's 16-group limit is never reached), and systemctl stop (no PID
# left in a boost group, and the groups boostd made removed; on schedtune2,
# where classes are no cgroups, the placed processes' own boosts at 0).
. /usr/lib/boostd-systest/lib.sh
need_boostd

pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -f /etc/boostd.conf.d/90-bad.conf /etc/boostd.conf.d/91-renamed.conf' EXIT

boostctl set background 20 || fail "boostctl set background 20 failed"
sleep 600 &
p=$!
pids+=("$p")
boostctl classify "$p" background || fail "boostctl classify $p background failed"
sleep 600 &
q=$!
pids+=("$q")
boostctl classify "$q" performance || fail "boostctl classify $q performance failed"

# kill -9
old=$(boostd_main_pid)
restarts=$(systemctl show -p NRestarts --value boostd)
kill -9 "$old"
wait_for $DEADLINE_MS bash -c "[ \"\$(systemctl show -p NRestarts --value boostd)\" -gt $restarts ] &&
	[ \"\$(systemctl show -p ActiveState --value boostd)\" = active ]" ||
	fail "systemd did not restart boostd after kill -9"
new=$(boostd_main_pid)
[ "$new" != "$old" ] || fail "boostd still has PID $old"
[ "$(base background)" = 20 ] || fail "after the restart background's base is $(base background), not 20"
[ "$(kernel_boost background "$p")" = 20 ] ||
	fail "background is at $(kernel_boost background "$p") in the kernel after the restart, not 20"
in_group "$p" background || fail "PID $p left background across the restart"
[ "$(kernel_boost performance "$q")" = 50 ] || fail "performance not 50 after the restart"
say "kill -9 $old: restarted as $new with background 20 and PID $p in place"

# An invalid config on reload.
printf '[Class:performance]\nBoostAC=101\n' > /etc/boostd.conf.d/90-bad.conf
if systemctl reload boostd 2> /run/reload-err.txt; then
	fail "systemctl reload boostd accepted an invalid config"
fi
[ "$(systemctl show -p ActiveState --value boostd)" = active ] || fail "boostd is not active after a bad reload"
[ "$(boostd_main_pid)" = "$new" ] || fail "boostd restarted on a bad reload"
journalctl -u boostd -b --no-pager | grep -q '90-bad.conf:2' ||
	fail "the journal does not name 90-bad.conf:2"
# boostd logs natively: its own fields, not a parsed stderr line
journalctl -u boostd -b -o export --no-pager | grep -q '^CODE_FILE=.*daemon/' ||
	fail "boostd's journal entries carry no CODE_FILE= (not logged with sd_journal_send)"
if boostctl reload 2> /run/err.txt; then
	fail "Reload() accepted an invalid config"
fi
grep -q '90-bad.conf:2' /run/err.txt || fail "Reload() error does not name the line: $(cat /run/err.txt)"
[ "$(base performance)" = 50 ] || fail "a rejected config changed performance to $(base performance)"
say "bad config rejected: $(cat /run/err.txt); systemctl reload failed: $(head -1 /run/reload-err.txt)"
rm -f /etc/boostd.conf.d/90-bad.conf
boostctl reload || fail "reload of the good config failed"

# A flood from one client.
rss() {
	awk '/^VmRSS:/ { print $2 }' "/proc/$(boostd_main_pid)/status"
}
r0=$(rss)
$lib/flood 2000 200 > /run/flood.txt || fail "flood: $(cat /run/flood.txt)"
$lib/flood 2000 200 >> /run/flood.txt || fail "flood (2nd): $(cat /run/flood.txt)"
r1=$(rss)
timeout 5 boostctl get performance > /dev/null || fail "boostd does not answer after the flood"
say "flood: $(tr '\n' ' ' < /run/flood.txt); VmRSS $r0 -> $r1 KiB"
[ $(( r1 - r0 )) -lt 2048 ] || fail "VmRSS grew from $r0 to $r1 KiB under the flood"
[ "$(property Holds)" = "a(suuts) 0" ] || fail "holds left after the flood: $(property Holds)"

# A class renamed 20 times.
for i in $(seq 1 20); do
	printf '[Class:renamed%d]\nBoost=5\n' "$i" > /etc/boostd.conf.d/91-renamed.conf
	boostctl reload 2> /run/err.txt || fail "reload $i of a renamed class failed: $(cat /run/err.txt)"
done
has_group() {
	boost_groups | grep -qx "$1"
}
has_group renamed20 || fail "group renamed20 was not made"
! has_group renamed19 || fail "group renamed19 was left after its class went"
if [ "$BACKEND" = schedtune ]; then
	[ -d "$stune/renamed20" ] || fail "no $stune/renamed20"
	[ ! -d "$stune/renamed19" ] || fail "$stune/renamed19 was left after its class went"
fi
rm -f /etc/boostd.conf.d/91-renamed.conf
boostctl reload || fail "reload without the renamed class failed"
! has_group renamed20 || fail "group renamed20 was left after its class went"
[ ! -d "$stune/renamed20" ] || fail "$stune/renamed20 was left after its class went"
say "a class renamed 20 times: every reload passed, groups now: $(boost_groups | tr '\n' ' ')"

# systemctl stop: no PID in a group; the groups boostd made are removed
# (what is left, at boost 0).
groups=$(boost_groups)
systemctl stop boostd || fail "systemctl stop boostd failed"
if [ "$BACKEND" = schedtune2 ]; then
	for x in "$p" "$q"; do
		[ "$($lib/task-boost "$x")" = 0 ] || fail "PID $x kept its own boost $($lib/task-boost "$x") after stop"
	done
	say "stopped: the placed processes' own boosts at 0 (classes: $(echo $groups))"
	systemctl start boostd || fail "systemctl start boostd failed"
	boostctl set background 0 || fail "boostctl set background 0 failed"
	exit 0
fi
for g in $(boost_groups); do
	v=$(cat "$stune/$g/schedtune.boost")
	[ "$v" = 0 ] || fail "group $g left at boost $v after stop"
	[ -z "$(cat "$stune/$g/cgroup.procs")" ] ||
		fail "PIDs left in $g after stop: $(cat "$stune/$g/cgroup.procs" | tr '\n' ' ')"
done
left=$(boost_groups | tr '\n' ' ')
[ -z "$left" ] || fail "groups boostd made were left after stop: $left"
say "stopped: no PID in a group, every group boostd made removed"

# Back to a clean daemon for what follows.
systemctl start boostd || fail "systemctl start boostd failed"
boostctl set background 0 || fail "boostctl set background 0 failed"
