/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a boost can reach the CPU on this machine: per cpufreq policy,
 * whether a raised utilization changes the frequency (schedutil, on a
 * driver that lets the governor choose), and whether placement can act
 * (CPUs of different capacities). Read once from sysfs below a root; the
 * words say what to change where the answer is no. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "log.h"

typedef struct ReachPolicy {
        char name[32];          /* "policy0" */
        char cpus[64];          /* its related_cpus, "0 1 2 3" */
        bool reaches;
        char why[256];
} ReachPolicy;

typedef struct Reach {
        ReachPolicy *policies;
        size_t n;
        bool no_cpufreq;        /* no policy at all */
        char no_cpufreq_why[192];
        bool placement;         /* CPU capacities differ */
        char placement_why[160];
} Reach;

/* Reads <root>/sys/devices/system/cpu; a missing file is an answer (no
 * cpufreq, no capacities), not an error: -ENOMEM only. */
int reach_probe(const char *root, Reach *ret);
void reach_done(Reach *r);
/* One line a policy and one for placement: info where a boost reaches,
 * a notice where it does not. */
void reach_log(const Reach *r, const LogContext *log);
