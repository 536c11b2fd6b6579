# shellcheck shell=bash disable=SC2154
# SPDX-License-Identifier: GPL-2.0
# Shared by tests/kernel/run and tests/kernel/bisect-check: tree, config,
# kernel, module, guest programs, initramfs, QEMU boot and the verdict.
# Expects $here (tests/kernel) and $top (the project root) to be set.

# Debian's python3 (with python3-ply and python3-git for checkpatch's
# SPDX check) before any python3 of pyenv or a virtualenv.
export PATH="/usr/bin:/bin:$PATH"

tarball=${STUNE_LINUX_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
bld=$top/build
src=$bld/linux
obj=$bld/kbuild-arm64
out=$bld/kernel-test
series_dir=$top/kernel-patches
fragment=$here/config.fragment
jobs=$(nproc)
boot_timeout=1200
# One build number (the "#1" of uname -v) instead of .version's count:
# tests/kernel-package/run packages with KBUILD_BUILD_VERSION=1 too, so
# that make bindeb-pkg relinks nothing and packs the kernel tested here.
arch_make=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- KBUILD_BUILD_VERSION=1)
if command -v ccache >/dev/null 2>&1; then
	# One cache for every clone on the machine, outside the clone; with
	# the project root as CCACHE_BASEDIR the paths in a compile command
	# are relative (../linux/kernel/sched/core.c from the object folder),
	# so a clean clone in another folder hits what an earlier one built.
	# The test configurations have no debug info, whose directory would
	# otherwise be hashed (CCACHE_NOHASHDIR).
	export CCACHE_DIR=${BOOSTD_CCACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/boostd-ccache}
	export CCACHE_BASEDIR=$top
	export CCACHE_NOHASHDIR=true
	export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
	arch_make+=("CC=ccache aarch64-linux-gnu-gcc")
fi
git_id=(-c user.name="SchedTune tests" -c user.email=schedtune-tests@localhost)

# The end marker the guest /init prints once every test has run.
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
	echo "kernel tests: error: $*" >&2
	exit 1
}

note() {
	[ -n "${quiet:-}" ] || echo "== $*" >&2
}

now() {
	date +%s.%N
}

# elapsed START -> seconds with one decimal since START
elapsed() {
	awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'
}

kmake() {
	make -s -C "$src" O="$obj" "${arch_make[@]}" -j"$jobs" "$@"
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

# Extract the pristine tree once and record it as the base commit.
step_tree_base() {
	local tmp=$src.tmp
	if [ -d "$src/.git" ] && git -C "$src" rev-parse -q --verify \
			refs/tags/stune-base >/dev/null; then
		return 0
	fi
	note "extracting $tarball into $src"
	[ -r "$tarball" ] || die "$tarball missing (run tests/setup-host)"
	rm -rf "$tmp" "$src"
	mkdir -p "$tmp"
	tar -xJf "$tarball" -C "$tmp" --strip-components=1
	git -C "$tmp" init -q
	git -C "$tmp" "${git_id[@]}" add -f .
	git -C "$tmp" "${git_id[@]}" commit -q -m "Debian linux-source-6.1"
	git -C "$tmp" tag stune-base
	git -C "$tmp" config user.name "SchedTune tests"
	git -C "$tmp" config user.email schedtune-tests@localhost
	mv "$tmp" "$src"
	rm -f "$bld/kernel-series.stamp"
}

# Reset the tree to the base commit; only the files that differ are
# rewritten, so the object tree stays incremental.
tree_reset_base() {
	git -C "$src" am --abort >/dev/null 2>&1 || true
	git -C "$src" reset -q --hard stune-base
	git -C "$src" clean -q -fd
}

# apply_patch FILE: git am one patch, undoing a failed attempt.
apply_patch() {
	if ! git -C "$src" am -q --keep-cr "$1"; then
		git -C "$src" am --abort >/dev/null 2>&1 || true
		rm -f "$bld/kernel-series.stamp"
		die "$(basename "$1") does not apply to linux-source-6.1"
	fi
}

step_tree() {
	local stamp p n=0
	step_tree_base
	stamp=$(series_stamp)
	if [ -f "$bld/kernel-series.stamp" ] &&
	   [ "$(cat "$bld/kernel-series.stamp")" = "$stamp" ] &&
	   [ -z "$(git -C "$src" status --porcelain --untracked-files=no)" ]; then
		note "series unchanged ($(series_patches | wc -l) patches applied)"
		return 0
	fi
	note "applying the series from $series_dir"
	tree_reset_base
	while read -r p; do
		[ -n "$p" ] || continue
		apply_patch "$p"
		n=$((n + 1))
		note "  applied $(basename "$p")"
	done < <(series_patches)
	echo "$stamp" > "$bld/kernel-series.stamp"
	note "$n patches applied"
}

series_applied() {
	[ -n "$(series_patches)" ]
}

# Every option of the fragment must have its value in .config; "=n" means
# unset. A SchedTune option counts only once a patch has added it to
# init/Kconfig (bisect-check configures after each patch).
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
		CONFIG_SCHED_TUNE*|CONFIG_CGROUP_SCHEDTUNE)
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

# allnoconfig plus the fragment: the test kernel's .config.
kconfig_from_fragment() {
	kmake allnoconfig >/dev/null 2>&1
	(cd "$src" && ARCH=arm64 scripts/kconfig/merge_config.sh -m \
		-O "$obj" "$obj/.config" "$fragment") > "$obj/merge_config.log" 2>&1
	kmake olddefconfig >/dev/null 2>&1
}

step_config() {
	local stamp
	stamp=$( { cat "$fragment"; cat "$bld/kernel-series.stamp"; } |
		sha256sum | cut -d' ' -f1)
	if [ -f "$obj/.config" ] && [ -f "$obj/.stune-config.stamp" ] &&
	   [ "$(cat "$obj/.stune-config.stamp")" = "$stamp" ]; then
		check_config
		return 0
	fi
	note "configuring $obj"
	mkdir -p "$obj"
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
	timings+=("kernel build $(elapsed "$t0") s")
}

step_module() {
	local kmod=$bld/kernel-test-module
	note "building the test modules"
	mkdir -p "$kmod"
	rm -f "$kmod"/*.ko
	cp -p "$here"/module/Kbuild "$here"/module/*.[ch] "$kmod"/
	if ! kmake M="$kmod" modules > "$kmod/build.log" 2>&1; then
		cat "$kmod/build.log" >&2
		die "test module build failed"
	fi
	if grep -q "warning:" "$kmod/build.log"; then
		cat "$kmod/build.log" >&2
		die "test module builds with warnings"
	fi
}

# Static arm64 busybox from Debian, unpacked (never installed).
busybox_bin() {
	local dl=$bld/kernel-dl bb
	bb=$dl/root/bin/busybox
	if [ ! -x "$bb" ]; then
		note "downloading busybox-static:arm64"
		# Its contents: the folder may be a mount point (fresh-machine-check).
		find "$dl" -mindepth 1 -delete 2>/dev/null || true
		mkdir -p "$dl"
		(cd "$dl" && apt-get download -q busybox-static:arm64 \
			> "$dl/download.log" 2>&1) ||
			die "apt-get download busybox-static:arm64 failed" \
			    "(run tests/setup-host)"
		dpkg-deb -x "$dl"/busybox-static_*_arm64.deb "$dl/root"
	fi
	echo "$bb"
}

step_progs() {
	local progs=$bld/kernel-test-progs
	note "building the guest test programs"
	mkdir -p "$progs"
	aarch64-linux-gnu-gcc -static -O2 -Wall -Wextra -Werror \
		-o "$progs/stune-test" "$here"/guest/*.c -lm -pthread ||
		die "guest test programs do not build"
}

guest_test_names() {
	sed -n 's/^\tSTUNE_TEST_ENTRY(\([a-z0-9_]*\),.*/\1/p' \
		"$here"/guest/main.c
}

# step_initramfs [TEST...]: gzip'd newc cpio with busybox, /init, the
# guest programs and the module; TESTs limit what /init runs.
step_initramfs() {
	local root=$out/initramfs bb t
	bb=$(busybox_bin)
	[ -f "$bld/kernel-test-progs/stune-test" ] ||
		die "guest programs not built (run without --skip-build)"
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
	cp "$bld/kernel-test-progs/stune-test" "$root/bin/"
	cp "$bld/kernel-test-module/stune_test_cpufreq.ko" "$root/lib/"
	# SchedTune's tracepoints as trace events: built with the series only.
	if [ -f "$bld/kernel-test-module/stune_test_trace.ko" ]; then
		cp "$bld/kernel-test-module/stune_test_trace.ko" "$root/lib/"
	fi
	: > "$root/etc/stune-only"
	[ $# -eq 0 ] || printf '%s\n' "$@" > "$root/etc/stune-only"
	(cd "$root" && find . | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) | gzip -6 > "$out/initramfs.cpio.gz"
}

# The one QEMU command line of the kernel and the system tests. No guest
# needs a network: without -nic none, "virt" adds a virtio NIC whose option
# ROM (efi-virtio.rom) only the ipxe-qemu package has.
qemu_base=(qemu-system-aarch64 -M virt -cpu cortex-a57 -smp 4 -m 2G
	   -nic none -nographic -no-reboot)

# asym_dtb: a device tree where CPUs 2 and 3 have half the capacity of
# CPUs 0 and 1 (shared with the 6.12 tests).
# shellcheck source=tests/kernel/asym-dtb.sh
. "$top/tests/kernel/asym-dtb.sh"

# boot NAME: run QEMU, log to $out/NAME.log; returns QEMU's time.
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

# judge NAME: verdict from the serial log only. Prints one line per check.
judge() {
	local name=$1 log=$out/$1.log clean=$out/$1.clean res t r
	local pass=0 fail=0 line
	tr -d '\r' < "$log" > "$clean"

	# Guest tests: the results block if /init got that far, otherwise
	# whatever TEST lines made it to the console.
	if grep -q '^STUNE-RESULTS-END' "$clean"; then
		res=$(sed -n '/^STUNE-RESULTS-BEGIN/,/^STUNE-RESULTS-END/p' \
			"$clean" | grep -E '^TEST [A-Za-z0-9_]+: ')
	else
		res=$(grep -oE 'TEST [A-Za-z0-9_]+: (PASS|FAIL).*' "$clean" || true)
	fi
	# Every planned test must have reported.
	for t in $(sed -n 's/^STUNE-PLAN //p' "$clean" | head -1); do
		if ! grep -qE "^TEST $t: " <<< "$res"; then
			res+=$'\n'"TEST $t: FAIL no result (guest died or hung?)"
		fi
	done
	if ! grep -q '^STUNE-PLAN ' "$clean"; then
		res+=$'\n'"TEST init: FAIL /init never started its tests"
	fi

	# KUnit: no failure anywhere, and the sched_tune suite passed.
	if grep -qE '(^|[] ])not ok [0-9]+' "$clean"; then
		res+=$'\n'"TEST kunit: FAIL $(grep -m1 -oE 'not ok [0-9]+.*' "$clean")"
	elif series_applied; then
		if grep -qE '(^|[] ])ok [0-9]+ sched_tune$' "$clean"; then
			res+=$'\n'"TEST kunit: PASS"
		else
			res+=$'\n'"TEST kunit: FAIL no 'ok N sched_tune' suite result"
		fi
	fi

	# Kernel log.
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

boot_and_judge() {
	local name=$1
	boot_guest "$name"
	echo "boot $name:"
	if ! judge "$name"; then
		echo "---- kernel log of boot $name ($out/$name.log) ----"
		cat "$out/$name.clean"
		echo "---- end of kernel log of boot $name ----"
		return 1
	fi
}
