/* stage_helper.c: a client program with two planted Memcheck errors, run
 * under the staged Valgrind by smoke_stage.
 *
 * It leaks one 64-byte block and branches on an uninitialised value.  With
 * the argument "clean" it does neither, so the same program shows that a
 * clean run reports no errors.  Memcheck can see the leak only if its
 * malloc replacement (vgpreload_memcheck-amd64-linux.so, found through
 * VALGRIND_LIB) was loaded: this is what checks the staged tool directory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int sink;

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "clean") == 0) {
        char *p = malloc(64);
        if (p == NULL)
            return 1;
        memset(p, 1, 64);
        sink = p[3];
        free(p);
        return 0;
    }
    int *leak = malloc(64);
    if (leak == NULL)
        return 1;
    leak = NULL; /* the only pointer to the block is gone: definitely lost */
    int *uninit = malloc(sizeof *uninit);
    if (uninit == NULL)
        return 1;
    if (*uninit > 0) /* conditional jump on an uninitialised value */
        sink = 1;
    free(uninit);
    return 0;
}
