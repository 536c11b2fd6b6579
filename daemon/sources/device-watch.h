/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* How the sources that read sysfs and /dev hear of changes, and the one
 * place that chooses: on the real system sd_device_monitor's uevents of a
 * subsystem; below a root prefix (tests), which sd-device cannot look
 * into, inotify on the test's tree (the caller adds the watches to fd). */
#pragma once

#include <stdbool.h>
#include <systemd/sd-device.h>
#include <systemd/sd-event.h>

#include "events.h"

typedef struct DeviceWatch {
        bool fake;                      /* below a root prefix: inotify */
        sd_device_monitor *monitor;
        int fd;                         /* inotify, -1 if none */
        sd_event_source *io;
} DeviceWatch;

void device_watch_init(DeviceWatch *w, const SourceContext *ctx);
/* Starts hearing of subsystem: on_uevent gets the uevents (real system),
 * on_inotify the events of the watches the caller adds to w->fd. */
int device_watch_start(DeviceWatch *w, const SourceContext *ctx, const char *subsystem,
                       const char *description, sd_device_monitor_handler_t on_uevent,
                       sd_event_io_handler_t on_inotify, void *userdata);
void device_watch_done(DeviceWatch *w);
