/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The journal and API state under /run/boostd/. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "event-util.h"
#include "macro.h"
#include "state.h"
#include "util.h"

State *state_new(const char *dir) {
        State *j = calloc(1, sizeof(State));

        if (!j)
                return NULL;
        j->dir = strdup(dir);
        if (!j->dir) {
                free(j);
                return NULL;
        }
        return j;
}

State *state_free(State *j) {
        if (!j)
                return NULL;
        sd_event_source_disable_unref(j->save_later);
        free(j->dir);
        free(j->placed);
        free(j->clamps);
        for (size_t i = 0; i < j->n_cgroups; i++)
                free(j->cgroups[i].path);
        free(j->cgroups);
        free(j->classified);
        free(j);
        return NULL;
}

StateGroup *state_get_group(State *j, const char *name, bool create) {
        StateGroup *g;

        for (size_t i = 0; i < j->n_groups; i++)
                if (streq(j->groups[i].name, name))
                        return &j->groups[i];
        if (!create || j->n_groups >= GROUPS_MAX || strlen(name) >= CLASS_NAME_MAX)
                return NULL;
        g = &j->groups[j->n_groups++];
        memset(g, 0, sizeof(*g));
        strcpy(g->name, name);
        return g;
}

static bool ends_with(const char *s, const char *suffix) {
        size_t l = strlen(s), n = strlen(suffix);

        return l >= n && streq(s + l - n, suffix);
}

bool state_cgroup_path_is_valid(const char *path) {
        size_t l = strlen(path);

        if (path[0] != '/' || l < 2 || l >= PATH_MAX || path[l - 1] == '/')
                return false;
        for (const char *c = path; *c; c++)
                if ((unsigned char) *c <= ' ' || *c == 0x7f)
                        return false;
        return !strstr(path, "//") && !strstr(path, "/./") && !strstr(path, "/../") &&
               !ends_with(path, "/.") && !ends_with(path, "/..");
}

StateCgroup *state_cgroup_find(State *j, const char *path) {
        for (size_t i = 0; i < j->n_cgroups; i++)
                if (streq(j->cgroups[i].path, path))
                        return &j->cgroups[i];
        return NULL;
}

StateCgroup *state_cgroup_add(State *j, const char *path) {
        StateCgroup *n;
        char *p;

        if (!state_cgroup_path_is_valid(path))
                return NULL;
        p = strdup(path);
        if (!p)
                return NULL;
        n = realloc(j->cgroups, (j->n_cgroups + 1) * sizeof(StateCgroup));
        if (!n) {
                free(p);
                return NULL;
        }
        j->cgroups = n;
        j->cgroups[j->n_cgroups] = (StateCgroup) { .path = p };
        j->dirty = true;
        return &j->cgroups[j->n_cgroups++];
}

void state_cgroup_remove(State *j, StateCgroup *c) {
        size_t i = (size_t) (c - j->cgroups);

        free(c->path);
        memmove(c, c + 1, (j->n_cgroups - i - 1) * sizeof(StateCgroup));
        j->n_cgroups--;
        j->dirty = true;
}

void state_remove_group(State *j, const char *name) {
        StateGroup *g = state_get_group(j, name, false);

        if (!g)
                return;
        memmove(g, g + 1, (size_t) (&j->groups[j->n_groups] - (g + 1)) * sizeof(*g));
        j->n_groups--;
        j->dirty = true;
}

StatePid *state_pid_find(StatePid *list, size_t n, pid_t pid) {
        for (size_t i = 0; i < n; i++)
                if (list[i].id.pid == pid)
                        return &list[i];
        return NULL;
}

int state_pid_set(StatePid **list, size_t *n, const ProcessId *id, const char *group) {
        StatePid *p = state_pid_find(*list, *n, id->pid);

        if (strlen(group) >= CLASS_NAME_MAX)
                return -EINVAL;
        if (!p) {
                if (*n >= STATE_PLACED_MAX)
                        return -ENOSPC;
                p = realloc(*list, (*n + 1) * sizeof(StatePid));
                if (!p)
                        return -ENOMEM;
                *list = p;
                p = &p[(*n)++];
        }
        p->id = *id;
        strcpy(p->group, group);
        p->from = 0;
        return 0;
}

void state_pid_remove(StatePid **list, size_t *n, pid_t pid) {
        for (size_t i = 0; i < *n; i++)
                if ((*list)[i].id.pid == pid) {
                        memmove(&(*list)[i], &(*list)[i + 1], (*n - i - 1) * sizeof(StatePid));
                        (*n)--;
                        return;
                }
}

size_t state_pid_prune(StatePid **list, size_t *n, const char *proc_root) {
        size_t removed = 0;

        for (size_t i = 0; i < *n;)
                if (process_id_is_current(proc_root, &(*list)[i].id) == 0) {
                        memmove(&(*list)[i], &(*list)[i + 1], (*n - i - 1) * sizeof(StatePid));
                        (*n)--;
                        removed++;
                } else
                        i++;
        return removed;
}

int state_set_override(State *j, const char *group, unsigned boost) {
        for (size_t i = 0; i < j->n_overrides; i++)
                if (streq(j->overrides[i].group, group)) {
                        j->overrides[i].boost = boost;
                        return 0;
                }
        if (j->n_overrides >= GROUPS_MAX || strlen(group) >= CLASS_NAME_MAX)
                return -ENOSPC;
        strcpy(j->overrides[j->n_overrides].group, group);
        j->overrides[j->n_overrides++].boost = boost;
        return 0;
}

void state_clear_override(State *j, const char *group) {
        for (size_t i = 0; i < j->n_overrides; i++)
                if (streq(j->overrides[i].group, group)) {
                        j->overrides[i] = j->overrides[--j->n_overrides];
                        j->dirty = true;
                        return;
                }
}

const StateOverride *state_get_override(const State *j, const char *group) {
        for (size_t i = 0; i < j->n_overrides; i++)
                if (streq(j->overrides[i].group, group))
                        return &j->overrides[i];
        return NULL;
}

int state_placed_set(State *j, const ProcessId *id, const char *group) {
        int r = state_pid_set(&j->placed, &j->n_placed, id, group);

        if (r >= 0)
                j->dirty = j->placed_dirty = true;
        return r;
}

void state_placed_remove(State *j, pid_t pid) {
        size_t n = j->n_placed;

        state_pid_remove(&j->placed, &j->n_placed, pid);
        if (j->n_placed != n)
                j->dirty = j->placed_dirty = true;
}

int state_clamp_set(State *j, pid_t tid, uint64_t start, unsigned previous) {
        StateClamp *n;

        for (size_t i = 0; i < j->n_clamps; i++)
                if (j->clamps[i].tid == tid) {
                        j->clamps[i] = (StateClamp) { tid, start, previous };
                        j->dirty = true;
                        return 0;
                }
        n = realloc(j->clamps, (j->n_clamps + 1) * sizeof(StateClamp));
        if (!n)
                return -ENOMEM;
        j->clamps = n;
        j->clamps[j->n_clamps++] = (StateClamp) { tid, start, previous };
        j->dirty = true;
        return 0;
}

void state_clamp_remove(State *j, pid_t tid) {
        for (size_t i = 0; i < j->n_clamps; i++)
                if (j->clamps[i].tid == tid) {
                        memmove(j->clamps + i, j->clamps + i + 1, (j->n_clamps - i - 1) * sizeof(StateClamp));
                        j->n_clamps--;
                        j->dirty = true;
                        return;
                }
}

void state_clamps_clear(State *j) {
        free(j->clamps);
        j->clamps = NULL;
        j->n_clamps = 0;
        j->dirty = true;
}

size_t state_placed_prune(State *j, const char *proc_root) {
        size_t removed = state_pid_prune(&j->placed, &j->n_placed, proc_root);

        if (removed > 0)
                j->dirty = j->placed_dirty = true;
        return removed;
}

void state_clear_kernel(State *j) {
        j->n_groups = 0;
        free(j->placed);
        j->placed = NULL;
        j->n_placed = 0;
        j->placed_dirty = true;
}

static char *state_file(const State *j, const char *name) {
        return path_join(j->dir, name);
}

/* A PID that fits pid_t (the kernel's are at most PID_MAX_LIMIT, 2^22). */
static bool pid_ok(long long pid) {
        return pid > 0 && pid <= INT_MAX;
}

/* A group name as the configuration accepts it: the files are root's,
 * but a name that could never be a class (a path, "..", a cgroup file's
 * name) must not reach a path or a cgroup.procs write. */
static bool name_ok(const char *name) {
        return strlen(name) < CLASS_NAME_MAX && class_name_is_valid(name);
}

/* Lines that do not parse are skipped: the files are ours, and a torn
 * write cannot happen (they are replaced by rename). */
StateForeground *state_foreground_find(State *j, const char *seat) {
        for (size_t i = 0; i < j->n_foregrounds; i++)
                if (streq(j->foregrounds[i].seat, seat))
                        return &j->foregrounds[i];
        return NULL;
}

static int state_parse_line(State *j, const char *line, bool *kernel) {
        char name[CLASS_NAME_MAX + 1], word[16], seat[256];
        int k;
        unsigned a, b, c;
        int d;
        long long pid;
        unsigned long long start;

        if (sscanf(line, "group %32s %u %d %u", name, &a, &d, &c) == 4 && name_ok(name)) {
                StateGroup *g = state_get_group(j, name, true);

                if (g) {
                        g->found = MIN(a, BOOST_MAX);
                        g->has_wrote = d >= 0;
                        g->wrote = d >= 0 ? MIN((unsigned) d, BOOST_MAX) : 0;
                        g->created = c != 0;
                        *kernel = true;
                }
        } else if (sscanf(line, "placed %lld %llu %32s", &pid, &start, name) == 3 && name_ok(name) &&
                   pid_ok(pid)) {
                ProcessId id = { .pid = (pid_t) pid, .start_time = start };

                (void) state_pid_set(&j->placed, &j->n_placed, &id, name);
                *kernel = true;
        } else if (sscanf(line, "cgroup %llu %u %d %32s %n", &start, &a, &d, name, &k) == 4 &&
                   (streq(name, "-") || name_ok(name))) {
                _cleanup_(freep) char *buf = strdup(line + k);
                const char *path = buf ? strstrip(buf) : NULL;
                StateCgroup *e;

                if (path && state_cgroup_path_is_valid(path) && !state_cgroup_find(j, path) &&
                    (e = state_cgroup_add(j, path))) {
                        e->ino = start;
                        e->found = MIN(a, BOOST_MAX);
                        e->has_wrote = d >= 0;
                        e->wrote = d >= 0 ? MIN((unsigned) d, BOOST_MAX) : 0;
                        e->foreign = d == -2;
                        strcpy(e->group, streq(name, "-") ? "" : name);
                }
        } else if (sscanf(line, "clamp %lld %llu %u", &pid, &start, &a) == 3 && pid_ok(pid)) {
                (void) state_clamp_set(j, (pid_t) pid, start, MIN(a, 1024U));
        } else if (sscanf(line, "classified %lld %llu %32s", &pid, &start, name) == 3 && name_ok(name) &&
                   pid_ok(pid)) {
                ProcessId id = { .pid = (pid_t) pid, .start_time = start };

                (void) state_pid_set(&j->classified, &j->n_classified, &id, name);
        } else if (sscanf(line, "base %32s %u", name, &b) == 2 && name_ok(name)) {
                (void) state_set_override(j, name, MIN(b, BOOST_MAX));
        } else if (sscanf(line, "mode %15s", word) == 1) {
                j->manual = streq(word, "manual");
        } else if ((k = sscanf(line, "foreground %lld %llu %15s %255s", &pid, &start, word, seat)) >= 2 &&
                   pid_ok(pid) && (k == 2 || streq(word, "unit") || streq(word, "process")) &&
                   (k < 4 || seat_name_is_valid(seat)) && j->n_foregrounds < FOREGROUNDS_MAX) {
                StateForeground *e = &j->foregrounds[j->n_foregrounds];

                /* one line per seat, the seatless one without a seat; a
                 * line of boostd before seats ("foreground PID START")
                 * names the process alone */
                *e = (StateForeground) { .id = { .pid = (pid_t) pid, .start_time = start } };
                e->with_unit = k >= 3 && streq(word, "unit");
                if (k == 4)
                        strcpy(e->seat, seat);
                if (!state_foreground_find(j, e->seat))
                        j->n_foregrounds++;
        }
        return 0;
}

static int state_load_file(State *j, const char *name, bool *kernel) {
        _cleanup_(freep) char *path = state_file(j, name), *line = NULL;
        _cleanup_(fclosep) FILE *f = NULL;
        size_t n = 0;

        if (!path)
                return -ENOMEM;
        f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? 0 : -errno;
        while (getline(&line, &n, f) > 0)
                (void) state_parse_line(j, line, kernel);
        return 0;
}

int state_load(State *j) {
        bool kernel = false;
        size_t from_journal, with_placed;
        int r;

        r = state_load_file(j, "journal", &kernel);
        if (r < 0)
                return r;
        from_journal = j->n_placed;
        r = state_load_file(j, "placed", &kernel);
        if (r < 0)
                return r;
        with_placed = j->n_placed;
        r = state_load_file(j, "state", &kernel);
        if (r < 0)
                return r;
        /* PIDs read from elsewhere than "placed" (an older boostd kept
         * them in the journal) are written there at the next save */
        j->placed_dirty = from_journal > 0 || j->n_placed != with_placed;
        return kernel;
}

static int state_write(State *j, const char *name, const char *buf) {
        _cleanup_(freep) char *path = state_file(j, name);

        if (!path)
                return -ENOMEM;
        return write_string_atomic(path, buf);
}

static int state_write_placed(State *j) {
        _cleanup_(freep) char *buf = NULL, *path = NULL;
        size_t len = 0;
        FILE *f;
        int r;

        if (j->n_placed == 0) {
                path = state_file(j, "placed");
                if (!path)
                        return -ENOMEM;
                r = unlink(path) < 0 && errno != ENOENT ? -errno : 0;
        } else {
                f = open_memstream(&buf, &len);
                if (!f)
                        return -ENOMEM;
                fputs("# boostd journal: PIDs moved out of root\n", f);
                for (size_t i = 0; i < j->n_placed; i++)
                        fprintf(f, "placed %d %" PRIu64 " %s\n", (int) j->placed[i].id.pid,
                                j->placed[i].id.start_time, j->placed[i].group);
                if (fclose(f) != 0)
                        return -ENOMEM;
                r = state_write(j, "placed", buf);
        }
        if (r >= 0)
                j->placed_dirty = false;
        return r;
}

static int state_write_files(State *j) {
        _cleanup_(freep) char *kbuf = NULL, *sbuf = NULL, *kpath = NULL;
        size_t klen = 0, slen = 0;
        FILE *f;
        int r;

        r = mkdir_p(j->dir, 0755);
        if (r < 0)
                return r;

        f = open_memstream(&kbuf, &klen);
        if (!f)
                return -ENOMEM;
        fputs("# boostd journal: values found and written (PIDs moved: placed)\n", f);
        for (size_t i = 0; i < j->n_groups; i++)
                fprintf(f, "group %s %u %d %u\n", j->groups[i].name, j->groups[i].found,
                        j->groups[i].has_wrote ? (int) j->groups[i].wrote : -1,
                        j->groups[i].created ? 1U : 0U);
        for (size_t i = 0; i < j->n_clamps; i++)
                fprintf(f, "clamp %d %" PRIu64 " %u\n", (int) j->clamps[i].tid, j->clamps[i].start,
                        j->clamps[i].previous);
        for (size_t i = 0; i < j->n_cgroups; i++)
                fprintf(f, "cgroup %" PRIu64 " %u %d %s %s\n", j->cgroups[i].ino, j->cgroups[i].found,
                        j->cgroups[i].has_wrote ? (int) j->cgroups[i].wrote :
                        j->cgroups[i].foreign ? -2 : -1,
                        j->cgroups[i].group[0] ? j->cgroups[i].group : "-", j->cgroups[i].path);
        if (fclose(f) != 0)
                return -ENOMEM;

        f = open_memstream(&sbuf, &slen);
        if (!f)
                return -ENOMEM;
        fputs("# boostd state set through the API\n", f);
        fprintf(f, "mode %s\n", j->manual ? "manual" : "auto");
        for (size_t i = 0; i < j->n_overrides; i++)
                fprintf(f, "base %s %u\n", j->overrides[i].group, j->overrides[i].boost);
        for (size_t i = 0; i < j->n_classified; i++)
                fprintf(f, "classified %d %" PRIu64 " %s\n", (int) j->classified[i].id.pid,
                        j->classified[i].id.start_time, j->classified[i].group);
        for (size_t i = 0; i < j->n_foregrounds; i++)
                fprintf(f, "foreground %d %" PRIu64 " %s%s%s\n", (int) j->foregrounds[i].id.pid,
                        j->foregrounds[i].id.start_time, j->foregrounds[i].with_unit ? "unit" : "process",
                        j->foregrounds[i].seat[0] ? " " : "", j->foregrounds[i].seat);
        if (fclose(f) != 0)
                return -ENOMEM;

        if (j->n_groups == 0 && j->n_placed == 0 && j->n_clamps == 0 && j->n_cgroups == 0) {
                kpath = state_file(j, "journal");
                if (!kpath)
                        return -ENOMEM;
                if (unlink(kpath) < 0 && errno != ENOENT)
                        return -errno;
        } else {
                r = state_write(j, "journal", kbuf);
                if (r < 0)
                        return r;
        }
        r = state_write(j, "state", sbuf);
        if (r < 0)
                return r;
        /* Last, and only when it changed: a boost change must not
         * rewrite the list of placed PIDs, and a failure here must not
         * keep the boosts above from disk. */
        if (j->placed_dirty) {
                r = state_write_placed(j);
                if (r < 0)
                        return r;
        }
        j->dirty = false;
        return 0;
}

void state_set_event(State *j, sd_event *e, const LogContext *log) {
        j->event = e;
        j->log = log;
}

int state_save(State *j) {
        int r = state_write_files(j);

        /* this save holds whatever a pending one would have */
        if (j->save_later)
                (void) sd_event_source_set_enabled(j->save_later, SD_EVENT_OFF);
        j->save_pending_since = 0;
        return r;
}

void state_commit(State *j) {
        int r = state_save(j);

        if (r < 0 && j->log)
                log_warning_errno(j->log, r, "Failed to save state in %s, ignoring: %m", j->dir);
}

static int on_save_later(sd_event_source *s, void *userdata) {
        (void) s;
        state_commit(userdata);
        return 0;
}

/* Saves once, when the events pending now are handled, however many
 * changes they make (a burst of execs or exits, the walk of the tree at
 * start): the journal is rewritten whole, up to STATE_PLACED_MAX
 * entries, so a save per change would cost O(N^2).
 *
 * What waits here is the list of placed processes. A clean stop does not
 * need it on disk: it restores from memory and saves then. A crash loses
 * the changes since the last save; the next start places every process
 * of every unit again and records it, so what is lost is at most the
 * record of processes outside units, left in their group until they exit.
 * Under a flood the idle moment may not come, so a save waits at most
 * SAVE_DELAY_MAX_USEC: the window stays short. The kernel state found at
 * start, the boosts and what the API sets are saved at once. */
#define SAVE_DELAY_MAX_USEC (1 * USEC_PER_SEC)

void state_save_later(State *j) {
        uint64_t now = now_usec();
        int r;

        if (!j->event || (j->save_pending_since > 0 && now - j->save_pending_since >= SAVE_DELAY_MAX_USEC)) {
                state_commit(j);
                return;
        }
        if (!j->save_later) {
                r = sd_event_add_defer(j->event, &j->save_later, on_save_later, j);
                if (r < 0) {
                        state_commit(j);
                        return;
                }
                (void) sd_event_source_set_priority(j->save_later, SD_EVENT_PRIORITY_IDLE);
                (void) sd_event_source_set_description(j->save_later, "journal-save");
        }
        (void) sd_event_source_set_enabled(j->save_later, SD_EVENT_ONESHOT);
        if (j->save_pending_since == 0)
                j->save_pending_since = now;
}
