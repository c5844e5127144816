/* multiproc.c: a program of several processes, one of which runs JIT
 * code, for integration_export_processes (vg-jit export and profiles of
 * a run under valgrind --trace-children=yes).
 *
 * Usage: multiproc parent N
 *          forks and execs itself (argv[0], so give a path) twice, as
 *          "multiproc --quiet --type=jit N" and "multiproc --quiet
 *          --type=native N", and waits for both: the children's "--type="
 *          is what vg-jit names their processes after, not their first
 *          argument
 *        multiproc --quiet --type=jit N
 *          writes jit_sum(n) (the sum of 1..n, as a loop) into executable
 *          memory, registers it through VALGRIND_JIT_REGISTER (object
 *          "[jit]") and runs it N times
 *        multiproc --quiet --type=native N
 *          the same sums in C
 * Each process prints "ROLE SUM" (the children) or "parent OK". */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "valgrind/jit.h"

enum { kLoopN = 1000 };

/* xor eax, eax; loop: add eax, edi; dec edi; jnz loop; ret (n > 0) */
static const unsigned char jit_sum_code[] = {0x31, 0xC0, 0x01, 0xF8, 0xFF,
                                             0xCF, 0x75, 0xFA, 0xC3};

typedef unsigned (*SumFn)(unsigned);

static int run_jit(int n)
{
    unsigned char* code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned long sum = 0;
    SumFn fn;
    int i;
    if (code == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    memcpy(code, jit_sum_code, sizeof jit_sum_code);
    VALGRIND_JIT_REGISTER(code, sizeof jit_sum_code, "jit_sum");
    fn = (SumFn)(void*)code;
    for (i = 0; i < n; i++)
        sum += fn(kLoopN);
    printf("jit %lu\n", sum);
    return 0;
}

__attribute__((noinline, noclone)) unsigned native_sum(unsigned n)
{
    volatile unsigned s = 0;
    for (; n; n--)
        s += n;
    return s;
}

static int run_native(int n)
{
    unsigned long sum = 0;
    int i;
    for (i = 0; i < n; i++)
        sum += native_sum(kLoopN);
    printf("native %lu\n", sum);
    return 0;
}

static pid_t spawn(const char* self, const char* type, const char* n)
{
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, "--quiet", type, n, (char*)NULL);
        perror("execl");
        _exit(127);
    }
    return pid;
}

int main(int argc, char** argv)
{
    if (argc == 3 && strcmp(argv[1], "parent") == 0) {
        pid_t a = spawn(argv[0], "--type=jit", argv[2]);
        pid_t b = spawn(argv[0], "--type=native", argv[2]);
        int sa = -1, sb = -1;
        if (a < 0 || b < 0 || waitpid(a, &sa, 0) != a || waitpid(b, &sb, 0) != b ||
            !WIFEXITED(sa) || WEXITSTATUS(sa) != 0 || !WIFEXITED(sb) || WEXITSTATUS(sb) != 0) {
            fprintf(stderr, "multiproc: a child failed\n");
            return 1;
        }
        printf("parent OK\n");
        return 0;
    }
    if (argc == 4 && strcmp(argv[2], "--type=jit") == 0)
        return run_jit(atoi(argv[3]));
    if (argc == 4 && strcmp(argv[2], "--type=native") == 0)
        return run_native(atoi(argv[3]));
    fprintf(stderr, "usage: multiproc parent N\n");
    return 2;
}
