/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Where a boost can reach the CPU: cpufreq policies and CPU capacities. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "reach.h"
#include "util.h"

#define CPU_DIR "/sys/devices/system/cpu"

/* One line of a sysfs file, stripped; "" when it is not there. */
static void read_attr(const char *dir, const char *name, char *buf, size_t size) {
        _cleanup_(freep) char *p = path_join(dir, name), *s = NULL;

        buf[0] = '\0';
        if (p && read_one_line(p, &s) >= 0)
                snprintf(buf, size, "%s", strstrip(s));
}

/* What the driver and the governor make of a boost. */
static bool policy_verdict(const char *cpu_dir, const char *driver, const char *governor, char *why,
                           size_t size) {
        char status[32];

        if (streq(driver, "intel_pstate")) {
                read_attr(cpu_dir, "intel_pstate/status", status, sizeof(status));
                snprintf(why, size,
                         "intel_pstate in %s mode picks the frequency itself; boot with intel_pstate=passive "
                         "(driver intel_cpufreq) and use the schedutil governor",
                         status[0] ? status : "active");
                return false;
        }
        if (streq(driver, "amd-pstate-epp")) {
                snprintf(why, size,
                         "amd-pstate in active (EPP) mode picks the frequency itself; boot with "
                         "amd_pstate=passive or amd_pstate=guided and use the schedutil governor");
                return false;
        }
        if (streq(governor, "schedutil")) {
                snprintf(why, size, "schedutil on %s: a boost raises the frequency it asks for",
                         driver[0] ? driver : "its driver");
                return true;
        }
        if (streq(governor, "performance"))
                snprintf(why, size, "the performance governor keeps the highest frequency: a boost changes "
                         "nothing; use schedutil (scaling_governor)");
        else if (streq(governor, "powersave"))
                snprintf(why, size, "the powersave governor keeps the lowest frequency: a boost changes "
                         "nothing; use schedutil (scaling_governor)");
        else if (streq(governor, "userspace"))
                snprintf(why, size, "the userspace governor leaves the frequency to a program: a boost "
                         "changes nothing; use schedutil (scaling_governor)");
        else
                snprintf(why, size, "the %s governor does not see the scheduler's utilization: a boost "
                         "changes nothing; use schedutil (scaling_governor)",
                         governor[0] ? governor : "(unknown)");
        return false;
}

static int policy_filter(const struct dirent *de) {
        return strncmp(de->d_name, "policy", 6) == 0;
}

static int policy_compare(const struct dirent **a, const struct dirent **b) {
        return atoi((*a)->d_name + 6) - atoi((*b)->d_name + 6);
}

static int probe_policies(const char *cpu_dir, Reach *r) {
        _cleanup_(freep) char *dir = path_join(cpu_dir, "cpufreq");
        struct dirent **list = NULL;
        int n, ret = 0;

        if (!dir)
                return -ENOMEM;
        n = scandir(dir, &list, policy_filter, policy_compare);
        if (n <= 0) {
                r->no_cpufreq = true;
                snprintf(r->no_cpufreq_why, sizeof(r->no_cpufreq_why),
                         "no cpufreq policy: the kernel does not set the CPUs' frequency (no driver, or a "
                         "virtual machine): a boost can only act through placement");
                free(list);
                return 0;
        }
        r->policies = calloc((size_t) n, sizeof(ReachPolicy));
        for (int i = 0; i < n; i++) {
                _cleanup_(freep) char *p = path_join(dir, list[i]->d_name);
                char driver[32], governor[32];
                ReachPolicy *x;

                if (!r->policies || !p) {
                        ret = -ENOMEM;
                        free(list[i]);
                        continue;
                }
                x = &r->policies[r->n++];
                snprintf(x->name, sizeof(x->name), "%.31s", list[i]->d_name);
                read_attr(p, "related_cpus", x->cpus, sizeof(x->cpus));
                read_attr(p, "scaling_driver", driver, sizeof(driver));
                read_attr(p, "scaling_governor", governor, sizeof(governor));
                x->reaches = policy_verdict(cpu_dir, driver, governor, x->why, sizeof(x->why));
                free(list[i]);
        }
        free(list);
        return ret;
}

static int cpu_filter(const struct dirent *de) {
        const char *c = de->d_name;

        if (strncmp(c, "cpu", 3) != 0 || !c[3])
                return 0;
        for (c += 3; *c; c++)
                if (*c < '0' || *c > '9')
                        return 0;
        return 1;
}

static void probe_capacities(const char *cpu_dir, Reach *r) {
        struct dirent **list = NULL;
        unsigned lo = 0, hi = 0, seen = 0;
        int n = scandir(cpu_dir, &list, cpu_filter, alphasort);

        for (int i = 0; i < n; i++) {
                _cleanup_(freep) char *p = path_join(cpu_dir, list[i]->d_name);
                char buf[16];
                unsigned cap;

                if (p) {
                        read_attr(p, "cpu_capacity", buf, sizeof(buf));
                        if (parse_uint(buf, 100000, &cap) == 0) {
                                lo = seen ? MIN(lo, cap) : cap;
                                hi = seen ? MAX(hi, cap) : cap;
                                seen++;
                        }
                }
                free(list[i]);
        }
        free(list);
        r->placement = seen > 1 && lo != hi;
        if (r->placement)
                snprintf(r->placement_why, sizeof(r->placement_why),
                         "CPU capacities %u to %u: placement can move boosted tasks to bigger CPUs", lo, hi);
        else if (seen)
                snprintf(r->placement_why, sizeof(r->placement_why),
                         "every CPU has capacity %u: placement has nothing to choose", lo);
        else
                snprintf(r->placement_why, sizeof(r->placement_why),
                         "no cpu_capacity in sysfs (symmetric CPUs): placement has nothing to choose");
}

int reach_probe(const char *root, Reach *ret) {
        _cleanup_(freep) char *cpu_dir = path_join_root(root, CPU_DIR);
        int r;

        *ret = (Reach) {};
        if (!cpu_dir)
                return -ENOMEM;
        r = probe_policies(cpu_dir, ret);
        if (r < 0) {
                reach_done(ret);
                return r;
        }
        probe_capacities(cpu_dir, ret);
        return 0;
}

void reach_done(Reach *r) {
        free(r->policies);
        *r = (Reach) {};
}

void reach_log(const Reach *r, const LogContext *log) {
        if (r->no_cpufreq)
                log_notice(log, "Frequency: %s.", r->no_cpufreq_why);
        for (size_t i = 0; i < r->n; i++) {
                const ReachPolicy *x = &r->policies[i];

                if (x->reaches)
                        log_info(log, "Frequency, %s (CPUs %s): %s.", x->name, x->cpus, x->why);
                else
                        log_notice(log, "Frequency, %s (CPUs %s): a boost cannot change it: %s.", x->name,
                                   x->cpus, x->why);
        }
        log_info(log, "Placement: %s.", r->placement_why);
}
