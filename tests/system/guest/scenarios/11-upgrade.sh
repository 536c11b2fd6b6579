#!/bin/bash
# An upgrade the Debian way, on the running system: boostd's package of
# the commit before this one (VERSION~prev, built by build-guest from git
# archive HEAD~1), then this commit's over it, each with dpkg -i. Each
# install restarts boostd (a new main PID, active again, still enabled),
# keeps the admin's edit of /etc/boostd.conf (a conffile; --force-confold
# answers dpkg's question, if the shipped file changed, as an admin who
# keeps their own would), and a process that a rule places is in its
# class again after the restart. This commit's version is left installed.
. /usr/lib/boostd-systest/lib.sh
need_boostd

cur=$lib/debs/boostd.deb
prev=$lib/debs/boostd-prev.deb
[ -f "$cur" ] && [ -f "$prev" ] || fail "no packages in $lib/debs"
v_cur=$(dpkg-deb -f "$cur" Version)
v_prev=$(dpkg-deb -f "$prev" Version)
dpkg --compare-versions "$v_prev" lt "$v_cur" || fail "$v_prev is not older than $v_cur"
installed() {
	dpkg-query -W -f='${Version}' boostd 2>/dev/null
}
[ "$(installed)" = "$v_cur" ] || fail "boostd $(installed) installed, not $v_cur"

pids=()
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
start_game "before the upgrade"

mark="# the admin's line, kept across upgrades"
echo "$mark" >> /etc/boostd.conf
sum=$(sha256sum < /etc/boostd.conf)

# install_deb DEB VERSION
install_deb() {
	local old new
	old=$(boostd_main_pid)
	DEBIAN_FRONTEND=noninteractive dpkg --force-confold -i "$1" \
		> /run/dpkg.log 2>&1 < /dev/null || { cat /run/dpkg.log; fail "dpkg -i $1 failed"; }
	[ "$(installed)" = "$2" ] || fail "after dpkg -i $1: boostd $(installed), not $2"
	wait_for $DEADLINE_MS systemctl is-active -q boostd ||
		fail "boostd is not active after installing $2"
	new=$(boostd_main_pid)
	[ "$new" != 0 ] && [ "$new" != "$old" ] ||
		fail "installing $2 did not restart boostd (main PID $old, then $new)"
	[ "$(systemctl is-enabled boostd)" = enabled ] ||
		fail "boostd.service is $(systemctl is-enabled boostd) after installing $2"
	[ "$(sha256sum < /etc/boostd.conf)" = "$sum" ] ||
		fail "installing $2 changed the admin's /etc/boostd.conf"
	boostctl status > /dev/null || fail "boostctl status fails after installing $2"
	wait_for $DEADLINE_MS in_group "$game" performance ||
		fail "systest-game ($game) not in performance again after installing $2"
	say "installed $2: boostd restarted (main PID $old, then $new); the conffile edit and the game's class kept"
}

install_deb "$prev" "$v_prev"
install_deb "$cur" "$v_cur"
grep -vxF "$mark" /etc/boostd.conf > /run/boostd.conf.new
cat /run/boostd.conf.new > /etc/boostd.conf
