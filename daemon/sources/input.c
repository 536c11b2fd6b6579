/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The input boost source. Devices are opened read-only and never grabbed;
 * events are read only to learn that the user is active: no key code or
 * coordinate is logged or kept. The boost goes up on the first event of
 * a burst and comes down DurationMs= after the last one, with a single
 * timer that exists only while the boost is up.
 *
 * While the boost is up the devices are not listened to (a 1000 Hz mouse
 * would wake boostd 1000 times a second for nothing): the timer reads
 * what they queued meanwhile, and the newest event's time (evdev's
 * CLOCK_MONOTONIC, asked for with EVIOCSCLOCKID) says how long the boost
 * still holds. Each read is bounded; what is left wakes the loop again. */
#include <dirent.h>
#include <fcntl.h>
#include <linux/input.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <systemd/sd-device.h>

#include "event-util.h"
#include "device-watch.h"
#include "events.h"
#include "log.h"
#include "input.h"
#include "util.h"

/* Buffers of 64 events read per device and wakeup at most. */
#define INPUT_READS_MAX 16

typedef struct InputDevice InputDevice;

struct InputDevice {
        InputDevice *next;
        InputSource *src;
        char *devnode;
        int fd;
        sd_event_source *io;
        bool monotonic;         /* its events carry CLOCK_MONOTONIC times */
};

struct InputSource {
        SourceContext ctx;
        const InputConfig *config;      /* the caller's */
        bool active;                    /* auto mode: activity boosts */
        DeviceWatch watch;
        char *dev_dir;                  /* <root>/dev/input */
        char *udev_dir;                 /* <root>/run/udev/data */
        InputDevice *devices;

        InputBoost boost;
        char *raised_group;             /* the group the boost is on while active */
        sd_event_source *timer;
        unsigned long io_wakeups;       /* for tests: device reads woken by events */
};

unsigned input_kinds_from_properties(const char *(*get)(void *userdata, const char *key),
                                     void *userdata) {
        static const struct {
                const char *key;
                unsigned kind;
        } table[] = {
                { "ID_INPUT_KEYBOARD", INPUT_KEYBOARD },
                { "ID_INPUT_MOUSE", INPUT_POINTER },
                { "ID_INPUT_TOUCHPAD", INPUT_POINTER },
                { "ID_INPUT_POINTINGSTICK", INPUT_POINTER },
                { "ID_INPUT_TOUCHSCREEN", INPUT_TOUCHSCREEN },
        };
        unsigned kinds = 0;

        for (size_t i = 0; i < ELEMENTSOF(table); i++) {
                const char *v = get(userdata, table[i].key);

                if (v && streq(v, "1"))
                        kinds |= table[i].kind;
        }
        return kinds;
}

unsigned long input_source_io_wakeups(const InputSource *s) {
        return s ? s->io_wakeups : 0;
}

size_t input_source_n_devices(const InputSource *s) {
        size_t n = 0;

        for (const InputDevice *d = s ? s->devices : NULL; d; d = d->next)
                n++;
        return n;
}

bool input_source_timer_armed(const InputSource *s) {
        return s && event_timer_armed(s->timer);
}

static uint64_t input_duration_usec(const InputSource *s) {
        return (uint64_t) s->config->duration_ms * USEC_PER_MSEC;
}

/* Listening to the devices: only while the boost is down. */
static void input_devices_listen(InputSource *s, bool on) {
        for (InputDevice *d = s->devices; d; d = d->next)
                (void) sd_event_source_set_enabled(d->io, on ? SD_EVENT_ON : SD_EVENT_OFF);
}

/* Writes the lowered boost and stops the timer. */
static void input_source_lower(InputSource *s) {
        int r;

        event_timer_disarm(s->timer);
        input_devices_listen(s, true);
        r = s->ctx.sink->input_boost(s->ctx.sink->userdata, s->raised_group, 0);
        if (r < 0 && r != -ENOENT)
                log_warning_errno(s->ctx.log, r, "Failed to lower the input boost of %s: %m", s->raised_group);
        log_debug(s->ctx.log, "Input boost of %s ended.", s->raised_group);
}

/* Lowers the boost now (manual mode, reload). */
static void input_source_drop(InputSource *s) {
        if (input_boost_reset(&s->boost))
                input_source_lower(s);
}

static bool input_device_read(InputDevice *d, uint64_t now, uint64_t *latest);
static void input_source_remove(InputSource *s, const char *devnode);

static int on_timer(sd_event_source *t, uint64_t usec, void *userdata) {
        InputSource *s = userdata;
        uint64_t next, latest = 0;

        /* usec is when the timer was due; the loop may run later, and
         * what the devices queued counts as of now. */
        if (sd_event_now(s->ctx.event, CLOCK_MONOTONIC, &usec) < 0)
                usec = now_usec();
        /* What the devices queued while the boost was up. */
        for (InputDevice *d = s->devices, *n; d; d = n) {
                n = d->next;
                if (!input_device_read(d, usec, &latest))
                        input_source_remove(s, d->devnode);
        }
        if (latest > s->boost.last_usec)
                s->boost.last_usec = latest;
        next = input_boost_timer(&s->boost, usec, input_duration_usec(s));
        if (next == 0) {
                input_source_lower(s);
                return 0;
        }
        return event_timer_arm(s->ctx.event, &s->timer, next, on_timer, s, "input-boost-timer");
}

static int input_source_arm(InputSource *s) {
        return event_timer_arm(s->ctx.event, &s->timer, s->boost.armed_usec, on_timer, s,
                               "input-boost-timer");
}

static void input_source_activity(InputSource *s) {
        const InputConfig *c = s->config;
        uint64_t now;
        char *g;
        int r;

        if (!s->active || c->boost == 0)
                return;
        r = sd_event_now(s->ctx.event, CLOCK_MONOTONIC, &now);
        if (r < 0)
                return;
        if (!input_boost_activity(&s->boost, now, input_duration_usec(s)))
                return;         /* already up: the timer will see the new time */

        g = strdup(c->group);
        if (!g) {
                input_boost_reset(&s->boost);
                return;
        }
        free(s->raised_group);
        s->raised_group = g;
        r = input_source_arm(s);
        if (r < 0) {
                /* Without a timer the boost could not come down. */
                log_warning_errno(s->ctx.log, r, "Failed to arm the input boost timer: %m");
                input_boost_reset(&s->boost);
                return;
        }
        input_devices_listen(s, false);
        r = s->ctx.sink->input_boost(s->ctx.sink->userdata, g, c->boost);
        if (r < 0)
                log_warning_errno(s->ctx.log, r, "Failed to raise the input boost of %s: %m", g);
        else
                log_debug(s->ctx.log, "Input activity: %s raised by %u for %u ms.", g, c->boost, c->duration_ms);
}

static InputDevice *input_device_free(InputDevice *d) {
        if (!d)
                return NULL;
        sd_event_source_disable_unref(d->io);
        if (d->fd >= 0)
                close(d->fd);
        free(d->devnode);
        free(d);
        return NULL;
}

static void input_source_remove(InputSource *s, const char *devnode) {
        for (InputDevice **i = &s->devices; *i; i = &(*i)->next)
                if (streq((*i)->devnode, devnode)) {
                        InputDevice *d = *i;

                        *i = d->next;
                        log_info(s->ctx.log, "Input device %s gone.", devnode);
                        input_device_free(d);
                        return;
                }
}

/* Reads what a device has queued, INPUT_READS_MAX buffers at most. Returns
 * false when the device is gone (unplugged: ENODEV; a test's FIFO whose
 * writer left). *latest becomes the time of the newest activity event if
 * later: its own time on a CLOCK_MONOTONIC device (never after now), else
 * now. */
static bool input_device_read(InputDevice *d, uint64_t now, uint64_t *latest) {
        struct input_event ev[64];
        uint64_t t = 0;
        ssize_t n = -1;
        int err = EAGAIN;

        for (unsigned k = 0; k < INPUT_READS_MAX; k++) {
                n = read(d->fd, ev, sizeof(ev));
                if (n < 0)
                        err = errno;
                if (n <= 0)
                        break;
                for (size_t i = 0; i < (size_t) n / sizeof(ev[0]); i++) {
                        uint64_t e;

                        if (ev[i].type != EV_KEY && ev[i].type != EV_REL && ev[i].type != EV_ABS)
                                continue;
                        e = now;
                        if (d->monotonic)
                                e = MIN((uint64_t) ev[i].input_event_sec * USEC_PER_SEC +
                                        (uint64_t) ev[i].input_event_usec, now);
                        t = MAX(t, e);
                }
        }
        /* Only the fact of activity is kept. */
        explicit_bzero(ev, sizeof(ev));
        if (t > *latest)
                *latest = t;
        return !(n == 0 || (n < 0 && err != EAGAIN && err != EINTR));
}

static int on_device_io(sd_event_source *io, int fd, uint32_t revents, void *userdata) {
        InputDevice *d = userdata;
        InputSource *s = d->src;
        uint64_t now, latest = 0;
        bool alive;

        (void) io, (void) fd;
        s->io_wakeups++;
        if (sd_event_now(s->ctx.event, CLOCK_MONOTONIC, &now) < 0)
                return 0;
        alive = input_device_read(d, now, &latest);
        if (latest > 0)
                input_source_activity(s);

        if (!alive || (revents & (EPOLLHUP | EPOLLERR))) {
                _cleanup_(freep) char *node = strdup(d->devnode);

                if (node)
                        input_source_remove(s, node);
        }
        return 0;
}

static int input_source_add(InputSource *s, const char *devnode, unsigned kinds) {
        InputDevice *d;
        int r;

        if (!(kinds & s->config->kinds) || s->config->boost == 0)
                return 0;
        for (d = s->devices; d; d = d->next)
                if (streq(d->devnode, devnode))
                        return 0;

        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->src = s;
        d->devnode = strdup(devnode);
        /* Read-only, never grabbed: other readers see every event. */
        d->fd = open(devnode, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
        if (!d->devnode || d->fd < 0) {
                r = d->devnode ? -errno : -ENOMEM;
                input_device_free(d);
                return log_warning_errno(s->ctx.log, r, "Cannot open input device %s, ignoring: %m", devnode);
        }
        /* Event times on the clock the boost's timer uses. */
        d->monotonic = ioctl(d->fd, EVIOCSCLOCKID, &(int) { CLOCK_MONOTONIC }) == 0;
        r = sd_event_add_io(s->ctx.event, &d->io, d->fd, EPOLLIN, on_device_io, d);
        if (r >= 0 && s->boost.active)
                r = sd_event_source_set_enabled(d->io, SD_EVENT_OFF);
        if (r >= 0) {
                const char *base = strrchr(devnode, '/');
                char desc[64];

                /* "input-event3": which device a stuck loop is reading */
                snprintf(desc, sizeof(desc), "input-%s", base ? base + 1 : devnode);
                r = sd_event_source_set_description(d->io, desc);
        }
        if (r < 0) {
                input_device_free(d);
                return log_warning_errno(s->ctx.log, r, "Cannot watch input device %s, ignoring: %m", devnode);
        }
        d->next = s->devices;
        s->devices = d;
        log_info(s->ctx.log, "Watching input device %s for activity.", devnode);
        return 1;
}

/* The real system. */

static const char *sd_device_prop(void *userdata, const char *key) {
        const char *v = NULL;

        return sd_device_get_property_value(userdata, key, &v) >= 0 ? v : NULL;
}

static void input_add_sd_device(InputSource *s, sd_device *dev) {
        const char *sysname, *devnode;

        if (sd_device_get_sysname(dev, &sysname) < 0 || strncmp(sysname, "event", 5) != 0)
                return;
        if (sd_device_get_devname(dev, &devnode) < 0)
                return;
        (void) input_source_add(s, devnode, input_kinds_from_properties(sd_device_prop, dev));
}

static int on_uevent(sd_device_monitor *mon, sd_device *dev, void *userdata) {
        InputSource *s = userdata;
        sd_device_action_t a;
        const char *devnode;

        (void) mon;
        if (sd_device_get_action(dev, &a) < 0 || sd_device_get_devname(dev, &devnode) < 0)
                return 0;
        if (a == SD_DEVICE_REMOVE)
                input_source_remove(s, devnode);
        else if (a == SD_DEVICE_ADD || a == SD_DEVICE_CHANGE)
                input_add_sd_device(s, dev);
        return 0;
}

static int input_scan_sd_device(InputSource *s) {
        _cleanup_(sd_device_enumerator_unrefp) sd_device_enumerator *e = NULL;
        int r;

        r = sd_device_enumerator_new(&e);
        if (r < 0)
                return r;
        r = sd_device_enumerator_add_match_subsystem(e, "input", true);
        if (r < 0)
                return r;
        r = sd_device_enumerator_add_match_sysname(e, "event*");
        if (r < 0)
                return r;
        for (sd_device *d = sd_device_enumerator_get_device_first(e); d;
             d = sd_device_enumerator_get_device_next(e))
                input_add_sd_device(s, d);
        return 0;
}

/* Below a root prefix: <root>/dev/input/eventN and its properties in
 * udev's database format ("E:KEY=VALUE" lines). */

typedef struct FakeProps {
        char *lines[32];
        size_t n;
} FakeProps;

static const char *fake_prop(void *userdata, const char *key) {
        FakeProps *p = userdata;
        size_t l = strlen(key);

        for (size_t i = 0; i < p->n; i++)
                if (strncmp(p->lines[i], "E:", 2) == 0 && strncmp(p->lines[i] + 2, key, l) == 0 &&
                    p->lines[i][2 + l] == '=')
                        return p->lines[i] + 3 + l;
        return NULL;
}

static void input_add_fake(InputSource *s, const char *name) {
        _cleanup_(freep) char *props = NULL, *devnode = NULL, *db = NULL;
        _cleanup_(fclosep) FILE *f = NULL;
        FakeProps p = {};
        char *line = NULL;
        size_t n = 0;
        ssize_t l;

        if (strncmp(name, "event", 5) != 0)
                return;
        if (asprintf(&db, "+input:%s", name) < 0)
                return;
        props = path_join(s->udev_dir, db);
        devnode = path_join(s->dev_dir, name);
        if (!props || !devnode)
                return;
        f = fopen(props, "re");
        if (!f)
                return;         /* not known to "udev": not an input device we use */
        while (p.n < ELEMENTSOF(p.lines) && (l = getline(&line, &n, f)) > 0) {
                if (line[l - 1] == '\n')
                        line[l - 1] = '\0';
                p.lines[p.n++] = TAKE_PTR(line);
                n = 0;
        }
        free(line);
        (void) input_source_add(s, devnode, input_kinds_from_properties(fake_prop, &p));
        for (size_t i = 0; i < p.n; i++)
                free(p.lines[i]);
}

static void input_scan_fake(InputSource *s) {
        struct dirent **list = NULL;
        int n;

        n = scandir(s->dev_dir, &list, NULL, alphasort);
        for (int i = 0; i < n; i++) {
                input_add_fake(s, list[i]->d_name);
                free(list[i]);
        }
        free(list);
}

static int on_inotify(sd_event_source *src, int fd, uint32_t revents, void *userdata) {
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        InputSource *s = userdata;
        ssize_t n;

        (void) src, (void) revents;
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                for (char *p = buf; p < buf + n;) {
                        struct inotify_event *e = (struct inotify_event *) p;

                        if (e->len > 0 && (e->mask & (IN_DELETE | IN_MOVED_FROM))) {
                                _cleanup_(freep) char *node = path_join(s->dev_dir, e->name);

                                if (node)
                                        input_source_remove(s, node);
                        } else if (e->len > 0 && (e->mask & (IN_CREATE | IN_MOVED_TO)))
                                input_add_fake(s, e->name);
                        p += sizeof(*e) + e->len;
                }
        return 0;
}

static int input_source_watch(InputSource *s) {
        int r;

        r = device_watch_start(&s->watch, &s->ctx, "input", "input-watch", on_uevent, on_inotify, s);
        if (r < 0 || !s->watch.fake)
                return r;
        if (inotify_add_watch(s->watch.fd, s->dev_dir, IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM) < 0)
                log_debug_errno(s->ctx.log, -errno, "Cannot watch %s (no input devices): %m", s->dev_dir);
        return 0;
}

static void input_source_scan(InputSource *s) {
        int r;

        if (s->watch.fake) {
                input_scan_fake(s);
                return;
        }
        r = input_scan_sd_device(s);
        if (r < 0)
                log_warning_errno(s->ctx.log, r, "Failed to list the input devices: %m");
}

static void input_source_close_all(InputSource *s) {
        while (s->devices) {
                InputDevice *d = s->devices;

                s->devices = d->next;
                input_device_free(d);
        }
}

int input_source_new(const SourceContext *ctx, const InputConfig *c, bool active, InputSource **ret) {
        _cleanup_(input_source_freep) InputSource *s = NULL;
        int r;

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->ctx = *ctx;
        s->config = c;
        s->active = active;
        device_watch_init(&s->watch, ctx);
        s->dev_dir = path_join_root(ctx->root, "/dev/input");
        s->udev_dir = path_join_root(ctx->root, "/run/udev/data");
        if (!s->dev_dir || !s->udev_dir)
                return -ENOMEM;

        /* Watch first, then list: a device plugged in between is seen. */
        r = input_source_watch(s);
        if (r < 0)
                log_warning_errno(ctx->log, r, "Cannot follow input hotplug: %m");
        input_source_scan(s);
        *ret = TAKE_PTR(s);
        return 0;
}

InputSource *input_source_free(InputSource *s) {
        if (!s)
                return NULL;
        input_source_close_all(s);
        sd_event_source_disable_unref(s->timer);
        device_watch_done(&s->watch);
        free(s->raised_group);
        free(s->dev_dir);
        free(s->udev_dir);
        free(s);
        return NULL;
}

void input_source_set_active(InputSource *s, bool active) {
        if (!s)
                return;
        s->active = active;
        if (!active)
                input_source_drop(s);
}

void input_source_reload(InputSource *s, const InputConfig *c) {
        if (!s)
                return;
        input_source_drop(s);
        s->config = c;
        input_source_close_all(s);
        input_source_scan(s);
}
