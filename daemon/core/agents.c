/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The agents' table and its limits (see agents.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-login.h>

#include "agents.h"
#include "macro.h"

Agent *agents_find(Agents *a, const char *name) {
        for (size_t i = 0; name && i < a->n; i++)
                if (streq(a->agents[i].name, name))
                        return &a->agents[i];
        return NULL;
}

int agents_add(Agents *a, const char *name, uid_t uid, pid_t pid, Agent **ret) {
        _cleanup_(freep) char *session = NULL;
        Agent n = { .uid = uid, .pid = pid };
        unsigned same_uid = 0;

        for (size_t i = 0; i < a->n; i++)
                same_uid += a->agents[i].uid == uid;
        if (a->n >= AGENTS_MAX || same_uid >= AGENTS_PER_UID_MAX)
                return -EUSERS;
        /* a user service has no session of its own: its user's display
         * session is the one it serves */
        if (sd_pid_get_session(pid, &session) < 0)
                (void) sd_uid_get_display(uid, &session);
        snprintf(n.session, sizeof(n.session), "%s", session ?: "");
        n.name = strdup(name);
        if (!n.name)
                return -ENOMEM;
        a->agents[a->n] = n;
        *ret = &a->agents[a->n++];
        return 0;
}

void agents_remove(Agents *a, Agent *x) {
        free(x->name);
        memmove(x, x + 1, (size_t) (a->agents + a->n - x - 1) * sizeof(Agent));
        a->n--;
}
