/* Regression test of the valgrind/jit.h client requests: query, register
   (with a line table), unregister, and requests Valgrind refuses.  The
   registered code reads an uninitialised value, so Memcheck's error names
   it: jit_branch (jit_branch.src:7).  The return values go to stdout. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "../../include/valgrind.h"
#include "../../include/jit.h"

#if defined(__x86_64__)
/* int jit_branch(const int* p): return *p ? 1 : 2 */
static const unsigned char code_bytes[] = {
   0x8b, 0x07,                    /* mov  (%rdi),%eax   */
   0x85, 0xc0,                    /* test %eax,%eax     */
   0x74, 0x06,                    /* je   +6            */
   0xb8, 0x01, 0x00, 0x00, 0x00,  /* mov  $1,%eax       */
   0xc3,                          /* ret                */
   0xb8, 0x02, 0x00, 0x00, 0x00,  /* mov  $2,%eax       */
   0xc3                           /* ret                */
};
#endif

int main(void)
{
#if defined(__x86_64__)
   unsigned char* code;
   int (*fn)(const int*);
   int* uninit;
   VgJitLine lines[2] = { { 0, 7, NULL }, { 12, 8, NULL } };
   VgJitCode desc = VG_JIT_CODE_INITIALIZER;
   unsigned long r;

   code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   if (code == MAP_FAILED) {
      perror("mmap");
      return 1;
   }
   memcpy(code, code_bytes, sizeof code_bytes);
   fn = (int (*)(const int*))(void*)code;

   printf("query: %s\n", VALGRIND_JIT_QUERY() >= 1 ? "api version >= 1" : "0");

   desc.start   = code;
   desc.size    = sizeof code_bytes;
   desc.name    = "jit_branch";
   desc.object  = "jit-regtest";
   desc.file    = "jit_branch.src";
   desc.lines   = lines;
   desc.n_lines = 2;
   r = VALGRIND_JIT_REGISTER_CODE(&desc);
   printf("register: %lu, status %d\n", r, (int)VALGRIND_JIT_LAST_ERROR());

   /* Memcheck: a conditional jump on an uninitialised value, in jit_branch. */
   uninit = malloc(sizeof *uninit);
   printf("call: %d\n", fn(uninit) > 0);
   free(uninit);

   /* Refused: size 0 (VG_JIT_ERR_BAD_RANGE), a NULL name
      (VG_JIT_ERR_BAD_NAME).  A range that is not code yet waits for it
      (VG_JIT_WARN_PENDING): the stack never becomes code. */
   r = VALGRIND_JIT_REGISTER(code + 64, 0, "empty");
   printf("register size 0: %lu, status %d\n", r, (int)VALGRIND_JIT_LAST_ERROR());
   r = VALGRIND_JIT_REGISTER(code + 64, 16, NULL);
   printf("register no name: %lu, status %d\n", r, (int)VALGRIND_JIT_LAST_ERROR());
   /* 64 bytes of the descriptor (as large in every header version). */
   r = VALGRIND_JIT_REGISTER(&desc, 64, "on_the_stack");
   printf("register stack: %lu, status %d\n", r, (int)VALGRIND_JIT_LAST_ERROR());

   r = VALGRIND_JIT_UNREGISTER(code);
   printf("unregister: %lu, status %d\n", r, (int)VALGRIND_JIT_LAST_ERROR());
   r = VALGRIND_JIT_UNREGISTER(code);
   printf("unregister again: %lu, status %d\n", r, (int)VALGRIND_JIT_LAST_ERROR());

   munmap(code, 4096);
#endif
   return 0;
}
