/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The placer's side of exits: when what is kept about a process
 * (Classify(), GameMode's registration, the placed entry) can go, and
 * looking again at a process whose thread group leader exited while
 * other threads live. */
#include <stdlib.h>

#include "event-util.h"
#include "macro.h"
#include "placer-internal.h"
#include "placer.h"

/* How often a process whose leader exited is looked at again, and how
 * many are. */
#define LINGER_CHECK_USEC (2 * USEC_PER_SEC)
#define LINGERING_MAX 4096U

/* Whether what is kept about the process named by id can go; *linger is
 * set when the process lives on after its leader exited. An error reading
 * /proc counts as gone, as every exit event did before. */
static bool placer_process_gone(Placer *p, const ProcessId *id, bool *linger) {
        bool leader_exited;
        int r;

        r = process_id_is_gone(p->proc_root, id, &leader_exited);
        if (r == 0 && leader_exited)
                *linger = true;
        return r != 0;
}

/* Drops what is kept about PID if its process is gone; returns true if
 * something stays about a process whose leader exited. */
static bool placer_drop_if_gone(Placer *p, pid_t pid) {
        State *j = p->state;
        bool linger = false, changed = false;
        StatePid *e;

        for (size_t i = 0; i < p->n_games; i++)
                if (p->games[i].id.pid == pid) {
                        if (placer_process_gone(p, &p->games[i].id, &linger)) {
                                (void) placer_games_remove(p, pid, NULL);
                                log_debug(p->log, "Game PID %d exited.", (int) pid);
                        }
                        break;
                }
        e = state_pid_find(j->placed, j->n_placed, pid);
        if (e && placer_process_gone(p, &e->id, &linger)) {
                state_placed_remove(j, pid);
                changed = true;
        }
        e = state_pid_find(j->classified, j->n_classified, pid);
        if (e && placer_process_gone(p, &e->id, &linger)) {
                state_pid_remove(&j->classified, &j->n_classified, pid);
                changed = true;
        }
        if (changed) {
                j->dirty = true;
                state_save_later(j);
        }
        return linger;
}

static int on_linger_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Placer *p = userdata;
        size_t k = 0;

        (void) s, (void) usec;
        for (size_t i = 0; i < p->n_lingering; i++)
                if (placer_drop_if_gone(p, p->lingering[i]))
                        p->lingering[k++] = p->lingering[i];
        p->n_lingering = k;
        if (k > 0)
                (void) event_timer_arm(p->event, &p->linger_timer, now_usec() + LINGER_CHECK_USEC,
                                       on_linger_timer, p, "exit-recheck");
        return 0;
}

/* A process whose leader exited while other threads live: its end makes
 * no event of its own (a thread's exit is not the process's), so it is
 * looked at again until it is gone. */
static void placer_linger(Placer *p, pid_t pid) {
        pid_t *l;

        for (size_t i = 0; i < p->n_lingering; i++)
                if (p->lingering[i] == pid)
                        return;
        if (p->n_lingering >= LINGERING_MAX || !p->event)
                return;         /* kept until a restart, as without the check */
        l = realloc(p->lingering, (p->n_lingering + 1) * sizeof(pid_t));
        if (!l)
                return;
        p->lingering = l;
        p->lingering[p->n_lingering++] = pid;
        if (event_timer_armed(p->linger_timer))
                return;
        if (event_timer_arm(p->event, &p->linger_timer, now_usec() + LINGER_CHECK_USEC, on_linger_timer,
                            p, "exit-recheck") < 0 && !p->linger_timer)
                p->n_lingering--;
}

/* The exit event of a thread group's leader ends the process only if no
 * other thread lives. After pthread_exit() of the main thread the others
 * go on; when a thread other than the leader calls execve(), the leader
 * exits and that thread takes over its PID and start time; in an
 * exit_group() the leader's event may come before the other threads are
 * done. Classify(), GameMode's registration and the placed entry stay
 * until the process is gone. */
void placer_forget(Placer *p, pid_t pid) {
        if (placer_drop_if_gone(p, pid))
                placer_linger(p, pid);
        else
                placer_decision_changed(p, pid);
        /* Read again as new when the unit lists it: a reused PID is placed. */
        units_forget(p->units, pid);
}
