/* install_client.c: a minimal JIT built against an installed valgrind-jit
   (compiled by tests/install-roundtrip.sh with the flags of
   `pkg-config --cflags valgrind-jit`).  It emits one x86-64 function,
   registers it as "jit_install_probe", and calls it on uninitialised
   memory, so that Memcheck reports an error inside the jitted function and
   names it.  Exit status: 0 if the code ran, 1 if it could not be mapped. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <valgrind/jit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(void) {
    /* mov eax, [rdi]; test eax, eax; je .+0; ret */
    static const unsigned char code[] = {0x8b, 0x07, 0x85, 0xc0, 0x74, 0x00, 0xc3};
    unsigned char* mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) return 1;
    memcpy(mem, code, sizeof code);
    if (mprotect(mem, 4096, PROT_READ | PROT_EXEC) != 0) return 1;

    unsigned long recorded = VALGRIND_JIT_REGISTER(mem, sizeof code, "jit_install_probe");
    printf("registered: %lu, status %d\n", recorded, (int)VALGRIND_JIT_LAST_ERROR());

    int* uninitialised = malloc(sizeof *uninitialised);
    void (*fn)(int*);
    memcpy(&fn, &mem, sizeof fn);  /* object to function pointer, without a cast warning */
    fn(uninitialised);
    free(uninitialised);

    VALGRIND_JIT_UNREGISTER(mem);
    munmap(mem, 4096);
    return 0;
}
