/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The schedtune2 backend (the 6.12 series: cgroup v2, per-task boosts):
 * probe and its reason, the root class through the sysctl, the other
 * classes as each placed process's threads' own boost (through the
 * set_boost seam), hint-session threads left alone, restore; units'
 * cgroups given their class's boost in place and the slices above them
 * raised (unit-boost.c) on a fake cgroup v2 tree. */
#include "tests.h"

#include <sys/stat.h>

#include "backend.h"
#include "log.h"
#include "unit-boost.h"

typedef struct Call {
        pid_t tid;
        unsigned boost;
} Call;

static Call calls[64];
static size_t n_calls;

static int fake_set_boost(pid_t tid, unsigned boost) {
        if (n_calls < 64)
                calls[n_calls++] = (Call) { tid, boost };
        return 0;
}

static int last_for(pid_t tid) {
        for (size_t i = n_calls; i > 0; i--)
                if (calls[i - 1].tid == tid)
                        return (int) calls[i - 1].boost;
        return -1;
}

typedef struct Fixture {
        char *root;
        State *j;
        Backend *b;
} Fixture;

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(Fixture));
        char run[4096];

        f->root = tmpdir_new();
        snprintf(run, sizeof(run), "%s/run/boostd", f->root);
        f->j = state_new(run);
        f->b = backend_new(f->root, "/dev/stune", "/proc", f->j, true, &quiet);
        assert_int_equal(backend_schedtune2_set_boost_hook(f->b, fake_set_boost), 0);
        n_calls = 0;
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        backend_free(f->b);
        state_free(f->j);
        tmpdir_free(f->root);
        free(f);
        return 0;
}

static void test_probe(void **state) {
        Fixture *f = *state;

        /* no sysctl: not this kernel */
        assert_int_equal(backend_select(f->b, "schedtune2"), -EOPNOTSUPP);
        mkdirs(f->root, "proc/sys/kernel");
        write_file(f->root, "proc/sys/kernel/sched_cfs_boost", "7\n");
        assert_int_equal(backend_select(f->b, "schedtune2"), 0);
        assert_string_equal(backend_name(f->b), "schedtune2");
        assert_string_equal(backend_reason(f->b),
                            "/proc/sys/kernel/sched_cfs_boost and per-task boosts (the 6.12 SchedTune series, "
                            "cgroup v2) (Backend=)");
        /* auto: schedtune first, which says why not */
        write_file(f->root, "proc/cgroups", "#subsys_name hierarchy num_cgroups enabled\ncpu 0 1 1\n");
        assert_int_equal(backend_select(f->b, "auto"), 0);
        assert_string_equal(backend_name(f->b), "schedtune2");
        assert_non_null(strstr(backend_reason(f->b),
                               "; not schedtune: no schedtune controller in /proc/cgroups"));
}

static void test_classes(void **state) {
        Fixture *f = *state;
        const char *const groups[] = { "root", "interactive", "performance" };
        pid_t pid = spawn_sleeper();
        ProcessId id = { .pid = pid };
        char buf[32];

        mkdirs(f->root, "proc/sys/kernel");
        write_file(f->root, "proc/sys/kernel/sched_cfs_boost", "7\n");
        assert_int_equal(backend_select(f->b, "schedtune2"), 0);
        assert_int_equal(proc_get_start_time("/proc", pid, &id.start_time), 0);
        assert_int_equal(f->b->vt->start(f->b, groups, 3), 0);
        assert_int_equal(state_get_group(f->j, "root", false)->found, 7);

        /* the root class: the sysctl */
        assert_int_equal(f->b->vt->apply(f->b, "root", 15), 0);
        assert_string_equal(read_file(f->root, "proc/sys/kernel/sched_cfs_boost", buf, sizeof(buf)), "15");
        assert_int_equal(n_calls, 0);
        /* another class: its processes' threads, each its own boost */
        assert_int_equal(f->b->vt->apply(f->b, "interactive", 30), 0);
        assert_int_equal(n_calls, 0);           /* nobody there yet */
        assert_int_equal(f->b->vt->attach(f->b, "interactive", &id), 0);
        assert_int_equal(last_for(pid), 30);
        assert_int_equal(f->b->vt->apply(f->b, "interactive", 40), 0);
        assert_int_equal(last_for(pid), 40);
        assert_int_equal(f->b->vt->apply(f->b, "performance", 80), 0);
        assert_int_equal(last_for(pid), 40);    /* not its class */
        assert_int_equal(f->b->vt->attach(f->b, "performance", &id), 0);
        assert_int_equal(last_for(pid), 80);
        /* the sysctl is not touched by a class */
        assert_string_equal(read_file(f->root, "proc/sys/kernel/sched_cfs_boost", buf, sizeof(buf)), "15");

        /* a hint session's thread keeps its own while claimed, and gets
         * its class's when let go */
        assert_int_equal(backend_thread_claim(f->b, pid), 0);
        n_calls = 0;
        assert_int_equal(f->b->vt->apply(f->b, "performance", 60), 0);
        assert_int_equal(n_calls, 0);
        assert_int_equal(backend_thread_release(f->b, pid), 0);
        assert_int_equal(last_for(pid), 60);

        /* stop: the process's own boost back to 0, the sysctl to what
         * was found */
        assert_int_equal(backend_restore(f->b), 0);
        assert_int_equal(last_for(pid), 0);
        assert_int_equal(f->j->n_placed, 0);
        assert_string_equal(read_file(f->root, "proc/sys/kernel/sched_cfs_boost", buf, sizeof(buf)), "7");

        kill_sleeper(pid);
        assert_int_equal(f->b->vt->attach(f->b, "interactive", &id), -ESRCH);
}

/* A sysctl changed by hand since boostd wrote it is left at stop. */
static void test_changed_by_hand(void **state) {
        Fixture *f = *state;
        const char *const groups[] = { "root" };
        char buf[32];

        mkdirs(f->root, "proc/sys/kernel");
        write_file(f->root, "proc/sys/kernel/sched_cfs_boost", "0\n");
        assert_int_equal(backend_select(f->b, "schedtune2"), 0);
        assert_int_equal(f->b->vt->start(f->b, groups, 1), 0);
        assert_int_equal(f->b->vt->apply(f->b, "root", 20), 0);
        write_file(f->root, "proc/sys/kernel/sched_cfs_boost", "33\n");
        assert_int_equal(backend_restore(f->b), 0);
        assert_string_equal(read_file(f->root, "proc/sys/kernel/sched_cfs_boost", buf, sizeof(buf)), "33");
}

/* A started schedtune2 backend over a fake v2 tree: system.slice (found
 * at 5) with units a and b, each cpu.boost 0. */
static void start_tree(Fixture *f) {
        const char *const groups[] = { "root", "interactive", "performance" };

        mkdirs(f->root, "proc/sys/kernel");
        write_file(f->root, "proc/sys/kernel/sched_cfs_boost", "0\n");
        mkdirs(f->root, "sys/fs/cgroup/system.slice/a.service");
        mkdirs(f->root, "sys/fs/cgroup/system.slice/b.service");
        write_file(f->root, "sys/fs/cgroup/system.slice/cpu.boost", "5\n");
        write_file(f->root, "sys/fs/cgroup/system.slice/a.service/cpu.boost", "0\n");
        write_file(f->root, "sys/fs/cgroup/system.slice/b.service/cpu.boost", "0\n");
        assert_int_equal(backend_select(f->b, "schedtune2"), 0);
        assert_int_equal(f->b->vt->start(f->b, groups, 3), 0);
}

static bool endswith_(const char *s, const char *suffix) {
        size_t l = strlen(s), n = strlen(suffix);

        return l >= n && streq(s + l - n, suffix);
}

static int boost_of(Fixture *f, const char *rel) {
        char p[4096], buf[32];

        snprintf(p, sizeof(p), "sys/fs/cgroup%s/cpu.boost", rel);
        return atoi(read_file(f->root, p, buf, sizeof(buf)));
}

static void test_units_in_place(void **state) {
        Fixture *f = *state;
        char buf[4096];

        start_tree(f);
        assert_int_equal(f->b->vt->apply(f->b, "performance", 50), 0);
        assert_int_equal(f->b->vt->apply(f->b, "interactive", 10), 0);
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice/a.service"), 0);
        assert_int_equal(boost_of(f, "/system.slice/a.service"), 50);
        assert_int_equal(boost_of(f, "/system.slice"), 50);     /* else a's is capped at 5 */
        assert_int_equal(boost_of(f, "/system.slice/b.service"), 0);
        /* the class's boost changes: the unit's, and the slice's with it */
        assert_int_equal(f->b->vt->apply(f->b, "performance", 30), 0);
        assert_int_equal(boost_of(f, "/system.slice/a.service"), 30);
        assert_int_equal(boost_of(f, "/system.slice"), 30);
        assert_int_equal(f->b->vt->apply(f->b, "performance", 2), 0);
        assert_int_equal(boost_of(f, "/system.slice"), 5);      /* never below what it had */
        assert_int_equal(f->b->vt->apply(f->b, "performance", 30), 0);
        /* the journal has what was found and written, and whose */
        assert_int_equal(state_save(f->j), 0);
        assert_non_null(read_file(f->root, "run/boostd/journal", buf, sizeof(buf)));
        assert_non_null(strstr(buf, " 0 30 performance /system.slice/a.service\n"));
        assert_true(endswith_(buf, " 5 30 - /system.slice"));
        /* a second unit of a lower class: the slice keeps the highest */
        assert_int_equal(f->b->vt->attach_unit(f->b, "interactive", "/system.slice/b.service"), 0);
        assert_int_equal(boost_of(f, "/system.slice/b.service"), 10);
        assert_int_equal(boost_of(f, "/system.slice"), 30);
        /* a unit no rule names any more gets its boost back */
        assert_int_equal(f->b->vt->attach_unit(f->b, "root", "/system.slice/a.service"), 0);
        assert_int_equal(boost_of(f, "/system.slice/a.service"), 0);
        assert_int_equal(boost_of(f, "/system.slice"), 10);
        /* paths that are no cgroup path of a unit */
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice/../x.service"), -EINVAL);
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "system.slice/a.service"), -EINVAL);
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice"), -EINVAL);
        /* stop: everything back to what was found */
        assert_int_equal(backend_restore(f->b), 0);
        assert_int_equal(boost_of(f, "/system.slice/b.service"), 0);
        assert_int_equal(boost_of(f, "/system.slice"), 5);
        assert_int_equal(f->j->n_cgroups, 0);
}

/* systemd removes a unit's cgroup when it stops and makes a new one, at
 * cpu.boost 0, when it starts again. */
static void test_unit_recreated(void **state) {
        Fixture *f = *state;
        char p[4096];

        start_tree(f);
        assert_int_equal(f->b->vt->apply(f->b, "performance", 50), 0);
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice/a.service"), 0);
        snprintf(p, sizeof(p), "%s/sys/fs/cgroup/system.slice/a.service", f->root);
        /* stopped: gone from the list, and the slice needs no boost */
        assert_int_equal(unlink(strcat(strcpy((char[4096]) {}, p), "/cpu.boost")), 0);
        assert_int_equal(rmdir(p), 0);
        assert_int_equal(f->b->vt->apply(f->b, "performance", 40), 0);
        assert_int_equal(boost_of(f, "/system.slice"), 5);
        assert_int_equal(f->j->n_cgroups, 0);
        /* started again: the new cgroup gets it */
        mkdirs(f->root, "sys/fs/cgroup/system.slice/a.service");
        write_file(f->root, "sys/fs/cgroup/system.slice/a.service/cpu.boost", "0\n");
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice/a.service"), 0);
        assert_int_equal(boost_of(f, "/system.slice/a.service"), 40);
        assert_int_equal(boost_of(f, "/system.slice"), 40);
        /* re-created between two placements: a new inode under the path,
         * whose 0 is what was found, not a change by hand */
        assert_int_equal(unlink(strcat(strcpy((char[4096]) {}, p), "/cpu.boost")), 0);
        assert_int_equal(rename(p, strcat(strcpy((char[4096]) {}, p), ".old")), 0);
        mkdirs(f->root, "sys/fs/cgroup/system.slice/a.service");
        write_file(f->root, "sys/fs/cgroup/system.slice/a.service/cpu.boost", "0\n");
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice/a.service"), 0);
        assert_int_equal(boost_of(f, "/system.slice/a.service"), 40);
        assert_int_equal(state_cgroup_find(f->j, "/system.slice/a.service")->found, 0);
}

/* A cpu.boost someone else changed since boostd wrote it is theirs: not
 * written again, by a boost change or by the unit's next placement, nor
 * put back; a slice's likewise. Until systemd makes the cgroup anew. */
static void test_unit_changed_by_hand(void **state) {
        Fixture *f = *state;
        char buf[4096];

        start_tree(f);
        assert_int_equal(f->b->vt->apply(f->b, "performance", 50), 0);
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice/a.service"), 0);
        write_file(f->root, "sys/fs/cgroup/system.slice/a.service/cpu.boost", "20\n");
        assert_int_equal(f->b->vt->apply(f->b, "performance", 60), 0);
        assert_int_equal(boost_of(f, "/system.slice/a.service"), 20);
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice/a.service"), -EBUSY);
        assert_int_equal(boost_of(f, "/system.slice/a.service"), 20);
        assert_int_equal(boost_of(f, "/system.slice"), 5);      /* nothing of boostd's below */
        /* journaled as theirs, so that a restart leaves it too */
        assert_int_equal(state_save(f->j), 0);
        assert_non_null(read_file(f->root, "run/boostd/journal", buf, sizeof(buf)));
        assert_non_null(strstr(buf, " -2 performance /system.slice/a.service"));
        /* a slice changed by hand */
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice/b.service"), 0);
        assert_int_equal(boost_of(f, "/system.slice"), 60);
        write_file(f->root, "sys/fs/cgroup/system.slice/cpu.boost", "7\n");
        assert_int_equal(f->b->vt->apply(f->b, "performance", 50), 0);
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice/b.service"), 0);
        assert_int_equal(boost_of(f, "/system.slice"), 7);
        assert_int_equal(backend_restore(f->b), 0);
        assert_int_equal(boost_of(f, "/system.slice/a.service"), 20);
        assert_int_equal(boost_of(f, "/system.slice"), 7);
        assert_int_equal(boost_of(f, "/system.slice/b.service"), 0);
}

/* Releasing a class with units under two slices gives every one back. */
static void test_release_two_slices(void **state) {
        Fixture *f = *state;
        const char *const groups[] = { "root", "interactive", "performance", "x" };

        start_tree(f);
        mkdirs(f->root, "sys/fs/cgroup/c.slice/r.service");
        write_file(f->root, "sys/fs/cgroup/c.slice/cpu.boost", "0\n");
        write_file(f->root, "sys/fs/cgroup/c.slice/r.service/cpu.boost", "0\n");
        assert_int_equal(f->b->vt->start(f->b, groups, 4), 0);
        assert_int_equal(f->b->vt->apply(f->b, "x", 50), 0);
        assert_int_equal(f->b->vt->attach_unit(f->b, "x", "/system.slice/a.service"), 0);
        assert_int_equal(f->b->vt->attach_unit(f->b, "x", "/system.slice/b.service"), 0);
        assert_int_equal(f->b->vt->attach_unit(f->b, "x", "/c.slice/r.service"), 0);
        assert_int_equal(boost_of(f, "/c.slice"), 50);
        assert_int_equal(backend_release(f->b, "x"), 0);
        assert_int_equal(boost_of(f, "/c.slice/r.service"), 0);
        assert_int_equal(boost_of(f, "/c.slice"), 0);
        assert_int_equal(boost_of(f, "/system.slice"), 5);
        assert_int_equal(f->j->n_cgroups, 0);
}

/* The journal has a value before its cgroup does: a crash between the two
 * leaves what was found, which the next start puts back anyway. */
static void test_unit_journal_before_write(void **state) {
        Fixture *f = *state;
        char buf[4096];

        start_tree(f);
        assert_int_equal(f->b->vt->apply(f->b, "performance", 50), 0);
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice/a.service"), 0);
        /* no save after the write: what is on disk already says 50 */
        assert_non_null(read_file(f->root, "run/boostd/journal", buf, sizeof(buf)));
        assert_non_null(strstr(buf, " 0 50 performance /system.slice/a.service"));
        assert_non_null(strstr(buf, " 5 50 - /system.slice"));
}

static char wanted[256];
static unsigned n_wanted;

static void fake_want_cpu(Backend *b, const char *cgroup, void *userdata) {
        snprintf(wanted, sizeof(wanted), "%s", cgroup);
        n_wanted++;
}

/* No cpu.boost (the cpu controller is off there): systemd is asked once,
 * and the unit gets its boost when it comes. */
static void test_unit_no_controller(void **state) {
        Fixture *f = *state;

        start_tree(f);
        n_wanted = 0;
        f->b->want_cpu = fake_want_cpu;
        mkdirs(f->root, "sys/fs/cgroup/system.slice/c.service");
        assert_int_equal(f->b->vt->apply(f->b, "performance", 50), 0);
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice/c.service"), -EOPNOTSUPP);
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice/c.service"), -EOPNOTSUPP);
        assert_int_equal(n_wanted, 1);
        assert_string_equal(wanted, "/system.slice/c.service");
        assert_int_equal(boost_of(f, "/system.slice"), 5);      /* not raised for nothing */
        write_file(f->root, "sys/fs/cgroup/system.slice/c.service/cpu.boost", "0\n");
        unit_boost_retry(f->b, "/system.slice/c.service");
        assert_int_equal(boost_of(f, "/system.slice/c.service"), 50);
        assert_int_equal(boost_of(f, "/system.slice"), 50);
        /* two units waiting: systemd's answer for one retries that one
         * only; still without after its answer: per-task boosts only,
         * and its next placements do not ask again */
        mkdirs(f->root, "sys/fs/cgroup/system.slice/d.service");
        mkdirs(f->root, "sys/fs/cgroup/system.slice/e.service");
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice/d.service"), -EOPNOTSUPP);
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice/e.service"), -EOPNOTSUPP);
        unit_boost_retry(f->b, "/system.slice/d.service");
        assert_true(state_cgroup_find(f->j, "/system.slice/d.service")->no_cpu);
        assert_false(state_cgroup_find(f->j, "/system.slice/e.service")->no_cpu);
        write_file(f->root, "sys/fs/cgroup/system.slice/e.service/cpu.boost", "0\n");
        unit_boost_retry(f->b, "/system.slice/e.service");
        assert_int_equal(boost_of(f, "/system.slice/e.service"), 50);
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice/d.service"), -EOPNOTSUPP);
        assert_int_equal(n_wanted, 3);          /* c, d, e: d not again */
}

/* A class renamed on every reload: the old name is released (its units'
 * boosts back) and forgotten, so the state never fills. */
static void test_renamed_classes(void **state) {
        Fixture *f = *state;
        char name[32];

        start_tree(f);
        for (int i = 1; i <= 3 * GROUPS_MAX; i++) {
                const char *groups[] = { "root", "interactive", "performance", name };

                snprintf(name, sizeof(name), "renamed%d", i);
                assert_int_equal(f->b->vt->start(f->b, groups, 4), 0);
                assert_int_equal(f->b->vt->apply(f->b, name, 40), 0);
                assert_int_equal(f->b->vt->attach_unit(f->b, name, "/system.slice/a.service"), 0);
                assert_int_equal(boost_of(f, "/system.slice/a.service"), 40);
                if (i > 1) {
                        snprintf(name, sizeof(name), "renamed%d", i - 1);
                        assert_int_equal(backend_release(f->b, name), 0);
                        assert_null(state_get_group(f->j, name, false));
                }
        }
        snprintf(name, sizeof(name), "renamed%d", 3 * GROUPS_MAX);
        assert_int_equal(backend_release(f->b, name), 0);
        assert_int_equal(boost_of(f, "/system.slice/a.service"), 0);
        assert_int_equal(boost_of(f, "/system.slice"), 5);
        assert_int_equal(f->j->n_groups, 3);
}

/* After a crash the journal gives every cgroup back what was found. */
static void test_unit_journal_restart(void **state) {
        Fixture *f = *state;
        char run[4096];
        State *j2;
        Backend *b2;

        start_tree(f);
        assert_int_equal(f->b->vt->apply(f->b, "performance", 50), 0);
        assert_int_equal(f->b->vt->attach_unit(f->b, "performance", "/system.slice/a.service"), 0);
        assert_int_equal(state_save(f->j), 0);
        snprintf(run, sizeof(run), "%s/run/boostd", f->root);
        j2 = state_new(run);
        assert_int_equal(state_load(j2), 1);    /* the groups' lines */
        assert_int_equal(j2->n_cgroups, 2);
        b2 = backend_new(f->root, "/dev/stune", "/proc", j2, true, &quiet);
        unit_boost_restore(b2);
        assert_int_equal(boost_of(f, "/system.slice/a.service"), 0);
        assert_int_equal(boost_of(f, "/system.slice"), 5);
        assert_int_equal(j2->n_cgroups, 0);
        backend_free(b2);
        state_free(j2);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_probe, setup, teardown),
                cmocka_unit_test_setup_teardown(test_classes, setup, teardown),
                cmocka_unit_test_setup_teardown(test_changed_by_hand, setup, teardown),
                cmocka_unit_test_setup_teardown(test_units_in_place, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unit_recreated, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unit_changed_by_hand, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unit_no_controller, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unit_journal_restart, setup, teardown),
                cmocka_unit_test_setup_teardown(test_renamed_classes, setup, teardown),
                cmocka_unit_test_setup_teardown(test_release_two_slices, setup, teardown),
                cmocka_unit_test_setup_teardown(test_unit_journal_before_write, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
