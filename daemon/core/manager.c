/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager: lifecycle, mode, and what the event sources report. */
#include <string.h>

#include "log.h"
#include "manager.h"
#include "unit-boost.h"
#include "util.h"

static const char *const mode_table[_MODE_MAX] = {
        [MODE_AUTO] = "auto",
        [MODE_MANUAL] = "manual",
};

const char *mode_to_string(Mode mode) {
        return mode >= 0 && mode < _MODE_MAX ? mode_table[mode] : NULL;
}

Mode mode_from_string(const char *s) {
        for (Mode i = 0; i < _MODE_MAX; i++)
                if (streq_ptr(s, mode_table[i]))
                        return i;
        return _MODE_INVALID;
}

/* Boosts in place need the cpu controller in the unit's cgroup, and
 * systemd owns which controllers a cgroup has: a unit gets the cpu
 * controller when it sets a CPU property. boostd sets CPUWeight=100, the
 * kernel's default weight, at runtime (gone at reboot, as with
 * "systemctl set-property --runtime"), so that nothing but the files
 * changes. Then that unit is tried again. */
typedef struct CpuRequest {
        Manager *m;
        char path[];            /* the unit's cgroup */
} CpuRequest;

static int on_cpu_enabled(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        CpuRequest *q = userdata;
        Manager *m = q->m;
        const sd_bus_error *e = sd_bus_message_get_error(reply);

        if (e)
                log_warning(&m->log, "systemd did not enable the cpu controller for %s (%s: %s).", q->path,
                            e->name, e->message);
        if (m->backend) {
                unit_boost_retry(m->backend, q->path);
                state_commit(m->state);
        }
        return 0;
}

static void manager_want_cpu(Backend *b, const char *cgroup, void *userdata) {
        Manager *m = userdata;
        const char *unit = strrchr(cgroup, '/');
        sd_bus_slot *slot = NULL;
        CpuRequest *q;
        int r;

        if (!m->bus || !unit)
                return;         /* asked again when the bus is there */
        q = malloc(sizeof(CpuRequest) + strlen(cgroup) + 1);
        if (!q)
                return (void) log_oom(&m->log);
        q->m = m;
        strcpy(q->path, cgroup);
        r = sd_bus_call_method_async(m->bus, &slot, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                                     "org.freedesktop.systemd1.Manager", "SetUnitProperties", on_cpu_enabled,
                                     q, "sba(sv)", unit + 1, 1, 1, "CPUWeight", "t", (uint64_t) 100);
        if (r < 0) {
                free(q);
                log_warning_errno(&m->log, r, "Failed to ask systemd for the cpu controller of %s: %m", unit + 1);
                return;
        }
        /* the bus owns the call; q goes with it, answered or not */
        (void) sd_bus_slot_set_destroy_callback(slot, free);
        (void) sd_bus_slot_set_floating(slot, true);
        sd_bus_slot_unref(slot);
        log_info(&m->log, "Asked systemd for the cpu controller of %s (CPUWeight=100 at runtime).", unit + 1);
}

/* What the sources report (events.h). */

static int on_place(void *userdata, pid_t pid, const char *cgroup) {
        Manager *m = userdata;

        return placer_place_auto(&m->placer, pid, cgroup);
}

/* A unit's boost in place ends with its cgroup, and the slices above it
 * need no more for it: now, not at the next change of a boost. */
static void on_cgroup_gone(void *userdata, const char *cgroup) {
        Manager *m = userdata;

        if (!m->backend || !m->backend->vt || !m->backend->vt->attach_unit ||
            !state_cgroup_find(m->state, cgroup))
                return;
        (void) m->backend->vt->attach_unit(m->backend, "root", cgroup);
        state_save_later(m->state);
}

static void on_exited(void *userdata, pid_t pid) {
        Manager *m = userdata;

        placer_forget(&m->placer, pid);
}

static void on_lost(void *userdata) {
        Manager *m = userdata;

        units_rescan(m->units);
}

static void on_focus(void *userdata, const char *unit, const char *seat) {
        Manager *m = userdata;

        if (seat)
                (void) placer_set_foreground_unit(&m->placer, seat, unit);
        else
                placer_unfocus_unit(&m->placer, unit);
}

static void on_seats_changed(void *userdata) {
        Manager *m = userdata;

        placer_seats_changed(&m->placer);
}

static int on_input_boost(void *userdata, const char *group, unsigned boost) {
        Manager *m = userdata;

        return groups_set_input_boost(&m->groups, group, boost);
}

static void on_power(void *userdata, PowerState state) {
        Manager *m = userdata;

        (void) manager_set_power_state(m, state);
}

static int on_game(void *userdata, pid_t pid, bool registered) {
        Manager *m = userdata;

        return registered ? placer_game_register(&m->placer, pid, "") :
                            placer_game_unregister(&m->placer, pid, "");
}

int manager_agent_add(Manager *m, const char *name, uid_t uid, pid_t pid, Agent **ret) {
        int r = agents_add(&m->agents, name, uid, pid, ret);

        if (r < 0)
                return r;
        log_info(&m->log, "Agent %s: UID %u, PID %d%s%s.", name, (unsigned) uid, (int) pid,
                 (*ret)->session[0] ? ", session " : "", (*ret)->session);
        return 0;
}

int manager_agent_game(Manager *m, const char *source, const ProcessId *id, bool registered) {
        int r;

        if (registered && placer_games_of(&m->placer, source) >= GAMES_PER_AGENT_MAX)
                return -EUSERS;
        r = registered ? placer_game_register_id(&m->placer, id, source) :
                         placer_game_unregister(&m->placer, id->pid, source);
        state_commit(m->state);
        return r;
}

void manager_agent_gone(Manager *m, Agent *a) {
        log_info(&m->log, "Agent %s (UID %u) left: its %zu games end.", a->name,
                 (unsigned) a->uid, placer_games_of(&m->placer, a->name));
        placer_games_clear(&m->placer, a->name);
        state_commit(m->state);
        agents_remove(&m->agents, a);
}

static void on_games_gone(void *userdata) {
        Manager *m = userdata;

        placer_games_clear(&m->placer, "");
}

static SourceContext manager_source_context(Manager *m) {
        return (SourceContext) {
                .event = m->event,
                .bus = m->bus,
                .log = &m->log,
                .root = m->root,
                .sink = &m->sink,
        };
}

int manager_new(const ManagerOptions *o, Manager **ret, char **ret_config_error) {
        _cleanup_(manager_freep) Manager *m = NULL;
        _cleanup_(freep) char *run = NULL;
        int r;

        *ret_config_error = NULL;
        m = calloc(1, sizeof(Manager));
        if (!m)
                return -ENOMEM;
        m->log = log_context_make(o->log_level > 0 ? o->log_level : LOG_INFO);
        m->sink = (EventSink) {
                .userdata = m,
                .place = on_place,
                .exited = on_exited,
                .cgroup_gone = on_cgroup_gone,
                .lost = on_lost,
                .focus = on_focus,
                .seats_changed = on_seats_changed,
                .input_boost = on_input_boost,
                .power = on_power,
                .game = on_game,
                .games_gone = on_games_gone,
        };

        m->root = strdup(o->root ?: "/");
        m->proc_root = strdup(o->proc_root ?: "/proc");
        if (!m->root || !m->proc_root)
                return -ENOMEM;
        if (o->config_file) {
                m->config_file = strdup(o->config_file);
                m->config_file_optional = false;
        } else {
                m->config_file = path_join_root(m->root, "/etc/boostd.conf");
                m->config_file_optional = true;
                m->dropin_dir = path_join_root(m->root, "/etc/boostd.conf.d");
                if (!m->dropin_dir)
                        return -ENOMEM;
        }
        if (!m->config_file)
                return -ENOMEM;
        if (o->backend) {
                m->backend_override = strdup(o->backend);
                if (!m->backend_override)
                        return -ENOMEM;
        }
        if (o->exec_source) {
                m->exec_source_path = strdup(o->exec_source);
                if (!m->exec_source_path)
                        return -ENOMEM;
        }

        r = config_load(m->config_file, m->config_file_optional, m->dropin_dir, &m->config,
                        ret_config_error);
        if (r < 0)
                return r;
        if (m->config->log_level >= 0)
                m->log.max_level = m->config->log_level;

        r = sd_event_new(&m->event);
        if (r < 0)
                return r;

        run = path_join_root(m->root, "/run/boostd");
        if (!run)
                return -ENOMEM;
        m->state = state_new(run);
        if (!m->state)
                return -ENOMEM;
        state_set_event(m->state, m->event, &m->log);

        groups_init(&m->groups, m->config, m->state, m->event, &m->log, &m->observer);
        r = placer_init(&m->placer, m->root, m->proc_root, m->event, m->state, &m->groups, &m->log);
        if (r < 0)
                return r;
        r = hint_sessions_init(&m->hints, m->root, m->proc_root, m->event, &m->config->hints,
                               &m->log);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        gamemode_watch_free(m->gamemode);
        procmon_free(m->procmon);
        units_free(m->units);
        seats_watch_free(m->seats);
        input_source_free(m->input);
        power_source_free(m->power);
        while (m->agents.n > 0)
                agents_remove(&m->agents, &m->agents.agents[0]);
        placer_done(&m->placer);
        hint_sessions_done(&m->hints);
        reach_done(&m->reach);
        if (m->config)
                groups_done(&m->groups);
        backend_free(m->backend);
        state_free(m->state);
        sd_event_unref(m->event);
        config_free(m->config);
        free(m->root);
        free(m->proc_root);
        free(m->config_file);
        free(m->dropin_dir);
        free(m->backend_override);
        free(m->exec_source_path);
        free(m);
        return NULL;
}

int manager_start(Manager *m) {
        const char *names[GROUPS_MAX];
        SourceContext ctx = manager_source_context(m);
        bool is_auto;
        const char *want;
        int r;

        r = state_load(m->state);
        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to read %s, ignoring: %m", m->state->dir);
        else if (r > 0)
                log_notice(&m->log, "Found a journal from an earlier run: adopting its groups.");

        m->backend = backend_new(m->root, m->config->mount_point, m->proc_root, m->state,
                                 m->config->restore_found, &m->log);
        if (!m->backend)
                return log_oom(&m->log);
        if (m->config->uclamp_group) {
                _cleanup_(freep) char *p = path_join_root(m->root, m->config->uclamp_group);

                if (!p || backend_uclamp_set_group(m->backend, p) < 0)
                        return log_oom(&m->log);
        }
        m->backend->want_cpu = manager_want_cpu;
        m->backend->want_cpu_userdata = m;
        want = m->backend_override ?: m->config->backend;
        r = backend_select(m->backend, want);
        if (r < 0)
                return log_error_errno(&m->log, r, "No usable backend (Backend=%s): %m", want);

        /* what a boost can change on this machine, said once */
        reach_done(&m->reach);
        r = reach_probe(m->root, &m->reach);
        if (r < 0)
                return log_oom(&m->log);
        reach_log(&m->reach, &m->log);

        r = m->backend->vt->start(m->backend, groups_names(&m->groups, names), m->groups.n);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to start the %s backend: %m",
                                       backend_name(m->backend));
        if (m->state->n_cgroups > 0) {
                log_notice(&m->log, "Putting back the cpu.boost of %zu cgroups an earlier run changed.",
                           m->state->n_cgroups);
                unit_boost_restore(m->backend);
        }
        /* What was found goes on disk before the first change. */
        r = state_save(m->state);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to write the journal in %s: %m", m->state->dir);
        m->groups.backend = m->backend;
        m->placer.backend = m->backend;
        hint_sessions_set_backend(&m->hints, m->backend);
        hint_sessions_restore(&m->hints, m->state);

        m->mode = m->state->manual ? MODE_MANUAL : MODE_AUTO;
        is_auto = m->mode == MODE_AUTO;
        m->placer.auto_mode = is_auto;
        groups_restore_overrides(&m->groups);
        placer_restore(&m->placer);
        /* The power state first, so the first write is the right one. */
        r = power_source_new(&ctx, &m->config->power, m->groups.power_state, is_auto, &m->power);
        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to set up the power state source, ignoring: %m");
        m->started = true;
        r = groups_apply_all(&m->groups);
        if (r < 0)
                return log_error_errno(&m->log, r, "Failed to apply the boosts: %m");
        r = input_source_new(&ctx, &m->config->input, is_auto, &m->input);
        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to set up the input boost source, ignoring: %m");
        /* Exec events first, so that a process that execs while the
         * units are read is not missed. */
        r = procmon_new(&ctx, m->exec_source_path, &m->procmon);
        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to set up the exec event source, ignoring: %m");
        r = units_new(&ctx, is_auto, &m->units);
        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to watch the cgroup tree, ignoring: %m");
        r = seats_watch_new(&ctx, &m->seats);
        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to follow logind's seats, ignoring: %m");
        /* a seat may have changed hands while boostd was not running */
        placer_seats_changed(&m->placer);
        m->placer.units = m->units;
        state_commit(m->state);
        return 0;
}

static void manager_stop_sources(Manager *m) {
        m->seats = seats_watch_free(m->seats);
        m->procmon = procmon_free(m->procmon);
        m->placer.units = NULL;
        m->units = units_free(m->units);
        m->input = input_source_free(m->input);
        m->power = power_source_free(m->power);
}

/* Hint sessions live with their clients' connections, which a restart ends:
 * their threads get their values back at a stop and at a detach. */
static void manager_end_sessions(Manager *m) {
        while (m->hints.table.n > 0)
                (void) hint_sessions_close(&m->hints, m->hints.table.sessions[0]->id, NULL);
}

void manager_detach(Manager *m) {
        manager_end_sessions(m);
        manager_stop_sources(m);
        m->started = false;
        state_commit(m->state);
}

int manager_stop(Manager *m) {
        int r;

        manager_end_sessions(m);
        manager_stop_sources(m);
        if (!m->started || !m->backend || !m->backend->vt)
                return 0;
        m->started = false;
        r = backend_restore(m->backend);
        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to restore everything: %m");
        state_commit(m->state);
        log_info(&m->log, "Restored the groups and moved placed processes back to root.");
        return r;
}

void manager_bus_ready(Manager *m) {
        SourceContext ctx = manager_source_context(m);
        int r;

        r = gamemode_watch_new(&ctx, &m->gamemode);
        if (r < 0)
                log_warning_errno(&m->log, r, "Failed to follow GameMode, ignoring: %m");
        /* units that waited for the bus to ask for their cpu controller */
        for (size_t i = 0; m->backend && i < m->state->n_cgroups; i++)
                if (m->state->cgroups[i].group[0] && !m->state->cgroups[i].has_wrote)
                        manager_want_cpu(m->backend, m->state->cgroups[i].path, m);
}

void manager_bus_gone(Manager *m) {
        m->gamemode = gamemode_watch_free(m->gamemode);
}

int manager_set_boost(Manager *m, const char *group, unsigned boost) {
        return groups_set_override(&m->groups, group, boost);
}

int manager_reset_boost(Manager *m, const char *group) {
        return groups_clear_override(&m->groups, group);
}

int manager_get_boost(Manager *m, const char *group, unsigned *ret_base, unsigned *ret_effective) {
        int i = groups_find(&m->groups, group);

        if (i < 0)
                return i;
        *ret_base = groups_base(&m->groups, (size_t) i);
        *ret_effective = groups_effective(&m->groups, (size_t) i);
        return 0;
}

int manager_classify_process(Manager *m, const ProcessId *id, const char *group) {
        int g = groups_find(&m->groups, group);

        if (g < 0)
                return g;
        return placer_classify(&m->placer, id, (size_t) g);
}

int manager_classify(Manager *m, pid_t pid, const char *group) {
        return manager_classify_process(m, &(ProcessId) { .pid = pid }, group);
}

int manager_set_foreground_process(Manager *m, const ProcessId *id, uid_t confine_uid) {
        return placer_set_foreground(&m->placer, id, confine_uid);
}

int manager_set_foreground(Manager *m, pid_t pid) {
        return manager_set_foreground_process(m, &(ProcessId) { .pid = pid }, (uid_t) -1);
}

int manager_get_process(Manager *m, pid_t pid, PlacerReport *ret) {
        if (pid <= 0)
                return -ESRCH;
        return placer_explain(&m->placer, pid, ret);
}

int manager_hold(Manager *m, const char *group, unsigned boost, uint32_t timeout_ms,
                 const char *reason, const char *owner, uid_t uid, uint32_t *ret_cookie) {
        Hold *h;
        int r;

        r = groups_hold(&m->groups, group, boost, timeout_ms, reason, owner, uid, &h);
        if (r < 0)
                return r;
        *ret_cookie = h->cookie;
        return 0;
}

int manager_release(Manager *m, uint32_t cookie, const char *owner) {
        return groups_release(&m->groups, cookie, owner);
}

int manager_set_mode(Manager *m, Mode mode) {
        bool is_auto = mode == MODE_AUTO;

        if (mode < 0 || mode >= _MODE_MAX)
                return -EINVAL;
        if (mode == m->mode)
                return 0;
        m->mode = mode;
        m->state->manual = !is_auto;
        state_commit(m->state);
        if (m->observer.changed)
                m->observer.changed(m->observer.userdata, "Mode");
        log_info(&m->log, "Mode: %s.", mode_to_string(mode));
        m->placer.auto_mode = is_auto;
        units_set_following(m->units, is_auto);
        input_source_set_active(m->input, is_auto);
        power_source_set_active(m->power, is_auto);
        placer_place_all(&m->placer);
        return 0;
}

int manager_set_power_state(Manager *m, PowerState state) {
        int r = groups_set_power_state(&m->groups, state);

        return r < 0 ? r : 0;
}

int manager_reload(Manager *m, char **ret_config_error) {
        _cleanup_(freep) char *msg = NULL;
        Config *c = NULL, *old = m->config;
        int r;

        if (ret_config_error)
                *ret_config_error = NULL;
        r = config_load(m->config_file, m->config_file_optional, m->dropin_dir, &c, &msg);
        if (r < 0) {
                log_error(&m->log, "Rejected the new configuration, keeping the running one: %s",
                          msg ?: strerror(-r));
                if (ret_config_error)
                        *ret_config_error = msg ? TAKE_PTR(msg) : strdup(strerror(-r));
                return r;
        }
        if (!streq(c->backend, old->backend) || !streq(c->mount_point, old->mount_point) ||
            !streq_ptr(c->uclamp_group, old->uclamp_group))
                log_notice(&m->log, "Backend=, MountPoint= and UclampGroup= take effect at the next start.");

        r = groups_reconfigure(&m->groups, c);
        if (r < 0) {
                config_free(c);
                return log_error_errno(&m->log, r,
                                       "Failed to take the new configuration, keeping the running one: %m");
        }
        m->config = c;
        if (c->log_level >= 0)
                m->log.max_level = c->log_level;
        /* The sources keep pointers into the configuration: theirs change
         * before the old one goes. */
        input_source_reload(m->input, &c->input);
        power_source_reload(m->power, &c->power);
        hint_sessions_reconfigure(&m->hints, &c->hints);
        config_free(old);
        placer_place_all(&m->placer);
        log_info(&m->log, "Configuration reloaded.");
        return 0;
}
