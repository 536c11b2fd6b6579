/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A thread's minimum utilization: the files under a test root, and the
 * syscalls on this very thread (or their refusal without uclamp). */
#include <sys/syscall.h>

#include "tests.h"

#include "thread-clamp.h"

static void test_files(void **state) {
        char *root = tmpdir_new();
        const ThreadClampOps *ops = thread_clamp_ops(root);
        unsigned v = 7;

        (void) state;
        assert_ptr_equal(ops, &thread_clamp_files);
        mkdirs(root, "proc/42");
        write_file(root, "proc/42/util_min", "0\n");
        assert_int_equal(ops->get(root, 42, &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(ops->set(root, 42, 384), 0);
        assert_int_equal(ops->get(root, 42, &v), 0);
        assert_int_equal(v, 384);
        assert_int_equal(ops->set(root, 42, 5), 0);
        assert_int_equal(ops->get(root, 42, &v), 0);
        assert_int_equal(v, 5);
        assert_int_equal(ops->set(root, 42, THREAD_CLAMP_RESET), 0);
        assert_int_equal(ops->get(root, 42, &v), 0);
        assert_int_equal(v, 0);
        /* bad values change nothing; a thread without a file is gone */
        assert_int_equal(ops->set(root, 42, THREAD_CLAMP_MAX + 1), -EINVAL);
        assert_int_equal(ops->get(root, 42, &v), 0);
        assert_int_equal(v, 0);
        assert_int_equal(ops->set(root, 43, 10), -ESRCH);
        assert_int_equal(ops->get(root, 43, &v), -ESRCH);
        assert_int_equal(ops->set(root, 0, 10), -ESRCH);
        tmpdir_free(root);
}

static void test_syscall(void **state) {
        const ThreadClampOps *ops = thread_clamp_ops("/");
        pid_t self = (pid_t) syscall(SYS_gettid), gone;
        unsigned v = 7, before;
        int r;

        (void) state;
        assert_ptr_equal(ops, &thread_clamp_syscall);
        assert_ptr_equal(thread_clamp_ops(NULL), &thread_clamp_syscall);
        assert_int_equal(ops->get(NULL, self, &before), 0);
        r = ops->set(NULL, self, 200);
        if (r == -EOPNOTSUPP) {
                /* a kernel without uclamp: it says so in sysctl too */
                assert_int_equal(access("/proc/sys/kernel/sched_util_clamp_min", F_OK), -1);
                print_message("no uclamp in this kernel: sched_setattr() refused\n");
        } else {
                assert_int_equal(r, 0);
                assert_int_equal(ops->get(NULL, self, &v), 0);
                assert_int_equal(v, 200);
                assert_int_equal(ops->set(NULL, self, THREAD_CLAMP_RESET), 0);
                assert_int_equal(ops->get(NULL, self, &v), 0);
                assert_int_equal(v, before);
        }
        assert_int_equal(ops->set(NULL, self, THREAD_CLAMP_MAX + 1), -EINVAL);

        /* a thread that is gone */
        gone = fork();
        assert_true(gone >= 0);
        if (gone == 0)
                _exit(0);
        assert_int_equal(waitpid(gone, NULL, 0), gone);
        assert_int_equal(ops->get(NULL, gone, &v), -ESRCH);
        assert_int_equal(ops->set(NULL, gone, 10), -ESRCH);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_files),
                cmocka_unit_test(test_syscall),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
