/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* log.c: one message is one line, whatever a client's string holds. */
#include "tests.h"

#include "log.h"

/* Logs one message with stderr going to a temporary file, returns what
 * reached the file. journal: $JOURNAL_STREAM names that file, as systemd
 * sets it when stderr is its journal stream. */
static const char *log_to_file(bool journal, char *buf, size_t size) {
        char path[] = "/tmp/boostd-test-log-XXXXXX", env[64];
        int fd = mkstemp(path), saved = dup(STDERR_FILENO);
        LogContext ctx;
        struct stat st;
        ssize_t n;

        assert_true(fd >= 0 && saved >= 0);
        assert_int_equal(fstat(fd, &st), 0);
        snprintf(env, sizeof(env), "%llu:%llu", (unsigned long long) st.st_dev, (unsigned long long) st.st_ino);
        assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
        if (journal)
                setenv("JOURNAL_STREAM", env, 1);
        else
                setenv("JOURNAL_STREAM", "8:1", 1);     /* someone else's stream */
        ctx = log_context_make(LOG_DEBUG);
        log_info(&ctx, "Hold: %s.", "x\n<0>forged\r\x1b[2J");
        fflush(stderr);
        assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
        unsetenv("JOURNAL_STREAM");
        n = pread(fd, buf, size - 1, 0);
        assert_true(n >= 0);
        buf[n] = '\0';
        close(fd);
        close(saved);
        unlink(path);
        return buf;
}

static void test_one_message_one_line(void **state) {
        char buf[256], want[256];

        (void) state;
        /* stderr is not the journal's stream: a plain line, after the
         * program's name (boostd, boostd-session; here the test's) */
        snprintf(want, sizeof(want), "%s: Hold: x?<0>forged??[2J.\n", program_invocation_short_name);
        assert_string_equal(log_to_file(false, buf, sizeof(buf)), want);
        /* it is: the message goes to the journal with PRIORITY= of its
         * own; only without a journal socket it comes back to stderr,
         * with a priority prefix, still on one line */
        log_to_file(true, buf, sizeof(buf));
        if (buf[0])
                assert_string_equal(buf, "<6>Hold: x?<0>forged??[2J.\n");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_one_message_one_line),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
