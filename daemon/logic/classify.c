/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Which class a process belongs in; pure logic. */
#include <fnmatch.h>
#include <string.h>

#include "classify.h"
#include "macro.h"

static const char *const reason_names[_CLASSIFY_REASON_MAX] = {
        [CLASSIFY_EXPLICIT] = "classified",
        [CLASSIFY_PINNED] = "pinned rule",
        [CLASSIFY_GAME] = "game",
        [CLASSIFY_FOREGROUND] = "foreground",
        [CLASSIFY_INHERITED] = "inherited",
        [CLASSIFY_RULE] = "rule",
        [CLASSIFY_DEFAULT] = "default",
};

const char *classify_reason_to_string(ClassifyReason r) {
        if (r < 0 || r >= _CLASSIFY_REASON_MAX)
                return NULL;
        return reason_names[r];
}

int classify_process(const Config *c, const ClassifyFacts *f, ClassifyReason *ret_reason) {
        int perf = config_find_class(c, "performance");
        int inter = config_find_class(c, "interactive");
        ClassifyReason reason;
        int rule, class;

        if (f->explicit_class >= 0 && (size_t) f->explicit_class < c->n_classes) {
                reason = CLASSIFY_EXPLICIT;
                class = f->explicit_class;
                goto done;
        }

        rule = f->info ? rules_find(c, f->info) : -ENOENT;
        if (rule >= 0 && c->rules[rule].pin) {
                reason = CLASSIFY_PINNED;
                class = c->rules[rule].class_index;
                goto done;
        }
        class = rule >= 0 ? c->rules[rule].class_index : c->default_class_index;
        reason = rule >= 0 ? CLASSIFY_RULE : CLASSIFY_DEFAULT;

        if (f->game && perf >= 0) {
                reason = CLASSIFY_GAME;
                class = perf;
        } else if (f->foreground) {
                /* The foreground never goes below performance its rule
                 * gives it. */
                reason = CLASSIFY_FOREGROUND;
                if (class != perf && inter >= 0)
                        class = inter;
        } else if (f->inherited && f->inherited_class < c->n_classes) {
                reason = CLASSIFY_INHERITED;
                class = f->inherited_class;
        }
done:
        if (ret_reason)
                *ret_reason = reason;
        return class;
}

int classify_app_unit(const char *cgroup, char **ret) {
        static const char *const shared[] = { "session-*.scope", "user@*.service", "init.scope" };
        char name[256];
        size_t l = cgroup ? cgroup_path_unit_prefix(cgroup) : 0;

        *ret = NULL;
        if (l == 0 || !cgroup_path_unit(cgroup, name, sizeof(name)))
                return 0;
        for (size_t i = 0; i < ELEMENTSOF(shared); i++)
                if (fnmatch(shared[i], name, 0) == 0)
                        return 0;
        *ret = strndup(cgroup, l);
        return *ret ? 1 : -ENOMEM;
}
