/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property that does not hold is a crash, which the fuzzer keeps as
 * its finding (assert() would vanish with NDEBUG). */
#define check(expr)                                                             \
        do {                                                                    \
                if (!(expr)) {                                                  \
                        fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,  \
                                __LINE__, #expr);                               \
                        abort();                                                \
                }                                                               \
        } while (0)
