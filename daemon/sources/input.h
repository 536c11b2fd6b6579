/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The input boost source: activity on keyboards, pointers and
 * touchscreens raises a group for a while. */
#pragma once

#include <stdbool.h>

#include "events.h"
#include "macro.h"
#include "policy.h"

typedef struct InputSource InputSource;

/* Finds the input devices of the configured kinds and follows hotplug:
 * sd-device and sd_device_monitor on the real system; below a root
 * prefix (tests) <root>/dev/input/event* with their udev properties in
 * <root>/run/udev/data/+input:eventN, followed with inotify. While
 * active (auto mode), activity reports c->group's boost to ctx's sink;
 * c stays the caller's. */
int input_source_new(const SourceContext *ctx, const InputConfig *c, bool active, InputSource **ret);
InputSource *input_source_free(InputSource *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(InputSource *, input_source_free);

/* The kinds a device is, from its udev properties (ID_INPUT_KEYBOARD,
 * ID_INPUT_MOUSE, ID_INPUT_TOUCHPAD, ID_INPUT_POINTINGSTICK,
 * ID_INPUT_TOUCHSCREEN); get returns the value or NULL. */
unsigned input_kinds_from_properties(const char *(*get)(void *userdata, const char *key),
                                     void *userdata);

/* Auto mode starts or ends: inactive drops the boost and ignores
 * activity. */
void input_source_set_active(InputSource *s, bool active);
/* A new configuration (the caller's): drops the boost, opens the devices
 * again. */
void input_source_reload(InputSource *s, const InputConfig *c);
/* Number of open devices, and whether the boost timer is armed (tests:
 * no timer may run while idle). */
size_t input_source_n_devices(const InputSource *s);
/* How often a device's events woke the loop (not counting the timer's
 * reads while the boost is up). */
unsigned long input_source_io_wakeups(const InputSource *s);
bool input_source_timer_armed(const InputSource *s);
