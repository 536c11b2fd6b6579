/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/inotify.h>

#include "event-util.h"
#include "seats-watch.h"
#include "seats.h"

struct SeatsWatch {
        SourceContext ctx;
        sd_event_source *source;
};

static int on_seats(sd_event_source *s, const struct inotify_event *ev, void *userdata) {
        SeatsWatch *w = userdata;

        /* logind replaces a seat's file (rename) when its active
         * session changes, and removes it with the seat */
        if (ev->mask & (IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_Q_OVERFLOW))
                w->ctx.sink->seats_changed(w->ctx.sink->userdata);
        return 0;
}

int seats_watch_new(const SourceContext *ctx, SeatsWatch **ret) {
        _cleanup_(seats_watch_freep) SeatsWatch *w = NULL;
        _cleanup_(freep) char *dir = NULL;
        int r;

        w = calloc(1, sizeof(SeatsWatch));
        if (!w)
                return -ENOMEM;
        w->ctx = *ctx;
        dir = seats_dir(ctx->root);
        if (!dir)
                return -ENOMEM;
        r = sd_event_add_inotify(ctx->event, &w->source, dir,
                                 IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_ONLYDIR, on_seats, w);
        if (r == -ENOENT || r == -ENOTDIR)
                r = 0;          /* no logind: no seats */
        if (r < 0)
                return r;
        *ret = TAKE_PTR(w);
        return 0;
}

SeatsWatch *seats_watch_free(SeatsWatch *w) {
        if (!w)
                return NULL;
        sd_event_source_disable_unref(w->source);
        free(w);
        return NULL;
}
