#!/bin/bash
# Removing it all: dpkg --purge boostd stops boostd, which gives back what
# it changed (a placed process leaves its class: back in the root group on
# schedtune, its own boost 0 on schedtune2), and leaves none of the
# package's files, no /etc/boostd.conf, no /run/boostd, no unit and no
# enablement link behind. The last scenario: nothing runs boostd after it.
. /usr/lib/boostd-systest/lib.sh
need_boostd

pids=()
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
start_game "before the purge"
[ -d /run/boostd ] || fail "no /run/boostd while boostd runs: the purge check would prove nothing"

files=$(dpkg -L boostd | while read -r f; do [ -f "$f" ] && echo "$f"; done)
[ "$(echo "$files" | grep -c .)" -gt 10 ] || fail "dpkg -L boostd lists too few files: $files"

DEBIAN_FRONTEND=noninteractive dpkg --purge boostd > /run/dpkg.log 2>&1 < /dev/null ||
	{ cat /run/dpkg.log; fail "dpkg --purge boostd failed"; }
! dpkg-query -W -f='${Status}\n' boostd 2>/dev/null | grep -q installed ||
	fail "dpkg still has boostd: $(dpkg-query -W -f='${Status}' boostd)"
! systemctl is-active -q boostd || fail "boostd still runs after the purge"
[ -z "$(systemctl list-unit-files --no-legend boostd.service 2>/dev/null)" ] ||
	fail "boostd.service is still a unit file"
left=""
for f in $files /etc/boostd.conf /run/boostd \
	/etc/systemd/system/multi-user.target.wants/boostd.service \
	/etc/systemd/user/default.target.wants/boostd-session.service; do
	if [ -e "$f" ] || [ -L "$f" ]; then
		left="$left $f"
	fi
done
[ -z "$left" ] || fail "left after the purge:$left"

if [ "$BACKEND" = schedtune ]; then
	grep -qx "$game" "$stune/cgroup.procs" ||
		fail "systest-game ($game) not back in the root group after the purge"
else
	b=$($lib/task-boost "$game") || fail "cannot read the own boost of $game"
	[ "$b" = 0 ] || fail "systest-game ($game) keeps its own boost $b after the purge"
fi
say "purged: $(echo "$files" | grep -c .) files, the conffile, /run/boostd and the unit's links gone; the game given back"
