/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /etc/boostd.conf as anything at all: loading it either gives a config
 * whose values are all in range, or fails with a message that names the
 * file and the line ("FILE:LINE: ..."), and never both. */
#include <ctype.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "config.h"
#include "fuzz.h"
#include "util.h"

static void check_error_names_line(const char *error, const char *path) {
        size_t l = strlen(path);
        const char *s = error + l + 1;

        check(strncmp(error, path, l) == 0 && error[l] == ':');
        check(isdigit((unsigned char) *s));
        while (isdigit((unsigned char) *s))
                s++;
        check(s[0] == ':' && s[1] == ' ' && s[2] != '\0');
}

static void check_config(const Config *c) {
        check(c->n_classes >= 1 && c->n_classes <= GROUPS_MAX);
        check(streq(c->classes[0].name, "root"));
        for (size_t i = 0; i < c->n_classes; i++)
                for (size_t s = 0; s < _POWER_STATE_MAX; s++)
                        check(c->classes[i].boost[s] <= BOOST_MAX);
        for (size_t i = 0; i < c->n_rules; i++) {
                check(c->rules[i].class_index >= 0 && (size_t) c->rules[i].class_index < c->n_classes);
                check(c->rules[i].unit || c->rules[i].slice || c->rules[i].comm || c->rules[i].exe ||
                      c->rules[i].user);
        }
        check(c->default_class_index >= 0 && (size_t) c->default_class_index < c->n_classes);
        check(config_find_class(c, c->input.group) >= 0);
        check(c->input.boost <= BOOST_MAX && c->input.duration_ms <= INPUT_DURATION_MS_MAX);
        check(c->power.low_percent <= LOW_BATTERY_PERCENT_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        Config *c = NULL;
        char *error = NULL;
        char path[64];
        int fd, r;

        fd = memfd_create("boostd.conf", MFD_CLOEXEC);
        check(fd >= 0);
        check(write(fd, data, size) == (ssize_t) size);
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

        r = config_load(path, false, NULL, &c, &error);
        if (r < 0) {
                check(!c && error);
                if (r != -ENOMEM)
                        check_error_names_line(error, path);
        } else {
                check(r == 0 && c && !error);
                check_config(c);
        }
        config_free(c);
        free(error);
        close(fd);
        return 0;
}
