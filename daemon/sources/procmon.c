/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Exec and exit events from the kernel's process connector. The
 * connector multicasts an event for every fork, exec, exit, ... of every
 * process; boostd asks for exec and exit only (kernels since 6.6 filter
 * per socket, older ones send all and the rest is skipped here). */
#include <fcntl.h>
#include <limits.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "event-util.h"
#include "events.h"
#include "log.h"
#include "procmon.h"
#include "util.h"

#define RCVBUF_SIZE (4 * 1024 * 1024)
/* Datagrams read per wakeup. A burst (make -j, a flood of forks) must not
 * keep the loop here: D-Bus calls and the watchdog's keep-alive wait until
 * this returns. The socket is level-triggered, so what is left wakes the
 * loop again, after the sources that were waiting meanwhile. */
#define BATCH_MAX 64
/* After events were lost, the units are read again this much later: once
 * for a burst of overflows. */
#define RESCAN_DELAY_USEC (1 * USEC_PER_SEC)
/* After an unexpected read error, reading pauses this long: an error that
 * stays would otherwise wake the loop without end. */
#define ERROR_PAUSE_USEC (1 * USEC_PER_SEC)

struct ProcMon {
        SourceContext ctx;
        int fd;
        char *seam_path;                /* the test seam's socket, or NULL */
        sd_event_source *io;
        sd_event_source *rescan;        /* events were lost: read the units */
        sd_event_source *resume;        /* reading paused after an error */
        bool error_logged;              /* until a read succeeds again */
};

/* PROC_CN_MCAST_LISTEN with an event filter (struct proc_input of
 * linux >= 6.6, not in older headers). */
typedef struct ProcInput {
        uint32_t mcast_op;
        uint32_t event_type;
} ProcInput;

/* A one-shot timer usec from now, unless it is armed already (0). */
static int procmon_timer(ProcMon *s, sd_event_source **t, uint64_t usec, sd_event_time_handler_t fn,
                         const char *description) {
        int r;

        if (event_timer_armed(*t))
                return 0;
        r = event_timer_arm(s->ctx.event, t, now_usec() + usec, fn, s, description);
        return r < 0 ? r : 1;
}

static int on_rescan(sd_event_source *t, uint64_t usec, void *userdata) {
        ProcMon *s = userdata;

        (void) t, (void) usec;
        s->ctx.sink->lost(s->ctx.sink->userdata);
        return 0;
}

/* The receive queue overflowed: the execs among the lost events were
 * not placed. Most processes are in units, and reading those again
 * places them by what they run now; later, so that one read covers a
 * burst of overflows, which is when they come. */
static void procmon_lost(ProcMon *s) {
        int r;

        r = procmon_timer(s, &s->rescan, RESCAN_DELAY_USEC, on_rescan, "exec-events-rescan");
        if (r > 0)
                log_notice(s->ctx.log, "Exec events were lost (the receive queue overflowed): reading the units again.");
        else if (r < 0)
                log_warning_errno(s->ctx.log, r, "Exec events were lost (the receive queue overflowed), and the units cannot be read again: %m");
}

static int on_resume(sd_event_source *t, uint64_t usec, void *userdata) {
        ProcMon *s = userdata;

        (void) t, (void) usec;
        (void) sd_event_source_set_enabled(s->io, SD_EVENT_ON);
        return 0;
}

/* An error sd-event would take as the end of the source if returned: the
 * events would stop for good. Logged once until a read succeeds, and
 * reading pauses a moment, so that an error that stays does not spin. */
static void procmon_read_error(ProcMon *s, int error) {
        if (!s->error_logged)
                log_warning_errno(s->ctx.log, error, "Failed to read exec events, trying again: %m");
        s->error_logged = true;
        if (procmon_timer(s, &s->resume, ERROR_PAUSE_USEC, on_resume, "exec-events-resume") >= 0)
                (void) sd_event_source_set_enabled(s->io, SD_EVENT_OFF);
}

static void procmon_handle(const ExecEvent *e, void *userdata) {
        ProcMon *s = userdata;
        int r;

        if (e->type == EXEC_EVENT_LOST) {
                procmon_lost(s);
                return;
        }
        if (e->type == EXEC_EVENT_EXIT) {
                s->ctx.sink->exited(s->ctx.sink->userdata, e->pid);
                return;
        }
        r = s->ctx.sink->place(s->ctx.sink->userdata, e->pid, NULL);
        if (r < 0 && r != -ESRCH)       /* gone already: nothing to do */
                log_debug_errno(s->ctx.log, r, "Failed to place PID %d at exec: %m", (int) e->pid);
}

int exec_events_from_text(const char *buf, size_t n, ExecEventFn fn, void *userdata) {
        char text[64], word[8];
        ExecEvent e;
        int pid, end = 0;

        if (n >= sizeof(text))
                return -EBADMSG;
        memcpy(text, buf, n);
        text[n] = '\0';
        if (sscanf(text, "%7s %n", word, &end) == 1 && text[end] == '\0' && streq(word, "lost")) {
                e = (ExecEvent) { EXEC_EVENT_LOST, 0 };
                fn(&e, userdata);
                return 1;
        }
        end = 0;
        if (sscanf(text, "%7s %d %n", word, &pid, &end) != 2 || text[end] != '\0' || pid <= 0)
                return -EBADMSG;
        if (streq(word, "exec"))
                e.type = EXEC_EVENT_EXEC;
        else if (streq(word, "exit"))
                e.type = EXEC_EVENT_EXIT;
        else
                return -EBADMSG;
        e.pid = pid;
        fn(&e, userdata);
        return 1;
}

int exec_events_from_netlink(const void *buf, size_t n, ExecEventFn fn, void *userdata) {
        const struct nlmsghdr *h = buf;
        /* Signed: NLMSG_NEXT() steps by the aligned length, more than is
         * left when the last message's length is not aligned. Unsigned,
         * it would wrap, and the walk go on past the buffer. */
        ssize_t left = (ssize_t) MIN(n, (size_t) SSIZE_MAX);
        int count = 0;

        for (; NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
                const struct cn_msg *cn;
                struct cn_msg cnh;
                struct proc_event ev = {};
                size_t payload;
                ExecEvent e;

                if (h->nlmsg_type == NLMSG_NOOP || h->nlmsg_type == NLMSG_ERROR)
                        continue;
                payload = NLMSG_PAYLOAD(h, 0);
                if (payload < sizeof(struct cn_msg))
                        return -EBADMSG;
                /* The payload is not aligned for the 64-bit fields of
                 * proc_event: copied out. */
                cn = NLMSG_DATA(h);
                memcpy(&cnh, cn, sizeof(cnh));
                if (cnh.id.idx != CN_IDX_PROC || cnh.id.val != CN_VAL_PROC)
                        continue;
                if (cnh.len > payload - sizeof(struct cn_msg) ||
                    cnh.len < offsetof(struct proc_event, event_data))
                        return -EBADMSG;
                memcpy(&ev, (const uint8_t *) cn + sizeof(struct cn_msg), MIN((size_t) cnh.len, sizeof(ev)));

                switch (ev.what) {
                case PROC_EVENT_EXEC:
                        if (cnh.len < offsetof(struct proc_event, event_data) + sizeof(ev.event_data.exec))
                                return -EBADMSG;
                        /* exec makes the thread that calls it the leader */
                        e = (ExecEvent) { EXEC_EVENT_EXEC, ev.event_data.exec.process_tgid };
                        break;
                case PROC_EVENT_EXIT:
                        if (cnh.len < offsetof(struct proc_event, event_data) + sizeof(ev.event_data.exit))
                                return -EBADMSG;
                        if (ev.event_data.exit.process_pid != ev.event_data.exit.process_tgid)
                                continue;       /* a thread, not the process */
                        e = (ExecEvent) { EXEC_EVENT_EXIT, ev.event_data.exit.process_tgid };
                        break;
                default:
                        continue;
                }
                if (e.pid <= 0)
                        continue;
                fn(&e, userdata);
                count++;
        }
        return count;
}

static int on_io(sd_event_source *io, int fd, uint32_t revents, void *userdata) {
        ProcMon *s = userdata;
        uint8_t buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));

        (void) io, (void) revents;
        for (unsigned i = 0; i < BATCH_MAX; i++) {
                struct sockaddr_nl sa = {};
                struct iovec iov = { buf, sizeof(buf) };
                struct msghdr mh = {
                        .msg_name = &sa,
                        .msg_namelen = sizeof(sa),
                        .msg_iov = &iov,
                        .msg_iovlen = 1,
                };
                ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
                int r;

                if (n < 0) {
                        if (errno == EAGAIN || errno == EINTR)
                                return 0;
                        if (errno == ENOBUFS) {
                                procmon_lost(s);
                                continue;
                        }
                        procmon_read_error(s, -errno);
                        return 0;
                }
                s->error_logged = false;
                if (s->seam_path)
                        r = exec_events_from_text((const char *) buf, (size_t) n, procmon_handle, s);
                else if (mh.msg_namelen < sizeof(sa) || sa.nl_pid != 0)
                        continue;       /* only the kernel speaks here */
                else
                        r = exec_events_from_netlink(buf, (size_t) n, procmon_handle, s);
                if (r < 0)
                        log_debug(s->ctx.log, "Ignoring a malformed exec event of %zd bytes.", n);
        }
        return 0;
}

static int connector_send(int fd, const void *data, uint16_t len) {
        uint8_t buf[NLMSG_SPACE(sizeof(struct cn_msg) + sizeof(ProcInput))] = {};
        struct nlmsghdr *h = (struct nlmsghdr *) buf;
        struct cn_msg cn = {
                .id = { .idx = CN_IDX_PROC, .val = CN_VAL_PROC },
                .len = len,
        };

        h->nlmsg_len = NLMSG_LENGTH(sizeof(struct cn_msg) + len);
        h->nlmsg_type = NLMSG_DONE;
        h->nlmsg_pid = 0;
        memcpy(NLMSG_DATA(h), &cn, sizeof(cn));
        memcpy((uint8_t *) NLMSG_DATA(h) + sizeof(cn), data, len);
        if (send(fd, buf, h->nlmsg_len, 0) < 0)
                return -errno;
        return 0;
}

int exec_connector_open(void) {
        struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
        uint32_t op = PROC_CN_MCAST_LISTEN;
        ProcInput in = { PROC_CN_MCAST_LISTEN, PROC_EVENT_EXEC | PROC_EVENT_EXIT };
        _cleanup_(closep) int fd = -1;
        int size = RCVBUF_SIZE, r;

        fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
        if (fd < 0)
                return -errno;
        /* Room for bursts (make -j): beyond the default limit with
         * CAP_NET_ADMIN. */
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
                (void) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
        if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                return -errno;
        /* Every kernel takes the plain request; since 6.6 the second one
         * narrows it to exec and exit, older ones ignore it. */
        r = connector_send(fd, &op, sizeof(op));
        if (r < 0)
                return r;
        (void) connector_send(fd, &in, sizeof(in));
        return TAKE_FD(fd);
}

void exec_connector_close(int fd) {
        uint32_t op = PROC_CN_MCAST_IGNORE;

        if (fd < 0)
                return;
        /* With no listener left the kernel stops making the events. */
        (void) connector_send(fd, &op, sizeof(op));
        close(fd);
}

/* The test seam: a datagram socket at path, mode 0600 from the start.
 * The node bind() makes takes the mode of the socket's inode (less the
 * umask): set before, it leaves no moment in which others may send
 * events, as a chmod() after would. Nothing can fail after the bind, so
 * that a node made is always one procmon_free() removes. */
static int procmon_bind_seam(ProcMon *s, const char *path) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        _cleanup_(freep) char *p = NULL;
        _cleanup_(closep) int fd = -1;
        struct stat st;

        if (strlen(path) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        strcpy(sa.sun_path, path);
        p = strdup(path);
        if (!p)
                return -ENOMEM;
        fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return -errno;
        if (fchmod(fd, 0600) < 0)
                return -errno;
        if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
                (void) unlink(path);    /* left by an earlier run */
        if (bind(fd, (struct sockaddr *) &sa, sizeof(sa)) < 0)
                return -errno;
        s->fd = TAKE_FD(fd);
        s->seam_path = TAKE_PTR(p);
        return 0;
}

int procmon_new(const SourceContext *ctx, const char *seam_path, ProcMon **ret) {
        _cleanup_(procmon_freep) ProcMon *s = NULL;
        int r;

        *ret = NULL;
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->ctx = *ctx;
        s->fd = -1;

        if (seam_path) {
                r = procmon_bind_seam(s, seam_path);
                if (r < 0) {
                        log_warning_errno(ctx->log, r, "Cannot bind the exec event socket %s: %m", seam_path);
                        return 0;
                }
                log_info(ctx->log, "Reading exec events from %s.", seam_path);
        } else if (source_below_root(ctx)) {
                log_debug(ctx->log, "Below a root prefix: no exec events.");
                return 0;
        } else {
                r = exec_connector_open();
                if (r >= 0)
                        s->fd = r;
                else {
                        log_warning_errno(ctx->log, r,
                                          "The process connector is not available, processes are placed when their unit appears, not at exec: %m");
                        return 0;
                }
        }

        r = sd_event_add_io(ctx->event, &s->io, s->fd, EPOLLIN, on_io, s);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(s->io, "exec-events");
        *ret = TAKE_PTR(s);
        return 0;
}

ProcMon *procmon_free(ProcMon *s) {
        if (!s)
                return NULL;
        sd_event_source_disable_unref(s->io);
        sd_event_source_disable_unref(s->rescan);
        sd_event_source_disable_unref(s->resume);
        if (s->seam_path && s->fd >= 0)
                close(s->fd);
        else
                exec_connector_close(s->fd);
        if (s->seam_path)
                (void) unlink(s->seam_path);
        free(s->seam_path);
        free(s);
        return NULL;
}
