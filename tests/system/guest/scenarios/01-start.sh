#!/bin/bash
# The kernel is the one its package installed: the file QEMU booted (its
# sha256 on the command line) is /boot/vmlinuz-$(uname -r) of package
# linux-image-$(uname -r), unmodified, whose banner is the running
# kernel's, and the test cpufreq driver comes from its package too. boostd, installed from its package (dpkg -i,
# whose scripts enable the unit), started at boot; systemctl start boostd
# succeeds, the unit is active after READY=1, and boostctl status shows the kernel's backend
# (schedtune on the 6.1 series, schedtune2 on the 6.12 one, which runs
# on cgroup v2 alone) and every group.
. /usr/lib/boostd-systest/lib.sh

rel=$(uname -r)
want=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^boostd\.systest\.kernel=//p')
[ -n "$want" ] || fail "no boostd.systest.kernel= on the kernel command line"
owner=$(dpkg-query -S "/boot/vmlinuz-$rel" 2>&1) ||
	fail "/boot/vmlinuz-$rel belongs to no package: $owner"
[ "$owner" = "linux-image-$rel: /boot/vmlinuz-$rel" ] ||
	fail "/boot/vmlinuz-$rel belongs to $owner"
[ "$(sha256sum < "/boot/vmlinuz-$rel" | cut -c1-64)" = "$want" ] ||
	fail "the host booted another file than /boot/vmlinuz-$rel of the image"
# The running kernel's banner (with its build time) is the one in that file.
zcat -f "/boot/vmlinuz-$rel" | grep -a -q -F "$(cat /proc/version)" ||
	fail "the running kernel ($(cat /proc/version)) is not /boot/vmlinuz-$rel"
# Every file as the package has it, but depmod's indexes (modules.dep
# and the like, which make bindeb-pkg packs and the driver package's
# depmod writes again).
dpkg --verify "linux-image-$rel" > /run/verify.txt 2>&1
grep -v " /lib/modules/$rel/modules\.[a-z.]*\$" /run/verify.txt > /run/verify-bad.txt &&
	fail "dpkg --verify linux-image-$rel: $(head -3 /run/verify-bad.txt)"
mod=$(modinfo -n stune_test_cpufreq) || fail "no stune_test_cpufreq module for $rel"
dpkg-query -S "$mod" > /dev/null 2>&1 || fail "$mod belongs to no package"
grep -q '^stune_test_cpufreq ' /proc/modules || fail "stune_test_cpufreq is not loaded"
say "kernel $rel from package linux-image-$rel ($(dpkg-query -W -f='${Version}' "linux-image-$rel")), booted from its /boot"

dpkg-query -W -f='${Status}\n' boostd | grep -qx 'install ok installed' ||
	fail "boostd is not installed as a package: $(dpkg-query -W -f='${Status}' boostd 2>&1)"
[ "$(systemctl is-enabled boostd)" = enabled ] ||
	fail "boostd.service is $(systemctl is-enabled boostd), not enabled by its package"
systemctl is-active -q boostd || fail "boostd did not start at boot"
systemctl start boostd || fail "systemctl start boostd failed"
systemctl status boostd --no-pager > /run/status.txt 2>&1
cat /run/status.txt
# Type=notify: the unit is active (running) only once boostd sent READY=1.
grep -q 'Active: active (running)' /run/status.txt || fail "boostd is not active (running)"
grep -q "Status: \"Running with backend $BACKEND\"" /run/status.txt ||
	fail "no READY status line from boostd in systemctl status"
[ "$(systemctl show -p NRestarts --value boostd)" = 0 ] || fail "boostd restarted while starting"

boostctl status > /run/boostctl-status.txt || fail "boostctl status failed"
cat /run/boostctl-status.txt
grep -Eq "^Backend +$BACKEND\$" /run/boostctl-status.txt || fail "boostctl status: backend is not $BACKEND"
for g in root background interactive performance; do
	grep -Eq "^  $g +base +[0-9]+ +effective +[0-9]+" /run/boostctl-status.txt ||
		fail "boostctl status does not list group $g"
done
if [ "$BACKEND" = schedtune ]; then
	for g in background interactive performance; do
		[ -f "$stune/$g/schedtune.boost" ] || fail "no $stune/$g/schedtune.boost"
	done
else
	# cgroup v2 only: no v1 hierarchy mounted, by systemd or by boostd
	! grep -Ev '^cgroup2 ' /proc/mounts | grep -q ' cgroup ' ||
		fail "a cgroup v1 hierarchy is mounted: $(grep ' cgroup ' /proc/mounts | tr '\n' ' ')"
	grep -Eq '^ +why +.*per-task boosts \(the 6.12 SchedTune series, cgroup v2\)' /run/boostctl-status.txt ||
		fail "boostctl status does not say why schedtune2"
fi
# Where a boost reaches the CPU, as boostctl status says and sysfs has
# it: the test driver under schedutil on every policy; placement as the
# capacities are.
npol=$(ls -d /sys/devices/system/cpu/cpufreq/policy* | wc -l)
[ "$npol" -gt 0 ] || fail "no cpufreq policy in the guest"
[ "$(grep -Ec '^  policy[0-9]+ \(CPUs [0-9 ]+\): yes: schedutil on stune-test' /run/boostctl-status.txt)" = "$npol" ] ||
	fail "boostctl status does not say schedutil reaches each of the $npol policies"
caps=$(cat /sys/devices/system/cpu/cpu*/cpu_capacity 2> /dev/null | sort -u | wc -l)
if [ "$caps" -gt 1 ]; then want=yes; else want=no; fi
grep -Eq "^Placement: +$want: " /run/boostctl-status.txt ||
	fail "boostctl status: placement is not '$want' with $caps distinct capacities"
say "reach: $npol policies under schedutil, placement $want"
# The shipped config on AC: performance 50.
if [ "$BACKEND" = schedtune ]; then
	[ "$(cat $stune/performance/schedtune.boost)" = 50 ] ||
		fail "performance schedtune.boost is $(cat $stune/performance/schedtune.boost), want 50"
else
	[ "$(effective performance)" = 50 ] || fail "performance is at $(effective performance), want 50"
fi
say "boostd active, backend $BACKEND, groups: $(boost_groups | tr '\n' ' ')"

# The unit's sandbox, as the guest's own systemd rates it, and what the
# daemon runs with: no CAP_SYS_ADMIN (the mount is ExecStartPre='s).
score=$(systemd-analyze security boostd.service --no-pager 2>/dev/null |
	sed -n 's/.*Overall exposure level for boostd.service: \([0-9.]*\).*/\1/p')
[ -n "$score" ] || fail "systemd-analyze security printed no exposure level"
awk -v s="$score" 'BEGIN { exit !(s <= 2.5) }' || fail "exposure level $score, above 2.5"
capeff=$(awk '/^CapEff:/ { print $2 }' "/proc/$(boostd_main_pid)/status")
[ $(( 0x$capeff & (1 << 21) )) = 0 ] || fail "boostd runs with CAP_SYS_ADMIN (CapEff $capeff)"
say "exposure level $score; CapEff $capeff (no CAP_SYS_ADMIN)"
