# SPDX-License-Identifier: GPL-2.0
# Sourced by tests/kernel/lib.sh and tests/kernel-6.12/lib.sh, which
# define $out, qemu_base and die.
#
# A device tree where CPUs 2 and 3 have half the capacity of CPUs 0 and 1.
asym_dtb() {
	local dtb=$out/virt-asym.dtb
	if [ ! -f "$dtb" ]; then
		mkdir -p "$out"
		# The same machine as the boot, or the DTB would not match it.
		"${qemu_base[@]}" -M dumpdtb="$out/virt.dtb" \
			> "$out/dumpdtb.log" 2>&1 ||
			{ cat "$out/dumpdtb.log" >&2; die "QEMU could not dump its DTB"; }
		dtc -q -I dtb -O dts -o "$out/virt.dts" "$out/virt.dtb"
		awk '
		/^\t\tcpu@[0-9]+ \{/ { cpu = substr($1, 5) + 0; incpu = 1 }
		{ print }
		incpu && /^\t\t\treg = / {
			printf "\t\t\tcapacity-dmips-mhz = <%d>;\n",
				cpu < 2 ? 1024 : 512
			incpu = 0
		}' "$out/virt.dts" > "$out/virt-asym.dts"
		[ "$(grep -c capacity-dmips-mhz "$out/virt-asym.dts")" -eq 4 ] ||
			die "could not add capacity-dmips-mhz to the DTB"
		grep -q cpu-map "$out/virt-asym.dts" ||
			die "QEMU DTB has no cpu-map: capacities would be ignored"
		dtc -q -I dts -O dtb -o "$dtb" "$out/virt-asym.dts"
	fi
	echo "$dtb"
}
