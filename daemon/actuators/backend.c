/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Backend selection, in priority order, most specific first. */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "log.h"
#include "util.h"

static const BackendVTable *const backends[] = {
        &backend_schedtune,
        &backend_schedtune2,
        &backend_uclamp,
        &backend_none,
};

Backend *backend_new(const char *root, const char *mount_point, const char *proc_root,
                     State *state, bool restore_found, const LogContext *log) {
        Backend *b = calloc(1, sizeof(Backend));

        if (!b)
                return NULL;
        b->root = strdup(root);
        b->mount_point = strdup(mount_point);
        b->proc_root = strdup(proc_root);
        b->state = state;
        b->log = log;
        b->restore_found = restore_found;
        if (!b->root || !b->mount_point || !b->proc_root)
                return backend_free(b);
        return b;
}

void *backend_data(const Backend *b, const BackendVTable *vt) {
        return b->data_vt == vt ? b->data : NULL;
}

void backend_set_data(Backend *b, const BackendVTable *vt, void *data) {
        if (b->data && b->data_vt->done)
                b->data_vt->done(b->data);
        b->data = data;
        b->data_vt = data ? vt : NULL;
}

Backend *backend_free(Backend *b) {
        if (!b)
                return NULL;
        backend_set_data(b, NULL, NULL);
        free(b->root);
        free(b->mount_point);
        free(b->proc_root);
        free(b->threads);
        free(b);
        return NULL;
}

int backend_set_threads(Backend *b, pid_t pid, int (*set)(pid_t tid, unsigned value), unsigned value) {
        _cleanup_(freep) char *p = NULL;
        _cleanup_(closedirp) DIR *d = NULL;
        struct dirent *de;
        int r = 0, k;

        if (asprintf(&p, "%s/%d/task", b->proc_root, (int) pid) < 0)
                return -ENOMEM;
        d = opendir(p);
        if (!d)
                return errno == ENOENT ? -ESRCH : -errno;
        while ((de = readdir(d))) {
                unsigned tid;

                if (parse_uint(de->d_name, INT32_MAX, &tid) < 0)
                        continue;
                if (backend_thread_claimed(b, (pid_t) tid))
                        continue;       /* a hint session's */
                k = set((pid_t) tid, value);
                if (k < 0 && k != -ESRCH && r == 0)
                        r = k;
        }
        return r;
}

void backend_set_placed(Backend *b, const char *group, int (*set)(pid_t tid, unsigned value),
                        unsigned value) {
        State *j = b->state;

        for (size_t i = 0; i < j->n_placed; i++) {
                int r;

                if (!streq(j->placed[i].group, group))
                        continue;
                if (process_id_is_current(b->proc_root, &j->placed[i].id) <= 0)
                        continue;
                r = backend_set_threads(b, j->placed[i].id.pid, set, value);
                if (r < 0)
                        log_warning_errno(b->log, r, "Failed to set the threads of PID %d, ignoring: %m",
                                          (int) j->placed[i].id.pid);
        }
}

int backend_thread_set_class(Backend *b, const BackendThread *t, int (*set)(pid_t tid, unsigned value),
                             unsigned (*map)(unsigned boost)) {
        StatePid *p = state_pid_find(b->state->placed, b->state->n_placed, t->tgid);
        StateGroup *g = p ? state_get_group(b->state, p->group, false) : NULL;

        if (!set || !g || !g->has_wrote)
                return 0;
        return set(t->tid, map ? map(g->wrote) : g->wrote);
}

int backend_attach_threads(Backend *b, const char *group, const ProcessId *id,
                           int (*set)(pid_t tid, unsigned value), unsigned (*map)(unsigned boost)) {
        State *j = b->state;
        StateGroup *g = state_get_group(j, group, false);
        unsigned boost = streq(group, "root") || !g ? 0 : g->wrote;
        int r;

        r = backend_set_threads(b, id->pid, set, map ? map(boost) : boost);
        if (r < 0)
                return r;
        if (streq(group, "root"))
                state_placed_remove(j, id->pid);
        else {
                r = state_placed_set(j, id, group);
                if (r < 0)
                        return r;
        }
        /* saved by the caller, once per burst */
        j->dirty = true;
        return 0;
}

int backend_unplace(Backend *b, const char *group) {
        State *j = b->state;
        char cur[CLASS_NAME_MAX];
        int ret = 0, r;

        if (!b->vt)
                return 0;
        for (size_t i = 0; i < j->n_placed;) {
                StatePid *p = &j->placed[i];
                ProcessId id = p->id;

                if (group && !streq(p->group, group)) {
                        i++;
                        continue;
                }
                /* Still the process boostd placed, and still where it put
                 * it: moved back (which takes it off the list). Otherwise
                 * it is gone, its PID is someone else's now, or it was
                 * moved by hand since: only forgotten. */
                if (process_id_is_current(b->proc_root, &id) > 0 &&
                    (!b->vt->group_of ||
                     (b->vt->group_of(b, id.pid, cur, sizeof(cur)) >= 0 && streq(cur, p->group)))) {
                        r = b->vt->attach(b, "root", &id);
                        if (r >= 0)
                                continue;
                        if (r != -ESRCH)
                                ret = log_warning_errno(b->log, r, "Failed to move PID %d back to root: %m",
                                                        (int) id.pid);
                }
                state_placed_remove(j, id.pid);
                j->dirty = true;
        }
        return ret;
}

int backend_restore(Backend *b) {
        int r;

        if (!b->vt)
                return 0;
        r = backend_unplace(b, NULL);
        return b->vt->restore(b) ?: r;
}

int backend_release(Backend *b, const char *group) {
        int r;

        if (!b || !b->vt)
                return 0;
        r = backend_unplace(b, group);
        if (b->vt->release)
                return b->vt->release(b, group) ?: r;
        return b->vt->apply(b, group, 0) ?: r;
}

const char *backend_name(const Backend *b) {
        return b && b->vt ? b->vt->name : "none";
}

void backend_probe_says(Backend *b, const char *fmt, ...) {
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(b->probe_says, sizeof(b->probe_says), fmt, ap);
        va_end(ap);
}

const char *backend_reason(const Backend *b) {
        return b->reason;
}

int backend_select(Backend *b, const char *name) {
        bool any = streq(name, "auto");
        char tried[sizeof(b->reason)] = "";

        for (size_t i = 0; i < ELEMENTSOF(backends); i++) {
                const BackendVTable *vt = backends[i];
                size_t l = strlen(tried);
                int r;

                if (!any && !streq(name, vt->name))
                        continue;
                b->vt = vt;
                b->probe_says[0] = '\0';
                r = vt->probe(b);
                if (r == PROBE_SUCCESS) {
                        snprintf(b->reason, sizeof(b->reason), "%s%s%s%s", b->probe_says,
                                 any ? "" : " (Backend=)", tried[0] ? "; " : "", tried);
                        log_info(b->log, "Using backend %s: %s.", vt->name, b->reason);
                        return 0;
                }
                if (r < 0) {
                        log_warning_errno(b->log, r, "Backend %s: probe failed: %m", vt->name);
                        backend_probe_says(b, "its probe failed: %s", strerror(-r));
                } else
                        log_info(b->log, "Backend %s: %s: %s.", vt->name,
                                 r == PROBE_DEFER ? "not ready yet, trying the next" : "not available",
                                 b->probe_says);
                snprintf(tried + l, sizeof(tried) - l, "%snot %s: %s", l ? "; " : "", vt->name,
                         b->probe_says);
                b->vt = NULL;
                if (!any)
                        return -EOPNOTSUPP;
        }
        return any ? -EOPNOTSUPP : -EINVAL;
}

unsigned uclamp_from_boost(unsigned boost) {
        if (boost > 100)
                boost = 100;
        return (boost * 1024 + 50) / 100;
}
