/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* boostctl: what the verbs share: calls to boostd, its errors as exit codes, numbers. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

#include "boostctl.h"
#include "bus-names.h"

int exit_for_error(const sd_bus_error *e, int r) {
        if (e && e->name) {
                fprintf(stderr, "boostctl: %s: %s\n", e->name, e->message ?: "");
                if (strcmp(e->name, BOOST_ERROR_ACCESS_DENIED) == 0 ||
                    strcmp(e->name, "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired") == 0)
                        return EXIT_DENIED;
                if (strcmp(e->name, "org.freedesktop.DBus.Error.ServiceUnknown") == 0 ||
                    strcmp(e->name, "org.freedesktop.DBus.Error.NameHasNoOwner") == 0 ||
                    strcmp(e->name, "org.freedesktop.DBus.Error.NoReply") == 0 ||
                    strcmp(e->name, "org.freedesktop.DBus.Error.Disconnected") == 0)
                        return EXIT_UNREACHABLE;
                if (strncmp(e->name, BOOST_ERROR_PREFIX, strlen(BOOST_ERROR_PREFIX)) == 0 ||
                    strcmp(e->name, BOOST_ERROR_INVALID_ARGS) == 0)
                        return strcmp(e->name, BOOST_ERROR_BACKEND_FAILED) == 0 ?
                                EXIT_FAIL : EXIT_REJECTED;
                return EXIT_FAIL;
        }
        fprintf(stderr, "boostctl: %s\n", strerror(-r));
        return EXIT_FAIL;
}

int parse_u32(const char *s, uint32_t *ret) {
        char *end;
        unsigned long v;

        if (!s || !*s || *s == '-' || *s == '+')
                return -EINVAL;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || *end || v > UINT32_MAX)
                return -EINVAL;
        *ret = (uint32_t) v;
        return 0;
}

int usage_error(const char *msg) {
        fprintf(stderr, "boostctl: %s (see boostctl --help)\n", msg);
        return EXIT_USAGE;
}

int get_string_property(sd_bus *bus, const char *name, char **ret, sd_bus_error *e) {
        return sd_bus_get_property_string(bus, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE, name, e, ret);
}

static int callv(sd_bus *bus, bool quiet, const char *method, sd_bus_message **reply, const char *types,
                 va_list ap) {
        sd_bus_error e = SD_BUS_ERROR_NULL;
        sd_bus_message *m = NULL;
        int r;

        r = sd_bus_message_new_method_call(bus, &m, BOOST_BUS_NAME, BOOST_BUS_PATH, BOOST_BUS_IFACE, method);
        if (r < 0)
                return quiet ? EXIT_FAIL : exit_for_error(NULL, r);
        r = sd_bus_message_appendv(m, types, ap);
        if (r >= 0)
                r = sd_bus_call(bus, m, 0, &e, reply);
        sd_bus_message_unref(m);
        if (r < 0) {
                r = quiet ? EXIT_FAIL : exit_for_error(&e, r);
                sd_bus_error_free(&e);
                return r;
        }
        return EXIT_OK;
}

int call(sd_bus *bus, const char *method, sd_bus_message **reply, const char *types, ...) {
        va_list ap;
        int r;

        va_start(ap, types);
        r = callv(bus, false, method, reply, types, ap);
        va_end(ap);
        return r;
}

/* The same, printing no error. */
int call_quiet(sd_bus *bus, const char *method, sd_bus_message **reply, const char *types, ...) {
        va_list ap;
        int r;

        va_start(ap, types);
        r = callv(bus, true, method, reply, types, ap);
        va_end(ap);
        return r;
}
