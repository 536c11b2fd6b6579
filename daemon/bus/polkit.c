/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* polkit's CheckAuthorization, asynchronously. */
#include <stdlib.h>

#include "bus-names.h"
#include "macro.h"
#include "polkit.h"

#define POLKIT_TIMEOUT_USEC (25 * USEC_PER_SEC)
/* When the caller allows interaction, polkit may wait for a password. */
#define POLKIT_INTERACTIVE_TIMEOUT_USEC (120 * USEC_PER_SEC)

/* A call waiting for polkit's answer. */
struct PolkitQuery {
        PolkitQuery *next;
        PolkitQuery **queries;
        sd_bus_message *msg;
        sd_bus_slot *slot;
        PolkitPerform perform;
        void *userdata;
        void (*free_userdata)(void *);
        const LogContext *log;
        bool interactive;       /* the caller allowed interaction */
};

static PolkitQuery *query_free(PolkitQuery *q) {
        if (!q)
                return NULL;
        for (PolkitQuery **i = q->queries; *i; i = &(*i)->next)
                if (*i == q) {
                        *i = q->next;
                        break;
                }
        sd_bus_slot_unref(q->slot);
        sd_bus_message_unref(q->msg);
        if (q->free_userdata)
                q->free_userdata(q->userdata);
        free(q);
        return NULL;
}

int bus_caller_uid(sd_bus_message *msg, uid_t *ret) {
        _cleanup_(sd_bus_creds_unrefp) sd_bus_creds *c = NULL;
        int r;

        r = sd_bus_query_sender_creds(msg, SD_BUS_CREDS_UID | SD_BUS_CREDS_EUID, &c);
        if (r < 0)
                return r;
        r = sd_bus_creds_get_uid(c, ret);
        if (r < 0)
                r = sd_bus_creds_get_euid(c, ret);
        return r;
}

static int polkit_reply_authorized(const LogContext *log, sd_bus_message *reply, bool interactive,
                                   sd_bus_error *error) {
        int authorized = 0, challenge = 0, r;

        if (sd_bus_message_is_method_error(reply, NULL)) {
                const sd_bus_error *e = sd_bus_message_get_error(reply);

                log_warning(log, "polkit check failed: %s", e && e->message ? e->message : "unknown error");
                return sd_bus_error_set(error, BOOST_ERROR_ACCESS_DENIED, "Authorization check failed");
        }
        r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
        if (r >= 0)
                r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
        if (r < 0)
                return sd_bus_error_set(error, BOOST_ERROR_ACCESS_DENIED,
                                        "Cannot read the authorization result");
        log_debug(log, "polkit: authorized=%d challenge=%d", authorized, challenge);
        /* polkit could have asked, but the caller did not allow it to (a
         * caller that did, with no agent to ask, is simply denied) */
        if (!authorized && challenge && !interactive)
                return sd_bus_error_set(error, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
                                        "Interactive authentication required");
        if (!authorized)
                return sd_bus_error_set(error, BOOST_ERROR_ACCESS_DENIED, "Not authorized");
        return 1;
}

static int on_polkit_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        _cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
        PolkitQuery *q = userdata;
        int r;

        (void) ret_error;
        r = polkit_reply_authorized(q->log, reply, q->interactive, &error);
        if (r > 0) {
                r = sd_bus_message_rewind(q->msg, true);
                if (r >= 0)
                        r = q->perform(q->msg, q->userdata, &error);
        }
        if (r < 0) {
                if (!sd_bus_error_is_set(&error))
                        sd_bus_error_set_errno(&error, r);
                (void) sd_bus_reply_method_error(q->msg, &error);
        }
        query_free(q);
        return 0;
}

/* perform, then userdata freed if it is the query's */
static int perform_now(PolkitPerform perform, sd_bus_message *msg, void *userdata, void (*free_userdata)(void *),
                       sd_bus_error *error) {
        int r = perform ? perform(msg, userdata, error) : 0;

        if (free_userdata)
                free_userdata(userdata);
        return r;
}

int polkit_authorize(PolkitQuery **queries, sd_bus *bus, sd_bus_message *msg, const char *action,
                     PolkitPerform perform, void *userdata, void (*free_userdata)(void *),
                     const LogContext *log, sd_bus_error *error) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *call = NULL;
        bool interactive = sd_bus_message_get_allow_interactive_authorization(msg) > 0;
        PolkitQuery *q;
        uid_t uid;
        int r;

        r = bus_caller_uid(msg, &uid);
        if (r < 0) {
                (void) perform_now(NULL, msg, userdata, free_userdata, error);
                return sd_bus_error_set(error, BOOST_ERROR_ACCESS_DENIED, "Cannot identify the caller");
        }
        if (uid == 0)
                return perform_now(perform, msg, userdata, free_userdata, error);

        r = sd_bus_message_new_method_call(bus, &call, "org.freedesktop.PolicyKit1",
                                           "/org/freedesktop/PolicyKit1/Authority",
                                           "org.freedesktop.PolicyKit1.Authority",
                                           "CheckAuthorization");
        if (r >= 0)
                r = sd_bus_message_append(call, "(sa{sv})s", "system-bus-name", 1, "name", "s",
                                          sd_bus_message_get_sender(msg), action);
        /* details, flags (AllowUserInteraction = 1 if the caller set
         * ALLOW_INTERACTIVE_AUTHORIZATION on its call), cancellation id */
        if (r >= 0)
                r = sd_bus_message_append(call, "a{ss}us", 0, interactive ? 1U : 0U, "");
        q = r >= 0 ? calloc(1, sizeof(*q)) : NULL;
        if (!q)
                return perform_now(NULL, msg, userdata, free_userdata, error) ?: (r < 0 ? r : -ENOMEM);
        *q = (PolkitQuery) {
                .next = *queries,
                .queries = queries,
                .msg = sd_bus_message_ref(msg),
                .perform = perform,
                .userdata = userdata,
                .free_userdata = free_userdata,
                .log = log,
                .interactive = interactive,
        };
        *queries = q;
        r = sd_bus_call_async(bus, &q->slot, call, on_polkit_reply, q,
                              interactive ? POLKIT_INTERACTIVE_TIMEOUT_USEC : POLKIT_TIMEOUT_USEC);
        if (r < 0) {
                query_free(q);
                return r;
        }
        return 1;
}

void polkit_cancel_all(PolkitQuery **queries) {
        while (*queries)
                query_free(*queries);
}
