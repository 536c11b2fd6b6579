/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* uevents on the real system, inotify on a test's tree. */
#include <sys/inotify.h>
#include <unistd.h>

#include "device-watch.h"
#include "macro.h"

void device_watch_init(DeviceWatch *w, const SourceContext *ctx) {
        *w = (DeviceWatch) {
                .fake = source_below_root(ctx),
                .fd = -1,
        };
}

int device_watch_start(DeviceWatch *w, const SourceContext *ctx, const char *subsystem,
                       const char *description, sd_device_monitor_handler_t on_uevent,
                       sd_event_io_handler_t on_inotify, void *userdata) {
        int r;

        if (w->fake) {
                w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
                if (w->fd < 0)
                        return -errno;
                r = sd_event_add_io(ctx->event, &w->io, w->fd, EPOLLIN, on_inotify, userdata);
                if (r < 0)
                        return r;
                return sd_event_source_set_description(w->io, description);
        }
        r = sd_device_monitor_new(&w->monitor);
        if (r < 0)
                return r;
        r = sd_device_monitor_filter_add_match_subsystem_devtype(w->monitor, subsystem, NULL);
        if (r < 0)
                return r;
        r = sd_device_monitor_attach_event(w->monitor, ctx->event);
        if (r < 0)
                return r;
        r = sd_device_monitor_set_description(w->monitor, description);
        if (r < 0)
                return r;
        return sd_device_monitor_start(w->monitor, on_uevent, userdata);
}

void device_watch_done(DeviceWatch *w) {
        w->monitor = sd_device_monitor_unref(w->monitor);
        w->io = sd_event_source_disable_unref(w->io);
        if (w->fd >= 0)
                close(w->fd);
        w->fd = -1;
}
