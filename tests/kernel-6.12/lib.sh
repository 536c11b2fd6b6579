# shellcheck shell=bash disable=SC2154
# SPDX-License-Identifier: GPL-2.0
# Shared by tests/kernel-6.12/run and bisect-check: tree, config, kernel,
# module, guest program, initramfs, QEMU boot and the verdict. Modelled on
# tests/kernel/lib.sh (the 6.1 series), which it does not share.
# Expects $here (tests/kernel-6.12) and $top (the project root) to be set.

# Debian's python3 (with python3-ply and python3-git for checkpatch's
# SPDX check) before any python3 of pyenv or a virtualenv.
export PATH="/usr/bin:/bin:$PATH"

tarball=${STUNE_LINUX_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
bld=$top/build
src=$bld/linux-6.12
obj=$bld/kbuild-6.12
out=$bld/kernel-test-6.12
series_dir=$top/kernel-patches-6.12
fragment=$here/config.fragment
jobs=$(nproc)
boot_timeout=600
# One build number (the "#1" of uname -v) instead of .version's count:
# tests/kernel-package/run packages with KBUILD_BUILD_VERSION=1 too, so
# that make bindeb-pkg relinks nothing and packs the kernel tested here.
arch_make=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- KBUILD_BUILD_VERSION=1)
if command -v ccache >/dev/null 2>&1; then
	# The 6.1 tests' shared cache (tests/kernel/lib.sh says why).
	export CCACHE_DIR=${BOOSTD_CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/boostd-ccache}
	export CCACHE_BASEDIR=$top
	export CCACHE_NOHASHDIR=true
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	arch_make+=("CC=ccache aarch64-linux-gnu-gcc")
fi
git_id=(-c user.name="SchedTune tests" -c user.email=schedtune-tests@localhost)

end_marker="STUNE-TESTS-END"

# Kernel log lines that fail a boot whatever the tests say.
splat_re='\bWARNING:|\bBUG:|\bBUG |\bOops|Kernel panic|Unable to handle kernel|'
splat_re+='possible recursive locking|possible circular locking|'
splat_re+='inconsistent lock state|suspicious RCU usage|INFO: |'
splat_re+='rcu_preempt detected stall|rcu_sched detected stall|'
splat_re+='detected stalls on CPUs|soft lockup|hard LOCKUP|'
splat_re+='Call trace:|circular locking dependency|'
splat_re+='sleeping function called from invalid context'

die() {
	echo "kernel tests 6.12: error: $*" >&2
	exit 1
}

note() {
	[ -n "${quiet:-}" ] || echo "== $*" >&2
}

now() {
	date +%s.%N
}

elapsed() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'
}

kmake() {
	nice -n 10 make -s -C "$src" O="$obj" "${arch_make[@]}" -j"$jobs" "$@"
}

# The patch files of the series, in order, without the cover letter.
series_patches() {
	local p
	[ -d "$series_dir" ] || return 0
	for p in "$series_dir"/*.patch; do
		[ -e "$p" ] || continue
		case "$(basename "$p")" in
		0000-cover-letter.patch) continue ;;
		esac
		echo "$p"
	done | LC_ALL=C sort
}

series_stamp() {
	local p
	{
		echo "tree $(stat -c '%s %Y' "$tarball")"
		series_patches | while read -r p; do
			echo "$(basename "$p") $(sha256sum < "$p")"
		done
	} | sha256sum | cut -d' ' -f1
}

# Extract the pristine tree once and record it as the base commit, tagged
# stune-base.
step_tree_base() {
	local tmp=$src.tmp ver
	if [ -d "$src/.git" ] && git -C "$src" rev-parse -q --verify \
			refs/tags/stune-base >/dev/null; then
		return 0
	fi
	note "extracting $tarball into $src"
	[ -r "$tarball" ] || die "$tarball missing (apt-get install linux-source-6.12)"
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
	rm -rf "$tmp" "$src"
	mkdir -p "$tmp"
	tar -xJf "$tarball" -C "$tmp" --strip-components=1
	git -C "$tmp" init -q
	git -C "$tmp" "${git_id[@]}" add -f .
	git -C "$tmp" "${git_id[@]}" commit -q -m "Debian linux-source-6.12 $ver"
	git -C "$tmp" tag stune-base
	mv "$tmp" "$src"
	rm -f "$bld/kernel-6.12-series.stamp"
}

# series_commits: the patch files as commits on stune-base, made as git am
# would make them (git mailinfo, then git apply) but in an index of their
# own, so that the work tree is not touched; prints the last commit.
series_commits() {
	local idx=$src/.git/stune-series.index tmp parent tree p
	local author email date subject
	tmp=$(mktemp -d)
	parent=$(git -C "$src" rev-parse stune-base)
	rm -f "$idx"
	GIT_INDEX_FILE=$idx git -C "$src" read-tree "$parent"
	while read -r p; do
		git -C "$src" mailinfo "$tmp/msg" "$tmp/patch" < "$p" > "$tmp/info"
		if ! GIT_INDEX_FILE=$idx git -C "$src" apply --cached "$tmp/patch"; then
			rm -rf "$tmp" "$idx"
			die "$(basename "$p") does not apply to linux-source-6.12"
		fi
		tree=$(GIT_INDEX_FILE=$idx git -C "$src" write-tree)
		author=$(sed -n 's/^Author: //p' "$tmp/info")
		email=$(sed -n 's/^Email: //p' "$tmp/info")
		date=$(sed -n 's/^Date: //p' "$tmp/info")
		subject=$(sed -n 's/^Subject: //p' "$tmp/info")
		parent=$( { printf '%s\n\n' "$subject"; cat "$tmp/msg"; } |
			GIT_AUTHOR_NAME=$author GIT_AUTHOR_EMAIL=$email \
			GIT_AUTHOR_DATE=$date git -C "$src" "${git_id[@]}" \
			commit-tree "$tree" -p "$parent")
	done < <(series_patches)
	rm -rf "$tmp" "$idx"
	echo "$parent"
}

# The series on branch stune-series, from stune-base: a branch of its own,
# so that other work in the tree is left alone. The commits are made
# without touching the work tree, and checking them out rewrites only the
# files that differ from what is checked out, so the object tree stays
# incremental (a reset to stune-base and git am would touch every file of
# the series, include/linux/sched.h among them: a full rebuild).
step_tree() {
	local stamp n head
	step_tree_base
	stamp=$(series_stamp)
	[ -n "$(series_patches)" ] || die "no patches in $series_dir"
	if [ "$(git -C "$src" rev-parse --abbrev-ref HEAD)" = stune-series ] &&
	   [ -f "$bld/kernel-6.12-series.stamp" ] &&
	   [ "$(cat "$bld/kernel-6.12-series.stamp")" = "$stamp" ] &&
	   [ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then
		note "series unchanged ($(series_patches | wc -l) patches applied)"
		return 0
	fi
	[ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ] ||
		die "$src has uncommitted changes; commit them or use --tree-as-is"
	note "applying the series from $series_dir on branch stune-series"
	rm -f "$bld/kernel-6.12-series.stamp"
	head=$(series_commits)
	git -C "$src" checkout -q -B stune-series "$head"
	n=$(git -C "$src" rev-list --count stune-base..stune-series)
	echo "$stamp" > "$bld/kernel-6.12-series.stamp"
	note "$n patches applied"
}

# Every option of the fragment must have its value in .config; "=n" means
# unset. A SchedTune option counts only once the tree has it.
check_config() {
	local line sym val bad=0
	while IFS= read -r line; do
		case "$line" in
		CONFIG_*=*) ;;
		*) continue ;;
		esac
		sym=${line%%=*}
		val=${line#*=}
		case "$sym" in
		CONFIG_SCHED_TUNE*)
			grep -qx "config ${sym#CONFIG_}" "$src/init/Kconfig" ||
				continue ;;
		esac
		if [ "$val" = n ]; then
			if grep -q "^$sym=" "$obj/.config"; then
				echo "config: $sym should be unset, is" \
				     "$(grep "^$sym=" "$obj/.config")" >&2
				bad=1
			fi
		elif ! grep -qxF "$line" "$obj/.config"; then
			echo "config: $line did not stick (.config has:" \
			     "$(grep -E "^(# )?${sym}[= ]" "$obj/.config" ||
				echo nothing))" >&2
			bad=1
		fi
	done < "$fragment"
	[ "$bad" -eq 0 ] || die "config fragment did not apply; see above"
}

# allnoconfig plus the fragment (plus the lines of $extra_config, if set):
# the test kernel's .config.
kconfig_from_fragment() {
	local frag=$fragment
	if [ -n "${extra_config:-}" ]; then
		frag=$obj/fragment.extra
		{ cat "$fragment"; printf '%s\n' "$extra_config"; } > "$frag"
	fi
	kmake allnoconfig >/dev/null 2>&1
	(cd "$src" && ARCH=arm64 scripts/kconfig/merge_config.sh -m \
		-O "$obj" "$obj/.config" "$frag") > "$obj/merge_config.log" 2>&1
	kmake olddefconfig >/dev/null 2>&1
}

step_config() {
	local stamp
	mkdir -p "$obj"
	stamp=$( { cat "$fragment"; grep -h "^config SCHED_TUNE" "$src/init/Kconfig"; } |
		sha256sum | cut -d' ' -f1)
	if [ -f "$obj/.config" ] && [ -f "$obj/.stune-config.stamp" ] &&
	   [ "$(cat "$obj/.stune-config.stamp")" = "$stamp" ]; then
		check_config
		return 0
	fi
	note "configuring $obj"
	rm -f "$obj/.stune-config.stamp"
	kconfig_from_fragment
	check_config
	echo "$stamp" > "$obj/.stune-config.stamp"
}

step_kernel() {
	local t0
	t0=$(now)
	note "building Image (make -j$jobs, log in $obj/build.log)"
	if ! kmake Image modules > "$obj/build.log" 2>&1; then
		tail -50 "$obj/build.log" >&2
		die "kernel build failed"
	fi
	if grep -E "warning:" "$obj/build.log" | grep -q "kernel/sched/"; then
		grep -E "warning:" "$obj/build.log" >&2
		die "kernel/sched builds with warnings"
	fi
	timings+=("kernel build $(elapsed "$t0") s")
}

step_module() {
	local kmod=$bld/kernel-test-module-6.12
	note "building the test cpufreq module"
	mkdir -p "$kmod"
	rm -f "$kmod"/*.ko
	# the driver is the 6.1 tests' own, which builds on both kernels
	cp -p "$here"/module/Kbuild "$top"/tests/kernel/module/stune_test_cpufreq.c "$kmod"/
	if ! kmake M="$kmod" modules > "$kmod/build.log" 2>&1; then
		cat "$kmod/build.log" >&2
		die "test module build failed"
	fi
	if grep -q "warning:" "$kmod/build.log"; then
		cat "$kmod/build.log" >&2
		die "test module builds with warnings"
	fi
}

# Static arm64 busybox from Debian, unpacked (never installed); shared with
# the 6.1 tests' download folder.
busybox_bin() {
	local dl=$bld/kernel-dl bb
	bb=$dl/root/bin/busybox
	if [ ! -x "$bb" ]; then
		note "downloading busybox-static:arm64"
		find "$dl" -mindepth 1 -delete 2>/dev/null || true
		mkdir -p "$dl"
		(cd "$dl" && apt-get download -q busybox-static:arm64 \
			> "$dl/download.log" 2>&1) ||
			die "apt-get download busybox-static:arm64 failed"
		dpkg-deb -x "$dl"/busybox-static_*_arm64.deb "$dl/root"
	fi
	echo "$bb"
}

step_progs() {
	local progs=$bld/kernel-test-progs-6.12
	note "building the guest test program"
	mkdir -p "$progs"
	aarch64-linux-gnu-gcc -static -O2 -Wall -Wextra -Werror -pthread \
		-o "$progs/stune-test" "$here"/guest/*.c ||
		die "guest test program does not build"
}

guest_test_names() {
	sed -n 's/^\t{ "\([a-z0-9_]*\)", test_[a-z0-9_]* },$/\1/p' \
		"$here"/guest/stune-test.c
}

# step_initramfs [TEST...]: gzip'd newc cpio with busybox, /init, the guest
# program and the module; TESTs limit what /init runs.
step_initramfs() {
	local root=$out/initramfs bb t
	bb=$(busybox_bin)
	[ -f "$bld/kernel-test-progs-6.12/stune-test" ] ||
		die "guest program not built (run without --skip-build)"
	[ -f "$obj/arch/arm64/boot/Image" ] ||
		die "kernel not built (run without --skip-build)"
	for t in "$@"; do
		guest_test_names | grep -qx "$t" ||
			die "no guest test named $t (--only list)"
	done
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,dev,proc,sys,tmp,etc,lib}
	cp "$bb" "$root/bin/busybox"
	ln -s busybox "$root/bin/sh"
	cp "$here/init" "$root/init"
	chmod 755 "$root/init"
	cp "$bld/kernel-test-progs-6.12/stune-test" "$root/bin/"
	cp "$bld/kernel-test-module-6.12/stune_test_cpufreq.ko" "$root/lib/"
	: > "$root/etc/stune-only"
	[ $# -eq 0 ] || printf '%s\n' "$@" > "$root/etc/stune-only"
	(cd "$root" && find . | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) | gzip -6 > "$out/initramfs.cpio.gz"
}

qemu_base=(qemu-system-aarch64 -M virt -cpu cortex-a57 -smp 4 -m 2G
	   -nic none -nographic -no-reboot)

# asym_dtb: CPUs 2 and 3 at half the capacity of CPUs 0 and 1.
# shellcheck source=tests/kernel/asym-dtb.sh
. "$top/tests/kernel/asym-dtb.sh"

# boot_guest NAME: run QEMU, "smp" (QEMU's own device tree) or "asym"
# (asym_dtb), log to $out/NAME.log.
boot_guest() {
	local name=$1 log=$out/$1.log extra=() t0
	local cmdline="console=ttyAMA0 panic=-1 log_buf_len=4M stune.boot=$name"
	qemu_rc=0
	if [ "$name" = asym ]; then
		extra=(-dtb "$(asym_dtb)")
		# sched_verbose: the kernel log says when EAS starts.
		cmdline+=" sched_verbose"
	fi
	t0=$(now)
	note "booting $name (timeout ${boot_timeout}s, log in $log)"
	timeout -k 10 "$boot_timeout" "${qemu_base[@]}" "${extra[@]}" \
		-kernel "$obj/arch/arm64/boot/Image" \
		-initrd "$out/initramfs.cpio.gz" \
		-append "$cmdline" \
		< /dev/null > "$log" 2>&1 || qemu_rc=$?
	timings+=("boot $name $(elapsed "$t0") s")
}

# judge NAME: verdict from the serial log only, never from QEMU's exit
# status.
judge() {
	local name=$1 log=$out/$1.log clean=$out/$1.clean res t r
	local pass=0 fail=0 line
	tr -d '\r' < "$log" > "$clean"

	if grep -q '^STUNE-RESULTS-END' "$clean"; then
		res=$(sed -n '/^STUNE-RESULTS-BEGIN/,/^STUNE-RESULTS-END/p' \
			"$clean" | grep -E '^TEST [A-Za-z0-9_]+: ')
	else
		res=$(grep -oE 'TEST [A-Za-z0-9_]+: (PASS|FAIL).*' "$clean" || true)
	fi
	for t in $(sed -n 's/^STUNE-PLAN //p' "$clean" | head -1); do
		if ! grep -qE "^TEST $t: " <<< "$res"; then
			res+=$'\n'"TEST $t: FAIL no result (guest died or hung?)"
		fi
	done
	if ! grep -q '^STUNE-PLAN' "$clean"; then
		res+=$'\n'"TEST init: FAIL /init never started its tests"
	fi

	# KUnit: no failure anywhere, and the sched_tune suite passed.
	if grep -qE '(^|[] ])not ok [0-9]+' "$clean"; then
		res+=$'\n'"TEST kunit: FAIL $(grep -m1 -oE 'not ok [0-9]+.*' "$clean")"
	elif grep -qx "config SCHED_TUNE_KUNIT_TEST" "$src/init/Kconfig"; then
		if grep -qE '(^|[] ])ok [0-9]+ sched_tune$' "$clean"; then
			res+=$'\n'"TEST kunit: PASS"
		else
			res+=$'\n'"TEST kunit: FAIL no 'ok N sched_tune' suite result"
		fi
	fi

	if grep -qE "$splat_re" "$clean"; then
		res+=$'\n'"TEST kernel_log: FAIL $(grep -m1 -E "$splat_re" "$clean" |
			sed 's/^\[[ 0-9.]*\] //')"
	else
		res+=$'\n'"TEST kernel_log: PASS"
	fi
	if grep -q "^$end_marker" "$clean"; then
		res+=$'\n'"TEST end_marker: PASS"
	else
		if [ "${qemu_rc:-0}" -eq 124 ] || [ "${qemu_rc:-0}" -eq 137 ]; then
			r="QEMU killed after ${boot_timeout}s"
		else
			r="QEMU exited with status ${qemu_rc:-?}"
		fi
		res+=$'\n'"TEST end_marker: FAIL guest never printed $end_marker ($r)"
	fi

	while IFS= read -r line; do
		[ -n "$line" ] || continue
		t=${line#TEST }
		t=${t%%: *}
		r=${line#*: }
		if [ "$r" = PASS ]; then
			printf '  PASS  %s/%s\n' "$name" "$t"
			pass=$((pass + 1))
		else
			printf '  FAIL  %s/%s: %s\n' "$name" "$t" "${r#FAIL }"
			fail=$((fail + 1))
		fi
	done <<< "$res"
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
	[ "$fail" -eq 0 ]
}
