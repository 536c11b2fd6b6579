/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* log.c: one message is one line, whatever a client's string holds. */
#include "tests.h"

#include "log.h"

static void test_one_message_one_line(void **state) {
        char path[] = "/tmp/boostd-test-log-XXXXXX", buf[256] = "";
        int fd = mkstemp(path), saved = dup(STDERR_FILENO);
        LogContext ctx = { .max_level = LOG_DEBUG };
        ssize_t n;

        (void) state;
        assert_true(fd >= 0 && saved >= 0);
        assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
        setenv("JOURNAL_STREAM", "8:1", 1);     /* priority prefixes, as under systemd */
        log_info(&ctx, "Hold: %s.", "x\n<0>forged\r\x1b[2J");
        fflush(stderr);
        assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
        unsetenv("JOURNAL_STREAM");
        n = pread(fd, buf, sizeof(buf) - 1, 0);
        assert_true(n > 0);
        buf[n] = '\0';
        assert_string_equal(buf, "<6>Hold: x?<0>forged??[2J.\n");
        close(fd);
        close(saved);
        unlink(path);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_one_message_one_line),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
