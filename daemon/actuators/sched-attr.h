/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* struct sched_attr of <linux/sched/types.h>, as boostd passes it to
 * sched_setattr(2) and sched_getattr(2): VER1 has uclamp's clamps; VER2,
 * the 6.12 SchedTune series', adds the task's own boost. Each caller
 * passes the size of the version it uses, so that a kernel that knows
 * only VER1 takes a VER1 call. (Debian 12's headers lack the libc
 * wrapper and the series' fields.) */
#pragma once

#include <stdint.h>

struct boostd_sched_attr {
        uint32_t size;
        uint32_t sched_policy;
        uint64_t sched_flags;
        int32_t sched_nice;
        uint32_t sched_priority;
        uint64_t sched_runtime;
        uint64_t sched_deadline;
        uint64_t sched_period;
        uint32_t sched_util_min;        /* VER1 */
        uint32_t sched_util_max;
        uint32_t sched_util_boost;      /* VER2 */
        uint32_t __reserved;
};

#define SCHED_ATTR_VER1_SIZE 56U
#define SCHED_ATTR_VER2_SIZE 64U

#define BOOSTD_SCHED_FLAG_KEEP_ALL       0x18
#define BOOSTD_SCHED_FLAG_UTIL_CLAMP_MIN 0x20
#define BOOSTD_SCHED_FLAG_UTIL_BOOST     0x80
