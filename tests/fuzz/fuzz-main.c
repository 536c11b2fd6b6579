/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Runs a fuzz target once on each file named on the command line, for
 * builds without libFuzzer (GCC): the corpus is then a regression test. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
        for (int i = 1; i < argc; i++) {
                FILE *f = fopen(argv[i], "re");
                uint8_t *buf;
                long size;

                if (!f || fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0) {
                        perror(argv[i]);
                        return EXIT_FAILURE;
                }
                buf = malloc(size ? (size_t) size : 1);
                if (!buf || fread(buf, 1, (size_t) size, f) != (size_t) size) {
                        perror(argv[i]);
                        return EXIT_FAILURE;
                }
                fclose(f);
                printf("%s: %ld bytes\n", argv[i], size);
                (void) LLVMFuzzerTestOneInput(buf, (size_t) size);
                free(buf);
        }
        return EXIT_SUCCESS;
}
