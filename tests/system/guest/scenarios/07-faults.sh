#!/bin/bash
# Faults: kill -9 of boostd (systemd restarts it; groups, PIDs and the
# values set through the API are as before), an invalid config on reload
# (rejected, the old one stays in force), a flood of bad calls and holds
# from one client (the daemon stays responsive, its memory bounded), and
# systemctl stop (boosts back to 0, no PID left in a boost group).
. /usr/lib/boostd-systest/lib.sh
need_boostd

pids=()
trap 'kill "${pids[@]}" 2>/dev/null; rm -f /etc/boostd.conf.d/90-bad.conf' EXIT

boostctl set background 20 || fail "boostctl set background 20 failed"
sleep 600 &
p=$!
pids+=("$p")
boostctl classify "$p" background || fail "boostctl classify $p background failed"

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
[ "$(cat $stune/background/schedtune.boost)" = 20 ] || fail "background schedtune.boost not 20 after the restart"
in_group "$p" background || fail "PID $p left background across the restart"
[ "$(cat $stune/performance/schedtune.boost)" = 50 ] || fail "performance not 50 after the restart"
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

# systemctl stop: boosts back to 0 (RestoreOnStop=zero), no PID in a group.
systemctl stop boostd || fail "systemctl stop boostd failed"
for g in $(boost_groups); do
	v=$(cat "$stune/$g/schedtune.boost")
	[ "$v" = 0 ] || fail "group $g left at boost $v after stop"
	[ -z "$(cat "$stune/$g/cgroup.procs")" ] ||
		fail "PIDs left in $g after stop: $(cat "$stune/$g/cgroup.procs" | tr '\n' ' ')"
done
say "stopped: every group at 0 and empty"

# Back to a clean daemon for what follows.
systemctl start boostd || fail "systemctl start boostd failed"
boostctl set background 0 || fail "boostctl set background 0 failed"
