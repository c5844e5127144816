/* creatorjit.c: a JIT that announces nothing, run under the staged
 * Valgrind by integration_creator.
 *
 * make_code() writes two functions into memory it makes executable:
 * jit_leaf(p), which branches on the byte at p (uninitialised: a Memcheck
 * error inside the JIT code), and jit_outer(p), which calls jit_leaf
 * after setting rbp to 0 and keeps no CFI, as PCRE2's JIT does.
 * call_jit() calls jit_outer N times.
 *
 * Usage: creatorjit HOW [N]
 *   mmap      an anonymous read-write-execute mapping
 *   mprotect  read-write while writing, then read-execute (W^X)
 *   mremap    as mprotect, then moved by mremap to another address
 *   memfd     a memfd mapped twice: written through one mapping, run
 *             through the other (as double-mapping JITs do)
 *   announce  as mmap, then VALGRIND_JIT_REGISTER names both functions
 *   perfmap   as mmap, and /tmp/perf-<pid>.map names both functions only
 *             at exit (after the code ran)
 *   image:FILE       FILE, which holds the code (written before the program
 *             started by `creatorjit write-image FILE`), mapped
 *             read-execute: code of a file, as SBCL maps its core
 *   image-over:FILE  as image:, mapped with MAP_FIXED over an anonymous
 *             read-execute reservation made first
 *   image-new:FILE   FILE written by the program itself, then mapped
 *             read-execute: JIT code
 *   two-sites as mmap, then one more executable page mapped by each of
 *             first_site() and second_site(), which call mmap themselves:
 *             two creators reached through the same mmap
 *   write-image FILE  writes the code to FILE and exits
 * Prints "result N calls". */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "valgrind/jit.h"

#define LEAF_OFFSET  0
#define OUTER_OFFSET 32
#define CODE_SIZE    4096

typedef int (*JitFn)(const unsigned char*);

static JitFn jit_outer;

/* movzx eax, byte [rdi]; test al, al; jz +5; mov eax, 1; ret */
static const unsigned char leaf_code[] = {
    0x0F, 0xB6, 0x07, 0x84, 0xC0, 0x74, 0x05, 0xB8, 0x01, 0x00, 0x00, 0x00, 0xC3};

/* push rbp; xor ebp, ebp; sub rsp, 8; call jit_leaf; add rsp, 8;
 * pop rbp; ret */
static void write_outer(unsigned char* code)
{
    unsigned char* p = code + OUTER_OFFSET;
    int32_t rel;
    *p++ = 0x55;
    *p++ = 0x31; *p++ = 0xED;
    *p++ = 0x48; *p++ = 0x83; *p++ = 0xEC; *p++ = 0x08;
    *p++ = 0xE8;
    rel = (int32_t)(LEAF_OFFSET - (OUTER_OFFSET + 12));
    memcpy(p, &rel, 4);
    p += 4;
    *p++ = 0x48; *p++ = 0x83; *p++ = 0xC4; *p++ = 0x08;
    *p++ = 0x5D;
    *p++ = 0xC3;
}

static void write_code(unsigned char* code)
{
    memset(code, 0xCC, CODE_SIZE);
    memcpy(code + LEAF_OFFSET, leaf_code, sizeof leaf_code);
    write_outer(code);
}

static unsigned char* map_or_die(void* at, int prot, int flags, int fd)
{
    void* p = mmap(at, CODE_SIZE, prot, flags, fd, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    return p;
}

static void write_image(const char* path)
{
    static unsigned char buf[CODE_SIZE];
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    write_code(buf);
    if (fd < 0 || write(fd, buf, CODE_SIZE) != CODE_SIZE || close(fd) != 0) {
        perror(path);
        exit(1);
    }
}

static unsigned char* map_image(const char* path, void* at)
{
    int fd = open(path, O_RDONLY);
    unsigned char* code;
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    code = map_or_die(at, PROT_READ | PROT_EXEC, MAP_PRIVATE | (at ? MAP_FIXED : 0), fd);
    close(fd);
    return code;
}

/* The JIT's code generator: what the code is named after. */
__attribute__((noinline)) unsigned char* make_code(const char* how)
{
    unsigned char* code;
    if (strncmp(how, "image:", 6) == 0)
        return map_image(how + 6, NULL);
    if (strncmp(how, "image-over:", 11) == 0) {
        void* at = map_or_die(NULL, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1);
        return map_image(how + 11, at);
    }
    if (strncmp(how, "image-new:", 10) == 0) {
        write_image(how + 10);
        return map_image(how + 10, NULL);
    }
    if (strcmp(how, "memfd") == 0) {
        int fd = memfd_create("creatorjit", 0);
        unsigned char* rw;
        if (fd < 0 || ftruncate(fd, CODE_SIZE) != 0) {
            perror("memfd");
            exit(1);
        }
        rw = map_or_die(NULL, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
        write_code(rw);
        code = map_or_die(NULL, PROT_READ | PROT_EXEC, MAP_SHARED, fd);
        close(fd);
        return code;
    }
    if (strcmp(how, "mprotect") == 0 || strcmp(how, "mremap") == 0) {
        code = map_or_die(NULL, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
        write_code(code);
        if (mprotect(code, CODE_SIZE, PROT_READ | PROT_EXEC) != 0) {
            perror("mprotect");
            exit(1);
        }
        if (strcmp(how, "mremap") == 0) {
            /* A reserved place elsewhere to move it to. */
            unsigned char* to = map_or_die(NULL, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
            void* moved = mremap(code, CODE_SIZE, CODE_SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, to);
            if (moved == MAP_FAILED) {
                perror("mremap");
                exit(1);
            }
            code = moved;
        }
        return code;
    }
    code = map_or_die(NULL, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1);
    write_code(code);
    return code;
}

/* Two call sites of mmap of their own, each a creator (the store after
   the call keeps each a frame of its own: no tail call). */
static void* volatile site_mapped;

__attribute__((noinline)) void* first_site(void)
{
    site_mapped = mmap(NULL, CODE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return site_mapped;
}

__attribute__((noinline)) void* second_site(void)
{
    site_mapped = mmap(NULL, CODE_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return site_mapped;
}

static volatile int calls_made;

__attribute__((noinline)) int call_jit(const unsigned char* p)
{
    int r = jit_outer(p);
    calls_made++; /* after the call: no tail call */
    return r;
}

static void write_perf_map(const unsigned char* code)
{
    char path[64];
    FILE* f;
    snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
    f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        exit(1);
    }
    fprintf(f, "%lx %x jit_leaf\n", (unsigned long)(uintptr_t)(code + LEAF_OFFSET),
            (unsigned)sizeof leaf_code);
    fprintf(f, "%lx %x jit_outer\n", (unsigned long)(uintptr_t)(code + OUTER_OFFSET), 18u);
    fclose(f);
}

int main(int argc, char** argv)
{
    const char* how = argc > 1 ? argv[1] : "mmap";
    int n;
    unsigned char* code;
    if (strcmp(how, "write-image") == 0 && argc > 2) {
        write_image(argv[2]);
        return 0;
    }
    n = argc > 2 ? atoi(argv[2]) : 10;
    code = make_code(how);
    if (strcmp(how, "two-sites") == 0 && (first_site() == MAP_FAILED || second_site() == MAP_FAILED)) {
        perror("mmap");
        return 1;
    }
    unsigned char* uninit = malloc(1); /* never written */
    int i;

    jit_outer = (JitFn)(void*)(code + OUTER_OFFSET);
    if (strcmp(how, "announce") == 0) {
        VALGRIND_JIT_REGISTER(code + LEAF_OFFSET, sizeof leaf_code, "jit_leaf");
        VALGRIND_JIT_REGISTER(code + OUTER_OFFSET, 18, "jit_outer");
    }
    for (i = 0; i < n; i++)
        (void)call_jit(uninit);
    if (strcmp(how, "perfmap") == 0)
        write_perf_map(code);
    printf("result %d calls\n", calls_made);
    free(uninit);
    return 0;
}
