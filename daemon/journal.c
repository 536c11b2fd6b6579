/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The journal and API state under /run/boostd/. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "journal.h"
#include "macro.h"
#include "util.h"

Journal *journal_new(const char *dir) {
        Journal *j = calloc(1, sizeof(Journal));

        if (!j)
                return NULL;
        j->dir = strdup(dir);
        if (!j->dir) {
                free(j);
                return NULL;
        }
        return j;
}

Journal *journal_free(Journal *j) {
        if (!j)
                return NULL;
        free(j->dir);
        free(j->placed);
        free(j->classified);
        free(j);
        return NULL;
}

JournalGroup *journal_get_group(Journal *j, const char *name, bool create) {
        JournalGroup *g;

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

JournalPid *journal_pid_find(JournalPid *list, size_t n, pid_t pid) {
        for (size_t i = 0; i < n; i++)
                if (list[i].id.pid == pid)
                        return &list[i];
        return NULL;
}

int journal_pid_set(JournalPid **list, size_t *n, const ProcessId *id, const char *group) {
        JournalPid *p = journal_pid_find(*list, *n, id->pid);

        if (strlen(group) >= CLASS_NAME_MAX)
                return -EINVAL;
        if (!p) {
                if (*n >= JOURNAL_PLACED_MAX)
                        return -ENOSPC;
                p = realloc(*list, (*n + 1) * sizeof(JournalPid));
                if (!p)
                        return -ENOMEM;
                *list = p;
                p = &p[(*n)++];
        }
        p->id = *id;
        strcpy(p->group, group);
        return 0;
}

void journal_pid_remove(JournalPid **list, size_t *n, pid_t pid) {
        for (size_t i = 0; i < *n; i++)
                if ((*list)[i].id.pid == pid) {
                        memmove(&(*list)[i], &(*list)[i + 1], (*n - i - 1) * sizeof(JournalPid));
                        (*n)--;
                        return;
                }
}

size_t journal_pid_prune(JournalPid **list, size_t *n, const char *proc_root) {
        size_t removed = 0;

        for (size_t i = 0; i < *n;)
                if (process_id_is_current(proc_root, &(*list)[i].id) == 0) {
                        memmove(&(*list)[i], &(*list)[i + 1], (*n - i - 1) * sizeof(JournalPid));
                        (*n)--;
                        removed++;
                } else
                        i++;
        return removed;
}

int journal_set_override(Journal *j, const char *group, unsigned boost) {
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

const JournalOverride *journal_get_override(const Journal *j, const char *group) {
        for (size_t i = 0; i < j->n_overrides; i++)
                if (streq(j->overrides[i].group, group))
                        return &j->overrides[i];
        return NULL;
}

void journal_clear_kernel(Journal *j) {
        j->n_groups = 0;
        free(j->placed);
        j->placed = NULL;
        j->n_placed = 0;
}

static char *journal_file(const Journal *j, const char *name) {
        return path_join(j->dir, name);
}

/* A PID that fits pid_t (the kernel's are at most PID_MAX_LIMIT, 2^22). */
static bool pid_ok(long long pid) {
        return pid > 0 && pid <= INT_MAX;
}

/* Lines that do not parse are skipped: the files are ours, and a torn
 * write cannot happen (they are replaced by rename). */
static int journal_parse_line(Journal *j, const char *line, bool *kernel) {
        char name[CLASS_NAME_MAX + 1], word[16];
        unsigned a, b, c;
        int d;
        long long pid;
        unsigned long long start;

        if (sscanf(line, "group %32s %u %d %u", name, &a, &d, &c) == 4 &&
            strlen(name) < CLASS_NAME_MAX) {
                JournalGroup *g = journal_get_group(j, name, true);

                if (g) {
                        g->found = MIN(a, BOOST_MAX);
                        g->has_wrote = d >= 0;
                        g->wrote = d >= 0 ? MIN((unsigned) d, BOOST_MAX) : 0;
                        g->created = c != 0;
                        *kernel = true;
                }
        } else if (sscanf(line, "placed %lld %llu %32s", &pid, &start, name) == 3 &&
                   strlen(name) < CLASS_NAME_MAX && pid_ok(pid)) {
                ProcessId id = { .pid = (pid_t) pid, .start_time = start };

                (void) journal_pid_set(&j->placed, &j->n_placed, &id, name);
                *kernel = true;
        } else if (sscanf(line, "classified %lld %llu %32s", &pid, &start, name) == 3 &&
                   strlen(name) < CLASS_NAME_MAX && pid_ok(pid)) {
                ProcessId id = { .pid = (pid_t) pid, .start_time = start };

                (void) journal_pid_set(&j->classified, &j->n_classified, &id, name);
        } else if (sscanf(line, "base %32s %u", name, &b) == 2 && strlen(name) < CLASS_NAME_MAX) {
                (void) journal_set_override(j, name, MIN(b, BOOST_MAX));
        } else if (sscanf(line, "mode %15s", word) == 1) {
                j->manual = streq(word, "manual");
        } else if (sscanf(line, "foreground %lld %llu", &pid, &start) == 2 && pid_ok(pid)) {
                j->foreground = (ProcessId) { .pid = (pid_t) pid, .start_time = start };
        }
        return 0;
}

static int journal_load_file(Journal *j, const char *name, bool *kernel) {
        _cleanup_(freep) char *path = journal_file(j, name), *line = NULL;
        _cleanup_(fclosep) FILE *f = NULL;
        size_t n = 0;

        if (!path)
                return -ENOMEM;
        f = fopen(path, "re");
        if (!f)
                return errno == ENOENT ? 0 : -errno;
        while (getline(&line, &n, f) > 0)
                (void) journal_parse_line(j, line, kernel);
        return 0;
}

int journal_load(Journal *j) {
        bool kernel = false;
        int r;

        r = journal_load_file(j, "journal", &kernel);
        if (r < 0)
                return r;
        r = journal_load_file(j, "state", &kernel);
        if (r < 0)
                return r;
        return kernel;
}

static int journal_write(Journal *j, const char *name, const char *buf) {
        _cleanup_(freep) char *path = journal_file(j, name);

        if (!path)
                return -ENOMEM;
        return write_string_atomic(path, buf);
}

int journal_save(Journal *j) {
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
        fputs("# boostd journal: values found and written, PIDs moved\n", f);
        for (size_t i = 0; i < j->n_groups; i++)
                fprintf(f, "group %s %u %d %u\n", j->groups[i].name, j->groups[i].found,
                        j->groups[i].has_wrote ? (int) j->groups[i].wrote : -1,
                        j->groups[i].created ? 1U : 0U);
        for (size_t i = 0; i < j->n_placed; i++)
                fprintf(f, "placed %d %" PRIu64 " %s\n", (int) j->placed[i].id.pid,
                        j->placed[i].id.start_time, j->placed[i].group);
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
        if (j->foreground.pid > 0)
                fprintf(f, "foreground %d %" PRIu64 "\n", (int) j->foreground.pid,
                        j->foreground.start_time);
        if (fclose(f) != 0)
                return -ENOMEM;

        if (j->n_groups == 0 && j->n_placed == 0) {
                kpath = journal_file(j, "journal");
                if (!kpath)
                        return -ENOMEM;
                if (unlink(kpath) < 0 && errno != ENOENT)
                        return -errno;
        } else {
                r = journal_write(j, "journal", kbuf);
                if (r < 0)
                        return r;
        }
        r = journal_write(j, "state", sbuf);
        if (r < 0)
                return r;
        j->dirty = false;
        return 0;
}
