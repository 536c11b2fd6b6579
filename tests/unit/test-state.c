/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The journal and API state files round-trip and survive garbage. */
#include "tests.h"

#include "state.h"

static int setup(void **state) {
        *state = tmpdir_new();
        return 0;
}

static int teardown(void **state) {
        tmpdir_free(*state);
        return 0;
}

static void test_roundtrip(void **state) {
        char dir[4096], buf[4096];
        State *j, *k;
        StateGroup *g;
        ProcessId a = { 100, 5555 }, b = { 200, 6666 };

        snprintf(dir, sizeof(dir), "%s/run/boostd", (char *) *state);
        j = state_new(dir);
        assert_int_equal(state_load(j), 0);           /* nothing yet */
        g = state_get_group(j, "root", true);
        g->found = 7;
        g = state_get_group(j, "interactive", true);
        g->created = true;
        g->wrote = 10;
        g->has_wrote = true;
        assert_int_equal(state_placed_set(j, &a, "interactive"), 0);
        assert_int_equal(state_placed_set(j, &b, "interactive"), 0);
        assert_int_equal(state_placed_set(j, &a, "performance"), 0);
        assert_int_equal(j->n_placed, 2);
        j->manual = true;
        assert_int_equal(state_set_override(j, "performance", 77), 0);
        assert_int_equal(state_pid_set(&j->classified, &j->n_classified, &b, "performance"), 0);
        j->foregrounds[0] = (StateForeground) { .id = a };
        j->foregrounds[1] = (StateForeground) { .id = b, .with_unit = true, .seat = "seat1" };
        j->n_foregrounds = 2;
        assert_int_equal(state_save(j), 0);

        k = state_new(dir);
        assert_int_equal(state_load(k), 1);
        assert_int_equal(k->n_groups, 2);
        assert_int_equal(state_get_group(k, "root", false)->found, 7);
        assert_false(state_get_group(k, "root", false)->has_wrote);
        assert_true(state_get_group(k, "interactive", false)->created);
        assert_int_equal(state_get_group(k, "interactive", false)->wrote, 10);
        assert_null(state_get_group(k, "nope", false));
        assert_int_equal(k->n_placed, 2);
        assert_string_equal(state_pid_find(k->placed, k->n_placed, 100)->group, "performance");
        assert_int_equal(state_pid_find(k->placed, k->n_placed, 200)->id.start_time, 6666);
        assert_true(k->manual);
        assert_int_equal(state_get_override(k, "performance")->boost, 77);
        assert_null(state_get_override(k, "interactive"));
        assert_int_equal(k->n_classified, 1);
        assert_int_equal(k->n_foregrounds, 2);
        assert_int_equal(state_foreground_find(k, "")->id.pid, 100);
        assert_int_equal(state_foreground_find(k, "seat1")->id.pid, 200);
        assert_int_equal(state_foreground_find(k, "seat1")->id.start_time, 6666);
        assert_true(state_foreground_find(k, "seat1")->with_unit);
        assert_false(state_foreground_find(k, "")->with_unit);
        assert_null(state_foreground_find(k, "seat0"));
        state_free(k);

        /* a clean restore drops the kernel journal, keeps the API state */
        state_clear_kernel(j);
        assert_int_equal(state_save(j), 0);
        assert_null(read_file(dir, "journal", buf, sizeof(buf)));
        assert_non_null(read_file(dir, "state", buf, sizeof(buf)));
        k = state_new(dir);
        assert_int_equal(state_load(k), 0);
        assert_true(k->manual);
        state_free(k);

        state_pid_remove(&j->classified, &j->n_classified, 200);
        assert_int_equal(j->n_classified, 0);
        state_free(j);
}

static ino_t inode_of(const char *dir, const char *name) {
        char p[4352];
        struct stat st;

        snprintf(p, sizeof(p), "%s/%s", dir, name);
        return stat(p, &st) < 0 ? 0 : st.st_ino;
}

/* A boost change rewrites the small journal, not the list of placed PIDs
 * (up to 65536 lines): that is written only when it changed. */
static void test_placed_written_only_when_changed(void **state) {
        char dir[4096];
        State *j;
        StateGroup *g;
        ino_t placed;

        snprintf(dir, sizeof(dir), "%s/run/boostd", (char *) *state);
        j = state_new(dir);
        g = state_get_group(j, "interactive", true);
        for (pid_t p = 1; p <= 1000; p++)
                assert_int_equal(state_placed_set(j, &(ProcessId) { p, 1 }, "interactive"), 0);
        assert_int_equal(state_save(j), 0);
        placed = inode_of(dir, "placed");
        assert_true(placed != 0);
        /* a boost written: the journal only (a new file is a new inode) */
        g->wrote = 40;
        g->has_wrote = true;
        j->dirty = true;
        assert_int_equal(state_save(j), 0);
        assert_true(inode_of(dir, "placed") == placed);
        /* a PID placed: the list too */
        assert_int_equal(state_placed_set(j, &(ProcessId) { 1001, 1 }, "interactive"), 0);
        assert_int_equal(state_save(j), 0);
        assert_true(inode_of(dir, "placed") != placed);
        /* none left: the file goes */
        state_clear_kernel(j);
        assert_int_equal(state_save(j), 0);
        assert_true(inode_of(dir, "placed") == 0);
        state_free(j);
}

static void test_garbage_is_skipped(void **state) {
        char dir[4096];
        State *j;

        snprintf(dir, sizeof(dir), "%s/run", (char *) *state);
        mkdirs(*state, "run");
        write_file(*state, "run/journal",
                   "group root 5 -1 0\ngarbage\ngroup x\nplaced -4 1 root\n"
                   "group averyveryveryveryveryverylongname12345 1 1 1\nplaced 12 34 interactive\n"
                   /* names no configuration accepts: paths, cgroup files */
                   "group .. 0 -1 1\ngroup cgroup.procs 0 -1 1\nplaced 13 34 ../../etc\n"
                   "classified 14 34 ..\n");
        write_file(*state, "run/state", "base ../x 50\nbase interactive 20\n"
                   /* seats: an old line without one, bad names, a seat twice */
                   "foreground 20 1\nforeground 21 1 unit ../seat0\nforeground 22 1 process seat0/x\n"
                   "foreground 23 1 unit seat0\nforeground 24 1 process seat0\n"
                   "foreground 25 1 process notaseat\nforeground 26 1 all seat1\nforeground 27 1 seat1\n"
                   "foreground 28 1 process seat1.x\n");
        j = state_new(dir);
        assert_int_equal(state_load(j), 1);
        assert_int_equal(j->n_groups, 1);
        assert_int_equal(j->n_placed, 1);
        assert_int_equal(j->n_classified, 0);
        assert_non_null(state_get_override(j, "interactive"));
        assert_null(state_get_override(j, "../x"));
        assert_int_equal(j->placed[0].id.pid, 12);
        assert_int_equal(j->n_foregrounds, 2);
        assert_int_equal(state_foreground_find(j, "")->id.pid, 20);
        assert_false(state_foreground_find(j, "")->with_unit);     /* before seats: alone */
        assert_int_equal(state_foreground_find(j, "seat0")->id.pid, 23);
        assert_true(state_foreground_find(j, "seat0")->with_unit);
        state_free(j);
}

/* Entries of processes that are gone, or whose PID was reused, go. */
static void test_prune(void **state) {
        pid_t live = spawn_sleeper(), gone = dead_pid();
        ProcessId a = { .pid = live }, b = { .pid = gone, .start_time = 1 }, c = { .pid = live };
        StatePid *list = NULL;
        size_t n = 0;

        (void) state;
        assert_int_equal(proc_get_start_time("/proc", live, &a.start_time), 0);
        assert_int_equal(state_pid_set(&list, &n, &a, "background"), 0);
        assert_int_equal(state_pid_set(&list, &n, &b, "background"), 0);
        assert_int_equal(state_pid_prune(&list, &n, "/proc"), 1);
        assert_int_equal(n, 1);
        assert_int_equal(list[0].id.pid, live);
        /* the same PID with another start time: reused */
        c.start_time = a.start_time + 1;
        assert_int_equal(state_pid_set(&list, &n, &c, "background"), 0);
        assert_int_equal(state_pid_prune(&list, &n, "/proc"), 1);
        assert_int_equal(n, 0);
        free(list);
        kill_sleeper(live);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
                cmocka_unit_test_setup_teardown(test_garbage_is_skipped, setup, teardown),
                cmocka_unit_test_setup_teardown(test_placed_written_only_when_changed, setup, teardown),
                cmocka_unit_test(test_prune),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
