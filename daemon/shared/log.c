/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Logging: to the journal as structured fields when stderr is systemd's
 * journal stream, else to stderr. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <systemd/sd-journal.h>
#include <unistd.h>

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

/* Whether stderr is the stream systemd connected to the journal
 * ($JOURNAL_STREAM is "DEV:INODE" of it); not inherited by a child that
 * got another stderr. */
static bool stderr_is_journal(void) {
        const char *e = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;

        if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
                return false;
        return (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
}

LogContext log_context_make(int max_level) {
        return (LogContext) { .max_level = max_level, .journal = stderr_is_journal() };
}

int log_internal(const LogContext *ctx, int level, int error, const char *file, int line,
                 const char *format, ...) {
        int saved = errno, r = -1;
        bool journal;
        va_list ap;

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

                /* Structured: the priority is a field of its own, and
                 * where the message comes from travels with it. */
                journal = ctx ? ctx->journal : stderr_is_journal();
                if (journal && error != 0)
                        r = sd_journal_send("MESSAGE=%s", buf, "PRIORITY=%i", level,
                                            "SYSLOG_IDENTIFIER=%s", program_invocation_short_name,
                                            "CODE_FILE=%s", file, "CODE_LINE=%i", line,
                                            "ERRNO=%i", error < 0 ? -error : error, NULL);
                else if (journal)
                        r = sd_journal_send("MESSAGE=%s", buf, "PRIORITY=%i", level,
                                            "SYSLOG_IDENTIFIER=%s", program_invocation_short_name,
                                            "CODE_FILE=%s", file, "CODE_LINE=%i", line, NULL);
                if (journal && r < 0)
                        fprintf(stderr, "<%d>%s\n", level, buf);
                else if (!journal)
                        fprintf(stderr, "%s: %s\n", program_invocation_short_name, buf);
        }

        errno = saved;
        return error < 0 ? error : -error;
}
