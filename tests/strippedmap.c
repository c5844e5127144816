/* strippedmap.c: a program whose own functions are named only by the
 * perf map it writes, as V8 names the builtins it runs from the text of
 * a stripped executable; integration_core runs a stripped copy under the
 * staged Memcheck, Callgrind and Cachegrind with --jit-perf-map=yes.
 *
 * sm_caller(p, n) calls sm_leaf(p) (reads p[4]: past a 4-int block, a
 * Memcheck error) and sm_loop(n) 10 times each; sm_alloc(n) leaks a
 * block.  The map names them SM:sm_leaf, SM:sm_alloc, SM:sm_loop and
 * SM:sm_caller, each up to the next function above it.
 *
 * Usage: strippedmap early|late|twice
 *   early  the map is written before the functions run
 *   late   the map is written after they ran, just before exit
 *   twice  as late, then sm_caller runs once more (its code translated
 *          already, while main's next blocks are new)
 *   stale  first a map naming them STALE:..., its modification time set
 *          an hour back (as a map an earlier process with this pid left
 *          behind), then as late
 * Prints "strippedmap HOW 1". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#define SM_FN __attribute__((noipa))

volatile long sm_sink;

SM_FN long sm_leaf(const int* p) { return p[4]; }

SM_FN void* sm_alloc(size_t n) {
    void* q = malloc(n);
    sm_sink += q != NULL;
    return q;
}

SM_FN long sm_loop(long n) {
    long s = 0;
    for (long i = 0; i < n; ++i) s += i ^ sm_sink;
    return s;
}

SM_FN long sm_caller(const int* p, long n) {
    long s = 0;
    for (int i = 0; i < 10; ++i) s += sm_leaf(p) + sm_loop(n);
    return s;
}

SM_FN void sm_end(void) { sm_sink++; }

int main(int argc, char** argv);

/* Writes /tmp/perf-<pid>.map (or that path with SUFFIX appended),
 * naming the functions PREFIX:sm_...; returns 0 on success. */
static int write_map_to(const char* prefix, const char* suffix) {
    struct {
        const char* name; /* NULL: only bounds the others */
        unsigned long a;
    } fns[] = {
        {"sm_leaf", (unsigned long)&sm_leaf},     {"sm_alloc", (unsigned long)&sm_alloc},
        {"sm_loop", (unsigned long)&sm_loop},     {"sm_caller", (unsigned long)&sm_caller},
        {NULL, (unsigned long)&sm_end},           {NULL, (unsigned long)&main},
        {NULL, (unsigned long)&write_map_to},
    };
    const size_t n = sizeof fns / sizeof fns[0];
    char path[64];
    snprintf(path, sizeof path, "/tmp/perf-%d.map%s", (int)getpid(), suffix);
    FILE* f = fopen(path, "w");
    if (f == NULL) return -1;
    for (size_t i = 0; i < n; ++i) {
        unsigned long next = 0;
        if (fns[i].name == NULL) continue;
        for (size_t j = 0; j < n; ++j)
            if (fns[j].a > fns[i].a && (next == 0 || fns[j].a < next)) next = fns[j].a;
        if (next == 0 || next - fns[i].a > 4096) next = fns[i].a + 16;
        fprintf(f, "%lx %lx %s:%s\n", fns[i].a, next - fns[i].a, prefix, fns[i].name);
    }
    if (fclose(f) != 0) return -1;
    return 0;
}

static int write_map(const char* prefix) { return write_map_to(prefix, ""); }

/* Puts a map naming the functions STALE:sm_... at /tmp/perf-<pid>.map,
 * modified an hour ago (written aside, aged, then renamed into place, so
 * the map is never seen young); returns 0 on success. */
static int write_stale_map(void) {
    char aside[64], path[64];
    struct timeval now, t[2];
    snprintf(aside, sizeof aside, "/tmp/perf-%d.map.stale", (int)getpid());
    snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
    if (write_map_to("STALE", ".stale") != 0 || gettimeofday(&now, NULL) != 0) return -1;
    t[0] = now;
    t[1] = now;
    t[1].tv_sec -= 3600;
    if (utimes(aside, t) != 0) return -1;
    return rename(aside, path);
}

int main(int argc, char** argv) {
    const char* how = argc > 1 ? argv[1] : "early";
    const int twice = strcmp(how, "twice") == 0;
    const int stale = strcmp(how, "stale") == 0;
    const int late = twice || stale || strcmp(how, "late") == 0;
    if (stale && write_stale_map() != 0) return 2;
    if (!late && write_map("SM") != 0) return 2;
    int* block = malloc(4 * sizeof(int));
    memset(block, 0, 4 * sizeof(int));
    void* leaked = sm_alloc(99);
    sm_sink += leaked != NULL;
    leaked = NULL;
    long r = sm_caller(block, 1000);
    sm_end();
    if (late && write_map("SM") != 0) return 2;
    if (twice) r += sm_caller(block, 1000);
    free(block);
    printf("strippedmap %s %ld\n", how, r > 0 ? 1L : 0L);
    return 0;
}
