/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The schedtune backend against a temporary tree laid out like a mounted
 * controller: probe, writes, moves, restore on stop, adoption after a
 * crash. */
#include <sys/mount.h>

#include "tests.h"

#include "backend.h"
#include "log.h"
#include "util.h"

static const char *const groups[] = { "root", "background", "interactive", "performance" };
#define N_GROUPS (sizeof(groups) / sizeof(groups[0]))

typedef struct Fixture {
        char *root;
        char run[4096];
        State *state;
        Backend *backend;
} Fixture;

static Backend *new_backend(Fixture *f, bool restore_found) {
        Backend *b = backend_new(f->root, "/dev/stune", "/proc", f->state, restore_found, &quiet);

        assert_non_null(b);
        b->vt = &backend_schedtune;
        return b;
}

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(Fixture));

        f->root = tmpdir_new();
        make_schedtune_tree(f->root, groups + 1, N_GROUPS - 1);
        snprintf(f->run, sizeof(f->run), "%s/run/boostd", f->root);
        f->state = state_new(f->run);
        f->backend = new_backend(f, false);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        char p[4096];

        backend_free(f->backend);
        state_free(f->state);
        /* a test that failed with its bind mount in place */
        snprintf(p, sizeof(p), "%s/dev/stune", f->root);
        (void) umount2(p, MNT_DETACH);
        tmpdir_free(f->root);
        free(f);
        return 0;
}

static void test_probe(void **state) {
        Fixture *f = *state;

        assert_int_equal(backend_schedtune.probe(f->backend), PROBE_SUCCESS);
        write_file(f->root, "proc/cgroups", "#subsys_name\thierarchy\tnum_cgroups\tenabled\ncpu\t0\t1\t1\n");
        assert_int_equal(backend_schedtune.probe(f->backend), PROBE_FAIL);
        write_file(f->root, "proc/cgroups", "schedtune\t0\t1\t0\n");
        assert_int_equal(backend_schedtune.probe(f->backend), PROBE_FAIL);
        {
                char p[4096];

                snprintf(p, sizeof(p), "%s/proc/cgroups", f->root);
                assert_int_equal(unlink(p), 0);
        }
        assert_int_equal(backend_schedtune.probe(f->backend), PROBE_DEFER);
        /* auto falls through to none; asking for schedtune fails */
        assert_int_equal(backend_select(f->backend, "schedtune"), -EOPNOTSUPP);
        assert_int_equal(backend_select(f->backend, "auto"), 0);
        assert_string_equal(backend_name(f->backend), "none");
}

static void test_start_adopts_and_records(void **state) {
        Fixture *f = *state;
        char buf[4096];

        write_file(f->root, "dev/stune/schedtune.boost", "5\n");
        write_file(f->root, "dev/stune/performance/schedtune.boost", "12\n");
        assert_int_equal(backend_select(f->backend, "auto"), 0);
        assert_string_equal(backend_name(f->backend), "schedtune");
        assert_int_equal(f->backend->vt->start(f->backend, groups, N_GROUPS), 0);
        assert_false(backend_schedtune_mounted(f->backend));
        assert_int_equal(f->state->n_groups, N_GROUPS);
        assert_int_equal(state_get_group(f->state, "root", false)->found, 5);
        assert_int_equal(state_get_group(f->state, "performance", false)->found, 12);
        assert_false(state_get_group(f->state, "performance", false)->created);
        /* recorded in memory and marked for the caller's save, which comes
         * before any change (manager_start()) */
        assert_true(f->state->dirty);
        assert_null(read_file(f->run, "journal", buf, sizeof(buf)));
        assert_int_equal(state_save(f->state), 0);
        assert_non_null(read_file(f->run, "journal", buf, sizeof(buf)));
        assert_non_null(strstr(buf, "group root 5 -1 0"));
        assert_non_null(strstr(buf, "group performance 12 -1 0"));
}

/* The manager gives UclampGroup= before it knows which backend it gets:
 * when schedtune wins, the uclamp fields are dropped, not taken for its
 * own. */
static void test_fields_of_another_backend(void **state) {
        Fixture *f = *state;

        assert_int_equal(backend_uclamp_set_group(f->backend, "/sys/fs/cgroup/boostd"), 0);
        assert_int_equal(backend_select(f->backend, "auto"), 0);
        assert_string_equal(backend_name(f->backend), "schedtune");
        assert_null(backend_schedtune_path(f->backend));
        assert_null(backend_schedtune_cgroup_ops(f->backend));
        assert_int_equal(f->backend->vt->start(f->backend, groups, N_GROUPS), 0);
        assert_ptr_equal(backend_schedtune_cgroup_ops(f->backend), &cgroup_ops_files);
        assert_non_null(backend_schedtune_path(f->backend));
        assert_null(backend_uclamp_util_min_hook(f->backend));
        assert_int_equal(f->backend->vt->apply(f->backend, "interactive", 25), 0);
        assert_int_equal(read_int(f->root, "dev/stune/interactive/schedtune.boost"), 25);
}

/* Plays the kernel: mkdir on cgroupfs makes the group's files. */
static int fake_make_group(const Backend *b, const char *group) {
        char p[4096];
        int r = cgroup_ops_files.make_group(b, group);

        if (r <= 0)
                return r;
        snprintf(p, sizeof(p), "%s/%s/schedtune.boost", backend_schedtune_path(b), group);
        write_file("", p + 1, "0\n");
        snprintf(p, sizeof(p), "%s/%s/cgroup.procs", backend_schedtune_path(b), group);
        empty_file("", p + 1);
        return r;
}

static int fake_make_group_full(const Backend *b, const char *group) {
        (void) b, (void) group;
        return -ENOSPC;
}

static int fake_make_group_nested(const Backend *b, const char *group) {
        (void) b, (void) group;
        return -EINVAL;
}

static CgroupOps ops_with(int (*make_group)(const Backend *b, const char *group)) {
        CgroupOps ops = cgroup_ops_files;

        ops.make_group = make_group;
        return ops;
}

static void test_start_creates_groups(void **state) {
        Fixture *f = *state;
        const char *const more[] = { "root", "games" };
        CgroupOps ops = ops_with(fake_make_group);

        assert_int_equal(backend_schedtune_set_cgroup_ops(f->backend, &ops), 0);
        assert_int_equal(f->backend->vt->start(f->backend, more, 2), 0);
        assert_true(state_get_group(f->state, "games", false)->created);
        /* a second start finds it there: not made, not marked created again */
        assert_int_equal(f->backend->vt->start(f->backend, more, 2), 0);
        assert_int_equal(cgroup_ops_files.make_group(f->backend, "games"), 0);
        assert_int_equal(f->backend->vt->apply(f->backend, "games", 33), 0);
        assert_int_equal(read_int(f->root, "dev/stune/games/schedtune.boost"), 33);
}

static void test_start_group_limit(void **state) {
        Fixture *f = *state;
        const char *const more[] = { "root", "games" };
        CgroupOps full = ops_with(fake_make_group_full), nested = ops_with(fake_make_group_nested);

        assert_int_equal(backend_schedtune_set_cgroup_ops(f->backend, &full), 0);
        assert_int_equal(f->backend->vt->start(f->backend, more, 2), -ENOSPC);
        assert_int_equal(backend_schedtune_set_cgroup_ops(f->backend, &nested), 0);
        assert_int_equal(f->backend->vt->start(f->backend, more, 2), -EINVAL);
}

static void test_apply_and_attach(void **state) {
        Fixture *f = *state;
        pid_t pid = spawn_sleeper();
        ProcessId id = { .pid = pid };
        char buf[4096];

        assert_int_equal(proc_get_start_time("/proc", pid, &id.start_time), 0);
        assert_int_equal(f->backend->vt->start(f->backend, groups, N_GROUPS), 0);
        assert_int_equal(f->backend->vt->apply(f->backend, "interactive", 25), 0);
        assert_int_equal(read_int(f->root, "dev/stune/interactive/schedtune.boost"), 25);
        assert_int_equal(state_get_group(f->state, "interactive", false)->wrote, 25);
        /* a group that vanished underneath gives an error */
        assert_int_equal(f->backend->vt->apply(f->backend, "nope", 25), -ENOENT);

        assert_int_equal(f->backend->vt->attach(f->backend, "performance", &id), 0);
        assert_int_equal(read_int(f->root, "dev/stune/performance/cgroup.procs"), pid);
        assert_int_equal(f->state->n_placed, 1);
        /* recorded, and left to the caller to save (once per burst) */
        assert_true(f->state->dirty);
        assert_null(read_file(f->run, "journal", buf, sizeof(buf)));
        assert_int_equal(state_save(f->state), 0);
        assert_false(f->state->dirty);
        assert_non_null(read_file(f->run, "journal", buf, sizeof(buf)));
        assert_non_null(strstr(buf, "placed"));
        assert_int_equal(f->backend->vt->attach(f->backend, "root", &id), 0);
        assert_int_equal(read_int(f->root, "dev/stune/cgroup.procs"), pid);
        assert_int_equal(f->state->n_placed, 0);
        kill_sleeper(pid);
}

static unsigned attach_writes;

static int counting_attach(const Backend *b, const char *group, pid_t pid) {
        attach_writes++;
        return cgroup_ops_files.attach(b, group, pid);
}

/* Like cgroupfs: a PID is in one group at a time, and a process already
 * in its group is not written again. */
static void test_attach_moves_once_and_only_when_needed(void **state) {
        Fixture *f = *state;
        CgroupOps ops = cgroup_ops_files;
        pid_t a = spawn_sleeper(), b = spawn_sleeper();
        ProcessId ia = { .pid = a }, ib = { .pid = b };
        char g[CLASS_NAME_MAX];

        ops.attach = counting_attach;
        attach_writes = 0;
        assert_int_equal(proc_get_start_time("/proc", a, &ia.start_time), 0);
        assert_int_equal(proc_get_start_time("/proc", b, &ib.start_time), 0);
        assert_int_equal(f->backend->vt->start(f->backend, groups, N_GROUPS), 0);
        assert_int_equal(backend_schedtune_set_cgroup_ops(f->backend, &ops), 0);

        assert_int_equal(f->backend->vt->group_of(f->backend, a, g, sizeof(g)), 0);
        assert_string_equal(g, "root");
        assert_int_equal(f->backend->vt->attach(f->backend, "performance", &ia), 0);
        assert_int_equal(f->backend->vt->attach(f->backend, "performance", &ib), 0);
        assert_true(file_has_pid(f->root, "dev/stune/performance/cgroup.procs", a));
        assert_true(file_has_pid(f->root, "dev/stune/performance/cgroup.procs", b));
        assert_int_equal(attach_writes, 2);
        /* there already: no write */
        assert_int_equal(f->backend->vt->attach(f->backend, "performance", &ia), 0);
        assert_int_equal(attach_writes, 2);
        assert_int_equal(f->state->n_placed, 2);

        assert_int_equal(f->backend->vt->attach(f->backend, "background", &ia), 0);
        assert_int_equal(attach_writes, 3);
        assert_false(file_has_pid(f->root, "dev/stune/performance/cgroup.procs", a));
        assert_true(file_has_pid(f->root, "dev/stune/background/cgroup.procs", a));
        assert_int_equal(f->backend->vt->group_of(f->backend, a, g, sizeof(g)), 0);
        assert_string_equal(g, "background");
        assert_int_equal(f->backend->vt->attach(f->backend, "root", &ia), 0);
        assert_false(file_has_pid(f->root, "dev/stune/background/cgroup.procs", a));
        assert_true(file_has_pid(f->root, "dev/stune/cgroup.procs", a));
        assert_int_equal(f->state->n_placed, 1);

        kill_sleeper(a);
        assert_int_equal(f->backend->vt->attach(f->backend, "performance", &ia), -ESRCH);
        assert_int_equal(f->backend->vt->group_of(f->backend, a, g, sizeof(g)), -ESRCH);
        kill_sleeper(b);
}

static void test_restore_on_stop(void **state) {
        Fixture *f = *state;
        pid_t pid = spawn_sleeper(), gone = spawn_sleeper();
        ProcessId id = { .pid = pid }, gid = { .pid = gone };
        char buf[64];

        write_file(f->root, "dev/stune/schedtune.boost", "4\n");
        write_file(f->root, "dev/stune/background/schedtune.boost", "3\n");
        assert_int_equal(proc_get_start_time("/proc", pid, &id.start_time), 0);
        assert_int_equal(proc_get_start_time("/proc", gone, &gid.start_time), 0);
        assert_int_equal(f->backend->vt->start(f->backend, groups, N_GROUPS), 0);
        for (size_t i = 0; i < N_GROUPS; i++)
                assert_int_equal(f->backend->vt->apply(f->backend, groups[i], 20 + (unsigned) i), 0);
        assert_int_equal(f->backend->vt->attach(f->backend, "interactive", &gid), 0);
        assert_int_equal(f->backend->vt->attach(f->backend, "interactive", &id), 0);
        kill_sleeper(gone);
        /* someone sets performance by hand */
        write_file(f->root, "dev/stune/performance/schedtune.boost", "99\n");

        assert_int_equal(backend_restore(f->backend), 0);
        assert_int_equal(read_int(f->root, "dev/stune/schedtune.boost"), 4);     /* found */
        assert_int_equal(read_int(f->root, "dev/stune/background/schedtune.boost"), 0);
        assert_int_equal(read_int(f->root, "dev/stune/interactive/schedtune.boost"), 0);
        assert_int_equal(read_int(f->root, "dev/stune/performance/schedtune.boost"), 99);
        /* the live process went back to root, the dead one was not written */
        assert_int_equal(read_int(f->root, "dev/stune/cgroup.procs"), pid);
        assert_int_equal(f->state->n_groups, 0);
        assert_null(read_file(f->run, "journal", buf, sizeof(buf)));
        kill_sleeper(pid);
}

static void test_restore_found(void **state) {
        Fixture *f = *state;

        backend_free(f->backend);
        f->backend = new_backend(f, true);
        write_file(f->root, "dev/stune/background/schedtune.boost", "3\n");
        assert_int_equal(f->backend->vt->start(f->backend, groups, N_GROUPS), 0);
        assert_int_equal(f->backend->vt->apply(f->backend, "background", 50), 0);
        assert_int_equal(backend_restore(f->backend), 0);
        assert_int_equal(read_int(f->root, "dev/stune/background/schedtune.boost"), 3);
}

/* A class that goes (reload) puts its group's boost back, unless someone
 * changed it by hand since boostd wrote it; a group boostd did not make
 * stays. */
static void test_release_leaves_a_hand_made_value(void **state) {
        Fixture *f = *state;

        assert_int_equal(f->backend->vt->start(f->backend, groups, N_GROUPS), 0);
        assert_int_equal(f->backend->vt->apply(f->backend, "background", 30), 0);
        assert_int_equal(f->backend->vt->apply(f->backend, "performance", 40), 0);
        write_file(f->root, "dev/stune/performance/schedtune.boost", "44\n");
        assert_int_equal(backend_release(f->backend, "background"), 0);
        assert_int_equal(backend_release(f->backend, "performance"), 0);
        assert_int_equal(read_int(f->root, "dev/stune/background/schedtune.boost"), 0);
        assert_int_equal(read_int(f->root, "dev/stune/performance/schedtune.boost"), 44);
        assert_null(state_get_group(f->state, "background", false));
        assert_null(state_get_group(f->state, "performance", false));
}

static void test_adoption_after_crash(void **state) {
        Fixture *f = *state;
        pid_t pid = spawn_sleeper();
        ProcessId id = { .pid = pid };
        State *j2;
        Backend *b2;

        write_file(f->root, "dev/stune/schedtune.boost", "6\n");
        assert_int_equal(proc_get_start_time("/proc", pid, &id.start_time), 0);
        assert_int_equal(f->backend->vt->start(f->backend, groups, N_GROUPS), 0);
        assert_int_equal(f->backend->vt->apply(f->backend, "root", 30), 0);
        assert_int_equal(f->backend->vt->apply(f->backend, "interactive", 40), 0);
        assert_int_equal(f->backend->vt->attach(f->backend, "interactive", &id), 0);
        assert_int_equal(state_save(f->state), 0);  /* the manager's, after the burst */
        /* crash: no restore; a new instance reads the journal */

        j2 = state_new(f->run);
        assert_int_equal(state_load(j2), 1);
        b2 = backend_new(f->root, "/dev/stune", "/proc", j2, false, &quiet);
        b2->vt = &backend_schedtune;
        assert_int_equal(b2->vt->start(b2, groups, N_GROUPS), 0);
        /* what was found before the first run's change, not the current 30 */
        assert_int_equal(state_get_group(j2, "root", false)->found, 6);
        assert_int_equal(j2->n_placed, 1);
        assert_int_equal(backend_restore(b2), 0);
        assert_int_equal(read_int(f->root, "dev/stune/schedtune.boost"), 6);
        assert_int_equal(read_int(f->root, "dev/stune/interactive/schedtune.boost"), 0);
        assert_int_equal(read_int(f->root, "dev/stune/cgroup.procs"), pid);
        backend_free(b2);
        state_free(j2);
        kill_sleeper(pid);
}

/* The mount step never mounts over something: a mount point that holds
 * files is refused, and they stay. */
static void test_mount_refuses_a_full_directory(void **state) {
        Fixture *f = *state;
        char p[4096], buf[64];

        snprintf(p, sizeof(p), "rm -rf '%s/dev/stune' && mkdir -p '%s/dev/stune'", f->root, f->root);
        assert_int_equal(system(p), 0);
        write_file(f->root, "dev/stune/precious", "data\n");
        assert_int_equal(f->backend->vt->start(f->backend, groups, N_GROUPS), -ENOTEMPTY);
        assert_null(backend_schedtune_path(f->backend));
        assert_string_equal(read_file(f->root, "dev/stune/precious", buf, sizeof(buf)), "data");
}

/* ... nor over a mount, also an empty bind mount of the same file
 * system (same st_dev as its parent). */
static void test_mount_refuses_a_mount_point(void **state) {
        Fixture *f = *state;
        char p[4096], q[4096];

        snprintf(p, sizeof(p), "rm -rf '%s/dev/stune' && mkdir -p '%s/dev/stune' '%s/empty'", f->root, f->root,
                 f->root);
        assert_int_equal(system(p), 0);
        snprintf(p, sizeof(p), "%s/empty", f->root);
        snprintf(q, sizeof(q), "%s/dev/stune", f->root);
        assert_int_equal(dir_is_empty_unmounted(q), 0);
        if (mount(p, q, "none", MS_BIND, NULL) < 0)
                skip();         /* not allowed to mount here */
        assert_int_equal(dir_is_empty_unmounted(q), -EBUSY);
        assert_int_equal(f->backend->vt->start(f->backend, groups, N_GROUPS), -EBUSY);
        assert_null(backend_schedtune_path(f->backend));
        assert_int_equal(umount2(q, MNT_DETACH), 0);
}

static void test_mount_needed_but_impossible(void **state) {
        Fixture *f = *state;
        char p[4096], buf[8192];

        /* no hierarchy under the prefix, and this kernel cannot mount one */
        if (read_file("", "proc/cgroups", buf, sizeof(buf)) && strstr(buf, "schedtune"))
                skip();
        snprintf(p, sizeof(p), "%s/dev/stune/schedtune.boost", f->root);
        assert_int_equal(unlink(p), 0);
        assert_true(f->backend->vt->start(f->backend, groups, N_GROUPS) < 0);
        assert_null(backend_schedtune_path(f->backend));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_probe, setup, teardown),
                cmocka_unit_test_setup_teardown(test_start_adopts_and_records, setup, teardown),
                cmocka_unit_test_setup_teardown(test_fields_of_another_backend, setup, teardown),
                cmocka_unit_test_setup_teardown(test_start_creates_groups, setup, teardown),
                cmocka_unit_test_setup_teardown(test_start_group_limit, setup, teardown),
                cmocka_unit_test_setup_teardown(test_apply_and_attach, setup, teardown),
                cmocka_unit_test_setup_teardown(test_attach_moves_once_and_only_when_needed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_restore_on_stop, setup, teardown),
                cmocka_unit_test_setup_teardown(test_restore_found, setup, teardown),
                cmocka_unit_test_setup_teardown(test_release_leaves_a_hand_made_value, setup, teardown),
                cmocka_unit_test_setup_teardown(test_adoption_after_crash, setup, teardown),
                cmocka_unit_test_setup_teardown(test_mount_needed_but_impossible, setup, teardown),
                cmocka_unit_test_setup_teardown(test_mount_refuses_a_full_directory, setup, teardown),
                cmocka_unit_test_setup_teardown(test_mount_refuses_a_mount_point, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
