/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Logging to stderr, with syslog priority prefixes under systemd. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"

static const char *const level_names[] = {
        [LOG_EMERG] = "emerg", [LOG_ALERT] = "alert", [LOG_CRIT] = "crit",
        [LOG_ERR] = "err", [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice",
        [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

int log_level_from_string(const char *s) {
        for (size_t i = 0; i < ELEMENTSOF(level_names); i++)
                if (streq(s, level_names[i]))
                        return (int) i;
        return -EINVAL;
}

const char *log_level_to_string(int level) {
        if (level < 0 || (size_t) level >= ELEMENTSOF(level_names))
                return NULL;
        return level_names[level];
}

int log_internal(const LogContext *ctx, int level, int error, const char *file, int line,
                 const char *format, ...) {
        int saved = errno;
        va_list ap;

        (void) file;
        (void) line;

        if (level <= (ctx ? ctx->max_level : LOG_INFO)) {
                char buf[1024];

                /* %m should print the error we were given, not errno */
                errno = error < 0 ? -error : error;
                va_start(ap, format);
                vsnprintf(buf, sizeof(buf), format, ap);
                va_end(ap);
                /* One message, one line: a newline from a client's string
                 * must not start a line of its own, whose "<0>" the
                 * journal would take as its priority. */
                for (char *c = buf; *c; c++)
                        if ((unsigned char) *c < 0x20 || *c == 0x7f)
                                *c = '?';

                if (getenv("JOURNAL_STREAM"))
                        fprintf(stderr, "<%d>%s\n", level, buf);
                else
                        fprintf(stderr, "boostd: %s\n", buf);
        }

        errno = saved;
        return error < 0 ? error : -error;
}
