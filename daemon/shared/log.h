/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Logging to stderr, with syslog priority prefixes under systemd. */
#pragma once

#include <stdbool.h>
#include <syslog.h>
#include "macro.h"

/* Where the level lives: the manager owns one and hands it to what it
 * owns (the backend); no process-wide state. NULL logs at LOG_INFO. */
typedef struct LogContext {
        int max_level;
        bool journal;           /* stderr is systemd's journal stream */
} LogContext;

/* A context logging up to max_level, to the journal if stderr is its
 * stream ($JOURNAL_STREAM, looked at once, here). */
LogContext log_context_make(int max_level);

int log_level_from_string(const char *s);
const char *log_level_to_string(int level);

/* Logs with priority and returns error (negative errno), so
 * "return log_error_errno(r, ...)" logs once where the error is handled.
 * %m in the format prints strerror(-error). */
int log_internal(const LogContext *ctx, int level, int error, const char *file, int line,
                 const char *format, ...) _printf_(6, 7);

#define log_full_errno(ctx, level, error, ...) \
        log_internal((ctx), (level), (error), __FILE__, __LINE__, __VA_ARGS__)
#define log_full(ctx, level, ...) log_full_errno((ctx), (level), 0, __VA_ARGS__)

#define log_debug(ctx, ...)   log_full((ctx), LOG_DEBUG, __VA_ARGS__)
#define log_info(ctx, ...)    log_full((ctx), LOG_INFO, __VA_ARGS__)
#define log_notice(ctx, ...)  log_full((ctx), LOG_NOTICE, __VA_ARGS__)
#define log_warning(ctx, ...) log_full((ctx), LOG_WARNING, __VA_ARGS__)
#define log_error(ctx, ...)   log_full((ctx), LOG_ERR, __VA_ARGS__)

#define log_debug_errno(ctx, e, ...)   log_full_errno((ctx), LOG_DEBUG, (e), __VA_ARGS__)
#define log_info_errno(ctx, e, ...)    log_full_errno((ctx), LOG_INFO, (e), __VA_ARGS__)
#define log_warning_errno(ctx, e, ...) log_full_errno((ctx), LOG_WARNING, (e), __VA_ARGS__)
#define log_error_errno(ctx, e, ...)   log_full_errno((ctx), LOG_ERR, (e), __VA_ARGS__)

#define log_oom(ctx) log_error_errno((ctx), -ENOMEM, "Out of memory.")
