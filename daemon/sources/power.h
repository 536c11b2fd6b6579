/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The power state source: AC, battery and low battery from the power
 * supplies in sysfs, followed through uevents. */
#pragma once

#include "events.h"
#include "policy.h"

typedef struct PowerSource PowerSource;

/* Reads one supply's directory (type, online, capacity, status, scope). */
int power_supply_read(const char *dir, PowerSupplyInfo *ret);
/* Sums every supply below class_dir (<root>/sys/class/power_supply); a
 * missing directory is a system without supplies. */
int power_read_class_dir(const char *class_dir, PowerSample *ret);

/* Reads the supplies and reports the power state (when active: auto
 * mode) to ctx's sink, starting from initial, and follows changes:
 * sd_device_monitor uevents on the real system, inotify on the tree below
 * a root prefix (tests). c stays the caller's. */
int power_source_new(const SourceContext *ctx, const PowerConfig *c, PowerState initial, bool active,
                     PowerSource **ret);
PowerSource *power_source_free(PowerSource *p);
DEFINE_TRIVIAL_CLEANUP_FUNC(PowerSource *, power_source_free);

/* Re-reads the supplies and reports the state when active. */
int power_source_refresh(PowerSource *p);
/* Auto mode starts (the state is reported at once) or ends. */
void power_source_set_active(PowerSource *p, bool active);
/* A new configuration (the caller's): the state is reported again. */
void power_source_reload(PowerSource *p, const PowerConfig *c);
