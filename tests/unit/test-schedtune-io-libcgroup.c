/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The schedtune backend with its libcgroup cgroup work, on a real cgroup
 * v1 hierarchy. This kernel has no SchedTune, so the test mounts another
 * v1 controller (net_cls, with its number file net_cls.classid standing in
 * for schedtune.boost) at a temporary mount point, in a private mount
 * namespace that goes away with the test. Needs root; skipped (77)
 * otherwise. */
#include "tests.h"

#include <dirent.h>
#include <libcgroup.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mount.h>

#include "backend.h"
#include "schedtune-io.h"
#include "log.h"

#define CONTROLLER "net_cls"
#define VALUE_FILE "net_cls.classid"
#define EXIT_SKIP 77

static char mount_dir[] = "/tmp/boostd-cgroup-XXXXXX";
static const char *const groups[] = { "root", "boostd-unit-bg", "boostd-unit-fg" };
#define N_GROUPS (sizeof(groups) / sizeof(groups[0]))

typedef struct Fixture {
        char *run;
        State *state;
        Backend *backend;
} Fixture;

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(Fixture));

        f->run = tmpdir_new();
        f->state = state_new(f->run);
        /* root "/": the backend takes libcgroup */
        f->backend = backend_new("/", mount_dir, "/proc", f->state, false, &quiet);
        assert_non_null(f->backend);
        f->backend->vt = &backend_schedtune;
        assert_int_equal(backend_schedtune_set_controller(f->backend, CONTROLLER, VALUE_FILE), 0);
        assert_int_equal(backend_schedtune_set_path(f->backend, mount_dir), 0);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;
        char p[PATH_MAX];

        for (size_t i = 1; i < N_GROUPS; i++) {
                snprintf(p, sizeof(p), "%s/%s", mount_dir, groups[i]);
                (void) rmdir(p);
        }
        backend_free(f->backend);
        state_free(f->state);
        tmpdir_free(f->run);
        free(f);
        return 0;
}

static void *sleep_forever(void *arg) {
        for (;;)
                pause();
        return arg;
}

/* A child with two threads, so a move must take both. */
static pid_t spawn_threaded(void) {
        pid_t parent = getpid(), pid = fork();

        assert_true(pid >= 0);
        if (pid == 0) {
                pthread_t t;

                child_setup(parent);
                if (pthread_create(&t, NULL, sleep_forever, NULL) != 0)
                        _exit(1);
                sleep_forever(NULL);
        }
        for (int i = 0; i < 500; i++) {         /* until the thread is there */
                char p[64];
                DIR *d;
                int n = 0;

                snprintf(p, sizeof(p), "/proc/%d/task", (int) pid);
                d = opendir(p);
                assert_non_null(d);
                for (struct dirent *de; (de = readdir(d));)
                        n += de->d_name[0] != '.';
                closedir(d);
                if (n == 2)
                        return pid;
                usleep(2000);
        }
        fail_msg("child %d never had two threads", (int) pid);
        return -1;
}

/* How many of pid's threads are in group ("/" is the root). */
static int threads_in(pid_t pid, const char *group) {
        char p[PATH_MAX], line[512], want[256];
        DIR *d;
        int n = 0;

        snprintf(want, sizeof(want), ":" CONTROLLER ":%s\n", group);
        snprintf(p, sizeof(p), "/proc/%d/task", (int) pid);
        d = opendir(p);
        assert_non_null(d);
        for (struct dirent *de; (de = readdir(d));) {
                FILE *fp;

                if (de->d_name[0] == '.')
                        continue;
                snprintf(p, sizeof(p), "/proc/%d/task/%s/cgroup", (int) pid, de->d_name);
                fp = fopen(p, "re");
                assert_non_null(fp);
                while (fgets(line, sizeof(line), fp))
                        if (strstr(line, want))
                                n++;
                fclose(fp);
        }
        closedir(d);
        return n;
}

static int value_of(const char *group) {
        char p[256];

        snprintf(p, sizeof(p), "%s/" VALUE_FILE, group);
        return read_int(mount_dir, p);
}

static bool group_exists(const char *group) {
        char p[PATH_MAX];

        snprintf(p, sizeof(p), "%s/%s", mount_dir, group);
        return access(p, F_OK) == 0;
}

static void test_errno_mapping(void **state) {
        (void) state;
        assert_int_equal(cgroup_errno_from_ecg(0), 0);
        assert_int_equal(cgroup_errno_from_ecg(ECGROUPNOTEXIST), -ENOENT);
        assert_int_equal(cgroup_errno_from_ecg(ECGROUPVALUENOTEXIST), -ENOENT);
        assert_int_equal(cgroup_errno_from_ecg(ECGROUPSUBSYSNOTMOUNTED), -ENODEV);
        assert_int_equal(cgroup_errno_from_ecg(ECGROUPNOTOWNER), -EPERM);
        assert_int_equal(cgroup_errno_from_ecg(ECGINVAL), -EINVAL);
        assert_int_equal(cgroup_errno_from_ecg(ECGEOF), -ENODATA);
        assert_int_equal(cgroup_errno_from_ecg(59999), -EIO);
}

static void test_start_apply_attach_restore(void **state) {
        Fixture *f = *state;
        Backend *b = f->backend;
        pid_t pid = spawn_threaded();
        ProcessId id = { .pid = pid };

        assert_int_equal(proc_get_start_time("/proc", pid, &id.start_time), 0);
        assert_int_equal(b->vt->start(b, groups, N_GROUPS), 0);
        assert_ptr_equal(backend_schedtune_cgroup_ops(b), &cgroup_ops_libcgroup);
        assert_true(state_get_group(f->state, groups[1], false)->created);
        assert_true(state_get_group(f->state, groups[2], false)->created);
        /* a second start adopts them */
        assert_int_equal(backend_schedtune_cgroup_ops(b)->make_group(b, groups[1]), 0);

        assert_int_equal(b->vt->apply(b, groups[1], 25), 0);
        assert_int_equal(value_of(groups[1]), 25);
        assert_int_equal(b->vt->apply(b, groups[2], 60), 0);
        assert_int_equal(value_of(groups[2]), 60);

        /* both threads move at once, through cgroup.procs */
        assert_int_equal(b->vt->attach(b, groups[2], &id), 0);
        assert_int_equal(threads_in(pid, "/boostd-unit-fg"), 2);
        assert_int_equal(backend_schedtune_cgroup_ops(b)->has_pid(b, groups[2], pid), 1);
        assert_int_equal(backend_schedtune_cgroup_ops(b)->has_pid(b, groups[1], pid), 0);

        /* someone changes bg by hand: restore leaves it */
        {
                char p[256];

                snprintf(p, sizeof(p), "%s/" VALUE_FILE, groups[1]);
                write_file(mount_dir, p, "7\n");
        }
        assert_int_equal(backend_restore(b), 0);
        assert_int_equal(threads_in(pid, "/"), 2);
        assert_int_equal(value_of(groups[1]), 7);
        /* the group boostd made, empty now, is gone (rmdir on cgroupfs) */
        assert_false(group_exists(groups[2]));
        kill_sleeper(pid);
}

/* A class that goes: its placed processes back to root, the group
 * boostd made removed, but not while a process it did not place is in
 * it (the kernel's EBUSY). */
static void test_release(void **state) {
        Fixture *f = *state;
        Backend *b = f->backend;
        pid_t placed = spawn_threaded(), other = spawn_sleeper();
        ProcessId id = { .pid = placed };
        char p[256];

        assert_int_equal(proc_get_start_time("/proc", placed, &id.start_time), 0);
        assert_int_equal(b->vt->start(b, groups, N_GROUPS), 0);
        assert_int_equal(b->vt->apply(b, groups[2], 60), 0);
        assert_int_equal(b->vt->attach(b, groups[2], &id), 0);
        snprintf(p, sizeof(p), "%s/cgroup.procs", groups[2]);
        write_file(mount_dir, p, "%d\n", (int) other);        /* by hand */

        assert_int_equal(backend_release(b, groups[2]), 0);
        assert_int_equal(threads_in(placed, "/"), 2);
        assert_true(group_exists(groups[2]));
        assert_int_equal(value_of(groups[2]), 0);
        assert_int_equal(backend_schedtune_cgroup_ops(b)->has_pid(b, groups[2], other), 1);
        /* the state still knows the group boostd made: tried again */
        assert_non_null(state_get_group(f->state, groups[2], false));
        write_file(mount_dir, "cgroup.procs", "%d\n", (int) other);
        assert_int_equal(backend_release(b, groups[2]), 0);
        assert_false(group_exists(groups[2]));
        assert_null(state_get_group(f->state, groups[2], false));
        kill_sleeper(placed);
        kill_sleeper(other);
}

static void test_precise_errors(void **state) {
        Fixture *f = *state;
        Backend *b = f->backend;
        pid_t gone = dead_pid();
        ProcessId id = { .pid = gone };
        char p[PATH_MAX];
        unsigned v;

        assert_int_equal(b->vt->start(b, groups, N_GROUPS), 0);
        /* a dead PID: the kernel's ESRCH, through ECGOTHER */
        assert_int_equal(b->vt->attach(b, groups[1], &id), -ESRCH);
        /* a group removed underneath */
        snprintf(p, sizeof(p), "%s/%s", mount_dir, groups[2]);
        assert_int_equal(rmdir(p), 0);
        assert_int_equal(b->vt->apply(b, groups[2], 10), -ENOENT);
        assert_int_equal(backend_schedtune_cgroup_ops(b)->read_value(b, groups[2], VALUE_FILE, 100, &v), -ENOENT);
        /* a path through a file: the system's ENOTDIR, not a generic code */
        assert_int_equal(backend_schedtune_cgroup_ops(b)->make_group(b, "boostd-unit-bg/" VALUE_FILE "/x"), -ENOTDIR);
        /* a controller that is not mounted */
        assert_int_equal(backend_schedtune_set_controller(b, "boostd-no-such-controller", VALUE_FILE), 0);
        assert_int_equal(backend_schedtune_cgroup_ops(b)->init(b), -ENODEV);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_errno_mapping),
                cmocka_unit_test_setup_teardown(test_start_apply_attach_restore, setup, teardown),
                cmocka_unit_test_setup_teardown(test_release, setup, teardown),
                cmocka_unit_test_setup_teardown(test_precise_errors, setup, teardown),
        };
        int r;

        if (geteuid() != 0) {
                fprintf(stderr, "skipping: needs root to mount a cgroup hierarchy\n");
                return EXIT_SKIP;
        }
        if (unshare(CLONE_NEWNS) < 0 ||
            mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) < 0) {
                fprintf(stderr, "skipping: no private mount namespace: %m\n");
                return EXIT_SKIP;
        }
        if (!mkdtemp(mount_dir))
                return EXIT_FAILURE;
        if (mount("boostd-test", mount_dir, "cgroup", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                  CONTROLLER) < 0) {
                fprintf(stderr, "skipping: cannot mount the %s controller: %m\n", CONTROLLER);
                (void) rmdir(mount_dir);
                return EXIT_SKIP;
        }
        /* The hierarchy outlives the mount: drop what a run that was
         * killed midway left, so that "created" means created now. */
        for (size_t i = 1; i < N_GROUPS; i++) {
                char p[PATH_MAX];

                snprintf(p, sizeof(p), "%s/%s", mount_dir, groups[i]);
                (void) rmdir(p);
        }
        r = cmocka_run_group_tests(tests, NULL, NULL);
        (void) umount(mount_dir);
        (void) rmdir(mount_dir);
        return r;
}
