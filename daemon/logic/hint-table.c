/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Work-session bookkeeping; pure logic with an explicit clock. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "hint-table.h"
#include "util.h"

static void *memdup(const void *p, size_t l) {
        void *c = malloc(l);

        return c ? memcpy(c, p, l) : NULL;
}

void sessions_init(Sessions *s, const SessionsConfig *config) {
        *s = (Sessions) { .config = config };
}

static Session *session_free(Session *x) {
        if (!x)
                return NULL;
        free(x->owner);
        free(x->tids);
        free(x);
        return NULL;
}

void sessions_done(Sessions *s) {
        for (size_t i = 0; i < s->n; i++)
                session_free(s->sessions[i]);
        free(s->sessions);
        *s = (Sessions) { .config = s->config };
}

Session *sessions_find(const Sessions *s, uint32_t id) {
        for (size_t i = 0; i < s->n; i++)
                if (s->sessions[i]->id == id)
                        return s->sessions[i];
        return NULL;
}

static int tids_valid(const pid_t *tids, size_t n) {
        if (n == 0 || n > SESSION_THREADS_MAX)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                if (tids[i] <= 0)
                        return -EINVAL;
                for (size_t j = 0; j < i; j++)
                        if (tids[j] == tids[i])
                                return -EINVAL;
        }
        return 0;
}

static unsigned count(const Sessions *s, const char *owner, uid_t uid) {
        unsigned n = 0;

        for (size_t i = 0; i < s->n; i++)
                if (owner ? streq(s->sessions[i]->owner, owner) : s->sessions[i]->uid == uid)
                        n++;
        return n;
}

int sessions_create(Sessions *s, const char *owner, uid_t uid, pid_t pid, const pid_t *tids,
                    size_t n_tids, uint64_t target_ns, uint64_t now, Session **ret) {
        Session *x, **n;
        int r;

        if (!owner || pid <= 0)
                return -EINVAL;
        r = tids_valid(tids, n_tids);
        if (r < 0)
                return r;
        if (s->n >= SESSIONS_MAX || count(s, owner, 0) >= SESSIONS_PER_OWNER_MAX)
                return -EUSERS;
        if (uid != 0 && count(s, NULL, uid) >= SESSIONS_PER_UID_MAX)
                return -EUSERS;

        x = calloc(1, sizeof(Session));
        if (!x)
                return -ENOMEM;
        r = session_pid_init(&x->ctl, s->config, target_ns, now);
        if (r < 0) {
                session_free(x);
                return r;
        }
        x->owner = strdup(owner);
        x->tids = memdup(tids, n_tids * sizeof(pid_t));
        n = realloc(s->sessions, (s->n + 1) * sizeof(Session *));
        if (!x->owner || !x->tids || !n) {
                if (n)
                        s->sessions = n;
                session_free(x);
                return -ENOMEM;
        }
        s->sessions = n;
        /* Ids are not reused while the counter lasts, so that a stale
         * object path never reaches another client's session. */
        do
                x->id = ++s->last_id;
        while (x->id == 0 || sessions_find(s, x->id));
        x->uid = uid;
        x->pid = pid;
        x->n_tids = n_tids;
        x->tokens = SESSION_REPORT_BURST;
        x->refilled = now;
        s->sessions[s->n++] = x;
        if (ret)
                *ret = x;
        return 0;
}

int sessions_close(Sessions *s, uint32_t id, const char *owner, void **ret_userdata) {
        for (size_t i = 0; i < s->n; i++) {
                Session *x = s->sessions[i];

                if (x->id != id)
                        continue;
                if (owner && !streq(x->owner, owner))
                        return -EPERM;
                if (ret_userdata)
                        *ret_userdata = x->userdata;
                session_free(x);
                memmove(s->sessions + i, s->sessions + i + 1, (s->n - i - 1) * sizeof(Session *));
                s->n--;
                return 0;
        }
        return -ENOENT;
}

int sessions_find_owner(const Sessions *s, const char *owner) {
        for (size_t i = 0; i < s->n; i++)
                if (streq(s->sessions[i]->owner, owner))
                        return (int) i;
        return -ENOENT;
}

int sessions_set_threads(Session *x, const pid_t *tids, size_t n_tids) {
        pid_t *t;
        int r;

        r = tids_valid(tids, n_tids);
        if (r < 0)
                return r;
        t = memdup(tids, n_tids * sizeof(pid_t));
        if (!t)
                return -ENOMEM;
        free(x->tids);
        x->tids = t;
        x->n_tids = n_tids;
        return 0;
}

int sessions_report(Session *x, const SessionWork *work, size_t n, uint64_t now) {
        uint64_t earned;
        int r;

        if (now > x->refilled) {
                earned = (now - x->refilled) / SESSION_REPORT_INTERVAL_NS;
                if (earned > 0) {
                        x->tokens = (unsigned) MIN((uint64_t) x->tokens + earned,
                                                   (uint64_t) SESSION_REPORT_BURST);
                        x->refilled += earned * SESSION_REPORT_INTERVAL_NS;
                }
        }
        if (x->tokens == 0)
                return -EBUSY;
        r = session_pid_report(&x->ctl, work, n, now);
        if (r < 0)
                return r;
        x->tokens--;
        return 0;
}

unsigned sessions_forget_thread(Sessions *s, pid_t tid) {
        unsigned found = 0;

        for (size_t i = 0; i < s->n; i++) {
                Session *x = s->sessions[i];

                for (size_t j = 0; j < x->n_tids; j++)
                        if (x->tids[j] == tid) {
                                memmove(x->tids + j, x->tids + j + 1,
                                        (x->n_tids - j - 1) * sizeof(pid_t));
                                x->n_tids--;
                                found++;
                                break;
                        }
        }
        return found;
}

int sessions_thread_output(const Sessions *s, pid_t tid, uint64_t now, unsigned *ret) {
        bool found = false;
        unsigned best = 0;

        for (size_t i = 0; i < s->n; i++) {
                const Session *x = s->sessions[i];

                for (size_t j = 0; j < x->n_tids; j++)
                        if (x->tids[j] == tid) {
                                best = MAX(best, session_pid_output(&x->ctl, now));
                                found = true;
                        }
        }
        if (!found)
                return -ENOENT;
        *ret = best;
        return 0;
}

uint64_t sessions_next_change(const Sessions *s, uint64_t now) {
        uint64_t next = 0, t;

        for (size_t i = 0; i < s->n; i++) {
                t = session_pid_next_change(&s->sessions[i]->ctl, now);
                if (t != 0 && (next == 0 || t < next))
                        next = t;
        }
        return next;
}
