/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The process monitor: exec events from the kernel's process connector
 * place processes (so that Comm= and Exe= rules apply to what they run
 * now), exit events forget them. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "events.h"
#include "macro.h"

typedef struct ProcMon ProcMon;

typedef enum ExecEventType {
        EXEC_EVENT_EXEC,
        EXEC_EVENT_EXIT,        /* of a thread group's leader: the process
                                 * may live on */
        EXEC_EVENT_LOST,        /* events were lost (pid 0) */
} ExecEventType;

typedef struct ExecEvent {
        ExecEventType type;
        pid_t pid;
} ExecEvent;

/* Listens to the kernel's process connector (NETLINK_CONNECTOR,
 * CN_IDX_PROC; needs CAP_NET_ADMIN). Without it (or below a root prefix,
 * where the machine's own processes are no business of the daemon) sets
 * *ret to NULL after one warning: units are still placed as they appear.
 *
 * The test seam: when seam_path is set (boostd takes it from
 * $BOOSTD_EXEC_SOURCE), a unix datagram socket is bound there instead
 * (mode 0600) and reads datagrams "exec PID" and "exit PID", handled by
 * the same code as the connector's events, and "lost", handled as the
 * connector's receive queue overflowing (ENOBUFS). */
int procmon_new(const SourceContext *ctx, const char *seam_path, ProcMon **ret);
ProcMon *procmon_free(ProcMon *s);
DEFINE_TRIVIAL_CLEANUP_FUNC(ProcMon *, procmon_free);

/* The parsers, apart for tests. Each returns the number of events
 * passed to fn (0: nothing of interest), or -EBADMSG. */
typedef void (*ExecEventFn)(const ExecEvent *e, void *userdata);
int exec_events_from_text(const char *buf, size_t n, ExecEventFn fn, void *userdata);
int exec_events_from_netlink(const void *buf, size_t n, ExecEventFn fn, void *userdata);

/* A process connector socket, listening to exec and exit events; apart
 * for tests. */
int exec_connector_open(void);
void exec_connector_close(int fd);
