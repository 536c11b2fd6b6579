/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The focus of app scopes: GNOME's user.xdg.inactive-since on a scope
 * watched in the cgroup tree, acted on only for a user with the active
 * session on a seat, at most FOCUS_BURST changes a second per user. */
#include <errno.h>
#include <sys/xattr.h>

#include "event-util.h"
#include "log.h"
#include "macro.h"
#include "seats.h"
#include "units-internal.h"

#define FOCUS_BURST 10U                 /* focus changes a second */
#define XATTR_INACTIVE "user.xdg.inactive-since"

/* The seat on which uid has the active session (seats.h), under the
 * test's root prefix. */
static int units_seat_of(Units *w, uid_t uid, char seat[static SEAT_NAME_MAX]) {
        _cleanup_(freep) char *dir = NULL;

        dir = seats_dir(w->ctx.root);
        if (!dir)
                return -ENOMEM;
        return seat_of_uid(dir, uid, seat);
}

void watch_check_inactive(Units *w, WatchDir *d) {
        _cleanup_(freep) char *full = watch_full_path(w, d->path);
        char seat[SEAT_NAME_MAX] = "";
        int prev = d->inactive, now;

        if (!full)
                return;
        if (getxattr(full, XATTR_INACTIVE, NULL, 0) >= 0)
                now = 1;
        else if (errno == ENODATA)
                now = 0;
        else
                return;         /* no xattrs here */
        /* Not followed in manual mode: what is kept is what was last
         * acted on, so that back in auto mode a change made meanwhile is
         * acted on (units_rescan()). */
        if (!w->following && prev >= 0)
                return;
        d->inactive = now;
        if (prev < 0 || prev == now)
                return;
        if (now == 0) {
                UserWatches *u = d->user != (uid_t) -1 ? units_user(w, d->user, true) : NULL;
                uint64_t t = now_usec();

                if (!u)
                        return;         /* only scopes of user managers count */
                /* first the rate limit, the user's own: the seat check
                 * reads files, and one user's changes must not use up
                 * another's */
                if (u->focus_begin == 0 || t - u->focus_begin > USEC_PER_SEC) {
                        u->focus_begin = t;
                        u->focus_n = 0;
                }
                if (u->focus_n++ >= FOCUS_BURST) {
                        if (units_may_warn(w))
                                log_warning(w->ctx.log, "Focus of %s ignored: more than %u focus changes a second.",
                                            d->path, FOCUS_BURST);
                        return;
                }
                if (d->user == (uid_t) -1 || units_seat_of(w, d->user, seat) < 0) {
                        log_debug(w->ctx.log, "Focus of %s ignored: its user has no active session on a seat.",
                                  d->path);
                        return;
                }
        }
        w->ctx.sink->focus(w->ctx.sink->userdata, d->path, now == 0 ? seat : NULL);
}
