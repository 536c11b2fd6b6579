/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /run/boostd/journal and /run/boostd/state as anything at all (the input
 * up to its first NUL byte is the journal, the rest the state; either may
 * hold any kind of line): what is loaded is in range, and what is saved
 * (journal, placed and state) loads back to the same. */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "state.h"
#include "util.h"

static char *dir;

static void remove_dir(void) {
        static const char *const files[] = { "journal", "placed", "state" };

        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_(freep) char *p = path_join(dir, files[i]);

                if (p)
                        (void) unlink(p);
        }
        (void) rmdir(dir);
        free(dir);
}

static void write_file(const char *name, const uint8_t *data, size_t size) {
        _cleanup_(freep) char *p = path_join(dir, name);
        FILE *f;

        check(p);
        f = fopen(p, "we");
        check(f);
        check(fwrite(data, 1, size, f) == size);
        check(fclose(f) == 0);
}

/* The file's content, NULL if there is none. */
static char *read_all(const char *name) {
        _cleanup_(freep) char *p = path_join(dir, name);
        char *s = NULL;
        size_t n = 0;
        FILE *f, *m;
        int ch;

        check(p);
        f = fopen(p, "re");
        if (!f && errno == ENOENT)
                return NULL;    /* an empty journal is removed */
        check(f);
        m = open_memstream(&s, &n);
        check(m);
        while ((ch = fgetc(f)) != EOF)
                fputc(ch, m);
        check(fclose(m) == 0);
        fclose(f);
        return s;
}

static void check_pids(const StatePid *list, size_t n) {
        for (size_t i = 0; i < n; i++) {
                check(list[i].id.pid > 0);
                check(strlen(list[i].group) > 0 && strlen(list[i].group) < CLASS_NAME_MAX);
                for (size_t k = 0; k < i; k++)
                        check(list[k].id.pid != list[i].id.pid);
        }
}

static void check_journal(const State *j) {
        check(j->n_groups <= GROUPS_MAX && j->n_overrides <= GROUPS_MAX);
        for (size_t i = 0; i < j->n_groups; i++)
                check(j->groups[i].found <= BOOST_MAX && j->groups[i].wrote <= BOOST_MAX &&
                      j->groups[i].name[0]);
        for (size_t i = 0; i < j->n_overrides; i++)
                check(j->overrides[i].boost <= BOOST_MAX && j->overrides[i].group[0]);
        check(j->n_placed <= STATE_PLACED_MAX);
        check_pids(j->placed, j->n_placed);
        check_pids(j->classified, j->n_classified);
        check(j->n_foregrounds <= FOREGROUNDS_MAX);
        for (size_t i = 0; i < j->n_foregrounds; i++) {
                check(j->foregrounds[i].id.pid > 0);
                check(!j->foregrounds[i].seat[0] || seat_name_is_valid(j->foregrounds[i].seat));
                for (size_t k = 0; k < i; k++)
                        check(!streq(j->foregrounds[i].seat, j->foregrounds[k].seat));
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        _cleanup_(state_freep) State *j = NULL, *again = NULL;
        _cleanup_(freep) char *journal = NULL, *state = NULL, *journal2 = NULL, *state2 = NULL, *placed = NULL,
                              *placed2 = NULL;
        const uint8_t *nul = memchr(data, '\0', size);
        size_t l = nul ? (size_t) (nul - data) : size;
        int r;

        if (!dir) {
                char t[] = "/tmp/fuzz-journal-XXXXXX";

                check(mkdtemp(t));
                dir = strdup(t);
                check(dir);
                check(atexit(remove_dir) == 0);
        }
        /* what an earlier input left; the journal holds placed lines too
         * (an older boostd's format) */
        {
                _cleanup_(freep) char *p = path_join(dir, "placed");

                check(p);
                (void) unlink(p);
        }
        write_file("journal", data, l);
        write_file("state", nul ? nul + 1 : data + size, nul ? size - l - 1 : 0);

        j = state_new(dir);
        check(j);
        r = state_load(j);
        check(r == 0 || r == 1);
        check_journal(j);

        /* what is saved loads back the same, and saves the same again */
        check(state_save(j) == 0);
        journal = read_all("journal");
        placed = read_all("placed");
        state = read_all("state");
        again = state_new(dir);
        check(again);
        check(state_load(again) >= 0);
        check_journal(again);
        check(again->n_groups == j->n_groups && again->n_placed == j->n_placed &&
              again->n_overrides == j->n_overrides && again->n_classified == j->n_classified &&
              again->manual == j->manual && again->n_foregrounds == j->n_foregrounds);
        check(state_save(again) == 0);
        journal2 = read_all("journal");
        placed2 = read_all("placed");
        state2 = read_all("state");
        check(streq_ptr(journal, journal2));
        check(streq_ptr(placed, placed2));
        check(state && streq_ptr(state, state2));
        return 0;
}
