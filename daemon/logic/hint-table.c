/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hint-session bookkeeping; pure logic with an explicit clock. */
#include <assert.h>
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
        for (size_t i = 0; i < s->n_clients; i++)
                free(s->clients[i].owner);
        free(s->clients);
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

static int naming_cmp(const void *a, const void *b) {
        const HintNaming *x = a, *y = b;

        return (x->tid > y->tid) - (x->tid < y->tid);
}

/* The (tid, session) index, made again after each change of who names
 * which thread: those are rare next to the calls that look it up. */
static void index_rebuild(HintTable *s) {
        size_t k = 0;

        for (size_t i = 0; i < s->n; i++)
                for (size_t j = 0; j < s->sessions[i]->n_tids; j++)
                        s->index[k++] = (HintNaming) { s->sessions[i]->tids[j], s->sessions[i] };
        qsort(s->index, k, sizeof(HintNaming), naming_cmp);
        s->n_index = k;
}

/* The first entry of tid in the index, or NULL. */
static const HintNaming *index_first(const HintTable *s, pid_t tid) {
        size_t lo = 0, hi = s->n_index;

        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;

                if (s->index[mid].tid < tid)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        return lo < s->n_index && s->index[lo].tid == tid ? &s->index[lo] : NULL;
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
        s->sessions[s->n++] = x;
        index_rebuild(s);
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
                index_rebuild(s);
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

int hint_table_set_threads(HintTable *s, HintSession *x, const pid_t *tids, size_t n_tids) {
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
        index_rebuild(s);
        return 0;
}

void hint_table_pin_threads(HintSession *x, const uint64_t *starts) {
        memcpy(x->starts, starts, x->n_tids * sizeof(uint64_t));
}

static void drop(HintSession *x, size_t i) {
        memmove(x->tids + i, x->tids + i + 1, (x->n_tids - i - 1) * sizeof(pid_t));
        memmove(x->starts + i, x->starts + i + 1, (x->n_tids - i - 1) * sizeof(uint64_t));
        x->n_tids--;
}

void hint_table_drop_thread(HintTable *s, HintSession *x, size_t i) {
        drop(x, i);
        index_rebuild(s);
}

static HintClient *client_find(HintTable *s, const char *owner) {
        for (size_t i = 0; i < s->n_clients; i++)
                if (streq(s->clients[i].owner, owner))
                        return &s->clients[i];
        return NULL;
}

static void client_refill(HintClient *c, uint64_t now) {
        uint64_t earned;

        if (now <= c->refilled)
                return;
        earned = (now - c->refilled) / HINT_REPORT_INTERVAL_NS;
        if (earned == 0)
                return;
        c->tokens = (unsigned) MIN((uint64_t) c->tokens + earned, (uint64_t) HINT_REPORT_BURST);
        c->refilled += earned * HINT_REPORT_INTERVAL_NS;
}

/* Buckets of clients with no session left that are full again go: a new
 * one would be the same. */
static void clients_prune(HintTable *s, uint64_t now) {
        for (size_t i = 0; i < s->n_clients;) {
                HintClient *c = &s->clients[i];

                client_refill(c, now);
                if (c->tokens < HINT_REPORT_BURST || count(s, c->owner, 0) > 0) {
                        i++;
                        continue;
                }
                free(c->owner);
                memmove(c, c + 1, (s->n_clients - i - 1) * sizeof(HintClient));
                s->n_clients--;
        }
}

int hint_table_may_call(HintTable *s, const char *owner, uint64_t now) {
        HintClient *c, *n;

        if (!owner)
                return -EINVAL;
        clients_prune(s, now);
        c = client_find(s, owner);
        if (!c) {
                n = realloc(s->clients, (s->n_clients + 1) * sizeof(HintClient));
                if (!n)
                        return -ENOMEM;
                s->clients = n;
                c = &s->clients[s->n_clients];
                *c = (HintClient) { .owner = strdup(owner), .tokens = HINT_REPORT_BURST, .refilled = now };
                if (!c->owner)
                        return -ENOMEM;
                s->n_clients++;
        }
        client_refill(c, now);
        return c->tokens > 0 ? 0 : -EBUSY;
}

void hint_table_spend(HintTable *s, const char *owner) {
        HintClient *c = owner ? client_find(s, owner) : NULL;

        if (c && c->tokens > 0)
                c->tokens--;
}

int hint_table_report(HintTable *s, HintSession *x, const HintWork *work, size_t n, uint64_t now) {
        int r;

        r = hint_table_may_call(s, x->owner, now);
        if (r < 0)
                return r;
        r = hint_controller_report(&x->ctl, work, n, now);
        if (r < 0)
                return r;
        hint_table_spend(s, x->owner);
        return 0;
}

int hint_table_thread_output(const HintTable *s, pid_t tid, uint64_t now, unsigned *ret) {
        const HintNaming *e = index_first(s, tid);
        unsigned best = 0;

        if (!e)
                return -ENOENT;
        for (; e < s->index + s->n_index && e->tid == tid; e++)
                best = MAX(best, hint_controller_output(&e->x->ctl, now));
        *ret = best;
        return 0;
}

const HintNaming *hint_table_namings(const HintTable *s, pid_t tid, size_t *ret_n) {
        const HintNaming *e = index_first(s, tid), *end = s->index + s->n_index;
        size_t n = 0;

        while (e && e + n < end && e[n].tid == tid)
                n++;
        *ret_n = n;
        return e;
}

size_t hint_table_thread_index(const HintSession *x, pid_t tid) {
        size_t i = 0;

        while (i < x->n_tids && x->tids[i] != tid)
                i++;
        assert(i < x->n_tids);
        return i;
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
