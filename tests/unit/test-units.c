/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Units as they appear in a fake cgroup v2 tree under a temporary root:
 * processes placed by the rules on their unit and slices, PIDs added
 * later, forks during a move, manual mode, the tree vanishing and coming
 * back, the foreground unit, GNOME's inactive-since xattr. The manager
 * reads processes below <root>/proc, where each test process is linked
 * to its real files but has the cgroup the fake tree gives it. */
#include <sched.h>
#include <sys/inotify.h>
#include <sys/xattr.h>

#include "tests.h"

#include "backend.h"
#include "units.h"
#include "manager.h"

static const char *const classes[] = { "background", "interactive", "performance" };

#define CONFIG                                                          \
        "[Rule:foo]\nUnit=foo.service\nClass=background\n"             \
        "[Rule:bar]\nUnit=bar.service\nClass=performance\n"            \
        "[Rule:steam]\nUnit=app-steam-*.scope\nManager=user\nClass=performance\n"    \
        "[Rule:builds]\nSlice=build.slice\nClass=background\n"

#define FOO "sys/fs/cgroup/system.slice/foo.service"
#define BAR "sys/fs/cgroup/system.slice/bar.service"
#define APP "sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice"

typedef struct Fixture {
        char *root;
        Manager *m;
        pid_t pids[16];
        size_t n_pids;
} Fixture;

/* The process's cgroup, as /proc/PID/cgroup tells it. */
static void proc_cgroup(Fixture *f, pid_t pid, const char *cgroup) {
        char p[4096];

        snprintf(p, sizeof(p), "%s/proc", f->root);
        fake_proc_set(p, pid, cgroup);
}

static pid_t sleeper(Fixture *f) {
        pid_t pid;

        assert_true(f->n_pids < ELEMENTSOF(f->pids));
        pid = f->pids[f->n_pids++] = spawn_sleeper();
        proc_cgroup(f, pid, "/");
        return pid;
}

static void start(Fixture *f, bool manual) {
        char proc[4096];
        ManagerOptions o = { .root = f->root, .proc_root = proc, .log_level = LOG_CRIT };
        char *error = NULL;

        snprintf(proc, sizeof(proc), "%s/proc", f->root);

        if (manual) {
                mkdirs(f->root, "run/boostd");
                write_file(f->root, "run/boostd/state", "mode manual\n");
        }
        assert_int_equal(manager_new(&o, &f->m, &error), 0);
        assert_null(error);
        assert_int_equal(manager_start(f->m), 0);
}

static int setup(void **state) {
        Fixture *f = calloc(1, sizeof(Fixture));

        f->root = tmpdir_new();
        make_schedtune_tree(f->root, classes, 3);
        mkdirs(f->root, "etc");
        write_file(f->root, "etc/boostd.conf", CONFIG);
        mkdirs(f->root, "sys/fs/cgroup/system.slice");
        *state = f;
        return 0;
}

static int teardown(void **state) {
        Fixture *f = *state;

        manager_free(f->m);
        for (size_t i = 0; i < f->n_pids; i++)
                kill_sleeper(f->pids[i]);
        tmpdir_free(f->root);
        free(f);
        return 0;
}

static bool in_group(Fixture *f, const char *group, pid_t pid) {
        char p[256];

        if (streq(group, "root"))
                return file_has_pid(f->root, "dev/stune/cgroup.procs", pid);
        snprintf(p, sizeof(p), "dev/stune/%s/cgroup.procs", group);
        return file_has_pid(f->root, p, pid);
}

static void run_for(Fixture *f, unsigned ms) {
        for (unsigned i = 0; i < ms; i++)
                (void) sd_event_run(f->m->event, 1000);
}

/* Runs the loop until pid is in group (2 s at most). */
static bool run_until_in(Fixture *f, const char *group, pid_t pid) {
        for (int i = 0; i < 400; i++) {
                if (in_group(f, group, pid))
                        return true;
                (void) sd_event_run(f->m->event, 5000);
        }
        return in_group(f, group, pid);
}

static bool run_until_attached(Fixture *f, bool attached) {
        for (int i = 0; i < 400; i++) {
                if (units_attached(f->m->units) == attached)
                        return true;
                (void) sd_event_run(f->m->event, 5000);
        }
        return false;
}

static void rm_rf(Fixture *f, const char *rel) {
        char p[4096];

        snprintf(p, sizeof(p), "rm -rf '%s/%s'", f->root, rel);
        assert_int_equal(system(p), 0);
}

/* logind's record of a seat whose active session is uid's. */
static void seat_of(Fixture *f, const char *seat, unsigned uid) {
        char p[256];

        mkdirs(f->root, "run/systemd/seats");
        snprintf(p, sizeof(p), "run/systemd/seats/%s", seat);
        write_file(f->root, p, "# This is private data. Do not parse.\nIS_SEAT0=1\nACTIVE=2\nACTIVE_UID=%u\n", uid);
}

/* An app's scope that GNOME marked unfocused, with pid in it, of user
 * 1000, who has the seat; its path goes to p. Skips the test where the
 * file system has no user xattrs. */
static void inactive_app_scope(Fixture *f, pid_t pid, char *p, size_t size) {
        seat_of(f, "seat0", 1000);
        snprintf(p, size, "%s/" APP "/app-gedit-1.scope", f->root);
        mkdirs(f->root, APP "/app-gedit-1.scope");
        write_file(f->root, APP "/app-gedit-1.scope/cgroup.procs", "%d\n", pid);
        if (setxattr(p, "user.xdg.inactive-since", "1", 1, 0) < 0) {
                if (errno == ENOTSUP || errno == EOPNOTSUPP)
                        skip();
                fail_msg("setxattr: %s", strerror(errno));
        }
}

/* The app unit in the foreground of seat, NULL if none. */
static const char *fg_unit(Fixture *f, const char *seat) {
        const Foreground *fg = placer_foreground(&f->m->placer, seat);

        return fg ? fg->unit : NULL;
}

static void test_units_existing_at_start(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f), b = sleeper(f), c = sleeper(f);

        mkdirs(f->root, FOO);
        write_file(f->root, FOO "/cgroup.procs", "%d\n%d\n", a, b);
        mkdirs(f->root, "sys/fs/cgroup/build.slice/inner.slice/job-1.scope");
        write_file(f->root, "sys/fs/cgroup/build.slice/inner.slice/job-1.scope/cgroup.procs", "%d\n", c);
        start(f, false);
        /* placed before the start returns */
        assert_true(in_group(f, "background", a));
        assert_true(in_group(f, "background", b));
        assert_true(in_group(f, "background", c));
        assert_true(units_attached(f->m->units));
        assert_int_equal(units_n_dirs(f->m->units), 6);
}

static void test_units_appearing(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f), b = sleeper(f), c = sleeper(f);

        start(f, false);
        mkdirs(f->root, BAR);
        write_file(f->root, BAR "/cgroup.procs", "%d\n", a);
        assert_true(run_until_in(f, "performance", a));
        /* a user manager's app scope, made at once with its parents */
        mkdirs(f->root, APP "/app-steam-42.scope");
        write_file(f->root, APP "/app-steam-42.scope/cgroup.procs", "%d\n", b);
        assert_true(run_until_in(f, "performance", b));
        /* a PID moved into a known unit later (systemd writes it) */
        write_file(f->root, BAR "/cgroup.procs", "%d\n%d\n", a, c);
        assert_true(run_until_in(f, "performance", c));
        /* a unit nobody has a rule for: DefaultClass= (root) */
        mkdirs(f->root, "sys/fs/cgroup/system.slice/other.service");
        write_file(f->root, "sys/fs/cgroup/system.slice/other.service/cgroup.procs", "%d\n", a);
        assert_true(run_until_in(f, "root", a));
        assert_false(in_group(f, "performance", a));
}

static char gone_calls[4][256];
static size_t n_gone_calls;

static int record_attach_unit(Backend *b, const char *group, const char *cgroup) {
        if (n_gone_calls < 4)
                snprintf(gone_calls[n_gone_calls++], sizeof(gone_calls[0]), "%s %s", group, cgroup);
        if (streq(group, "root"))
                state_cgroup_remove(b->state, state_cgroup_find(b->state, cgroup));
        return 0;
}

/* A unit whose cgroup boostd boosts in place stops: its cgroup's removal
 * ends the boost (and lowers the slices above it) at once. A cgroup
 * boostd knows nothing of is no business of the backend's. */
static void test_boosted_cgroup_gone(void **state) {
        Fixture *f = *state;
        BackendVTable vt;
        const BackendVTable *saved;
        StateCgroup *c;

        start(f, false);
        vt = *f->m->backend->vt;
        saved = f->m->backend->vt;
        vt.attach_unit = record_attach_unit;
        f->m->backend->vt = &vt;
        n_gone_calls = 0;
        mkdirs(f->root, BAR);
        mkdirs(f->root, "sys/fs/cgroup/system.slice/other.service");
        run_for(f, 200);
        c = state_cgroup_add(f->m->state, "/system.slice/bar.service");
        assert_non_null(c);
        strcpy(c->group, "performance");
        n_gone_calls = 0;
        rm_rf(f, "sys/fs/cgroup/system.slice/other.service");
        rm_rf(f, BAR);
        for (int i = 0; i < 50 && n_gone_calls == 0; i++)
                run_for(f, 100);
        assert_int_equal(n_gone_calls, 1);
        assert_string_equal(gone_calls[0], "root /system.slice/bar.service");
        assert_null(state_cgroup_find(f->m->state, "/system.slice/bar.service"));
        f->m->backend->vt = saved;
}

/* Units with no process are common: user@UID.service keeps its own in
 * init.scope below it, and a unit's cgroup.procs is empty for a moment
 * when systemd has made the directory but not yet moved the process in. */
static void test_empty_units(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f);

        mkdirs(f->root, APP);
        empty_file(f->root, "sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/cgroup.procs");
        start(f, false);
        mkdirs(f->root, BAR);
        empty_file(f->root, BAR "/cgroup.procs");
        run_for(f, 20);
        write_file(f->root, BAR "/cgroup.procs", "%d\n", a);
        assert_true(run_until_in(f, "performance", a));
}

/* The test seam's attach, playing processes that fork while they are
 * moved: each move adds the next spare PID to foo.service. */
static Fixture *forking_fixture;
static size_t forking_next;
static CgroupOps forking_ops;

static int forking_attach(const Backend *b, const char *group, pid_t pid) {
        Fixture *f = forking_fixture;
        char p[4096], line[32];
        FILE *fp;

        if (forking_next < f->n_pids) {
                snprintf(p, sizeof(p), "%s/" FOO "/cgroup.procs", f->root);
                snprintf(line, sizeof(line), "%d\n", (int) f->pids[forking_next++]);
                fp = fopen(p, "a");
                assert_non_null(fp);
                fputs(line, fp);
                fclose(fp);
        }
        return cgroup_ops_files.attach(b, group, pid);
}

/* Children forked during a move are found by reading cgroup.procs again,
 * without waiting for an event, and the reading stops after 10 rounds. */
static void test_forks_during_the_move(void **state) {
        Fixture *f = *state;

        for (int i = 0; i < 13; i++)
                (void) sleeper(f);
        mkdirs(f->root, FOO);
        write_file(f->root, FOO "/cgroup.procs", "%d\n", f->pids[0]);
        start(f, true);
        forking_fixture = f;
        forking_next = 1;
        forking_ops = *backend_schedtune_cgroup_ops(f->m->backend);
        forking_ops.attach = forking_attach;
        assert_int_equal(backend_schedtune_set_cgroup_ops(f->m->backend, &forking_ops), 0);

        /* auto mode reads the tree at once: no event loop runs here */
        assert_int_equal(manager_set_mode(f->m, MODE_AUTO), 0);
        for (int i = 0; i < 10; i++)
                if (!in_group(f, "background", f->pids[i]))
                        fail_msg("PID #%d was not placed in the first 10 rounds", i);
        assert_false(in_group(f, "background", f->pids[10]));
        assert_int_equal(backend_schedtune_set_cgroup_ops(f->m->backend, &cgroup_ops_files), 0);
        /* the rest comes with the event of the write */
        assert_true(run_until_in(f, "background", f->pids[10]));
}

static void test_manual_mode_does_nothing(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f), b = sleeper(f);

        mkdirs(f->root, FOO);
        write_file(f->root, FOO "/cgroup.procs", "%d\n", a);
        start(f, true);
        assert_false(in_group(f, "background", a));
        mkdirs(f->root, BAR);
        write_file(f->root, BAR "/cgroup.procs", "%d\n", b);
        run_for(f, 100);
        assert_false(in_group(f, "performance", b));
        /* switching to auto reads everything */
        assert_int_equal(manager_set_mode(f->m, MODE_AUTO), 0);
        assert_true(in_group(f, "background", a));
        assert_true(in_group(f, "performance", b));
}

static void test_tree_vanishes_and_returns(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f), b = sleeper(f);

        mkdirs(f->root, FOO);
        write_file(f->root, FOO "/cgroup.procs", "%d\n", a);
        start(f, false);
        assert_true(in_group(f, "background", a));
        rm_rf(f, "sys/fs/cgroup");
        assert_true(run_until_attached(f, false));
        /* and its parent too: waiting one level higher */
        rm_rf(f, "sys/fs");
        run_for(f, 50);
        mkdirs(f->root, BAR);
        write_file(f->root, BAR "/cgroup.procs", "%d\n", b);
        assert_true(run_until_attached(f, true));
        assert_true(run_until_in(f, "performance", b));
        /* watching the new tree */
        mkdirs(f->root, FOO);
        write_file(f->root, FOO "/cgroup.procs", "%d\n", a);
        assert_true(run_until_in(f, "background", a));
}

static void test_reload_places_again(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f);

        mkdirs(f->root, FOO);
        write_file(f->root, FOO "/cgroup.procs", "%d\n", a);
        start(f, false);
        assert_true(in_group(f, "background", a));
        write_file(f->root, "etc/boostd.conf", "[Rule:foo]\nUnit=foo.service\nClass=performance\n");
        assert_int_equal(manager_reload(f->m, NULL), 0);
        assert_true(in_group(f, "performance", a));
}

/* SetForeground() takes the whole unit of the process up, and its
 * processes go back to their rules when another one comes. */
static void test_foreground_unit(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f), b = sleeper(f), c = sleeper(f), d = sleeper(f);

        mkdirs(f->root, FOO "/payload");
        write_file(f->root, FOO "/cgroup.procs", "%d\n", a);
        proc_cgroup(f, a, "/system.slice/foo.service");
        write_file(f->root, FOO "/payload/cgroup.procs", "%d\n", b);
        proc_cgroup(f, b, "/system.slice/foo.service/payload");
        proc_cgroup(f, d, "/");
        start(f, false);
        assert_true(in_group(f, "background", a));
        assert_true(in_group(f, "background", b));
        assert_int_equal(manager_set_foreground(f->m, a), 0);
        assert_string_equal(fg_unit(f, ""), "/system.slice/foo.service");
        assert_true(in_group(f, "interactive", a));
        assert_true(in_group(f, "interactive", b));
        /* a process that joins the unit now is foreground too */
        write_file(f->root, FOO "/cgroup.procs", "%d\n%d\n", a, c);
        proc_cgroup(f, c, "/system.slice/foo.service");
        assert_true(run_until_in(f, "interactive", c));
        /* another foreground (not in any unit, and not their parent):
         * the unit goes back */
        assert_int_equal(manager_set_foreground(f->m, d), 0);
        assert_null(fg_unit(f, ""));
        assert_true(in_group(f, "background", a));
        assert_true(in_group(f, "background", b));
        assert_true(in_group(f, "background", c));
        assert_true(in_group(f, "interactive", d));
}

/* A child keeps its parent's own decision (Classify(), a game) when it
 * execs, above its unpinned rule; a pinned rule still outranks it, and
 * once the parent's decision ends the child follows its rule again. */
static void test_children_inherit(void **state) {
        Fixture *f = *state;
        pid_t child, parent;

        assert_true(f->n_pids < ELEMENTSOF(f->pids));
        parent = f->pids[f->n_pids++] = spawn_sleeper_family(&child);
        mkdirs(f->root, FOO);
        write_file(f->root, FOO "/cgroup.procs", "%d\n%d\n", parent, child);
        proc_cgroup(f, parent, "/system.slice/foo.service");
        proc_cgroup(f, child, "/system.slice/foo.service");
        start(f, false);
        assert_true(in_group(f, "background", parent));
        assert_true(in_group(f, "background", child));

        assert_int_equal(manager_classify(f->m, parent, "performance"), 0);
        assert_true(in_group(f, "background", child));  /* only the process itself moves */
        /* the child execs: it follows the parent, not its rule */
        assert_int_equal(placer_place_auto(&f->m->placer, child, NULL), 0);
        assert_true(in_group(f, "performance", child));
        /* the parent's Classify() ends: the child follows its rule again
         * at once, not at its next exec */
        assert_int_equal(manager_classify(f->m, parent, "root"), 0);
        assert_true(in_group(f, "background", child));

        /* a game's child is the game's, until the game unregisters */
        assert_int_equal(placer_game_register(&f->m->placer, parent, ""), 0);
        assert_int_equal(placer_place_auto(&f->m->placer, child, NULL), 0);
        assert_true(in_group(f, "performance", child));
        placer_games_clear(&f->m->placer, "");
        assert_true(in_group(f, "background", child));
        /* a game two sources reported (the system bus's GameMode and a
         * agent) stays one until both let it go */
        assert_int_equal(placer_game_register(&f->m->placer, parent, ""), 0);
        assert_int_equal(placer_game_register(&f->m->placer, parent, ":1.5"), 0);
        assert_int_equal(placer_games_of(&f->m->placer, ":1.5"), 1);
        assert_true(in_group(f, "performance", parent));
        placer_games_clear(&f->m->placer, "");
        assert_true(in_group(f, "performance", parent));
        assert_int_equal(placer_game_unregister(&f->m->placer, parent, ":1.6"), 0);
        assert_true(in_group(f, "performance", parent));
        placer_games_clear(&f->m->placer, ":1.5");
        assert_true(in_group(f, "background", parent));
        assert_int_equal(placer_games_of(&f->m->placer, ":1.5"), 0);

        /* Pin=yes outranks the parent's decision */
        write_file(f->root, "etc/boostd.conf", "[Rule:foo]\nUnit=foo.service\nClass=background\nPin=yes\n");
        assert_int_equal(manager_reload(f->m, NULL), 0);
        assert_int_equal(manager_classify(f->m, parent, "interactive"), 0);
        assert_int_equal(placer_place_auto(&f->m->placer, child, NULL), 0);
        assert_true(in_group(f, "background", child));
}

/* DefaultClass=root: a process no one decided for is left where it is,
 * even in a group an admin moved it to; what boostd itself put in a
 * group (and what forked there from it) goes back when no rule wants it
 * any more. */
static void test_default_root_leaves_it(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f), b, child;

        assert_true(f->n_pids < ELEMENTSOF(f->pids));
        b = f->pids[f->n_pids++] = spawn_sleeper_family(&child);
        mkdirs(f->root, BAR);
        write_file(f->root, BAR "/cgroup.procs", "%d\n", b);
        proc_cgroup(f, b, "/system.slice/bar.service");
        start(f, false);
        assert_true(in_group(f, "performance", b));

        /* moved by hand by an admin: no rule, no one decided */
        write_file(f->root, "dev/stune/interactive/cgroup.procs", "%d\n", a);
        assert_int_equal(placer_place_auto(&f->m->placer, a, NULL), 0);
        assert_true(in_group(f, "interactive", a));

        /* b's child forked in b's group (the fake tree has no kernel to
         * do that) and lives outside b's unit */
        write_file(f->root, "dev/stune/performance/cgroup.procs", "%d\n%d\n", b, child);
        proc_cgroup(f, child, "/");
        write_file(f->root, "etc/boostd.conf", "[Rule:other]\nUnit=other.service\nClass=background\n");
        assert_int_equal(manager_reload(f->m, NULL), 0);
        assert_int_equal(placer_place_auto(&f->m->placer, child, NULL), 0);
        assert_true(in_group(f, "root", b));
        assert_true(in_group(f, "root", child));
        assert_true(in_group(f, "interactive", a));
}

/* The focus moved in manual mode: back in auto mode it is followed. */
static void test_inactive_since_back_in_auto(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f);
        char p[4096];

        inactive_app_scope(f, a, p, sizeof(p));
        start(f, false);
        assert_int_equal(manager_set_mode(f->m, MODE_MANUAL), 0);
        assert_int_equal(removexattr(p, "user.xdg.inactive-since"), 0);
        run_for(f, 50);
        assert_null(fg_unit(f, "seat0"));
        assert_false(in_group(f, "interactive", a));
        assert_int_equal(manager_set_mode(f->m, MODE_AUTO), 0);
        assert_non_null(fg_unit(f, "seat0"));
        assert_non_null(strstr(fg_unit(f, "seat0"), "/app-gedit-1.scope"));
        assert_true(in_group(f, "interactive", a));
        /* and unfocused in manual mode: back in auto it is no longer */
        assert_int_equal(manager_set_mode(f->m, MODE_MANUAL), 0);
        assert_int_equal(setxattr(p, "user.xdg.inactive-since", "2", 1, 0), 0);
        run_for(f, 50);
        assert_non_null(fg_unit(f, "seat0"));
        assert_int_equal(manager_set_mode(f->m, MODE_AUTO), 0);
        assert_null(fg_unit(f, "seat0"));
        assert_true(in_group(f, "root", a));
}

/* Where a process is comes from /proc/PID/cgroup, not from where the
 * watch last saw it: the watch does not hear a process leave a unit (an
 * exit and a reused PID, a move it missed). */
static void test_cgroup_from_proc(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f);

        mkdirs(f->root, FOO);
        write_file(f->root, FOO "/cgroup.procs", "%d\n", a);
        proc_cgroup(f, a, "/system.slice/foo.service");
        start(f, false);
        assert_true(in_group(f, "background", a));

        /* now in bar.service, which the watch has not read since */
        proc_cgroup(f, a, "/system.slice/bar.service");
        assert_int_equal(placer_place_auto(&f->m->placer, a, NULL), 0);
        assert_true(in_group(f, "performance", a));
        assert_int_equal(manager_set_foreground(f->m, a), 0);
        assert_string_equal(fg_unit(f, ""), "/system.slice/bar.service");
}

/* GNOME removes user.xdg.inactive-since from the app that gets the focus
 * and sets it on the one that loses it. */
static void test_inactive_since_xattr(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f);
        char p[4096];

        inactive_app_scope(f, a, p, sizeof(p));
        start(f, false);
        /* no rule: left in root, where the seam lists nobody */
        assert_false(in_group(f, "interactive", a));
        assert_false(in_group(f, "background", a));
        assert_int_equal(removexattr(p, "user.xdg.inactive-since"), 0);
        assert_true(run_until_in(f, "interactive", a));
        assert_non_null(fg_unit(f, "seat0"));
        assert_non_null(strstr(fg_unit(f, "seat0"), "/app-gedit-1.scope"));
        assert_int_equal(setxattr(p, "user.xdg.inactive-since", "2", 1, 0), 0);
        assert_true(run_until_in(f, "root", a));
        assert_null(fg_unit(f, "seat0"));
}

/* [Launch]: an app unit that gains the focus within a second of its
 * first process's start has its group held at Boost=; an older one, or
 * the focus moving to another app, has not. */
static void test_launch_boost_for_a_new_app_unit(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f);
        char p[4096];

        write_file(f->root, "etc/boostd.conf", CONFIG "[Launch]\nBoost=70\nDurationMs=3000\n");
        inactive_app_scope(f, a, p, sizeof(p));
        proc_cgroup(f, a, "/user.slice/user-1000.slice/user@1000.service/app.slice/app-gedit-1.scope");
        start(f, false);
        assert_int_equal(stune_boost(f->root, "interactive"), 10);
        assert_int_equal(removexattr(p, "user.xdg.inactive-since"), 0);
        assert_true(run_until_in(f, "interactive", a));
        assert_int_equal(stune_boost(f->root, "interactive"), 70);
        assert_int_equal(f->m->groups.holds.n, 1);
        /* the focus leaves it: the launch boost ends with it */
        assert_int_equal(setxattr(p, "user.xdg.inactive-since", "2", 1, 0), 0);
        assert_true(run_until_in(f, "root", a));
        assert_int_equal(stune_boost(f->root, "interactive"), 10);
        assert_int_equal(f->m->groups.holds.n, 0);
        /* back after more than a second: no longer a launch */
        usleep(1100 * 1000);
        assert_int_equal(removexattr(p, "user.xdg.inactive-since"), 0);
        assert_true(run_until_in(f, "interactive", a));
        assert_int_equal(stune_boost(f->root, "interactive"), 10);
        assert_int_equal(f->m->groups.holds.n, 0);
}

/* Only the user with the active session on a seat gives the focus with
 * the xattr: not one logged in by ssh, and no one without logind. */
static void test_focus_needs_the_seat(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f);
        char p[4096];

        inactive_app_scope(f, a, p, sizeof(p));
        seat_of(f, "seat0", 1001);      /* someone else's seat */
        start(f, false);
        assert_int_equal(removexattr(p, "user.xdg.inactive-since"), 0);
        run_for(f, 100);
        assert_int_equal(f->m->placer.n_foregrounds, 0);
        assert_false(in_group(f, "interactive", a));
        rm_rf(f, "run/systemd/seats");  /* no logind */
        assert_int_equal(setxattr(p, "user.xdg.inactive-since", "2", 1, 0), 0);
        run_for(f, 50);
        assert_int_equal(removexattr(p, "user.xdg.inactive-since"), 0);
        run_for(f, 100);
        assert_int_equal(f->m->placer.n_foregrounds, 0);
        /* the seat's user is 1000 again: the next focus counts */
        seat_of(f, "seat1", 1000);
        assert_int_equal(setxattr(p, "user.xdg.inactive-since", "3", 1, 0), 0);
        run_for(f, 50);
        assert_int_equal(removexattr(p, "user.xdg.inactive-since"), 0);
        assert_true(run_until_in(f, "interactive", a));
        assert_non_null(fg_unit(f, "seat1"));
}

/* An app scope of uid, marked unfocused, with pid in it; its path goes
 * to p. */
static void user_app_scope(Fixture *f, unsigned uid, const char *scope, pid_t pid, char *p, size_t size) {
        char rel[512], procs[600];

        snprintf(rel, sizeof(rel),
                 "sys/fs/cgroup/user.slice/user-%u.slice/user@%u.service/app.slice/%s", uid, uid, scope);
        mkdirs(f->root, rel);
        snprintf(procs, sizeof(procs), "%s/cgroup.procs", rel);
        write_file(f->root, procs, "%d\n", pid);
        snprintf(p, size, "%s/%s", f->root, rel);
        if (setxattr(p, "user.xdg.inactive-since", "1", 1, 0) < 0) {
                if (errno == ENOTSUP || errno == EOPNOTSUPP)
                        skip();
                fail_msg("setxattr: %s", strerror(errno));
        }
}

/* The focus rate limit is per user: a user without a seat who flips the
 * xattr of their own scopes many times a second does not use up the seat
 * user's focus changes. */
static void test_focus_rate_is_per_user(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f), b = sleeper(f);
        char pa[4096], pb[4096];

        seat_of(f, "seat0", 1000);
        user_app_scope(f, 1000, "app-a.scope", a, pa, sizeof(pa));
        user_app_scope(f, 1001, "app-b.scope", b, pb, sizeof(pb));
        start(f, false);
        for (int i = 0; i < 15; i++) {
                assert_int_equal(removexattr(pb, "user.xdg.inactive-since"), 0);
                run_for(f, 2);
                assert_int_equal(setxattr(pb, "user.xdg.inactive-since", "1", 1, 0), 0);
                run_for(f, 2);
        }
        assert_int_equal(removexattr(pa, "user.xdg.inactive-since"), 0);
        assert_true(run_until_in(f, "interactive", a));
        assert_false(in_group(f, "interactive", b));
}

/* A user switch on a seat (logind rewrites the seat's file) ends the
 * foreground the previous user gave it; other seats' stay. */
static void test_seat_changes_hands(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f), b = sleeper(f);
        char pa[4096], pb[4096];

        seat_of(f, "seat0", 1000);
        seat_of(f, "seat1", 1001);
        user_app_scope(f, 1000, "app-a.scope", a, pa, sizeof(pa));
        user_app_scope(f, 1001, "app-b.scope", b, pb, sizeof(pb));
        start(f, false);
        assert_int_equal(removexattr(pa, "user.xdg.inactive-since"), 0);
        assert_int_equal(removexattr(pb, "user.xdg.inactive-since"), 0);
        assert_true(run_until_in(f, "interactive", a));
        assert_true(run_until_in(f, "interactive", b));
        /* as logind does it: a new file renamed over the old one */
        write_file(f->root, "run/systemd/seats/.seat0.tmp", "IS_SEAT0=1\nACTIVE_UID=1002\n");
        {
                char from[4096], to[4096];

                snprintf(from, sizeof(from), "%s/run/systemd/seats/.seat0.tmp", f->root);
                snprintf(to, sizeof(to), "%s/run/systemd/seats/seat0", f->root);
                assert_int_equal(rename(from, to), 0);
        }
        assert_true(run_until_in(f, "root", a));
        assert_null(placer_foreground(&f->m->placer, "seat0"));
        assert_true(in_group(f, "interactive", b));
        /* the seat removed */
        rm_rf(f, "run/systemd/seats/seat1");
        assert_true(run_until_in(f, "root", b));
        assert_int_equal(f->m->placer.n_foregrounds, 0);
}

/* What a restart finds in the state: a line of boostd before seats goes
 * to the seat its process's owner has now, where the next foreground
 * replaces it; a user's process that came alone (its unit is a system
 * unit) comes back alone. */
static void test_foreground_restored(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f), b = sleeper(f), c = sleeper(f), d = sleeper(f);
        uint64_t sa, sc;

        assert_int_equal(proc_get_start_time("/proc", a, &sa), 0);
        assert_int_equal(proc_get_start_time("/proc", c, &sc), 0);
        /* c and d in foo.service (background); c was foreground alone */
        mkdirs(f->root, FOO);
        write_file(f->root, FOO "/cgroup.procs", "%d\n%d\n", c, d);
        proc_cgroup(f, c, "/system.slice/foo.service");
        proc_cgroup(f, d, "/system.slice/foo.service");
        seat_of(f, "seat0", (unsigned) getuid());
        mkdirs(f->root, "run/boostd");
        write_file(f->root, "run/boostd/state", "mode auto\nforeground %d %llu\nforeground %d %llu process seat5\n",
                   a, (unsigned long long) sa, c, (unsigned long long) sc);
        start(f, false);
        /* both this user's: one seat, the first line wins */
        assert_true(in_group(f, "interactive", a));
        assert_int_equal(placer_foreground(&f->m->placer, "seat0")->id.pid, a);
        assert_null(placer_foreground(&f->m->placer, ""));
        assert_true(in_group(f, "background", c));
        assert_true(in_group(f, "background", d));
        /* the seat's next foreground replaces the restored one */
        assert_int_equal(manager_set_foreground(f->m, b), 0);
        assert_true(in_group(f, "interactive", b));
        assert_true(in_group(f, "root", a));
        assert_int_equal(f->m->placer.n_foregrounds, 1);
}

/* Every seat's foreground counts: a stale PID kept for one seat does not
 * hide the process that has that PID now in another. */
static void test_stale_pid_on_another_seat(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f);
        Foreground *stale;

        start(f, false);
        stale = &f->m->placer.foregrounds[f->m->placer.n_foregrounds++];
        *stale = (Foreground) { .seat = "seat9", .id = { .pid = a, .start_time = 1 } };
        assert_int_equal(manager_set_foreground(f->m, a), 0);
        assert_true(in_group(f, "interactive", a));
}

/* Each seat has its own foreground: two users, each active on a seat of
 * their own, have an app in the foreground at once; a new focus on one
 * seat replaces that seat's only. SetForeground() acts on the seat of
 * the process's owner, or on the one of processes of no seat's user. */
static void test_one_foreground_per_seat(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f), b = sleeper(f), c = sleeper(f), d = sleeper(f);
        char pa[4096], pb[4096], pc[4096];

        seat_of(f, "seat0", 1000);
        seat_of(f, "seat1", 1001);
        user_app_scope(f, 1000, "app-a.scope", a, pa, sizeof(pa));
        user_app_scope(f, 1001, "app-b.scope", b, pb, sizeof(pb));
        user_app_scope(f, 1000, "app-c.scope", c, pc, sizeof(pc));
        start(f, false);
        assert_int_equal(removexattr(pa, "user.xdg.inactive-since"), 0);
        assert_true(run_until_in(f, "interactive", a));
        assert_int_equal(removexattr(pb, "user.xdg.inactive-since"), 0);
        assert_true(run_until_in(f, "interactive", b));
        /* seat1's focus did not end seat0's */
        assert_true(in_group(f, "interactive", a));
        assert_non_null(strstr(fg_unit(f, "seat0"), "/app-a.scope"));
        assert_non_null(strstr(fg_unit(f, "seat1"), "/app-b.scope"));
        /* seat0's user focuses another app: only seat0's foreground moves */
        assert_int_equal(setxattr(pa, "user.xdg.inactive-since", "2", 1, 0), 0);
        assert_int_equal(removexattr(pc, "user.xdg.inactive-since"), 0);
        assert_true(run_until_in(f, "interactive", c));
        assert_true(run_until_in(f, "root", a));
        assert_true(in_group(f, "interactive", b));
        assert_non_null(strstr(fg_unit(f, "seat0"), "/app-c.scope"));

        /* d's owner (the user running this test) has no seat: the
         * seatless foreground, beside the seats' */
        proc_cgroup(f, d, "/");
        assert_int_equal(manager_set_foreground(f->m, d), 0);
        assert_true(in_group(f, "interactive", d));
        assert_int_equal(placer_foreground(&f->m->placer, "")->id.pid, d);
        assert_true(in_group(f, "interactive", b));
        assert_true(in_group(f, "interactive", c));
        /* now it has seat2: SetForeground() acts there, and the seatless
         * one stays until it is replaced */
        seat_of(f, "seat2", (unsigned) getuid());
        assert_int_equal(manager_set_foreground(f->m, a), 0);
        assert_true(in_group(f, "interactive", a));
        assert_int_equal(placer_foreground(&f->m->placer, "seat2")->id.pid, a);
        assert_true(in_group(f, "interactive", c));
        assert_true(in_group(f, "interactive", d));
        assert_int_equal(f->m->placer.n_foregrounds, 4);
        /* a scope that loses the focus ends its seat's foreground only */
        assert_int_equal(setxattr(pb, "user.xdg.inactive-since", "3", 1, 0), 0);
        assert_true(run_until_in(f, "root", b));
        assert_null(placer_foreground(&f->m->placer, "seat1"));
        assert_true(in_group(f, "interactive", c));
}

/* Fills the watch's event queue until the kernel drops events (it
 * queues IN_Q_OVERFLOW): writes to two files in a watched directory in
 * turn, so that no two events in a row are the same and merged. */
static void overflow_queue(Fixture *f) {
        char p[4096];
        int max, a, b;

        max = read_int("/proc/sys/fs/inotify", "max_queued_events");
        if (max <= 0 || max > 1000000)
                skip();
        snprintf(p, sizeof(p), "%s/sys/fs/cgroup/system.slice/noise-a", f->root);
        a = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        snprintf(p, sizeof(p), "%s/sys/fs/cgroup/system.slice/noise-b", f->root);
        b = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        assert_true(a >= 0 && b >= 0);
        for (int i = 0; i < max / 2 + 100; i++) {
                assert_int_equal(write(a, "x", 1), 1);
                assert_int_equal(write(b, "x", 1), 1);
        }
        close(a);
        close(b);
}

static bool run_until_n_dirs(Fixture *f, size_t n) {
        for (int i = 0; i < 400; i++) {
                if (units_n_dirs(f->m->units) == n)
                        return true;
                (void) sd_event_run(f->m->event, 5000);
        }
        return units_n_dirs(f->m->units) == n;
}

/* Events lost in an overflow include removals: the watch starts again
 * from what is there, and places what appeared meanwhile. */
static void test_overflow_forgets_removed(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f);

        mkdirs(f->root, FOO);
        mkdirs(f->root, BAR);
        start(f, false);
        assert_int_equal(units_n_dirs(f->m->units), 4);
        overflow_queue(f);
        /* lost: its removal and the new unit */
        rm_rf(f, BAR);
        mkdirs(f->root, "sys/fs/cgroup/system.slice/baz.service");
        write_file(f->root, FOO "/cgroup.procs", "%d\n", a);
        /* its write was lost too: placed when the tree is read again */
        assert_true(run_until_in(f, "background", a));
        run_for(f, 10);
        assert_int_equal(units_n_dirs(f->m->units), 4);
        /* and the next removal is heard as before */
        rm_rf(f, "sys/fs/cgroup/system.slice/baz.service");
        assert_true(run_until_n_dirs(f, 3));
}

/* A user's manager is theirs to shape: below user@UID.service only
 * slices and units are watched, nothing below a unit, and at most 512
 * directories per user; the system's tree is not limited by that. */
static void test_user_subtree_bounded(void **state) {
        Fixture *f = *state;
        char p[512];
        size_t n;

        mkdirs(f->root, APP "/app-x.scope");
        start(f, false);
        /* top, system.slice, user.slice, user-1000.slice, user@1000.service,
         * app.slice, app-x.scope */
        assert_int_equal(units_n_dirs(f->m->units), 7);
        /* below a unit, and names that are neither slice nor unit */
        mkdirs(f->root, APP "/app-x.scope/sub/deeper");
        mkdirs(f->root, APP "/../junk/more");
        run_for(f, 50);
        assert_int_equal(units_n_dirs(f->m->units), 7);
        /* a new scope is watched */
        mkdirs(f->root, APP "/app-y.scope");
        assert_true(run_until_n_dirs(f, 8));
        /* one user's 600 scopes: 512 watches for that user in all */
        for (int i = 0; i < 600; i++) {
                snprintf(p, sizeof(p), APP "/app-many-%d.scope", i);
                mkdirs(f->root, p);
                if (i % 50 == 0)
                        run_for(f, 5);
        }
        run_for(f, 200);
        n = units_n_dirs(f->m->units);
        assert_int_equal(n, 4 + 512);   /* top, system.slice, user.slice, user-1000.slice */
        /* the system's units are still followed */
        mkdirs(f->root, FOO);
        assert_true(run_until_n_dirs(f, n + 1));
}

/* A new directory counts its depth from the top, so a chain made one
 * directory at a time is cut at the same depth as one read at start. */
static void test_depth_of_new_directories(void **state) {
        Fixture *f = *state;
        char p[4096] = "sys/fs/cgroup/system.slice";

        start(f, false);
        assert_int_equal(units_n_dirs(f->m->units), 2);
        for (int i = 0; i < 80; i++) {
                strcat(p, "/d");
                mkdirs(f->root, p);
                run_for(f, 3);
        }
        run_for(f, 100);
        /* depth 0 (the top) to 64 */
        assert_int_equal(units_n_dirs(f->m->units), 65);
}

/* GNOME's xattr changed while the events were lost: the focus follows. */
static void test_overflow_keeps_the_focus(void **state) {
        Fixture *f = *state;
        pid_t a = sleeper(f);
        char p[4096];

        inactive_app_scope(f, a, p, sizeof(p));
        start(f, false);
        assert_null(fg_unit(f, "seat0"));
        overflow_queue(f);
        assert_int_equal(removexattr(p, "user.xdg.inactive-since"), 0);
        assert_true(run_until_in(f, "interactive", a));
        assert_non_null(fg_unit(f, "seat0"));
        assert_non_null(strstr(fg_unit(f, "seat0"), "/app-gedit-1.scope"));
}

/* In a user namespace of its own, where the limit of inotify watches is
 * this test's to set (sysctl user.max_inotify_watches), without touching
 * the machine's. */
static int limit_watches(unsigned max) {
        char buf[64];
        FILE *f = fopen("/proc/sys/user/max_inotify_watches", "we");

        if (!f)
                return -errno;
        fprintf(f, "%u\n", max);
        if (fclose(f) != 0)
                return -errno;
        return read_file("/", "proc/sys/user/max_inotify_watches", buf, sizeof(buf)) &&
               (unsigned) atoi(buf) == max ? 0 : -EIO;
}

static int own_user_namespace(void) {
        static const char *const files[] = { "/proc/self/setgroups", "/proc/self/uid_map", "/proc/self/gid_map" };
        static const char *const values[] = { "deny", "0 0 1", "0 0 1" };

        if (unshare(CLONE_NEWUSER) < 0)
                return -errno;
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                FILE *f = fopen(files[i], "we");

                if (!f)
                        return -errno;
                fputs(values[i], f);
                if (fclose(f) != 0)
                        return -errno;
        }
        return 0;
}

static unsigned count_lines_with(const char *path, const char *what) {
        char line[4096];
        unsigned n = 0;
        FILE *f = fopen(path, "re");

        while (f && fgets(line, sizeof(line), f))
                if (strstr(line, what))
                        n++;
        if (f)
                fclose(f);
        return n;
}

#define CHILD_CHECK(x) do { if (!(x)) { fprintf(stderr, "check failed: %s:%d: %s\n", __FILE__, __LINE__, #x); ret = 1; goto out; } } while (0)

/* The child's side: 0 if all went as it should, 77 if the test cannot
 * run here. */
static int watch_limit_child(Fixture *f) {
        char proc[4096], log[4096];
        ManagerOptions o = { .root = f->root, .proc_root = proc, .log_level = LOG_INFO };
        char *error = NULL;
        Manager *m = NULL;
        int fd, ret = 0;

        snprintf(proc, sizeof(proc), "%s/proc", f->root);
        snprintf(log, sizeof(log), "%s/log", f->root);
        if (own_user_namespace() < 0 || limit_watches(4) < 0)
                return 77;
        fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
                return 1;
        close(fd);

        /* top, system.slice, foo.service and one more: the rest is out */
        CHILD_CHECK(manager_new(&o, &m, &error) == 0);
        CHILD_CHECK(manager_start(m) == 0);
        CHILD_CHECK(units_n_dirs(m->units) == 4);
        CHILD_CHECK(count_lines_with(log, "limit of inotify watches") == 1);
        /* more that cannot be watched, and a read of the whole tree: not
         * said again */
        mkdirs(f->root, "sys/fs/cgroup/system.slice/more.service");
        for (int i = 0; i < 50; i++)
                (void) sd_event_run(m->event, 1000);
        units_rescan(m->units);
        CHILD_CHECK(count_lines_with(log, "limit of inotify watches") == 1);
        /* room again: the next read watches them all */
        CHILD_CHECK(limit_watches(100) == 0);
        units_rescan(m->units);
        CHILD_CHECK(units_n_dirs(m->units) == 9);
        CHILD_CHECK(count_lines_with(log, "watched again") == 1);
        /* and out again later: said again, once */
        CHILD_CHECK(limit_watches(10) == 0);
        mkdirs(f->root, "sys/fs/cgroup/system.slice/late-1.service");
        mkdirs(f->root, "sys/fs/cgroup/system.slice/late-2.service");
        for (int i = 0; i < 50; i++)
                (void) sd_event_run(m->event, 1000);
        CHILD_CHECK(count_lines_with(log, "limit of inotify watches") == 2);
out:
        manager_free(m);
        return ret;
}

/* Out of inotify watches: said once, not for every directory, and the
 * directories missed are watched at the next read of the whole tree. */
static void test_watch_limit(void **state) {
        Fixture *f = *state;
        int status;
        pid_t pid;

        mkdirs(f->root, FOO);
        for (int i = 0; i < 5; i++) {
                char p[256];

                snprintf(p, sizeof(p), "sys/fs/cgroup/system.slice/unit-%d.service", i);
                mkdirs(f->root, p);
        }
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0)
                _exit(watch_limit_child(f));
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        if (WEXITSTATUS(status) == 77)
                skip();
        if (WEXITSTATUS(status) != 0) {
                char buf[8192];

                fail_msg("%s", read_file(f->root, "log", buf, sizeof(buf)) ?: "no log");
        }
}

/* A unit that appears with many processes (as a walk of the tree at
 * start finds thousands): the journal is written once, after the burst,
 * not once per process; and then it has them all, for a restart after a
 * crash. */
static void test_burst_saves_once(void **state) {
        Fixture *f = *state;
        char p[4096], q[4096], buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
        int fd, saves = 0, placed = 0;
        ssize_t n;
        FILE *procs;

        start(f, false);
        snprintf(p, sizeof(p), "%s/run/boostd", f->root);
        fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        assert_true(fd >= 0);
        assert_true(inotify_add_watch(fd, p, IN_MOVED_TO) >= 0);

        /* made aside and moved in whole, as one event */
        mkdirs(f->root, "staging/foo.service");
        snprintf(p, sizeof(p), "%s/staging/foo.service/cgroup.procs", f->root);
        procs = fopen(p, "w");
        assert_non_null(procs);
        for (int i = 0; i < 12; i++)
                fprintf(procs, "%d\n", (int) sleeper(f));
        assert_int_equal(fclose(procs), 0);
        snprintf(p, sizeof(p), "%s/staging/foo.service", f->root);
        snprintf(q, sizeof(q), "%s/" FOO, f->root);
        assert_int_equal(rename(p, q), 0);
        for (size_t i = 0; i < f->n_pids; i++)
                assert_true(run_until_in(f, "background", f->pids[i]));
        run_for(f, 20);

        while ((n = read(fd, buf, sizeof(buf))) > 0)
                for (char *e = buf; e < buf + n; e += sizeof(struct inotify_event) + ((struct inotify_event *) e)->len)
                        if (streq(((struct inotify_event *) e)->name, "placed"))
                                saves++;
        close(fd);
        assert_int_equal(saves, 1);
        assert_non_null(read_file(f->root, "run/boostd/placed", buf, sizeof(buf)));
        for (char *l = strstr(buf, "placed "); l; l = strstr(l + 1, "placed "))
                placed++;
        assert_int_equal(placed, 12);
}

/* A flood of units: placing the process of each makes the next one, as
 * a machine that starts scopes without pause would. Between two reads of
 * the events the loop runs the other sources (D-Bus, the watchdog): the
 * one added here runs long before the flood ends. */
#define FLOOD_UNITS 300

static Fixture *flood_fixture;
static unsigned flood_units, flood_units_when_other_ran;
static sd_event_source *flood_other_source;
static CgroupOps flood_ops;

static int flood_other(sd_event_source *s, void *userdata) {
        (void) s, (void) userdata;
        if (flood_units_when_other_ran == 0)
                flood_units_when_other_ran = flood_units;
        return 0;
}

static void flood_unit(Fixture *f, unsigned i) {
        char p[256];

        snprintf(p, sizeof(p), "sys/fs/cgroup/system.slice/flood-%u.service", i);
        mkdirs(f->root, p);
        strcat(p, "/cgroup.procs");
        write_file(f->root, p, "%d\n", (int) f->pids[0]);
}

static int flood_group_of(const Backend *b, pid_t pid, char *buf, size_t size) {
        Fixture *f = flood_fixture;

        if (++flood_units < FLOOD_UNITS)
                flood_unit(f, flood_units);
        /* the other source becomes due while the flood runs */
        if (flood_units == 10 && !flood_other_source) {
                assert_int_equal(sd_event_add_defer(f->m->event, &flood_other_source, flood_other, NULL), 0);
                assert_int_equal(sd_event_source_set_enabled(flood_other_source, SD_EVENT_ONESHOT), 0);
        }
        return cgroup_ops_files.group_of(b, pid, buf, size);
}

static void test_flood_yields(void **state) {
        Fixture *f = *state;

        (void) sleeper(f);
        start(f, false);
        flood_fixture = f;
        flood_units = flood_units_when_other_ran = 0;
        flood_ops = *backend_schedtune_cgroup_ops(f->m->backend);
        flood_ops.group_of = flood_group_of;
        assert_int_equal(backend_schedtune_set_cgroup_ops(f->m->backend, &flood_ops), 0);

        flood_unit(f, 0);
        for (int i = 0; i < 10000 && flood_units < FLOOD_UNITS; i++)
                (void) sd_event_run(f->m->event, 5000);
        assert_true(flood_units >= FLOOD_UNITS);
        assert_true(flood_units_when_other_ran > 0);
        assert_true(flood_units_when_other_ran < 100);
        assert_int_equal(backend_schedtune_set_cgroup_ops(f->m->backend, &cgroup_ops_files), 0);
        flood_other_source = sd_event_source_unref(flood_other_source);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_boosted_cgroup_gone, setup, teardown),
                cmocka_unit_test_setup_teardown(test_units_existing_at_start, setup, teardown),
                cmocka_unit_test_setup_teardown(test_units_appearing, setup, teardown),
                cmocka_unit_test_setup_teardown(test_empty_units, setup, teardown),
                cmocka_unit_test_setup_teardown(test_forks_during_the_move, setup, teardown),
                cmocka_unit_test_setup_teardown(test_manual_mode_does_nothing, setup, teardown),
                cmocka_unit_test_setup_teardown(test_tree_vanishes_and_returns, setup, teardown),
                cmocka_unit_test_setup_teardown(test_reload_places_again, setup, teardown),
                cmocka_unit_test_setup_teardown(test_foreground_unit, setup, teardown),
                cmocka_unit_test_setup_teardown(test_children_inherit, setup, teardown),
                cmocka_unit_test_setup_teardown(test_default_root_leaves_it, setup, teardown),
                cmocka_unit_test_setup_teardown(test_cgroup_from_proc, setup, teardown),
                cmocka_unit_test_setup_teardown(test_inactive_since_xattr, setup, teardown),
                cmocka_unit_test_setup_teardown(test_launch_boost_for_a_new_app_unit, setup, teardown),
                cmocka_unit_test_setup_teardown(test_focus_needs_the_seat, setup, teardown),
                cmocka_unit_test_setup_teardown(test_one_foreground_per_seat, setup, teardown),
                cmocka_unit_test_setup_teardown(test_focus_rate_is_per_user, setup, teardown),
                cmocka_unit_test_setup_teardown(test_seat_changes_hands, setup, teardown),
                cmocka_unit_test_setup_teardown(test_foreground_restored, setup, teardown),
                cmocka_unit_test_setup_teardown(test_stale_pid_on_another_seat, setup, teardown),
                cmocka_unit_test_setup_teardown(test_inactive_since_back_in_auto, setup, teardown),
                cmocka_unit_test_setup_teardown(test_flood_yields, setup, teardown),
                cmocka_unit_test_setup_teardown(test_burst_saves_once, setup, teardown),
                cmocka_unit_test_setup_teardown(test_watch_limit, setup, teardown),
                cmocka_unit_test_setup_teardown(test_overflow_forgets_removed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_user_subtree_bounded, setup, teardown),
                cmocka_unit_test_setup_teardown(test_depth_of_new_directories, setup, teardown),
                cmocka_unit_test_setup_teardown(test_overflow_keeps_the_focus, setup, teardown),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
