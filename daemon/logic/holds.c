/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hold bookkeeping; pure logic with an explicit clock. */
#include <string.h>

#include "config.h"
#include "holds.h"
#include "macro.h"
#include "util.h"

void holds_init(Holds *h, unsigned max_per_owner) {
        memset(h, 0, sizeof(*h));
        h->max_per_owner = max_per_owner;
}

static void hold_done(Hold *x) {
        free(x->group);
        free(x->owner);
        free(x->reason);
}

void holds_done(Holds *h) {
        for (size_t i = 0; i < h->n; i++)
                hold_done(&h->holds[i]);
        free(h->holds);
        h->holds = NULL;
        h->n = 0;
}

Hold *holds_find(Holds *h, uint32_t cookie) {
        for (size_t i = 0; i < h->n; i++)
                if (h->holds[i].cookie == cookie)
                        return &h->holds[i];
        return NULL;
}

unsigned holds_count_owner(const Holds *h, const char *owner) {
        unsigned n = 0;

        for (size_t i = 0; i < h->n; i++)
                if (streq(h->holds[i].owner, owner))
                        n++;
        return n;
}

static unsigned holds_count_uid(const Holds *h, uid_t uid) {
        unsigned n = 0;

        for (size_t i = 0; i < h->n; i++)
                if (h->holds[i].uid == uid)
                        n++;
        return n;
}

int holds_add(Holds *h, uint32_t cookie, const char *group, unsigned boost,
              uint64_t deadline, const char *owner, uid_t uid, const char *reason,
              Hold **ret) {
        Hold *n, *x;

        if (!group || !owner || boost > BOOST_MAX || cookie == 0)
                return -EINVAL;
        if (reason && (strlen(reason) > HOLD_REASON_MAX || !string_is_printable(reason)))
                return -EINVAL;
        if (holds_find(h, cookie))
                return -EEXIST;
        if (holds_count_owner(h, owner) >= h->max_per_owner || h->n >= HOLDS_MAX)
                return -EUSERS;
        if (uid != 0 && holds_count_uid(h, uid) >= HOLDS_PER_UID_MAX)
                return -EUSERS;

        n = realloc(h->holds, (h->n + 1) * sizeof(Hold));
        if (!n)
                return -ENOMEM;
        h->holds = n;
        x = &h->holds[h->n];
        *x = (Hold) {
                .cookie = cookie,
                .boost = boost,
                .deadline = deadline,
                .uid = uid,
                .group = strdup(group),
                .owner = strdup(owner),
                .reason = strdup(reason ?: ""),
        };
        if (!x->group || !x->owner || !x->reason) {
                hold_done(x);
                return -ENOMEM;
        }
        h->n++;
        if (ret)
                *ret = x;
        return 0;
}

void holds_remove_at(Holds *h, size_t i) {
        if (i >= h->n)
                return;
        hold_done(&h->holds[i]);
        memmove(&h->holds[i], &h->holds[i + 1], (h->n - i - 1) * sizeof(Hold));
        h->n--;
}

int holds_release(Holds *h, uint32_t cookie, const char *owner, void **ret_userdata) {
        for (size_t i = 0; i < h->n; i++) {
                if (h->holds[i].cookie != cookie)
                        continue;
                if (!owner || !streq(h->holds[i].owner, owner))
                        return -EPERM;
                if (ret_userdata)
                        *ret_userdata = h->holds[i].userdata;
                holds_remove_at(h, i);
                return 0;
        }
        return -ENOENT;
}

unsigned holds_max_for_group(const Holds *h, const char *group) {
        unsigned m = 0;

        for (size_t i = 0; i < h->n; i++)
                if (streq(h->holds[i].group, group))
                        m = MAX(m, h->holds[i].boost);
        return m;
}

int holds_find_expired(const Holds *h, uint64_t now) {
        for (size_t i = 0; i < h->n; i++)
                if (h->holds[i].deadline != 0 && h->holds[i].deadline <= now)
                        return (int) i;
        return -ENOENT;
}

uint64_t holds_next_deadline(const Holds *h) {
        uint64_t d = 0;

        for (size_t i = 0; i < h->n; i++)
                if (h->holds[i].deadline != 0 && (d == 0 || h->holds[i].deadline < d))
                        d = h->holds[i].deadline;
        return d;
}
