/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Hint sessions on SchedTune without uclamp: the threads move alone into
 * pool groups whose boost is the output's step, stay there when their
 * process is placed, go back to its group when they leave, and the pool
 * groups go at stop (and at start, after a crash). The cgroup tree is a
 * temporary one; the threads are this test's own. */
#include <pthread.h>

#include "tests.h"

#include "backend.h"
#include "hint-sessions.h"

#define T 16666667ULL

static const char *const groups[] = { "root", "background", "interactive", "performance" };
#define N_GROUPS (sizeof(groups) / sizeof(groups[0]))

typedef struct Fixture {
        char *root;
        char run[4096];
        State *state;
        Backend *backend;
        sd_event *event;
        HintConfig config;
        HintSessions w;
        pthread_t thread;
        int stop[2];
        pid_t tid;              /* a second thread of this process */
} Fixture;

static void *thread_body(void *userdata) {
        Fixture *f = userdata;
        char c;

        __atomic_store_n(&f->tid, gettid(), __ATOMIC_SEQ_CST);
        (void) read(f->stop[0], &c, 1);
        return NULL;
}

/* The thread's folder under root/proc with no util_min in it: a kernel
 * without uclamp, for the files seam of thread-clamp.c. */
static void no_uclamp(Fixture *f, pid_t tid) {
        char rel[64];

        snprintf(rel, sizeof(rel), "proc/%d", (int) tid);
        mkdirs(f->root, rel);
}

static void with_uclamp(Fixture *f, pid_t tid, unsigned v) {
        char rel[64];

        no_uclamp(f, tid);
        snprintf(rel, sizeof(rel), "proc/%d/util_min", (int) tid);
        write_file(f->root, rel, "%u\n", v);
}

static void start(Fixture *f, HintActuator actuator) {
        f->backend = backend_new(f->root, "/dev/stune", "/proc", f->state, false, &quiet);
        assert_non_null(f->backend);
        f->backend->vt = &backend_schedtune;
        assert_int_equal(f->backend->vt->start(f->backend, groups, N_GROUPS), 0);
        f->config.actuator = actuator;
        assert_int_equal(hint_sessions_init(&f->w, f->root, "/proc", f->event, &f->config, &quiet), 0);
        hint_sessions_set_backend(&f->w, f->backend);
}

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(Fixture));

        assert_non_null(f);
        f->root = tmpdir_new();
        make_schedtune_tree(f->root, groups + 1, N_GROUPS - 1);
        snprintf(f->run, sizeof(f->run), "%s/run/boostd", f->root);
        f->state = state_new(f->run);
        assert_non_null(f->state);
        assert_int_equal(sd_event_new(&f->event), 0);
        hint_config_init(&f->config);
        assert_int_equal(pipe2(f->stop, O_CLOEXEC), 0);
        assert_int_equal(pthread_create(&f->thread, NULL, thread_body, f), 0);
        while (__atomic_load_n(&f->tid, __ATOMIC_SEQ_CST) == 0)
                usleep(1000);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        hint_sessions_done(&f->w);
        backend_free(f->backend);
        (void) write(f->stop[1], "x", 1);
        pthread_join(f->thread, NULL);
        close(f->stop[0]);
        close(f->stop[1]);
        sd_event_unref(f->event);
        hint_config_done(&f->config);
        state_free(f->state);
        tmpdir_free(f->root);
        free(f);
        return 0;
}

static bool in_tasks(Fixture *f, const char *group, pid_t tid) {
        char rel[128];

        snprintf(rel, sizeof(rel), streq(group, "root") ? "dev/stune/tasks" : "dev/stune/%s/tasks", group);
        return file_has_pid(f->root, rel, tid);
}

static bool group_exists(Fixture *f, const char *group) {
        char p[4096];

        snprintf(p, sizeof(p), "%s/dev/stune/%s", f->root, group);
        return access(p, F_OK) == 0;
}

static void test_pool_boost_steps(void **state) {
        (void) state;
        assert_int_equal(backend_pool_boost(0), 0);
        assert_int_equal(backend_pool_boost(1), 20);
        assert_int_equal(backend_pool_boost(204), 20);         /* 19.9 % */
        assert_int_equal(backend_pool_boost(205), 40);         /* 20.0 % */
        assert_int_equal(backend_pool_boost(384), 40);         /* the default high bound */
        assert_int_equal(backend_pool_boost(820), 100);
        assert_int_equal(backend_pool_boost(1024), 100);
}

/* No uclamp (auto): the output's step of the pool, moved as the output
 * moves, kept there when the process is placed, back home at the end. */
static void test_auto_falls_back_to_the_pool(void **state) {
        Fixture *f = *state;
        HintWork over = { 1, 3 * T };
        ProcessId self = { .pid = getpid() };
        uint32_t id;

        start(f, HINT_ACTUATOR_AUTO);
        no_uclamp(f, f->tid);
        assert_int_equal(proc_get_start_time("/proc", self.pid, &self.start_time), 0);
        assert_int_equal(f->backend->vt->attach(f->backend, "interactive", &self), 0);

        assert_int_equal(hint_sessions_create(&f->w, ":1.1", getuid(), getpid(), false,
                                              (pid_t[]) { f->tid }, 1, T, &id), 0);
        assert_true(f->w.pool);
        /* the initial output, 100 of 1024: the first step */
        assert_true(in_tasks(f, "session.20", f->tid));
        assert_int_equal(stune_boost(f->root, "session.20"), 20);
        assert_true(backend_thread_claimed(f->backend, f->tid));

        assert_int_equal(hint_sessions_report(&f->w, id, ":1.1", &over, 1), 0);
        /* the high bound, 384: 37.5 %, the step above is 40 */
        assert_false(in_tasks(f, "session.20", f->tid));
        assert_true(in_tasks(f, "session.40", f->tid));
        assert_int_equal(stune_boost(f->root, "session.40"), 40);

        /* the placer moves the process (cgroup.procs moves every thread):
         * the session's thread goes back into its pool group */
        assert_int_equal(f->backend->vt->attach(f->backend, "performance", &self), 0);
        assert_true(in_tasks(f, "session.40", f->tid));

        /* the session ends: the thread goes to its process's group now */
        assert_int_equal(hint_sessions_close(&f->w, id, ":1.1"), 0);
        assert_false(in_tasks(f, "session.40", f->tid));
        assert_true(in_tasks(f, "performance", f->tid));
        assert_false(backend_thread_claimed(f->backend, f->tid));

        /* stop: the pool groups go, the groups of the classes stay */
        assert_int_equal(backend_restore(f->backend), 0);
        assert_false(group_exists(f, "session.20"));
        assert_false(group_exists(f, "session.40"));
        assert_true(group_exists(f, "performance"));
}

/* Actuator=uclamp: no pool, the kernel's refusal is the session's. */
static void test_uclamp_only(void **state) {
        Fixture *f = *state;

        start(f, HINT_ACTUATOR_UCLAMP);
        no_uclamp(f, f->tid);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", getuid(), getpid(), false,
                                              (pid_t[]) { f->tid }, 1, T, NULL), -EOPNOTSUPP);
        assert_int_equal(f->w.table.n, 0);
        assert_false(f->w.pool);
        assert_false(group_exists(f, "session.20"));
        assert_false(backend_thread_claimed(f->backend, f->tid));
}

/* Actuator=schedtune: the pool even where uclamp works. */
static void test_schedtune_configured(void **state) {
        Fixture *f = *state;
        uint32_t id;
        char buf[64];

        start(f, HINT_ACTUATOR_SCHEDTUNE);
        with_uclamp(f, f->tid, 7);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", getuid(), getpid(), false,
                                              (pid_t[]) { f->tid }, 1, T, &id), 0);
        assert_true(in_tasks(f, "session.20", f->tid));
        snprintf(buf, sizeof(buf), "proc/%d/util_min", (int) f->tid);
        assert_int_equal(read_int(f->root, buf), 7);
        assert_int_equal(hint_sessions_close(&f->w, id, ":1.1"), 0);
        assert_true(in_tasks(f, "root", f->tid));
        assert_int_equal(read_int(f->root, buf), 7);
}

/* A pool group a crash left, with a thread in it: emptied into root and
 * removed when the backend starts. */
static void test_crash_leftovers(void **state) {
        Fixture *f = *state;

        mkdirs(f->root, "dev/stune/session.60");
        write_file(f->root, "dev/stune/session.60/schedtune.boost", "60\n");
        empty_file(f->root, "dev/stune/session.60/cgroup.procs");
        write_file(f->root, "dev/stune/session.60/tasks", "%d\n", (int) f->tid);
        start(f, HINT_ACTUATOR_AUTO);
        assert_false(group_exists(f, "session.60"));
        assert_true(in_tasks(f, "root", f->tid));
}

/* A session naming the main thread: the process still counts as in its
 * group (the placer must not take it for moved by hand), a thread claimed
 * after it gets that group as its home, and a move of the process brings
 * both back into the pool. */
static void test_main_thread(void **state) {
        Fixture *f = *state;
        ProcessId self = { .pid = getpid() };
        char g[CLASS_NAME_MAX];
        uint32_t id;

        start(f, HINT_ACTUATOR_SCHEDTUNE);
        assert_int_equal(proc_get_start_time("/proc", self.pid, &self.start_time), 0);
        assert_int_equal(f->backend->vt->attach(f->backend, "interactive", &self), 0);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", getuid(), getpid(), false,
                                              (pid_t[]) { getpid() }, 1, T, &id), 0);
        assert_true(in_tasks(f, "session.20", getpid()));
        assert_int_equal(f->backend->vt->group_of(f->backend, getpid(), g, sizeof(g)), 0);
        assert_string_equal(g, "interactive");
        /* a second thread joins: its home is the process's group, not the pool */
        assert_int_equal(hint_sessions_set_threads(&f->w, id, ":1.1", (pid_t[]) { getpid(), f->tid }, 2), 1);
        assert_true(in_tasks(f, "session.20", f->tid));
        assert_int_equal(f->backend->vt->attach(f->backend, "performance", &self), 0);
        assert_true(in_tasks(f, "session.20", getpid()));
        assert_true(in_tasks(f, "session.20", f->tid));
        assert_int_equal(hint_sessions_close(&f->w, id, ":1.1"), 0);
        assert_true(in_tasks(f, "performance", getpid()));
        assert_true(in_tasks(f, "performance", f->tid));
        assert_false(group_exists(f, "session.20"));
}

/* A pool group that cannot be made: no session, and no claim left. */
static void test_failed_pool_move(void **state) {
        Fixture *f = *state;

        write_file(f->root, "dev/stune/session.20", "not a group\n");
        start(f, HINT_ACTUATOR_SCHEDTUNE);
        assert_true(hint_sessions_create(&f->w, ":1.1", getuid(), getpid(), false,
                                         (pid_t[]) { f->tid }, 1, T, NULL) < 0);
        assert_int_equal(f->w.table.n, 0);
        assert_false(backend_thread_claimed(f->backend, f->tid));
}

/* A thread that started inside a pool group (created by a pooled thread)
 * leaves it with the session, for its process's group. */
static void test_stray_thread(void **state) {
        Fixture *f = *state;
        ProcessId self = { .pid = getpid() };
        uint32_t id;

        start(f, HINT_ACTUATOR_SCHEDTUNE);
        assert_int_equal(proc_get_start_time("/proc", self.pid, &self.start_time), 0);
        assert_int_equal(f->backend->vt->attach(f->backend, "interactive", &self), 0);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", getuid(), getpid(), false,
                                              (pid_t[]) { getpid() }, 1, T, &id), 0);
        write_file(f->root, "dev/stune/session.20/tasks", "%d\n%d\n", (int) getpid(), (int) f->tid);
        assert_int_equal(hint_sessions_close(&f->w, id, ":1.1"), 0);
        assert_true(in_tasks(f, "interactive", f->tid));
        assert_true(in_tasks(f, "interactive", getpid()));
        assert_false(group_exists(f, "session.20"));
}

/* A thread that started inside a pool group does not keep its boost
 * until the session ends: the next call of any session sweeps it out. */
static void test_stray_thread_swept_at_a_call(void **state) {
        Fixture *f = *state;
        ProcessId self = { .pid = getpid() };
        HintWork over = { 1, 3 * T };
        uint32_t id;

        start(f, HINT_ACTUATOR_SCHEDTUNE);
        assert_int_equal(proc_get_start_time("/proc", self.pid, &self.start_time), 0);
        assert_int_equal(f->backend->vt->attach(f->backend, "interactive", &self), 0);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", getuid(), getpid(), false,
                                              (pid_t[]) { getpid() }, 1, T, &id), 0);
        write_file(f->root, "dev/stune/session.20/tasks", "%d\n%d\n", (int) getpid(), (int) f->tid);
        assert_int_equal(hint_sessions_report(&f->w, id, ":1.1", &over, 1), 0);
        assert_true(in_tasks(f, "interactive", f->tid));
        assert_false(in_tasks(f, "session.20", f->tid));
        assert_int_equal(hint_sessions_close(&f->w, id, ":1.1"), 0);
}

/* After a crash, a pooled thread goes to the group the journal has its
 * process in. */
static void test_crash_leftovers_placed(void **state) {
        Fixture *f = *state;
        ProcessId self = { .pid = getpid() };

        assert_int_equal(proc_get_start_time("/proc", self.pid, &self.start_time), 0);
        assert_int_equal(state_placed_set(f->state, &self, "performance"), 0);
        mkdirs(f->root, "dev/stune/session.60");
        write_file(f->root, "dev/stune/session.60/schedtune.boost", "60\n");
        empty_file(f->root, "dev/stune/session.60/cgroup.procs");
        write_file(f->root, "dev/stune/session.60/tasks", "%d\n", (int) f->tid);
        start(f, HINT_ACTUATOR_AUTO);
        assert_false(group_exists(f, "session.60"));
        assert_true(in_tasks(f, "performance", f->tid));
}

/* The session's thread was still exiting when its session closed (its
 * client's bus connection goes before the task leaves its cgroup): the
 * kernel refuses to remove the pool group (EBUSY) for a moment. The group
 * must still go, from the sessions' timer, once it is empty. */
static void test_pool_group_removed_after_exit(void **state) {
        Fixture *f = *state;
        uint32_t id;
        int i;

        start(f, HINT_ACTUATOR_SCHEDTUNE);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", getuid(), getpid(), false,
                                              (pid_t[]) { f->tid }, 1, T, &id), 0);
        assert_true(in_tasks(f, "session.20", f->tid));
        /* a process of the group still exiting: rmdir says EBUSY */
        write_file(f->root, "dev/stune/session.20/cgroup.procs", "%d\n", 999999);
        assert_int_equal(hint_sessions_close(&f->w, id, ":1.1"), 0);
        assert_true(in_tasks(f, "root", f->tid));
        assert_true(group_exists(f, "session.20"));
        assert_true(backend_pool_busy(f->backend));
        /* the exit completes */
        empty_file(f->root, "dev/stune/session.20/cgroup.procs");
        for (i = 0; i < 20 && group_exists(f, "session.20"); i++)
                assert_true(sd_event_run(f->event, 100 * 1000) >= 0);
        assert_false(group_exists(f, "session.20"));
        assert_false(backend_pool_busy(f->backend));
}

/* The session's thread exited before its session closed (a client's
 * threads go with it): nothing is given back to its TID, and its pool
 * group still goes. */
static void test_pool_group_removed_after_the_thread_exited(void **state) {
        Fixture *f = *state;
        pid_t tid = f->tid;
        uint32_t id;

        start(f, HINT_ACTUATOR_SCHEDTUNE);
        assert_int_equal(hint_sessions_create(&f->w, ":1.1", getuid(), getpid(), false,
                                              (pid_t[]) { getpid(), tid }, 2, T, &id), 0);
        assert_true(in_tasks(f, "session.20", tid));
        assert_int_equal(hint_sessions_set_threads(&f->w, id, ":1.1", (pid_t[]) { tid }, 1), 1);
        assert_true(in_tasks(f, "session.20", tid));
        (void) write(f->stop[1], "x", 1);
        pthread_join(f->thread, NULL);
        /* teardown joins it again: a thread of its own that ends at once */
        assert_int_equal(pthread_create(&f->thread, NULL, thread_body, f), 0);
        assert_int_equal(hint_sessions_close(&f->w, id, ":1.1"), 0);
        assert_false(group_exists(f, "session.20"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_pool_boost_steps),
                cmocka_unit_test_setup_teardown(test_auto_falls_back_to_the_pool, setup, teardown),
                cmocka_unit_test_setup_teardown(test_uclamp_only, setup, teardown),
                cmocka_unit_test_setup_teardown(test_schedtune_configured, setup, teardown),
                cmocka_unit_test_setup_teardown(test_crash_leftovers, setup, teardown),
                cmocka_unit_test_setup_teardown(test_main_thread, setup, teardown),
                cmocka_unit_test_setup_teardown(test_failed_pool_move, setup, teardown),
                cmocka_unit_test_setup_teardown(test_stray_thread, setup, teardown),
                cmocka_unit_test_setup_teardown(test_stray_thread_swept_at_a_call, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pool_group_removed_after_the_thread_exited, setup, teardown),
                cmocka_unit_test_setup_teardown(test_crash_leftovers_placed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_pool_group_removed_after_exit, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
