/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Units and scopes as they appear in the cgroup v2 tree.
 *
 * Why inotify on the tree and not systemd's D-Bus signals: UnitNew of a
 * user's manager (systemd --user) goes out on that user's own bus, which
 * boostd does not see, and the system manager does not know the units of
 * user managers. The cgroup tree has them all, system and user managers
 * alike (user@UID.service/app.slice/app-*.scope, session-*.scope, the
 * scopes of flatpak and snap apps), and inotify reports every new
 * directory there without polling.
 *
 * Each directory gets a watch (IN_CREATE, IN_DELETE, IN_MOVED_*, added
 * recursively as directories appear). When one that is a .service or a
 * .scope, or lies below one, appears (and at start, for every one), its
 * cgroup.procs is read and each PID placed with the unit and slices of
 * that path; then it is read again until no new PID shows up (children
 * forked meanwhile), at most ROUNDS_MAX times (units-procs.c). A PID
 * written into cgroup.procs later (systemd moving a process into a new
 * scope) makes an IN_MODIFY of the directory, and so does a change of
 * cgroup.events ("populated"): the file is read again, and only new PIDs are placed.
 * The schedtune hierarchy is cgroup v1; moving a process there does not
 * change its v2 group, so cgroup.procs keeps listing it.
 *
 * When the kernel drops events (IN_Q_OVERFLOW), removals among them,
 * the watch starts over from the tree as it is.
 *
 * A user's manager (user@UID.service, Delegate=yes) is the user's to
 * shape: any user can make directories there. Below it only slices and
 * units are watched, nothing below a unit, and at most
 * USER_WATCHES_MAX directories per user, so that no user can spend
 * root's inotify watches (a limit PID 1 shares) or this daemon's time.
 * Warnings about watches are rate-limited for the same reason.
 *
 * The tree may vanish (tests remove it): then the nearest existing
 * ancestor is watched until it is back. IN_ATTRIB of an app scope
 * follows GNOME's user.xdg.inactive-since: removed from a scope that had
 * it means the app was focused. Any user can make scopes in their own
 * manager and set that xattr, so it counts only for scopes of a user who
 * has the active session on a seat (logind's /run/systemd/seats/, read
 * below the root prefix: tests make their own), at most FOCUS_BURST
 * (units-focus.c) changes a second: an ssh user cannot take the foreground. The focus
 * is reported with that seat: each seat has its own foreground. */
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "classify.h"
#include "event-util.h"
#include "events.h"
#include "log.h"
#include "rules.h"
#include "units-internal.h"
#include "units.h"
#include "util.h"

#define DEPTH_MAX 64U                   /* a loop of bind mounts, not a cgroup tree */
#define USER_WATCHES_MAX 512U
#define WARN_INTERVAL_USEC (10 * USEC_PER_SEC)
#define WARN_BURST 5U
#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_MODIFY | IN_ATTRIB | \
                    IN_ONLYDIR | IN_DONT_FOLLOW)
#define WAIT_MASK (IN_CREATE | IN_MOVED_TO | IN_ONLYDIR)

/* At most WARN_BURST warnings per WARN_INTERVAL_USEC. */
bool units_may_warn(Units *w) {
        uint64_t now = now_usec();

        if (w->warn_begin == 0 || now - w->warn_begin > WARN_INTERVAL_USEC) {
                w->warn_begin = now;
                w->warn_n = 0;
        }
        return w->warn_n++ < WARN_BURST;
}

UserWatches *units_user(Units *w, uid_t uid, bool create) {
        UserWatches *u;

        for (size_t i = 0; i < w->n_users; i++)
                if (w->users[i].uid == uid)
                        return &w->users[i];
        if (!create)
                return NULL;
        u = realloc(w->users, (w->n_users + 1) * sizeof(UserWatches));
        if (!u)
                return NULL;
        w->users = u;
        w->users[w->n_users] = (UserWatches) { .uid = uid };
        return &w->users[w->n_users++];
}

/* Whose a directory is (path below the top): the UID of the user@UID.service
 * it lies below, or -1 for the system's; and whether it may be watched:
 * below a user's manager only slices and units, and nothing below a
 * unit. */
static bool watch_path_allowed(const char *path, uid_t *ret_user) {
        size_t m = cgroup_path_user_manager(path, ret_user);
        bool below_unit = false;

        if (m == 0) {
                *ret_user = (uid_t) -1;
                return true;
        }
        for (const char *s = path + m, *e; *s; s = e) {
                size_t l;

                while (*s == '/')
                        s++;
                e = strchrnul(s, '/');
                l = (size_t) (e - s);
                if (l == 0)
                        break;
                if (below_unit)
                        return false;
                if (strn_has_suffix(s, l, ".service") || strn_has_suffix(s, l, ".scope"))
                        below_unit = true;
                else if (!strn_has_suffix(s, l, ".slice"))
                        return false;
        }
        return true;
}

static unsigned path_depth(const char *path) {
        unsigned n = 0;

        for (const char *c = path; *c; c++)
                n += *c == '/';
        return n;
}

char *watch_full_path(const Units *w, const char *path) {
        char *p;

        return asprintf(&p, "%s%s", w->top, path) < 0 ? NULL : p;
}

static int watch_find_wd(const Units *w, int wd) {
        for (size_t i = 0; i < w->n_dirs; i++)
                if (w->dirs[i]->wd == wd)
                        return (int) i;
        return -1;
}

static void watch_dir_free(WatchDir *d) {
        if (!d)
                return;
        free(d->path);
        free(d->pids);
        free(d);
}

static void watch_remove_at(Units *w, size_t i, bool rm_watch) {
        WatchDir *d = w->dirs[i];
        UserWatches *u = d->user != (uid_t) -1 ? units_user(w, d->user, false) : NULL;

        if (u && u->n > 0)
                u->n--;
        if (rm_watch)
                (void) inotify_rm_watch(w->fd, d->wd);
        w->dirs[i] = w->dirs[--w->n_dirs];
        watch_dir_free(d);
}

/* Forgets a directory and everything below it (moved away, removed). */
static void watch_remove_tree(Units *w, const char *path) {
        for (size_t i = 0; i < w->n_dirs;)
                if (cgroup_path_is_in(w->dirs[i]->path, path))
                        watch_remove_at(w, i, true);
                else
                        i++;
}

/* Watches a directory; returns it (or the one already watched there). */
static WatchDir *watch_add_dir(Units *w, const char *path) {
        _cleanup_(freep) char *full = NULL, *app = NULL;
        UserWatches *u = NULL;
        WatchDir *d, **dirs;
        uid_t user;
        size_t l;
        int wd, i;

        if (!watch_path_allowed(path, &user))
                return NULL;
        if (user != (uid_t) -1) {
                u = units_user(w, user, true);
                if (!u)
                        return NULL;
                if (u->n >= USER_WATCHES_MAX) {
                        if (units_may_warn(w))
                                log_warning(w->ctx.log, "Not watching %s: user %u has %u directories watched already.",
                                            path, (unsigned) user, u->n);
                        return NULL;
                }
        }
        full = watch_full_path(w, path);
        if (!full)
                return NULL;
        wd = inotify_add_watch(w->fd, full, WATCH_MASK);
        if (wd < 0) {
                if (errno == ENOSPC) {
                        /* Out of watches: said once, not for each of the
                         * directories that come, until a read of the
                         * whole tree, which tries them all again, gets
                         * through. */
                        if (!w->limit_hit && units_may_warn(w))
                                log_warning(w->ctx.log,
                                            "Cannot watch %s: the limit of inotify watches is reached (sysctl fs.inotify.max_user_watches). "
                                            "Units there are not followed until the tree is read again (a reload).", full);
                        w->limit_hit = w->limit_hit_now = true;
                } else if (errno != ENOENT && errno != ENOTDIR && units_may_warn(w))
                        log_warning_errno(w->ctx.log, -errno, "Cannot watch %s: %m", full);
                return NULL;
        }
        i = watch_find_wd(w, wd);
        if (i >= 0)
                return w->dirs[i];

        dirs = realloc(w->dirs, (w->n_dirs + 1) * sizeof(WatchDir *));
        if (!dirs)
                return NULL;
        w->dirs = dirs;
        d = calloc(1, sizeof(*d));
        if (!d || !(d->path = strdup(path))) {
                free(d);
                (void) inotify_rm_watch(w->fd, wd);
                return NULL;
        }
        d->wd = wd;
        d->inactive = -1;
        d->user = user;
        if (u)
                u->n++;
        l = cgroup_path_unit_prefix(path);
        d->unit = l > 0;
        /* GNOME marks the app's own scope */
        if (l > 0 && l == strlen(path) && classify_app_unit(path, &app) > 0 &&
            fnmatch("*.scope", path, 0) == 0)
                d->app_scope = true;
        w->dirs[w->n_dirs++] = d;
        if (d->app_scope)
                watch_check_inactive(w, d);
        return d;
}

/* Watches a directory and all below it, placing the processes of the
 * units in it (those seen before too with all). */
static void watch_add_tree(Units *w, const char *path, unsigned depth, bool all) {
        _cleanup_(freep) char *full = NULL;
        _cleanup_(closedirp) DIR *dir = NULL;
        struct dirent *de;
        WatchDir *d;

        if (depth > DEPTH_MAX)
                return;
        /* Watch first, then read: what appears meanwhile makes an event. */
        d = watch_add_dir(w, path);
        if (!d)
                return;
        watch_read_procs(w, d, all);
        full = watch_full_path(w, path);
        dir = full ? opendir(full) : NULL;
        if (!dir)
                return;
        while ((de = readdir(dir))) {
                _cleanup_(freep) char *sub = NULL;

                if (de->d_type != DT_DIR || de->d_name[0] == '.')
                        continue;
                if (asprintf(&sub, "%s/%s", path, de->d_name) < 0)
                        return;
                watch_add_tree(w, sub, depth + 1, all);
        }
}

/* After a read of the whole tree: whether the limit of watches stopped
 * it. */
static void watch_limit_check(Units *w) {
        if (w->limit_hit && !w->limit_hit_now) {
                log_info(w->ctx.log, "Every directory of the cgroup tree is watched again.");
                w->limit_hit = false;
        }
        w->limit_hit_now = false;
}

static void watch_clear(Units *w) {
        while (w->n_dirs > 0)
                watch_remove_at(w, w->n_dirs - 1, true);
        if (w->wait_wd >= 0)
                (void) inotify_rm_watch(w->fd, w->wait_wd);
        w->wait_wd = -1;
}

static bool is_dir(const char *path) {
        struct stat st;

        return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Attaches to the tree, or waits for it on the nearest ancestor that
 * exists. */
static void watch_attach(Units *w) {
        for (unsigned tries = 0; tries < 8; tries++) {
                _cleanup_(freep) char *p = NULL;
                char *slash;

                watch_clear(w);
                w->limit_hit_now = false;
                watch_add_tree(w, "", 0, false);
                watch_limit_check(w);
                if (w->n_dirs > 0) {
                        if (w->gone)
                                log_info(w->ctx.log, "The cgroup tree at %s is back.", w->top);
                        w->gone = false;
                        return;
                }

                p = strdup(w->top);
                if (!p)
                        return;
                while ((slash = strrchr(p, '/'))) {
                        slash[slash == p ? 1 : 0] = '\0';
                        w->wait_wd = inotify_add_watch(w->fd, p, WAIT_MASK);
                        if (w->wait_wd >= 0 || slash == p)
                                break;
                }
                /* The tree may have come meanwhile: then once more. */
                if (w->wait_wd < 0 || !is_dir(w->top))
                        break;
        }
        if (!w->gone)
                log_info(w->ctx.log, "No cgroup tree at %s: waiting for it to appear.", w->top);
        w->gone = true;
}

/* Every directory read again, and watched if it was missed. */
static void watch_rescan_all(Units *w) {
        w->limit_hit_now = false;
        watch_add_tree(w, "", 0, true);
        watch_limit_check(w);
}

/* Events were lost: the removal of directories too, so what is known is
 * dropped and the tree read again from scratch (every process placed
 * again). What the app scopes' xattr said is carried over, so that a
 * focus change lost with the events is acted on. */
static void watch_reattach(Units *w) {
        WatchDir **old = TAKE_PTR(w->dirs);
        size_t n_old = w->n_dirs;

        w->n_dirs = 0;
        for (size_t i = 0; i < n_old; i++)
                (void) inotify_rm_watch(w->fd, old[i]->wd);
        /* every watch is made anew, and counted anew */
        for (size_t i = 0; i < w->n_users; i++)
                w->users[i].n = 0;
        watch_attach(w);
        for (size_t i = 0; i < w->n_dirs; i++) {
                WatchDir *d = w->dirs[i];

                if (!d->app_scope)
                        continue;
                for (size_t k = 0; k < n_old; k++)
                        if (old[k]->app_scope && old[k]->inactive >= 0 && streq(old[k]->path, d->path)) {
                                d->inactive = old[k]->inactive;
                                watch_check_inactive(w, d);
                                break;
                        }
        }
        for (size_t i = 0; i < n_old; i++)
                watch_dir_free(old[i]);
        free(old);
}

static void watch_handle(Units *w, const struct inotify_event *e) {
        _cleanup_(freep) char *sub = NULL;
        WatchDir *d;
        int i;

        if (e->mask & IN_Q_OVERFLOW) {
                log_notice(w->ctx.log, "cgroup events were lost: reading the whole tree again.");
                watch_reattach(w);
                return;
        }
        if (e->wd == w->wait_wd) {
                /* something appeared (or the ancestor went): look again */
                (void) inotify_rm_watch(w->fd, w->wait_wd);
                w->wait_wd = -1;
                watch_attach(w);
                return;
        }
        i = watch_find_wd(w, e->wd);
        if (i < 0)
                return;
        d = w->dirs[i];

        if (e->mask & IN_IGNORED) {
                bool top = d->path[0] == '\0';

                watch_remove_at(w, (size_t) i, false);
                if (top) {
                        log_info(w->ctx.log, "The cgroup tree at %s vanished: waiting for it to come back.",
                                 w->top);
                        w->gone = true;
                        watch_attach(w);
                }
                return;
        }
        if (e->len == 0) {
                if ((e->mask & IN_ATTRIB) && d->app_scope)
                        watch_check_inactive(w, d);
                return;
        }
        if ((e->mask & (IN_CREATE | IN_MOVED_TO)) && (e->mask & IN_ISDIR)) {
                if (asprintf(&sub, "%s/%s", d->path, e->name) >= 0)
                        watch_add_tree(w, sub, path_depth(sub), false);
        } else if ((e->mask & (IN_MOVED_FROM | IN_DELETE)) && (e->mask & IN_ISDIR)) {
                /* A removed directory's own IN_IGNORED drops its entry
                 * too; this does not depend on it, nor on which comes
                 * first. */
                if (asprintf(&sub, "%s/%s", d->path, e->name) >= 0) {
                        watch_remove_tree(w, sub);
                        if (w->ctx.sink->cgroup_gone)
                                w->ctx.sink->cgroup_gone(w->ctx.sink->userdata, sub);
                }
        } else if ((e->mask & IN_MODIFY) &&
                   (streq(e->name, "cgroup.procs") || streq(e->name, "cgroup.events")))
                watch_read_procs(w, d, false);
}

/* One buffer per wakeup: a flood of units (or the events the handling
 * itself causes) must not keep the loop here, where D-Bus calls and the
 * watchdog's keep-alive wait. The descriptor is level-triggered: what is
 * left wakes the loop again. */
static int on_inotify(sd_event_source *s, int fd, uint32_t revents, void *userdata) {
        char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
        Units *w = userdata;
        ssize_t n;

        (void) s, (void) revents;
        n = read(fd, buf, sizeof(buf));
        for (char *p = buf; n > 0 && p < buf + n;) {
                const struct inotify_event *e = (const struct inotify_event *) p;

                watch_handle(w, e);
                p += sizeof(*e) + e->len;
        }
        return 0;
}

/* The v2 tree: /sys/fs/cgroup, or its "unified" child on a hybrid
 * system. */
static char *cgroup_top(const char *root) {
        _cleanup_(freep) char *base = path_join_root(root, "/sys/fs/cgroup"), *procs = NULL,
                              *unified = NULL;

        if (!base)
                return NULL;
        procs = path_join(base, "cgroup.procs");
        unified = path_join(base, "unified/cgroup.procs");
        if (!procs || !unified)
                return NULL;
        if (access(procs, F_OK) < 0 && access(unified, F_OK) == 0)
                return path_join(base, "unified");
        return TAKE_PTR(base);
}

int units_new(const SourceContext *ctx, bool following, Units **ret) {
        _cleanup_(units_freep) Units *w = NULL;
        int r;

        w = calloc(1, sizeof(*w));
        if (!w)
                return -ENOMEM;
        w->ctx = *ctx;
        w->following = following;
        w->fd = -1;
        w->wait_wd = -1;
        w->top = cgroup_top(ctx->root);
        if (!w->top)
                return -ENOMEM;
        w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        if (w->fd < 0)
                return -errno;
        r = sd_event_add_io(ctx->event, &w->io, w->fd, EPOLLIN, on_inotify, w);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(w->io, "cgroup-inotify");
        watch_attach(w);
        log_debug(ctx->log, "Watching %zu directories of the cgroup tree.", w->n_dirs);
        *ret = TAKE_PTR(w);
        return 0;
}

Units *units_free(Units *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->io);
        for (size_t i = 0; i < w->n_dirs; i++)
                watch_dir_free(w->dirs[i]);
        free(w->dirs);
        free(w->users);
        if (w->fd >= 0)
                close(w->fd);
        free(w->top);
        free(w);
        return NULL;
}

void units_set_following(Units *w, bool following) {
        if (w)
                w->following = following;
}

void units_rescan(Units *w) {
        if (!w || w->n_dirs == 0)
                return;
        /* The focus first, so that the processes are placed with it. */
        for (size_t i = 0; i < w->n_dirs; i++)
                if (w->dirs[i]->app_scope)
                        watch_check_inactive(w, w->dirs[i]);
        watch_rescan_all(w);
}

size_t units_n_dirs(const Units *w) {
        return w ? w->n_dirs : 0;
}

bool units_attached(const Units *w) {
        return w && w->n_dirs > 0;
}
