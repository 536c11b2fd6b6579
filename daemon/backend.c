/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Backend selection, in priority order, most specific first. */
#include <string.h>

#include "backend.h"
#include "log.h"
#include "util.h"

static const BackendVTable *const backends[] = {
        &backend_schedtune,
        &backend_uclamp,
        &backend_none,
};

Backend *backend_new(const char *root, const char *mount_point, const char *proc_root,
                     Journal *journal, bool restore_found, const LogContext *log) {
        Backend *b = calloc(1, sizeof(Backend));

        if (!b)
                return NULL;
        b->root = strdup(root);
        b->mount_point = strdup(mount_point);
        b->proc_root = strdup(proc_root);
        b->journal = journal;
        b->log = log;
        b->restore_found = restore_found;
        b->controller = "schedtune";
        b->boost_file = "schedtune.boost";
        if (!b->root || !b->mount_point || !b->proc_root)
                return backend_free(b);
        return b;
}

Backend *backend_free(Backend *b) {
        if (!b)
                return NULL;
        free(b->root);
        free(b->mount_point);
        free(b->path);
        free(b->proc_root);
        free(b->uclamp_group);
        free(b);
        return NULL;
}

const char *backend_name(const Backend *b) {
        return b && b->vt ? b->vt->name : "none";
}

int backend_select(Backend *b, const char *name) {
        bool any = streq(name, "auto");

        for (size_t i = 0; i < ELEMENTSOF(backends); i++) {
                const BackendVTable *vt = backends[i];
                int r;

                if (!any && !streq(name, vt->name))
                        continue;
                b->vt = vt;
                r = vt->probe(b);
                if (r == PROBE_SUCCESS) {
                        log_info(b->log, "Using backend %s.", vt->name);
                        return 0;
                }
                if (r < 0)
                        log_warning_errno(b->log, r, "Backend %s: probe failed: %m", vt->name);
                else
                        log_info(b->log, "Backend %s: %s.", vt->name,
                                 r == PROBE_DEFER ? "not ready yet, trying the next" : "not available");
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
