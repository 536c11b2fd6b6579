/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hint-session bookkeeping; pure logic with an explicit clock. */
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

void hint_table_init(HintTable *s, const HintConfig *config) {
        *s = (HintTable) { .config = config };
}

static HintSession *hint_session_free(HintSession *x) {
        if (!x)
                return NULL;
        free(x->owner);
        free(x->tids);
        free(x->starts);
        free(x);
        return NULL;
}

void hint_table_done(HintTable *s) {
        for (size_t i = 0; i < s->n; i++)
                hint_session_free(s->sessions[i]);
        free(s->sessions);
        *s = (HintTable) { .config = s->config };
}

HintSession *hint_table_find(const HintTable *s, uint32_t id) {
        for (size_t i = 0; i < s->n; i++)
                if (s->sessions[i]->id == id)
                        return s->sessions[i];
        return NULL;
}

static int tids_valid(const pid_t *tids, size_t n) {
        if (n == 0 || n > HINT_THREADS_MAX)
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

static unsigned count(const HintTable *s, const char *owner, uid_t uid) {
        unsigned n = 0;

        for (size_t i = 0; i < s->n; i++)
                if (owner ? streq(s->sessions[i]->owner, owner) : s->sessions[i]->uid == uid)
                        n++;
        return n;
}

int hint_table_create(HintTable *s, const char *owner, uid_t uid, pid_t pid, const pid_t *tids,
                    size_t n_tids, uint64_t target_ns, uint64_t now, HintSession **ret) {
        HintSession *x, **n;
        int r;

        if (!owner || pid <= 0)
                return -EINVAL;
        r = tids_valid(tids, n_tids);
        if (r < 0)
                return r;
        if (s->n >= HINT_SESSIONS_MAX || count(s, owner, 0) >= HINT_SESSIONS_PER_OWNER_MAX)
                return -EUSERS;
        if (uid != 0 && count(s, NULL, uid) >= HINT_SESSIONS_PER_UID_MAX)
                return -EUSERS;

        x = calloc(1, sizeof(HintSession));
        if (!x)
                return -ENOMEM;
        r = hint_controller_init(&x->ctl, s->config, target_ns, now);
        if (r < 0) {
                hint_session_free(x);
                return r;
        }
        x->owner = strdup(owner);
        x->tids = memdup(tids, n_tids * sizeof(pid_t));
        x->starts = calloc(n_tids, sizeof(uint64_t));
        n = realloc(s->sessions, (s->n + 1) * sizeof(HintSession *));
        if (!x->owner || !x->tids || !x->starts || !n) {
                if (n)
                        s->sessions = n;
                hint_session_free(x);
                return -ENOMEM;
        }
        s->sessions = n;
        /* Ids are not reused while the counter lasts, so that a stale
         * object path never reaches another client's session. */
        do
                x->id = ++s->last_id;
        while (x->id == 0 || hint_table_find(s, x->id));
        x->uid = uid;
        x->pid = pid;
        x->n_tids = n_tids;
        x->tokens = HINT_REPORT_BURST;
        x->refilled = now;
        s->sessions[s->n++] = x;
        if (ret)
                *ret = x;
        return 0;
}

int hint_table_close(HintTable *s, uint32_t id, const char *owner, void **ret_userdata) {
        for (size_t i = 0; i < s->n; i++) {
                HintSession *x = s->sessions[i];

                if (x->id != id)
                        continue;
                if (owner && !streq(x->owner, owner))
                        return -EPERM;
                if (ret_userdata)
                        *ret_userdata = x->userdata;
                hint_session_free(x);
                memmove(s->sessions + i, s->sessions + i + 1, (s->n - i - 1) * sizeof(HintSession *));
                s->n--;
                return 0;
        }
        return -ENOENT;
}

int hint_table_find_owner(const HintTable *s, const char *owner) {
        for (size_t i = 0; i < s->n; i++)
                if (streq(s->sessions[i]->owner, owner))
                        return (int) i;
        return -ENOENT;
}

int hint_table_set_threads(HintSession *x, const pid_t *tids, size_t n_tids) {
        _cleanup_(freep) uint64_t *st = NULL;
        pid_t *t;
        int r;

        r = tids_valid(tids, n_tids);
        if (r < 0)
                return r;
        st = calloc(n_tids, sizeof(uint64_t));
        t = memdup(tids, n_tids * sizeof(pid_t));
        if (!t || !st) {
                free(t);
                return -ENOMEM;
        }
        free(x->tids);
        free(x->starts);
        x->tids = t;
        x->starts = TAKE_PTR(st);
        x->n_tids = n_tids;
        return 0;
}

void hint_table_pin_threads(HintSession *x, const uint64_t *starts) {
        memcpy(x->starts, starts, x->n_tids * sizeof(uint64_t));
}

void hint_table_drop_thread(HintSession *x, size_t i) {
        memmove(x->tids + i, x->tids + i + 1, (x->n_tids - i - 1) * sizeof(pid_t));
        memmove(x->starts + i, x->starts + i + 1, (x->n_tids - i - 1) * sizeof(uint64_t));
        x->n_tids--;
}

int hint_table_report(HintSession *x, const HintWork *work, size_t n, uint64_t now) {
        uint64_t earned;
        int r;

        if (now > x->refilled) {
                earned = (now - x->refilled) / HINT_REPORT_INTERVAL_NS;
                if (earned > 0) {
                        x->tokens = (unsigned) MIN((uint64_t) x->tokens + earned,
                                                   (uint64_t) HINT_REPORT_BURST);
                        x->refilled += earned * HINT_REPORT_INTERVAL_NS;
                }
        }
        if (x->tokens == 0)
                return -EBUSY;
        r = hint_controller_report(&x->ctl, work, n, now);
        if (r < 0)
                return r;
        x->tokens--;
        return 0;
}

unsigned hint_table_forget_thread(HintTable *s, pid_t tid) {
        unsigned found = 0;

        for (size_t i = 0; i < s->n; i++) {
                HintSession *x = s->sessions[i];

                for (size_t j = 0; j < x->n_tids; j++)
                        if (x->tids[j] == tid) {
                                hint_table_drop_thread(x, j);
                                found++;
                                break;
                        }
        }
        return found;
}

int hint_table_thread_output(const HintTable *s, pid_t tid, uint64_t now, unsigned *ret) {
        bool found = false;
        unsigned best = 0;

        for (size_t i = 0; i < s->n; i++) {
                const HintSession *x = s->sessions[i];

                for (size_t j = 0; j < x->n_tids; j++)
                        if (x->tids[j] == tid) {
                                best = MAX(best, hint_controller_output(&x->ctl, now));
                                found = true;
                        }
        }
        if (!found)
                return -ENOENT;
        *ret = best;
        return 0;
}

uint64_t hint_table_next_change(const HintTable *s, uint64_t now) {
        uint64_t next = 0, t;

        for (size_t i = 0; i < s->n; i++) {
                t = hint_controller_next_change(&s->sessions[i]->ctl, now);
                if (t != 0 && (next == 0 || t < next))
                        next = t;
        }
        return next;
}
