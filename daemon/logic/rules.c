/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Matching processes against the configured rules; pure logic. */
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "rules.h"
#include "util.h"

/* The next non-empty component of a cgroup path at or after *p: returns
 * its start and length and moves *p past it; NULL at the end. */
static const char *cgroup_next_component(const char **p, size_t *ret_len) {
        const char *s = *p, *e;

        if (!s)
                return NULL;
        while (*s == '/')
                s++;
        if (*s == '\0')
                return NULL;
        e = strchrnul(s, '/');
        *ret_len = (size_t) (e - s);
        *p = e;
        return s;
}

/* Whether a component ending with suffix matches glob. */
static bool cgroup_any_component(const char *cgroup, const char *suffix, const char *glob) {
        const char *p = cgroup, *s;
        size_t l;

        while ((s = cgroup_next_component(&p, &l))) {
                char buf[256];

                if (!strn_has_suffix(s, l, suffix) || l >= sizeof(buf))
                        continue;
                memcpy(buf, s, l);
                buf[l] = '\0';
                if (fnmatch(glob, buf, 0) == 0)
                        return true;
        }
        return false;
}

size_t cgroup_path_unit_prefix(const char *cgroup) {
        const char *p = cgroup, *s;
        size_t best = 0, l;

        /* The innermost unit wins: app scopes live below user@.service. */
        while ((s = cgroup_next_component(&p, &l)))
                if (strn_has_suffix(s, l, ".service") || strn_has_suffix(s, l, ".scope"))
                        best = (size_t) (s - cgroup) + l;
        return best;
}

const char *cgroup_path_unit(const char *cgroup, char *buf, size_t size) {
        size_t end = cgroup_path_unit_prefix(cgroup), start = end, l;

        if (end == 0)
                return NULL;
        while (start > 0 && cgroup[start - 1] != '/')
                start--;
        l = end - start;
        if (l + 1 > size)
                return NULL;
        memcpy(buf, cgroup + start, l);
        buf[l] = '\0';
        return buf;
}

bool cgroup_path_is_in(const char *cgroup, const char *dir) {
        size_t l;

        if (!cgroup || !dir)
                return false;
        l = strlen(dir);
        while (l > 0 && dir[l - 1] == '/')
                l--;
        return strncmp(cgroup, dir, l) == 0 && (cgroup[l] == '\0' || cgroup[l] == '/');
}


size_t cgroup_path_user_manager(const char *cgroup, uid_t *ret_uid) {
        const char *p = cgroup, *s;
        unsigned long uid;
        size_t l;

        while ((s = cgroup_next_component(&p, &l)))
                if (l > strlen("user@.service") && strncmp(s, "user@", 5) == 0 &&
                    strn_has_suffix(s, l, ".service") && sscanf(s + 5, "%lu", &uid) == 1) {
                        if (ret_uid)
                                *ret_uid = (uid_t) uid;
                        return (size_t) (s - cgroup) + l;
                }
        return 0;
}

/* Unit= and Slice= against the part of the path the rule's manager owns. */
static bool rule_matches_units(const Rule *r, const char *cgroup) {
        size_t m = cgroup ? cgroup_path_user_manager(cgroup, NULL) : 0;
        char part[4096], buf[256];
        const char *unit;

        if (!cgroup || (r->user_manager && m == 0))
                return false;
        if (r->user_manager)
                cgroup += m;
        else if (m > 0) {
                if (m >= sizeof(part))
                        return false;
                memcpy(part, cgroup, m);
                part[m] = '\0';
                cgroup = part;
        }
        if (r->unit) {
                unit = cgroup_path_unit(cgroup, buf, sizeof(buf));
                if (!unit || fnmatch(r->unit, unit, 0) != 0)
                        return false;
        }
        return !r->slice || cgroup_any_component(cgroup, ".slice", r->slice);
}

static bool rule_matches(const Rule *r, const ProcessInfo *p) {
        if (r->comm && (!p->comm || fnmatch(r->comm, p->comm, 0) != 0))
                return false;
        if (r->exe && (!p->exe || fnmatch(r->exe, p->exe, 0) != 0))
                return false;
        if (r->user && p->uid != r->uid)
                return false;
        return (!r->unit && !r->slice) || rule_matches_units(r, p->cgroup);
}

int rules_find(const Config *c, const ProcessInfo *p) {
        for (size_t i = 0; i < c->n_rules; i++)
                if (rule_matches(&c->rules[i], p))
                        return (int) i;
        return -ENOENT;
}

int rules_find_unit(const Config *c, const char *unit) {
        for (size_t i = 0; i < c->n_rules; i++) {
                const Rule *r = &c->rules[i];

                if ((r->unit || r->slice) && !r->comm && !r->exe && !r->user && !r->user_manager &&
                    rule_matches_units(r, unit))
                        return (int) i;
        }
        return -ENOENT;
}

int rules_classify(const Config *c, const ProcessInfo *p) {
        int i = rules_find(c, p);

        if (i < 0)
                return c->default_class_index;
        return c->rules[i].class_index;
}
