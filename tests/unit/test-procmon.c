/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Exec and exit events: the parsers of both feeds, the kernel's process
 * connector itself (when this machine lets the test use it), and the
 * test seam driving a manager under a temporary root. */
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "tests.h"

#include "backend.h"
#include "units.h"
#include "procmon.h"
#include "manager.h"

typedef struct Seen {
        ExecEvent ev[8];
        size_t n;
} Seen;

static void collect(const ExecEvent *e, void *userdata) {
        Seen *s = userdata;

        assert_true(s->n < ELEMENTSOF(s->ev));
        s->ev[s->n++] = *e;
}

static int text(const char *t, Seen *s) {
        return exec_events_from_text(t, strlen(t), collect, s);
}

static void test_text_feed(void **state) {
        Seen s = {};

        (void) state;
        assert_int_equal(text("exec 12", &s), 1);
        assert_int_equal(text("exit 5\n", &s), 1);
        assert_int_equal(s.n, 2);
        assert_int_equal(s.ev[0].type, EXEC_EVENT_EXEC);
        assert_int_equal(s.ev[0].pid, 12);
        assert_int_equal(s.ev[1].type, EXEC_EVENT_EXIT);
        assert_int_equal(s.ev[1].pid, 5);
        assert_int_equal(text("exec", &s), -EBADMSG);
        assert_int_equal(text("exec -1", &s), -EBADMSG);
        assert_int_equal(text("exec 0", &s), -EBADMSG);
        assert_int_equal(text("fork 3", &s), -EBADMSG);
        assert_int_equal(text("exec 3 4", &s), -EBADMSG);
        assert_int_equal(text("exec 3x", &s), -EBADMSG);
        assert_int_equal(text("exec 1234567890123456789012345678901234567890123456789012345678901234", &s),
                         -EBADMSG);
        assert_int_equal(s.n, 2);
        assert_int_equal(text("lost 3", &s), -EBADMSG);
        assert_int_equal(text("lost\n", &s), 1);
        assert_int_equal(s.n, 3);
        assert_int_equal(s.ev[2].type, EXEC_EVENT_LOST);
}

/* One connector message as the kernel lays it out. */
static size_t put_event(uint8_t *buf, unsigned what, pid_t pid, pid_t tgid, uint16_t idx,
                        uint16_t cn_len) {
        struct nlmsghdr h = { .nlmsg_type = NLMSG_DONE };
        struct cn_msg cn = { .id = { .idx = idx, .val = CN_VAL_PROC } };
        struct proc_event ev = { .what = what };

        if (what == PROC_EVENT_EXEC) {
                ev.event_data.exec.process_pid = pid;
                ev.event_data.exec.process_tgid = tgid;
        } else if (what == PROC_EVENT_EXIT) {
                ev.event_data.exit.process_pid = pid;
                ev.event_data.exit.process_tgid = tgid;
        } else if (what == PROC_EVENT_FORK) {
                ev.event_data.fork.child_pid = pid;
                ev.event_data.fork.child_tgid = tgid;
        }
        cn.len = cn_len ?: sizeof(ev);
        h.nlmsg_len = NLMSG_LENGTH(sizeof(cn) + sizeof(ev));
        memcpy(buf, &h, sizeof(h));
        memcpy(buf + NLMSG_HDRLEN, &cn, sizeof(cn));
        memcpy(buf + NLMSG_HDRLEN + sizeof(cn), &ev, sizeof(ev));
        return NLMSG_ALIGN(h.nlmsg_len);
}

static void test_netlink_feed(void **state) {
        uint8_t buf[4096] __attribute__((aligned(8))) = {};
        Seen s = {};
        size_t n = 0;

        (void) state;
        n += put_event(buf + n, PROC_EVENT_EXEC, 101, 101, CN_IDX_PROC, 0);
        n += put_event(buf + n, PROC_EVENT_FORK, 102, 102, CN_IDX_PROC, 0);
        /* a thread exits: not the process */
        n += put_event(buf + n, PROC_EVENT_EXIT, 104, 103, CN_IDX_PROC, 0);
        n += put_event(buf + n, PROC_EVENT_EXIT, 103, 103, CN_IDX_PROC, 0);
        /* another connector's message */
        n += put_event(buf + n, PROC_EVENT_EXEC, 105, 105, CN_IDX_PROC + 1, 0);
        assert_int_equal(exec_events_from_netlink(buf, n, collect, &s), 2);
        assert_int_equal(s.n, 2);
        assert_int_equal(s.ev[0].type, EXEC_EVENT_EXEC);
        assert_int_equal(s.ev[0].pid, 101);
        assert_int_equal(s.ev[1].type, EXEC_EVENT_EXIT);
        assert_int_equal(s.ev[1].pid, 103);

        /* a length beyond the message, or too short for the event */
        n = put_event(buf, PROC_EVENT_EXEC, 101, 101, CN_IDX_PROC, 4000);
        assert_int_equal(exec_events_from_netlink(buf, n, collect, &s), -EBADMSG);
        n = put_event(buf, PROC_EVENT_EXEC, 101, 101, CN_IDX_PROC, 20);
        assert_int_equal(exec_events_from_netlink(buf, n, collect, &s), -EBADMSG);
        /* a truncated datagram ends the walk */
        n = put_event(buf, PROC_EVENT_EXEC, 101, 101, CN_IDX_PROC, 0);
        assert_int_equal(exec_events_from_netlink(buf, n - 8, collect, &s), 0);
        assert_int_equal(s.n, 2);
}

/* A message whose length is not aligned, last in the datagram: the walk
 * ends there, not past the end (where here an event waits to be taken). */
static void test_netlink_unaligned_end(void **state) {
        uint8_t buf[4096] __attribute__((aligned(8))) = {};
        struct nlmsghdr h = { .nlmsg_len = NLMSG_HDRLEN + 1, .nlmsg_type = NLMSG_NOOP };
        uint8_t *heap;
        Seen s = {};

        (void) state;
        memcpy(buf, &h, sizeof(h));
        (void) put_event(buf + NLMSG_ALIGN(h.nlmsg_len), PROC_EVENT_EXEC, 999, 999, CN_IDX_PROC, 0);
        assert_int_equal(exec_events_from_netlink(buf, h.nlmsg_len, collect, &s), 0);
        assert_int_equal(s.n, 0);

        /* the datagram alone, for ASan and valgrind to see a read past it */
        heap = malloc(h.nlmsg_len);
        assert_non_null(heap);
        memcpy(heap, &h, sizeof(h));
        heap[NLMSG_HDRLEN] = 0;
        assert_int_equal(exec_events_from_netlink(heap, h.nlmsg_len, collect, &s), 0);
        assert_int_equal(s.n, 0);
        free(heap);

        /* an event after an unaligned one that fits is still read */
        h.nlmsg_len = NLMSG_HDRLEN + 1;
        memcpy(buf, &h, sizeof(h));
        assert_int_equal(exec_events_from_netlink(buf, NLMSG_ALIGN(h.nlmsg_len) + NLMSG_SPACE(sizeof(struct cn_msg) +
                                                  sizeof(struct proc_event)), collect, &s), 1);
        assert_int_equal(s.n, 1);
        assert_int_equal(s.ev[0].pid, 999);
}

/* The real connector: an exec of a child is reported with its PID. */
static void test_connector(void **state) {
        uint8_t buf[8192] __attribute__((aligned(8)));
        int fd = exec_connector_open();
        Seen s = {};
        pid_t child;

        (void) state;
        if (fd == -EPERM || fd == -EACCES || fd == -EPROTONOSUPPORT || fd == -EAFNOSUPPORT ||
            fd == -ECONNREFUSED)
                skip();
        assert_true(fd >= 0);
        child = fork();
        assert_true(child >= 0);
        if (child == 0) {
                execl("/bin/true", "true", NULL);
                _exit(127);
        }
        assert_int_equal(waitpid(child, NULL, 0), child);
        for (int tries = 0; tries < 200; tries++) {
                struct pollfd p = { fd, POLLIN, 0 };
                ssize_t n;

                if (poll(&p, 1, 10) <= 0)
                        continue;
                n = recv(fd, buf, sizeof(buf), 0);
                if (n <= 0)
                        continue;
                s.n = 0;
                if (exec_events_from_netlink(buf, (size_t) n, collect, &s) > 0)
                        for (size_t i = 0; i < s.n; i++)
                                if (s.ev[i].type == EXEC_EVENT_EXEC && s.ev[i].pid == child) {
                                        exec_connector_close(fd);
                                        return;
                                }
        }
        exec_connector_close(fd);
        fail_msg("no exec event for PID %d", (int) child);
}

/* The seam under a manager. */
typedef struct Fixture {
        char *root;
        char sock[4096];
        Manager *m;
        int client;
} Fixture;

static const char *const classes[] = { "background", "interactive", "performance" };

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(Fixture));
        ManagerOptions o = { .log_level = LOG_CRIT };
        char *error = NULL;

        f->root = tmpdir_new();
        make_schedtune_tree(f->root, classes, 3);
        mkdirs(f->root, "etc");
        write_file(f->root, "etc/boostd.conf", "[Rule:ticker]\nComm=ticker\nClass=performance\n");
        snprintf(f->sock, sizeof(f->sock), "%s/exec.sock", f->root);
        o.root = f->root;
        o.exec_source = f->sock;
        assert_int_equal(manager_new(&o, &f->m, &error), 0);
        assert_int_equal(manager_start(f->m), 0);
        assert_non_null(f->m->procmon);
        f->client = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        assert_true(f->client >= 0);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        close(f->client);
        manager_free(f->m);
        tmpdir_free(f->root);
        free(f);
        return 0;
}

static void send_text(Fixture *f, const char *msg) {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };

        strcpy(sa.sun_path, f->sock);
        assert_int_equal(sendto(f->client, msg, strlen(msg), 0, (struct sockaddr *) &sa, sizeof(sa)),
                         (ssize_t) strlen(msg));
}

static void send_event(Fixture *f, const char *what, pid_t pid) {
        char msg[64];

        snprintf(msg, sizeof(msg), "%s %d", what, (int) pid);
        send_text(f, msg);
}

static void run_for(Fixture *f, unsigned ms) {
        for (unsigned i = 0; i < ms; i++)
                (void) sd_event_run(f->m->event, 1000);
}

static bool in_performance(Fixture *f, pid_t pid) {
        return file_has_pid(f->root, "dev/stune/performance/cgroup.procs", pid);
}

/* A child that names itself "ticker", as an exec of a program of that
 * name would. */
static pid_t spawn_ticker(void) {
        pid_t parent = getpid(), pid = fork();

        assert_true(pid >= 0);
        if (pid == 0) {
                child_setup(parent);
                (void) prctl(PR_SET_NAME, "ticker");
                for (;;)
                        pause();
        }
        /* until the name is set */
        for (int i = 0; i < 500; i++) {
                char p[64], buf[32];

                snprintf(p, sizeof(p), "/proc/%d/comm", (int) pid);
                if (read_file("", p + 1, buf, sizeof(buf)) && streq(buf, "ticker"))
                        return pid;
                usleep(2000);
        }
        fail_msg("the child never renamed itself");
        return -1;
}

static void test_seam_exec_and_exit(void **state) {
        Fixture *f = *state;
        pid_t t = spawn_ticker(), other = spawn_sleeper();
        struct stat st;

        assert_int_equal(stat(f->sock, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0600);
        send_event(f, "exec", t);
        send_event(f, "exec", other);
        send_event(f, "exec", dead_pid());      /* gone already: ignored */
        send_event(f, "bogus", 1);
        for (int i = 0; i < 200 && !in_performance(f, t); i++)
                run_for(f, 5);
        assert_true(in_performance(f, t));
        assert_false(in_performance(f, other));
        assert_int_equal(f->m->state->n_placed, 1);

        /* it exits: forgotten, and the journal says so */
        kill_sleeper(t);
        send_event(f, "exit", t);
        for (int i = 0; i < 200 && f->m->state->n_placed > 0; i++)
                run_for(f, 5);
        assert_int_equal(f->m->state->n_placed, 0);
        run_for(f, 10);         /* the save comes after the event */
        {
                char buf[4096];

                assert_non_null(read_file(f->root, "run/boostd/journal", buf, sizeof(buf)));
                assert_null(strstr(buf, "placed "));
                assert_null(read_file(f->root, "run/boostd/placed", buf, sizeof(buf)));
        }
        kill_sleeper(other);
}

static void test_seam_manual_mode(void **state) {
        Fixture *f = *state;
        pid_t t = spawn_ticker();

        assert_int_equal(manager_set_mode(f->m, MODE_MANUAL), 0);
        send_event(f, "exec", t);
        run_for(f, 100);
        assert_false(in_performance(f, t));
        assert_int_equal(manager_set_mode(f->m, MODE_AUTO), 0);
        send_event(f, "exec", t);
        for (int i = 0; i < 200 && !in_performance(f, t); i++)
                run_for(f, 5);
        assert_true(in_performance(f, t));
        kill_sleeper(t);
}

/* A process boostd placed and someone moved by hand since stays where it
 * was put by hand; Classify() still moves it. */
static void test_seam_moved_by_hand(void **state) {
        Fixture *f = *state;
        pid_t t = spawn_ticker();

        send_event(f, "exec", t);
        for (int i = 0; i < 200 && !in_performance(f, t); i++)
                run_for(f, 5);
        assert_true(in_performance(f, t));
        /* echo PID > background/cgroup.procs */
        assert_int_equal(cgroup_ops_files.attach(f->m->backend, "background", t), 0);
        send_event(f, "exec", t);
        run_for(f, 100);
        assert_false(in_performance(f, t));
        assert_true(file_has_pid(f->root, "dev/stune/background/cgroup.procs", t));
        assert_int_equal(manager_classify(f->m, t, "performance"), 0);
        assert_true(in_performance(f, t));
        kill_sleeper(t);
}

/* A flood: each event handled sends the next one, as a machine that
 * forks and execs without pause would. Between two batches the loop runs
 * the other sources (D-Bus, the watchdog): the one added here runs long
 * before the flood ends. */
#define FLOOD_EVENTS 2000

static Fixture *flood_fixture;
static pid_t flood_pid;
static unsigned flood_handled, flood_handled_when_other_ran;
static sd_event_source *flood_other_source;
static CgroupOps flood_ops;

static int flood_other(sd_event_source *s, void *userdata) {
        (void) s, (void) userdata;
        if (flood_handled_when_other_ran == 0)
                flood_handled_when_other_ran = flood_handled;
        return 0;
}

static int flood_group_of(const Backend *b, pid_t pid, char *buf, size_t size) {
        Fixture *f = flood_fixture;

        if (pid == flood_pid && ++flood_handled < FLOOD_EVENTS)
                send_event(f, "exec", flood_pid);
        /* the other source becomes due while the flood runs */
        if (flood_handled == 10 && !flood_other_source) {
                assert_int_equal(sd_event_add_defer(f->m->event, &flood_other_source, flood_other, NULL), 0);
                assert_int_equal(sd_event_source_set_enabled(flood_other_source, SD_EVENT_ONESHOT), 0);
        }
        return cgroup_ops_files.group_of(b, pid, buf, size);
}

static void test_seam_flood_yields(void **state) {
        Fixture *f = *state;

        flood_fixture = f;
        flood_pid = spawn_ticker();
        flood_handled = flood_handled_when_other_ran = 0;
        flood_ops = *backend_schedtune_cgroup_ops(f->m->backend);
        flood_ops.group_of = flood_group_of;
        assert_int_equal(backend_schedtune_set_cgroup_ops(f->m->backend, &flood_ops), 0);

        send_event(f, "exec", flood_pid);
        for (int i = 0; i < 10000 && flood_handled < FLOOD_EVENTS; i++)
                (void) sd_event_run(f->m->event, 5000);
        assert_true(flood_handled >= FLOOD_EVENTS);
        assert_true(in_performance(f, flood_pid));
        assert_true(flood_handled_when_other_ran > 0);
        assert_true(flood_handled_when_other_ran < 200);
        assert_int_equal(backend_schedtune_set_cgroup_ops(f->m->backend, &cgroup_ops_files), 0);
        flood_other_source = sd_event_source_unref(flood_other_source);
        kill_sleeper(flood_pid);
}

/* A flood that places a process at every event (two that take turns,
 * each made new again while the other is placed): the loop never idles,
 * yet the journal is saved within a second or so, not at every event. */
static Fixture *turns_fixture;
static pid_t turns_pids[2];
static bool turns_stop;
static CgroupOps turns_ops;

static int turns_attach(const Backend *b, const char *group, pid_t pid) {
        Fixture *f = turns_fixture;
        pid_t other = pid == turns_pids[0] ? turns_pids[1] : turns_pids[0];

        if (!turns_stop) {
                assert_int_equal(cgroup_ops_files.attach(b, "root", other), 0);
                state_pid_remove(&f->m->state->placed, &f->m->state->n_placed, other);
                send_event(f, "exec", other);
        }
        return cgroup_ops_files.attach(b, group, pid);
}

static void test_seam_flood_saves_in_time(void **state) {
        Fixture *f = *state;
        char p[4096], buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        struct timespec t0, t;
        int fd, saves = 0;
        ssize_t n;

        turns_fixture = f;
        turns_pids[0] = spawn_ticker();
        turns_pids[1] = spawn_ticker();
        turns_stop = false;
        turns_ops = *backend_schedtune_cgroup_ops(f->m->backend);
        turns_ops.attach = turns_attach;
        assert_int_equal(backend_schedtune_set_cgroup_ops(f->m->backend, &turns_ops), 0);
        snprintf(p, sizeof(p), "%s/run/boostd", f->root);
        fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        assert_true(fd >= 0);
        assert_true(inotify_add_watch(fd, p, IN_MOVED_TO) >= 0);

        send_event(f, "exec", turns_pids[0]);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
                (void) sd_event_run(f->m->event, 5000);
                clock_gettime(CLOCK_MONOTONIC, &t);
        } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 1500);
        turns_stop = true;

        while ((n = read(fd, buf, sizeof(buf))) > 0)
                for (char *e = buf; e < buf + n; e += sizeof(struct inotify_event) + ((struct inotify_event *) e)->len)
                        if (streq(((struct inotify_event *) e)->name, "placed"))
                                saves++;
        close(fd);
        assert_true(saves >= 1);
        assert_true(saves <= 3);
        assert_int_equal(backend_schedtune_set_cgroup_ops(f->m->backend, &cgroup_ops_files), 0);
        kill_sleeper(turns_pids[0]);
        kill_sleeper(turns_pids[1]);
}

/* A child that names itself "ticker" when told (SIGUSR1), as if it
 * exec'd a program of that name while its event was lost. */
static void rename_to_ticker(int sig) {
        (void) sig;
        (void) prctl(PR_SET_NAME, "ticker");
}

static pid_t spawn_renamer(void) {
        pid_t parent = getpid(), pid;
        int p[2];
        char c;

        assert_int_equal(pipe(p), 0);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                child_setup(parent);
                (void) signal(SIGUSR1, rename_to_ticker);
                (void) write(p[1], "", 1);
                for (;;)
                        pause();
        }
        close(p[1]);
        assert_int_equal(read(p[0], &c, 1), 1);
        close(p[0]);
        return pid;
}

/* Events lost in an overflow: the units are read again, and a process
 * that exec'd meanwhile is placed by what it runs now. */
static void test_seam_lost_events_rescan(void **state) {
        Fixture *f = *state;
        pid_t x = spawn_renamer();
        char comm[32], p[64];

        mkdirs(f->root, "sys/fs/cgroup/system.slice/foo.service");
        write_file(f->root, "sys/fs/cgroup/system.slice/foo.service/cgroup.procs", "%d\n", (int) x);
        for (int i = 0; i < 400 && !units_attached(f->m->units); i++)
                run_for(f, 5);
        assert_true(units_attached(f->m->units));
        run_for(f, 20);
        assert_false(in_performance(f, x));

        assert_int_equal(kill(x, SIGUSR1), 0);
        snprintf(p, sizeof(p), "proc/%d/comm", (int) x);
        for (int i = 0; i < 500 && !(read_file("/", p, comm, sizeof(comm)) && streq(comm, "ticker")); i++)
                usleep(2000);
        send_text(f, "lost");
        for (int i = 0; i < 600 && !in_performance(f, x); i++)
                run_for(f, 5);
        assert_true(in_performance(f, x));
        kill_sleeper(x);
}

/* The seam's socket as the daemon holds it (this process's own fd). */
static int seam_fd(Fixture *f) {
        DIR *d = opendir("/proc/self/fd");
        struct dirent *de;
        int fd = -1;

        assert_non_null(d);
        while (fd < 0 && (de = readdir(d))) {
                struct sockaddr_un sa = {};
                socklen_t l = sizeof(sa);
                int i = atoi(de->d_name);

                if (i > 2 && getsockname(i, (struct sockaddr *) &sa, &l) == 0 && sa.sun_family == AF_UNIX &&
                    streq(sa.sun_path, f->sock))
                        fd = i;
        }
        closedir(d);
        assert_true(fd >= 0);
        return fd;
}

/* A read error (here ECONNRESET, which a unix datagram socket reports
 * when a peer it was paired with disconnects with data queued) must not
 * end the exec events. */
static void test_seam_read_error_keeps_reading(void **state) {
        Fixture *f = *state;
        struct sockaddr_un sa = { .sun_family = AF_UNIX }, unspec = { .sun_family = AF_UNSPEC };
        int fd = seam_fd(f), peer;
        pid_t t = spawn_ticker();

        snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/peer.sock", f->root);
        peer = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        assert_true(peer >= 0);
        assert_int_equal(bind(peer, (struct sockaddr *) &sa, sizeof(sa)), 0);
        assert_int_equal(connect(fd, (struct sockaddr *) &sa, sizeof(sa)), 0);
        strcpy(sa.sun_path, f->sock);
        assert_int_equal(connect(peer, (struct sockaddr *) &sa, sizeof(sa)), 0);
        assert_int_equal(send(fd, "x", 1, 0), 1);
        assert_int_equal(connect(peer, (struct sockaddr *) &unspec, sizeof(unspec)), 0);
        assert_int_equal(connect(fd, (struct sockaddr *) &unspec, sizeof(unspec)), 0);
        close(peer);
        run_for(f, 20);         /* the error is read */

        send_event(f, "exec", t);
        for (int i = 0; i < 600 && !in_performance(f, t); i++)
                run_for(f, 5);
        assert_true(in_performance(f, t));
        kill_sleeper(t);
}

static char proc_state(pid_t pid) {
        char p[64], buf[512];
        const char *s;

        snprintf(p, sizeof(p), "proc/%d/stat", (int) pid);
        if (!read_file("", p, buf, sizeof(buf)) || !(s = strrchr(buf, ')')))
                return 0;
        return s[2];
}

static bool is_classified(Fixture *f, pid_t pid) {
        return state_pid_find(f->m->state->classified, f->m->state->n_classified, pid);
}

static bool is_placed(Fixture *f, pid_t pid) {
        return state_pid_find(f->m->state->placed, f->m->state->n_placed, pid);
}

/* An agent's game is the process pinned when its call came in: one whose
 * PID now names another process (another start time) is not registered. */
static void test_agent_game_pinned(void **state) {
        Fixture *f = *state;
        pid_t g = spawn_sleeper();
        ProcessId id = { .pid = g };

        assert_int_equal(proc_get_start_time("/proc", g, &id.start_time), 0);
        id.start_time++;
        assert_int_equal(manager_agent_game(f->m, ":1.5", &id, true), -ESRCH);
        assert_false(placer_is_game(&f->m->placer, g));
        assert_false(in_performance(f, g));
        id.start_time--;
        assert_int_equal(manager_agent_game(f->m, ":1.5", &id, true), 0);
        assert_true(placer_is_game(&f->m->placer, g));
        assert_true(in_performance(f, g));
        assert_int_equal(manager_agent_game(f->m, ":1.5", &id, false), 0);
        assert_false(placer_is_game(&f->m->placer, g));
        kill_sleeper(g);
}

/* The exit event of a leader whose process lives on (a thread's execve()
 * made it exit and took over its PID) forgets nothing; that of one whose
 * tasks are all zombies forgets it. */
static void test_seam_exit_of_a_live_leader(void **state) {
        Fixture *f = *state;
        pid_t t = spawn_ticker(), c = spawn_sleeper(), g = spawn_sleeper();

        send_event(f, "exec", t);
        for (int i = 0; i < 200 && !in_performance(f, t); i++)
                run_for(f, 5);
        assert_true(in_performance(f, t));
        assert_int_equal(manager_classify(f->m, c, "interactive"), 0);
        assert_int_equal(placer_game_register(&f->m->placer, g, ""), 0);
        assert_true(in_performance(f, g));

        send_event(f, "exit", t);
        send_event(f, "exit", c);
        send_event(f, "exit", g);
        run_for(f, 50);
        assert_true(is_placed(f, t));
        assert_true(is_classified(f, c));
        assert_true(placer_is_game(&f->m->placer, g));
        assert_true(is_placed(f, g));

        /* dead, not reaped yet: gone */
        assert_int_equal(kill(c, SIGKILL), 0);
        for (int i = 0; i < 500 && proc_state(c) != 'Z'; i++)
                usleep(2000);
        assert_int_equal(proc_state(c), 'Z');
        send_event(f, "exit", c);
        for (int i = 0; i < 200 && is_classified(f, c); i++)
                run_for(f, 5);
        assert_false(is_classified(f, c));
        assert_int_equal(waitpid(c, NULL, 0), c);
        kill_sleeper(t);
        kill_sleeper(g);
}

static void *thread_pause(void *userdata) {
        (void) userdata;
        for (;;)
                pause();
        return NULL;
}

/* The main thread calls pthread_exit(): the leader is a zombie, another
 * thread runs on. Its exit event forgets nothing; once the process ends
 * (no event says so) it is forgotten. */
static void test_seam_exit_of_the_main_thread(void **state) {
        Fixture *f = *state;
        pid_t parent = getpid(), p = fork();

        assert_true(p >= 0);
        if (p == 0) {
                pthread_t th;

                child_setup(parent);
                if (pthread_create(&th, NULL, thread_pause, NULL) != 0)
                        _exit(1);
                pthread_exit(NULL);
        }
        assert_int_equal(manager_classify(f->m, p, "interactive"), 0);
        for (int i = 0; i < 500 && proc_state(p) != 'Z'; i++)
                usleep(2000);
        assert_int_equal(proc_state(p), 'Z');
        send_event(f, "exit", p);
        run_for(f, 50);
        assert_true(is_classified(f, p));

        kill_sleeper(p);
        for (int i = 0; i < 1000 && is_classified(f, p); i++)
                run_for(f, 5);
        assert_false(is_classified(f, p));
}

/* The check itself, on a fake proc tree. */
static void fake_stat(const char *root, const char *rel, pid_t pid, char state, unsigned start) {
        write_file(root, rel, "%d (a b) c) %c 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 %u 0 0\n",
                   (int) pid, state, start);
}

static void test_process_gone(void **state) {
        char *root = tmpdir_new(), proc[4096];
        ProcessId id = { .pid = 100, .start_time = 5 };
        bool leader_exited;

        (void) state;
        snprintf(proc, sizeof(proc), "%s/proc", root);
        assert_int_equal(process_id_is_gone(proc, &id, &leader_exited), 1);
        mkdirs(root, "proc/100/task/100");
        mkdirs(root, "proc/100/task/101");
        fake_stat(root, "proc/100/stat", 100, 'S', 5);
        fake_stat(root, "proc/100/task/100/stat", 100, 'S', 5);
        fake_stat(root, "proc/100/task/101/stat", 101, 'S', 5);
        assert_int_equal(process_id_is_gone(proc, &id, &leader_exited), 0);
        assert_false(leader_exited);
        id.start_time = 6;              /* the PID was reused */
        assert_int_equal(process_id_is_gone(proc, &id, &leader_exited), 1);
        id.start_time = 5;
        fake_stat(root, "proc/100/stat", 100, 'Z', 5);
        fake_stat(root, "proc/100/task/100/stat", 100, 'Z', 5);
        assert_int_equal(process_id_is_gone(proc, &id, &leader_exited), 0);
        assert_true(leader_exited);
        fake_stat(root, "proc/100/task/101/stat", 101, 'X', 5);
        assert_int_equal(process_id_is_gone(proc, &id, &leader_exited), 1);
        tmpdir_free(root);
}

/* The seam's socket is made with its mode: no chmod() after the bind,
 * which would leave it open to others for a moment. */
static void test_seam_made_private(void **state) {
        char *root = tmpdir_new(), *error = NULL, sock[4096];
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        ManagerOptions o = { .root = root, .exec_source = sock, .log_level = LOG_CRIT };
        bool created = false, attrib = false;
        Manager *m = NULL;
        struct stat st;
        ssize_t n;
        int fd;

        (void) state;
        make_schedtune_tree(root, classes, 3);
        snprintf(sock, sizeof(sock), "%s/exec.sock", root);
        fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        assert_true(fd >= 0);
        assert_true(inotify_add_watch(fd, root, IN_CREATE | IN_ATTRIB) >= 0);
        assert_int_equal(manager_new(&o, &m, &error), 0);
        assert_int_equal(manager_start(m), 0);
        assert_non_null(m->procmon);
        assert_int_equal(stat(sock, &st), 0);
        assert_true(S_ISSOCK(st.st_mode));
        assert_int_equal(st.st_mode & 0777, 0600);
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                for (char *e = buf; e < buf + n; e += sizeof(struct inotify_event) + ((struct inotify_event *) e)->len) {
                        const struct inotify_event *ev = (const struct inotify_event *) e;

                        if (ev->len == 0 || !streq(ev->name, "exec.sock"))
                                continue;
                        created = created || (ev->mask & IN_CREATE);
                        attrib = attrib || (ev->mask & IN_ATTRIB);
                }
        close(fd);
        assert_true(created);
        assert_false(attrib);
        manager_free(m);
        /* removed with the source */
        assert_int_equal(lstat(sock, &st), -1);
        tmpdir_free(root);
}

/* Below a root prefix without the seam, the machine's own exec events
 * are none of the daemon's business. */
static void test_no_connector_below_a_root(void **state) {
        char *root = tmpdir_new(), *error = NULL;
        ManagerOptions o = { .root = root, .log_level = LOG_CRIT };
        Manager *m = NULL;

        (void) state;
        make_schedtune_tree(root, classes, 3);
        assert_int_equal(manager_new(&o, &m, &error), 0);
        assert_int_equal(manager_start(m), 0);
        assert_null(m->procmon);
        manager_free(m);
        tmpdir_free(root);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_text_feed),
                cmocka_unit_test(test_netlink_feed),
                cmocka_unit_test(test_netlink_unaligned_end),
                cmocka_unit_test(test_connector),
                cmocka_unit_test_setup_teardown(test_seam_exec_and_exit, setup, teardown),
                cmocka_unit_test_setup_teardown(test_seam_manual_mode, setup, teardown),
                cmocka_unit_test_setup_teardown(test_seam_moved_by_hand, setup, teardown),
                cmocka_unit_test_setup_teardown(test_seam_flood_yields, setup, teardown),
                cmocka_unit_test_setup_teardown(test_seam_flood_saves_in_time, setup, teardown),
                cmocka_unit_test_setup_teardown(test_seam_lost_events_rescan, setup, teardown),
                cmocka_unit_test_setup_teardown(test_seam_read_error_keeps_reading, setup, teardown),
                cmocka_unit_test_setup_teardown(test_seam_exit_of_a_live_leader, setup, teardown),
                cmocka_unit_test_setup_teardown(test_agent_game_pinned, setup, teardown),
                cmocka_unit_test_setup_teardown(test_seam_exit_of_the_main_thread, setup, teardown),
                cmocka_unit_test(test_process_gone),
                cmocka_unit_test(test_seam_made_private),
                cmocka_unit_test(test_no_connector_below_a_root),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
