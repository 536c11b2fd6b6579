/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The power state source: AC, battery and low battery from
 * /sys/class/power_supply. On the real system the supplies are found with
 * sd-device and changes arrive as uevents through sd_device_monitor: no
 * polling. Below a root prefix (tests) sd-device cannot follow, since it
 * knows only the real /sys: the source lists the tree itself and watches
 * it with inotify instead, and reads the same attribute files either
 * way. UPower is not used: sysfs works on systems without it. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <systemd/sd-device.h>

#include "device-watch.h"
#include "events.h"
#include "log.h"
#include "power.h"
#include "util.h"

struct PowerSource {
        SourceContext ctx;
        const PowerConfig *config;
        bool active;                    /* auto mode: the state is passed on */
        char *class_dir;                /* <root>/sys/class/power_supply */
        DeviceWatch watch;
        PowerSample sample;
        PowerState state;               /* follows the supplies even in manual mode */
};

static int read_attr(const char *dir, const char *attr, char **ret) {
        _cleanup_(freep) char *p = path_join(dir, attr);

        if (!p)
                return -ENOMEM;
        return read_one_line(p, ret);
}

int power_supply_read(const char *dir, PowerSupplyInfo *ret) {
        _cleanup_(freep) char *type = NULL, *online = NULL, *capacity = NULL, *status = NULL,
                *scope = NULL;
        PowerSupplyInfo info = {};
        int r;

        r = read_attr(dir, "type", &type);
        if (r < 0)
                return r;
        info.is_battery = streq(type, "Battery");
        if (read_attr(dir, "scope", &scope) >= 0)
                info.device_scope = streq(scope, "Device");
        if (!info.is_battery) {
                if (read_attr(dir, "online", &online) >= 0)
                        info.online = streq(online, "1");
                *ret = info;
                return 0;
        }
        if (read_attr(dir, "capacity", &capacity) >= 0 &&
            parse_uint(capacity, 100, &info.capacity) >= 0)
                info.has_capacity = true;
        if (read_attr(dir, "status", &status) >= 0) {
                info.discharging = streq(status, "Discharging");
                info.charging_or_full = streq(status, "Charging") || streq(status, "Full") ||
                                        streq(status, "Not charging");
        }
        *ret = info;
        return 0;
}

int power_read_class_dir(const char *class_dir, PowerSample *ret) {
        struct dirent **list = NULL;
        PowerSample s = {};
        unsigned n_bat = 0, sum = 0;
        int n;

        n = scandir(class_dir, &list, NULL, alphasort);
        if (n < 0) {
                if (errno != ENOENT)
                        return -errno;
                n = 0;
        }
        for (int i = 0; i < n; i++) {
                _cleanup_(freep) char *dir = NULL;
                PowerSupplyInfo info;

                if (list[i]->d_name[0] != '.')
                        dir = path_join(class_dir, list[i]->d_name);
                if (dir && power_supply_read(dir, &info) >= 0)
                        power_sample_add(&s, &n_bat, &sum, &info);
                free(list[i]);
        }
        free(list);
        *ret = s;
        return 0;
}

/* The real system: every supply sd-device knows. */
static int power_read_sd_device(PowerSample *ret) {
        _cleanup_(sd_device_enumerator_unrefp) sd_device_enumerator *e = NULL;
        PowerSample s = {};
        unsigned n_bat = 0, sum = 0;
        int r;

        r = sd_device_enumerator_new(&e);
        if (r < 0)
                return r;
        r = sd_device_enumerator_add_match_subsystem(e, "power_supply", true);
        if (r < 0)
                return r;
        for (sd_device *d = sd_device_enumerator_get_device_first(e); d;
             d = sd_device_enumerator_get_device_next(e)) {
                PowerSupplyInfo info;
                const char *syspath;

                if (sd_device_get_syspath(d, &syspath) >= 0 &&
                    power_supply_read(syspath, &info) >= 0)
                        power_sample_add(&s, &n_bat, &sum, &info);
        }
        *ret = s;
        return 0;
}

/* Watches the class directory and each supply in it; adding a watch
 * again is harmless, and a removed directory drops its own. */
static void power_watch_tree(PowerSource *p) {
        DIR *d;
        struct dirent *de;

        if (p->watch.fd < 0)
                return;
        if (inotify_add_watch(p->watch.fd, p->class_dir,
                              IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_ONLYDIR) < 0) {
                log_debug_errno(p->ctx.log, -errno, "Cannot watch %s (no power supplies): %m", p->class_dir);
                return;
        }
        d = opendir(p->class_dir);
        if (!d)
                return;
        while ((de = readdir(d))) {
                _cleanup_(freep) char *sub = NULL;

                if (de->d_name[0] == '.')
                        continue;
                sub = path_join(p->class_dir, de->d_name);
                if (sub)
                        (void) inotify_add_watch(p->watch.fd, sub,
                                                 IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE);
        }
        closedir(d);
}

/* The state the supplies say, passed on when active. */
static void power_source_update(PowerSource *p) {
        const PowerConfig *c = p->config;
        PowerState s;

        s = power_state_next(p->state, &p->sample, c->low_percent, c->hysteresis);
        if (s != p->state && p->sample.has_battery && p->sample.has_capacity)
                log_info(p->ctx.log, "Power: %s (battery at %u%%)%s.", power_state_to_string(s),
                         p->sample.capacity, p->active ? "" : ", ignored in manual mode");
        else if (s != p->state)
                log_info(p->ctx.log, "Power: %s%s.", power_state_to_string(s),
                         p->active ? "" : ", ignored in manual mode");
        p->state = s;
        if (p->active)
                p->ctx.sink->power(p->ctx.sink->userdata, s);
}

void power_source_set_active(PowerSource *p, bool active) {
        if (!p)
                return;
        p->active = active;
        power_source_update(p);
}

void power_source_reload(PowerSource *p, const PowerConfig *c) {
        if (!p)
                return;
        p->config = c;
        power_source_update(p);
}

int power_source_refresh(PowerSource *p) {
        PowerSample s;
        int r;

        if (p->watch.fake) {
                power_watch_tree(p);    /* before reading: no change slips by */
                r = power_read_class_dir(p->class_dir, &s);
        } else
                r = power_read_sd_device(&s);
        if (r < 0)
                return log_warning_errno(p->ctx.log, r, "Failed to read the power supplies, keeping %s: %m",
                                         power_state_to_string(p->state));
        p->sample = s;
        power_source_update(p);
        return 0;
}

static int on_uevent(sd_device_monitor *mon, sd_device *d, void *userdata) {
        (void) mon, (void) d;
        (void) power_source_refresh(userdata);
        return 0;
}

static int on_inotify(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

        (void) s, (void) revents;
        /* Drain: one re-read covers every change seen so far. */
        while (read(fd, buf, sizeof(buf)) > 0)
                ;
        (void) power_source_refresh(userdata);
        return 0;
}

int power_source_new(const SourceContext *ctx, const PowerConfig *c, PowerState initial, bool active,
                     PowerSource **ret) {
        _cleanup_(power_source_freep) PowerSource *p = NULL;
        int r;

        p = calloc(1, sizeof(*p));
        if (!p)
                return -ENOMEM;
        p->ctx = *ctx;
        p->config = c;
        p->active = active;
        device_watch_init(&p->watch, ctx);
        p->state = initial;
        p->class_dir = path_join_root(ctx->root, "/sys/class/power_supply");
        if (!p->class_dir)
                return -ENOMEM;

        r = device_watch_start(&p->watch, ctx, "power_supply", "power-supply-watch", on_uevent,
                               on_inotify, p);
        if (r < 0)
                log_warning_errno(ctx->log, r, "Cannot follow power supply changes, reading them once: %m");
        (void) power_source_refresh(p);
        *ret = TAKE_PTR(p);
        return 0;
}

PowerSource *power_source_free(PowerSource *p) {
        if (!p)
                return NULL;
        device_watch_done(&p->watch);
        free(p->class_dir);
        free(p);
        return NULL;
}
