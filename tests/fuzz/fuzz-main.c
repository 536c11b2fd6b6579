/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Runs a fuzz target once on each file named on the command line, and on
 * each file in a folder named there, for builds without libFuzzer (GCC):
 * the corpus is then a regression test. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
        FILE *f = fopen(path, "re");
        uint8_t *buf;
        long size;

        if (!f || fseek(f, 0, SEEK_END) < 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0) {
                perror(path);
                return -1;
        }
        buf = malloc(size ? (size_t) size : 1);
        if (!buf || fread(buf, 1, (size_t) size, f) != (size_t) size) {
                fprintf(stderr, "%s: cannot read %ld bytes\n", path, size);
                return -1;
        }
        fclose(f);
        printf("%s: %ld bytes\n", path, size);
        (void) LLVMFuzzerTestOneInput(buf, (size_t) size);
        free(buf);
        return 0;
}

int main(int argc, char **argv) {
        for (int i = 1; i < argc; i++) {
                struct dirent **names;
                struct stat st;
                int n, r = 0;

                if (stat(argv[i], &st) < 0) {
                        perror(argv[i]);
                        return EXIT_FAILURE;
                }
                if (!S_ISDIR(st.st_mode)) {
                        if (run_file(argv[i]) < 0)
                                return EXIT_FAILURE;
                        continue;
                }
                n = scandir(argv[i], &names, NULL, alphasort);
                if (n < 0) {
                        perror(argv[i]);
                        return EXIT_FAILURE;
                }
                for (int k = 0; k < n; k++) {
                        char path[4096];

                        if (r == 0 && names[k]->d_name[0] != '.') {
                                snprintf(path, sizeof(path), "%s/%s", argv[i], names[k]->d_name);
                                r = run_file(path);
                        }
                        free(names[k]);
                }
                free(names);
                if (r < 0)
                        return EXIT_FAILURE;
        }
        return EXIT_SUCCESS;
}
