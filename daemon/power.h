/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The power state source: AC, battery and low battery from the power
 * supplies in sysfs, followed through uevents. */
#pragma once

#include "policy.h"

typedef struct Manager Manager;
typedef struct PowerSource PowerSource;

/* Reads one supply's directory (type, online, capacity, status, scope). */
int power_supply_read(const char *dir, PowerSupplyInfo *ret);
/* Sums every supply below class_dir (<root>/sys/class/power_supply); a
 * missing directory is a system without supplies. */
int power_read_class_dir(const char *class_dir, PowerSample *ret);

/* Reads the supplies, sets the manager's power state (in auto mode) and
 * follows changes: sd_device_monitor uevents on the real system, inotify
 * on the tree below a root prefix (tests). */
int power_source_new(Manager *m, PowerSource **ret);
PowerSource *power_source_free(PowerSource *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(PowerSource *, power_source_free);

/* Re-reads the supplies and passes the state on in auto mode. */
int power_source_refresh(PowerSource *p);
/* The mode or the configuration changed: passes the current state on. */
void power_source_update(PowerSource *p);
