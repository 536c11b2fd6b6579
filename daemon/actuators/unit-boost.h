/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Boosts in place for the schedtune2 backend: a unit of the system
 * manager whose class comes from a Unit=/Slice= rule gets the class's
 * boost in its own cgroup's cpu.boost, and each slice above it a
 * cpu.boost at least that high (the kernel caps a group's effective
 * boost at its parent's). No process leaves its unit's cgroup. What was
 * found and written is journaled (State.cgroups) and given back at stop,
 * and at the start after a crash. */
#pragma once

#include "backend.h"

/* The unit whose cgroup is path (below the v2 root) gets group's boost;
 * "root" gives it back what boostd found. 0 when done or when nothing is
 * to be done; -EOPNOTSUPP when the cgroup has no cpu.boost (the cpu
 * controller is not enabled there: Backend.want_cpu is told, and
 * unit_boost_retry() tries again); -EBUSY when someone else changed its
 * cpu.boost since boostd wrote it (then it is theirs: boostd writes it no
 * more, until systemd makes the cgroup anew). */
int unit_boost_attach(Backend *b, const char *group, const char *path);
/* group's boost changed: its units get the new one. */
void unit_boost_apply(Backend *b, const char *group, unsigned boost);
/* The unit at path, waiting for a cpu.boost file, tries again (systemd
 * answered the request for its cpu controller); still none: per-task
 * boosts only, and its placements do not ask again until the cgroup is
 * made anew. */
void unit_boost_retry(Backend *b, const char *path);
/* Everything back to what boostd found (unless changed by hand since) and
 * forgotten: at stop, and at start for a journal of an earlier run. */
void unit_boost_restore(Backend *b);
