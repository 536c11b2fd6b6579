/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The none backend: tracks state and logs, changes nothing, so boostd
 * starts on any kernel. */
#include "backend.h"
#include "log.h"

static int none_probe(Backend *b) {
        backend_probe_says(b, "it needs nothing of the kernel: boosts are tracked, not applied");
        return PROBE_SUCCESS;
}

static int none_start(Backend *b, const char *const *groups, size_t n) {
        for (size_t i = 0; i < n; i++)
                (void) state_get_group(b->state, groups[i], true);
        return 0;
}

static int none_apply(Backend *b, const char *group, unsigned boost) {
        StateGroup *g = state_get_group(b->state, group, true);

        if (g) {
                g->wrote = boost;
                g->has_wrote = true;
        }
        log_debug(b->log, "Group %s: boost %u (no kernel support, not applied).", group, boost);
        return 0;
}

static int none_attach(Backend *b, const char *group, const ProcessId *id) {
        State *j = b->state;

        log_debug(b->log, "PID %d: group %s (no kernel support, not moved).", (int) id->pid, group);
        j->dirty = true;
        if (streq(group, "root")) {
                state_placed_remove(j, id->pid);
                return 0;
        }
        return state_placed_set(j, id, group);
}

static int none_restore(Backend *b) {
        state_clear_kernel(b->state);
        b->state->dirty = true;
        return 0;
}

const BackendVTable backend_none = {
        .name = "none",
        .probe = none_probe,
        .start = none_start,
        .apply = none_apply,
        .attach = none_attach,
        .restore = none_restore,
};
