/* Regression test of names that arrive after their code ran: a JIT
   runs generated code that no file names yet, and only then writes the
   perf map (/tmp/perf-<pid>.map, read with --jit-perf-map=yes, at the
   latest when the client exits) that names it jit_late_sum.
   Cachegrind's output must give the code's costs to jit_late_sum, not
   to "???".  The map stays until the client exits (its process id is
   left in jit_late.pid for the test's cleanup). */

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__x86_64__)
/* long sum(long n): n + (n-1) + ... + 1, in 5 n + 4 instructions */
static const unsigned char code_bytes[] = {
   0x31, 0xc0,                    /* xor  %eax,%eax     */
   0x48, 0x85, 0xff,              /* test %rdi,%rdi     */
   0x74, 0x08,                    /* je   +8 (ret)      */
   0x48, 0x01, 0xf8,              /* add  %rdi,%rax     */
   0x48, 0xff, 0xcf,              /* dec  %rdi          */
   0xeb, 0xf3,                    /* jmp  -13 (test)    */
   0xc3                           /* ret                */
};
#endif

int main(void)
{
#if defined(__x86_64__)
   unsigned char* code;
   long (*sum)(long);
   long total = 0;
   char path[64];
   FILE* f;
   int i;

   code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   if (code == MAP_FAILED) {
      perror("mmap");
      return 1;
   }
   memcpy(code, code_bytes, sizeof code_bytes);
   sum = (long (*)(long))(void*)code;

   /* 10 calls of 5 * 100 + 4 instructions, without a name. */
   for (i = 0; i < 10; i++)
      total += sum(100);
   printf("sum: %ld\n", total);

   /* The name, after the code ran: "START SIZE name", hexadecimal. */
   f = fopen("jit_late.pid", "w");
   if (f == NULL) {
      perror("jit_late.pid");
      return 1;
   }
   fprintf(f, "%d\n", (int)getpid());
   fclose(f);
   snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
   f = fopen(path, "w");
   if (f == NULL) {
      perror(path);
      return 1;
   }
   fprintf(f, "%lx %lx jit_late_sum\n", (unsigned long)(uintptr_t)code,
           (unsigned long)sizeof code_bytes);
   fclose(f);
#endif
   return 0;
}
