/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* boostd: arguments, configuration check, main loop. */
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <stdio.h>
#include <systemd/sd-daemon.h>

#include "config-version.h"
#include "log.h"
#include "manager-bus.h"
#include "manager.h"
#include "util.h"

/* LSB "program is not configured": the unit does not restart on it. */
#define EXIT_NOTCONFIGURED 6

typedef struct Args {
        const char *root;
        const char *config_file;
        const char *backend;
        bool check_config;
        bool mount_only;
        const char *check_file;
        LogContext log;         /* until the manager has its own */
} Args;

static void help(void) {
        printf("Usage: boostd [OPTIONS]\n"
               "       boostd --check-config [FILE]\n\n"
               "Scheduler boost policy daemon.\n\n"
               "  -h --help              Show this help\n"
               "     --version           Show the version\n"
               "     --root=DIR          Prefix for every path (default $BOOSTD_ROOT or /)\n"
               "     --config=FILE       Read FILE instead of /etc/boostd.conf and its drop-ins\n"
               "     --backend=NAME      Override Backend= (auto, schedtune, schedtune2, uclamp, none)\n"
               "     --log-level=LEVEL   err, warning, notice, info or debug\n"
               "     --check-config      Validate the configuration and exit\n"
               "     --mount             Mount the schedtune hierarchy and exit\n");
}

static int parse_args(int argc, char *argv[], Args *a) {
        enum { ARG_VERSION = 0x100, ARG_ROOT, ARG_CONFIG, ARG_BACKEND, ARG_LOG_LEVEL, ARG_CHECK, ARG_MOUNT };
        static const struct option options[] = {
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                { "root", required_argument, NULL, ARG_ROOT },
                { "config", required_argument, NULL, ARG_CONFIG },
                { "backend", required_argument, NULL, ARG_BACKEND },
                { "log-level", required_argument, NULL, ARG_LOG_LEVEL },
                { "check-config", optional_argument, NULL, ARG_CHECK },
                { "mount", no_argument, NULL, ARG_MOUNT },
                {}
        };
        int c, r;

        a->root = getenv("BOOSTD_ROOT");
        while ((c = getopt_long(argc, argv, "h", options, NULL)) >= 0)
                switch (c) {
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("boostd %s\n", BOOSTD_VERSION);
                        return 0;
                case ARG_ROOT:
                        a->root = optarg;
                        break;
                case ARG_CONFIG:
                        a->config_file = optarg;
                        break;
                case ARG_BACKEND:
                        a->backend = optarg;
                        break;
                case ARG_LOG_LEVEL:
                        r = log_level_from_string(optarg);
                        if (r < 0) {
                                fprintf(stderr, "boostd: invalid log level '%s'\n", optarg);
                                return -EINVAL;
                        }
                        a->log.max_level = r;
                        break;
                case ARG_MOUNT:
                        a->mount_only = true;
                        break;
                case ARG_CHECK:
                        a->check_config = true;
                        a->check_file = optarg;
                        break;
                default:
                        return -EINVAL;
                }
        if (a->check_config && !a->check_file && optind < argc)
                a->check_file = argv[optind++];
        if (optind < argc) {
                fprintf(stderr, "boostd: unexpected argument '%s'\n", argv[optind]);
                return -EINVAL;
        }
        if (a->root && a->root[0] != '/') {
                fprintf(stderr, "boostd: --root must be an absolute path\n");
                return -EINVAL;
        }
        return 1;
}

static int check_config(const Args *a) {
        _cleanup_(freep) char *main_file = NULL, *dropins = NULL, *error = NULL;
        _cleanup_(config_freep) Config *c = NULL;
        const char *file = a->check_file ?: a->config_file;
        int r;

        if (file)
                r = config_load(file, false, NULL, &c, &error);
        else {
                main_file = path_join_root(a->root, "/etc/boostd.conf");
                dropins = path_join_root(a->root, "/etc/boostd.conf.d");
                if (!main_file || !dropins)
                        return EXIT_FAILURE;
                r = config_load(main_file, true, dropins, &c, &error);
        }
        if (r < 0) {
                fprintf(stderr, "%s\n", error ?: strerror(-r));
                return EXIT_FAILURE;
        }
        printf("%s: ok (%zu classes, %zu rules)\n", file ?: main_file, c->n_classes, c->n_rules);
        return EXIT_SUCCESS;
}

/* The mount must be made in the host's mount namespace, where users and
 * the sandboxed service (whose namespace is a slave of it) see it. systemd
 * (252) runs an ExecStartPre=+ command of a unit with namespacing options
 * in a namespace of its own, where a mount is lost when the command
 * exits: join PID 1's namespace first when it is not ours. */
static int join_host_mount_namespace(const Args *a) {
        _cleanup_(closep) int fd = -EBADF;
        struct stat self, host;

        if (a->root && !streq(a->root, "/"))
                return 0;       /* a test tree: stay where we are */
        if (stat("/proc/self/ns/mnt", &self) < 0 || stat("/proc/1/ns/mnt", &host) < 0)
                return log_error_errno(&a->log, -errno, "Failed to find the mount namespaces: %m");
        if (self.st_ino == host.st_ino && self.st_dev == host.st_dev)
                return 0;
        fd = open("/proc/1/ns/mnt", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || setns(fd, CLONE_NEWNS) < 0)
                return log_error_errno(&a->log, -errno, "Failed to join the host's mount namespace: %m");
        log_debug(&a->log, "Joined the host's mount namespace.");
        return 0;
}

/* Runs before the sandboxed service, in the host's mount namespace. */
static int mount_only(const Args *a) {
        _cleanup_(freep) char *error = NULL, *main_file = NULL, *dropins = NULL;
        _cleanup_(config_freep) Config *c = NULL;
        _cleanup_(backend_freep) Backend *b = NULL;
        int r;

        main_file = path_join_root(a->root, "/etc/boostd.conf");
        dropins = path_join_root(a->root, "/etc/boostd.conf.d");
        if (!main_file || !dropins)
                return EXIT_FAILURE;
        r = a->config_file ? config_load(a->config_file, false, NULL, &c, &error)
                           : config_load(main_file, true, dropins, &c, &error);
        if (r < 0) {
                log_error(&a->log, "Invalid configuration: %s", error ?: strerror(-r));
                return EXIT_NOTCONFIGURED;
        }
        if (!streq(c->backend, "auto") && !streq(c->backend, "schedtune"))
                return EXIT_SUCCESS;
        if (join_host_mount_namespace(a) < 0)
                return EXIT_FAILURE;
        b = backend_new(a->root ?: "/", c->mount_point, "/proc", NULL, false, &a->log);
        if (!b)
                return EXIT_FAILURE;
        r = backend_schedtune_mount(b);
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* One boostd per root. A second one must not adopt the first's journal and
 * then, failing to take the bus name, put everything back on its way out:
 * the lock is taken before anything is read or changed, and held (the
 * descriptor stays open) until exit. */
static int take_instance_lock(const Args *a, int *ret_fd) {
        _cleanup_(freep) char *dir = path_join_root(a->root, "/run/boostd"), *path = NULL;
        _cleanup_(closep) int fd = -1;
        int r;

        if (!dir)
                return log_oom(&a->log);
        r = mkdir_p(dir, 0755);
        if (r < 0)
                return log_error_errno(&a->log, r, "Failed to create %s: %m", dir);
        path = path_join(dir, "lock");
        if (!path)
                return log_oom(&a->log);
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return log_error_errno(&a->log, -errno, "Failed to open %s: %m", path);
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                if (errno == EWOULDBLOCK)
                        return log_error_errno(&a->log, -EBUSY,
                                               "Another boostd is running (%s is locked); leaving everything as it is.",
                                               path);
                return log_error_errno(&a->log, -errno, "Failed to lock %s: %m", path);
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        if (si->ssi_signo == SIGHUP) {
                (void) sd_notify(false, "RELOADING=1\nSTATUS=Reloading the configuration");
                (void) manager_reload(m, NULL);
                (void) sd_notify(false, "READY=1\nSTATUS=Running");
                return 0;
        }
        log_info(&m->log, "Received %s, stopping.", si->ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
        return sd_event_exit(sd_event_source_get_event(s), 0);
}

static int run(const Args *a) {
        _cleanup_(manager_freep) Manager *m = NULL;
        _cleanup_(closep) int lock_fd = -1;
        _cleanup_(freep) char *error = NULL;
        ManagerOptions o = {
                .root = a->root,
                .config_file = a->config_file,
                .backend = a->backend,
                /* the test seam of the exec events: procmon.h */
                .exec_source = getenv("BOOSTD_EXEC_SOURCE"),
                /* tests: processes whose cgroup agrees with a fake tree */
                .proc_root = getenv("BOOSTD_PROC_ROOT"),
                .log_level = a->log.max_level,
        };
        static const int signals[] = { SIGTERM, SIGINT, SIGHUP };
        sigset_t mask;
        int r;

        sigemptyset(&mask);
        for (size_t i = 0; i < ELEMENTSOF(signals); i++)
                sigaddset(&mask, signals[i]);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return log_error_errno(&a->log, -errno, "Failed to block signals: %m");

        r = take_instance_lock(a, &lock_fd);
        if (r < 0)
                return r;
        r = manager_new(&o, &m, &error);
        if (r < 0) {
                if (error) {
                        log_error(&a->log, "Invalid configuration: %s", error);
                        return -EBADMSG;
                }
                return log_error_errno(&a->log, r, "Failed to set up: %m");
        }

        for (size_t i = 0; i < ELEMENTSOF(signals); i++) {
                sd_event_source *s = NULL;

                r = sd_event_add_signal(m->event, &s, signals[i], on_signal, m);
                if (r < 0)
                        return log_error_errno(&m->log, r, "Failed to watch signal %d: %m", signals[i]);
                (void) sd_event_source_set_description(s, signals[i] == SIGHUP ? "signal-reload" : "signal-exit");
                (void) sd_event_source_set_floating(s, true);
                sd_event_source_unref(s);
        }
        r = sd_event_set_watchdog(m->event, true);
        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to enable the watchdog, ignoring: %m");

        /* The bus name before any state is touched: without it this
         * instance would serve nobody and still change the kernel. No call
         * is dispatched before the loop runs, so none sees a half-started
         * manager. */
        r = manager_bus_connect(m);
        if (r < 0)
                goto finish;
        r = manager_start(m);
        if (r < 0)
                goto finish;
        manager_bus_ready(m);

        (void) sd_notifyf(false, "READY=1\nSTATUS=Running with backend %s", backend_name(m->backend));
        log_info(&m->log, "Ready (backend %s, %zu groups).", backend_name(m->backend), m->groups.n);

        r = sd_event_loop(m->event);
        if (r < 0)
                log_error_errno(&m->log, r, "Event loop failed: %m");
        else if (r > 0) {
                /* The bus went away (sd_bus_set_exit_on_disconnect()):
                 * leave the groups as they are, like a crash, so that the
                 * restart adopts them from the journal without a dip. */
                log_error(&m->log, "Lost the system bus, exiting for a restart; the groups stay as they are.");
                (void) sd_notify(false, "STOPPING=1\nSTATUS=Lost the system bus");
                manager_detach(m);
                manager_bus_done(m);
                return -ECONNRESET;
        }
finish:
        (void) sd_notify(false, "STOPPING=1\nSTATUS=Restoring the groups");
        (void) manager_stop(m);
        manager_bus_done(m);
        return r;
}

int main(int argc, char *argv[]) {
        Args a = { .log = log_context_make(LOG_INFO) };
        int r;

        r = parse_args(argc, argv, &a);
        if (r <= 0)
                return r < 0 ? 2 : EXIT_SUCCESS;
        if (a.check_config)
                return check_config(&a);
        if (a.mount_only)
                return mount_only(&a);
        r = run(&a);
        if (r == -EBADMSG)
                return EXIT_NOTCONFIGURED;
        return r < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
