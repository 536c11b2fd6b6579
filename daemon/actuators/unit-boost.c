/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Boosts in place on cgroup v2 (unit-boost.h).
 *
 * Why the slices too: cpu.boost is a protection like cpu.uclamp.min, and
 * a group's effective boost is min(its cpu.boost, its parent's effective
 * boost); a new group has 0. A unit's 50 under a system.slice at 0 would
 * do nothing, so every slice between the root and a boosted unit gets the
 * highest boost of the units below it (what it had, if that is higher).
 * That raises only a cap: a sibling unit still has its own cpu.boost,
 * 0 unless someone gave it more.
 *
 * Why only the system manager's units: under user@UID.service the
 * directories are the user's (Delegate=yes); a boost given to one of them
 * the user could move to any other, and raising user@UID.service itself
 * would let them. Units of a user's manager get per-task boosts only.
 *
 * Why the inode: systemd removes a unit's cgroup when it stops and makes
 * a new one when it starts again, under the same path and with cpu.boost
 * 0; its processes are placed again as they appear, which comes back
 * here. A cgroup under a known path with another inode is that new one:
 * what it has now is what boostd found. One with the same inode whose
 * cpu.boost is not what boostd wrote was changed by someone else, who
 * then owns it: boostd leaves it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "unit-boost.h"
#include "util.h"

#define CGROUP_ROOT "/sys/fs/cgroup"

static char *cgroup_file(const Backend *b, const char *path, const char *file) {
        _cleanup_(freep) char *top = path_join_root(b->root, CGROUP_ROOT), *d = NULL;

        if (!top)
                return NULL;
        d = path_join(top, path + 1);
        if (!d || !file)
                return TAKE_PTR(d);
        return path_join(d, file);
}

/* The cgroup's inode and cpu.boost now: -ENOENT without the directory,
 * -EOPNOTSUPP without the file (no cpu controller there). */
static int cgroup_read(const Backend *b, const char *path, uint64_t *ret_ino, unsigned *ret_boost) {
        _cleanup_(freep) char *d = cgroup_file(b, path, NULL), *f = cgroup_file(b, path, "cpu.boost");
        _cleanup_(freep) char *s = NULL;
        struct stat st;
        int r;

        if (!d || !f)
                return -ENOMEM;
        if (stat(d, &st) < 0)
                return -errno;
        *ret_ino = (uint64_t) st.st_ino;
        r = read_one_line(f, &s);
        if (r == -ENOENT)
                return -EOPNOTSUPP;
        if (r < 0)
                return r;
        return parse_uint(strstrip(s), BOOST_MAX, ret_boost);
}

static int cgroup_write(const Backend *b, const char *path, unsigned boost) {
        _cleanup_(freep) char *f = cgroup_file(b, path, "cpu.boost");
        char buf[8];

        if (!f)
                return -ENOMEM;
        snprintf(buf, sizeof(buf), "%u\n", boost);
        return write_string(f, buf);
}

/* Writes boost to entry c, unless someone else changed it since boostd
 * wrote (-EBUSY: then it is theirs, until the cgroup is made anew) or the
 * cgroup is gone (-ENOENT). A new cgroup under the path starts afresh.
 * The journal has the value before the file does: after a crash the next
 * start finds in cpu.boost either what boostd found or what the journal
 * says it wrote, and puts back the former. */
static int entry_write(Backend *b, StateCgroup *c, unsigned boost) {
        bool had = c->has_wrote;
        unsigned was = c->wrote;
        uint64_t ino;
        unsigned cur;
        int r;

        r = cgroup_read(b, c->path, &ino, &cur);
        if (r == -EOPNOTSUPP)
                c->ino = ino;           /* the directory is there, its file not */
        if (r < 0)
                return r;
        if (ino != c->ino) {
                c->ino = ino;
                c->has_wrote = c->foreign = c->no_cpu = false;
                had = false;
        }
        if (c->foreign)
                return -EBUSY;
        if (!c->has_wrote)
                c->found = cur;         /* before boostd's first write */
        else if (cur != c->wrote) {
                log_notice(b->log, "%s/cpu.boost is %u, not the %u boostd wrote: changed by someone else, leaving it to them.",
                           c->path, cur, c->wrote);
                c->foreign = true;
                c->has_wrote = false;
                b->state->dirty = true;
                return -EBUSY;
        }
        if (cur == boost && had) {
                c->wrote = boost;
                return 0;
        }
        c->wrote = boost;
        c->has_wrote = true;
        b->state->dirty = true;
        if (cur == boost)
                return 0;
        r = state_save(b->state);
        if (r >= 0)
                r = cgroup_write(b, c->path, boost);
        if (r < 0) {
                c->has_wrote = had;
                c->wrote = was;
                return log_warning_errno(b->log, r, "Failed to write %u to %s/cpu.boost: %m", boost, c->path);
        }
        return 0;
}

/* What boostd found goes back, if what is there is still boostd's. */
static void entry_put_back(Backend *b, StateCgroup *c) {
        uint64_t ino;
        unsigned cur;
        int r;

        if (!c->has_wrote || cgroup_read(b, c->path, &ino, &cur) < 0 || ino != c->ino || cur != c->wrote ||
            cur == c->found)
                return;
        r = cgroup_write(b, c->path, c->found);
        if (r < 0)
                log_warning_errno(b->log, r, "Failed to put %u back into %s/cpu.boost: %m", c->found, c->path);
}

/* The class boost boostd last gave group, 0 before any. */
static unsigned group_boost(Backend *b, const char *group) {
        const StateGroup *g = state_get_group(b->state, group, false);

        return g && g->has_wrote ? g->wrote : 0;
}

static bool path_is_below(const char *path, const char *dir) {
        size_t l = strlen(dir);

        return strncmp(path, dir, l) == 0 && path[l] == '/';
}

/* The highest boost the units below dir have. */
static unsigned need_below(const State *j, const char *dir) {
        unsigned need = 0;

        for (size_t i = 0; i < j->n_cgroups; i++)
                if (j->cgroups[i].group[0] && j->cgroups[i].has_wrote && path_is_below(j->cgroups[i].path, dir))
                        need = MAX(need, j->cgroups[i].wrote);
        return need;
}

/* Each slice above a boosted unit gets at least the highest boost below
 * it; a slice boostd raised and that no longer needs it gets back what it
 * had. */
static void slices_sync(Backend *b) {
        State *j = b->state;

        /* a unit that stopped took its cgroup along */
        for (size_t i = 0; i < j->n_cgroups;) {
                _cleanup_(freep) char *d = cgroup_file(b, j->cgroups[i].path, NULL);

                if (j->cgroups[i].group[0] && d && access(d, F_OK) < 0 && errno == ENOENT)
                        state_cgroup_remove(j, &j->cgroups[i]);
                else
                        i++;
        }
        /* slices that boosted units need, from each unit's path */
        for (size_t i = 0; i < j->n_cgroups; i++) {
                _cleanup_(freep) char *dir = NULL;
                char *slash;

                if (!j->cgroups[i].group[0] || !j->cgroups[i].has_wrote || j->cgroups[i].wrote == 0)
                        continue;
                dir = strdup(j->cgroups[i].path);
                if (!dir)
                        return;
                while ((slash = strrchr(dir, '/')) && slash != dir) {
                        *slash = '\0';
                        if (!state_cgroup_find(j, dir) && !state_cgroup_add(j, dir))
                                return;
                }
        }
        for (size_t i = 0; i < j->n_cgroups;) {
                StateCgroup *c = &j->cgroups[i];
                unsigned need;
                uint64_t ino;
                int r;

                if (c->group[0]) {
                        i++;
                        continue;
                }
                if (c->foreign) {
                        i++;            /* someone else's now */
                        continue;
                }
                need = need_below(j, c->path);
                if (need > 0 && !c->has_wrote) {
                        /* what it has now is what boostd found */
                        r = cgroup_read(b, c->path, &ino, &c->found);
                        if (r < 0) {
                                log_warning_errno(b->log, r, "Failed to read %s/cpu.boost: %m", c->path);
                                state_cgroup_remove(j, c);
                                continue;
                        }
                        c->ino = ino;
                }
                if (need == 0) {
                        entry_put_back(b, c);
                        state_cgroup_remove(j, c);
                        continue;
                }
                r = entry_write(b, c, MAX(need, c->found));
                if (r < 0 && r != -EBUSY) {
                        state_cgroup_remove(j, c);
                        continue;
                }
                i++;
        }
}

int unit_boost_attach(Backend *b, const char *group, const char *path) {
        State *j = b->state;
        StateCgroup *c = state_cgroup_find(j, path);
        bool fresh = false;
        int r;

        if (streq(group, "root")) {
                if (!c || !c->group[0])
                        return 0;
                entry_put_back(b, c);
                state_cgroup_remove(j, c);
                slices_sync(b);
                return 0;
        }
        if (!state_cgroup_path_is_valid(path) || strlen(group) >= CLASS_NAME_MAX)
                return -EINVAL;
        if (c && !c->group[0])
                return -EINVAL;         /* a slice is never a unit */
        if (!c) {
                c = state_cgroup_add(j, path);
                if (!c)
                        return -ENOMEM;
                fresh = true;
        } else if (c->no_cpu) {
                uint64_t ino = 0;
                unsigned cur;

                r = cgroup_read(b, path, &ino, &cur);
                if (r == -EOPNOTSUPP && ino == c->ino)
                        return -EOPNOTSUPP;     /* said once already */
                c->no_cpu = false;
        }
        if (!streq(c->group, group))
                b->state->dirty = true;
        strcpy(c->group, group);
        r = entry_write(b, c, group_boost(b, group));
        if (r == -EOPNOTSUPP) {
                /* kept with no write: unit_boost_retry(), once */
                c->has_wrote = false;
                if (fresh && b->want_cpu)
                        b->want_cpu(b, path, b->want_cpu_userdata);
                return r;
        }
        if (r == -EBUSY)
                return r;       /* kept: theirs until the cgroup is made anew */
        if (r < 0) {
                state_cgroup_remove(j, c);
                slices_sync(b);
                return r;
        }
        slices_sync(b);
        return 0;
}

void unit_boost_apply(Backend *b, const char *group, unsigned boost) {
        State *j = b->state;

        for (size_t i = 0; i < j->n_cgroups;) {
                StateCgroup *c = &j->cgroups[i];
                int r;

                if (!streq(c->group, group) || !c->has_wrote) {
                        i++;
                        continue;
                }
                r = entry_write(b, c, boost);
                if (r < 0 && r != -EOPNOTSUPP && r != -EBUSY) {
                        state_cgroup_remove(j, c);
                        continue;
                }
                i++;
        }
        slices_sync(b);
}

void unit_boost_retry(Backend *b, const char *path) {
        StateCgroup *c = state_cgroup_find(b->state, path);
        int r;

        if (!c || !c->group[0] || c->has_wrote || c->foreign || c->no_cpu)
                return;
        r = entry_write(b, c, group_boost(b, c->group));
        if (r == -EOPNOTSUPP) {
                /* kept, so that its processes' placements do not ask again */
                log_warning(b->log, "%s has no cpu.boost (the cpu controller is off there): its processes get per-task boosts only.",
                            path);
                c->no_cpu = true;
                return;
        }
        if (r < 0 && r != -EBUSY)
                state_cgroup_remove(b->state, c);
        slices_sync(b);
}

void unit_boost_restore(Backend *b) {
        State *j = b->state;

        for (size_t i = 0; i < j->n_cgroups; i++)
                entry_put_back(b, &j->cgroups[i]);
        while (j->n_cgroups > 0)
                state_cgroup_remove(j, &j->cgroups[j->n_cgroups - 1]);
}
