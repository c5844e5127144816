/* Regression test of unwinding through registered code that keeps no
   frame pointer: three copies of a function that moves the stack
   pointer, stores 0 where a return address would be and sets %rbp to 0
   (so neither the frame-pointer chain nor a return address at the stack
   pointer leads anywhere), registered with valgrind/jit.h

   - jit_shape with its frame shape (VG_JIT_UNWIND_FIXED_FRAME),
   - jit_eh_frame with .eh_frame bytes (VG_JIT_UNWIND_EH_FRAME),
   - jit_no_cfi without unwind information,

   each called from main with an uninitialised value.  Memcheck's stack
   trace of the first two errors reaches main; that of the third stops
   at the function. */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "../../include/valgrind.h"
#include "../../include/jit.h"

#if defined(__x86_64__)
/* int f(const int* p): return *p ? 1 : 2, with %rbp saved and cleared
   and 16 bytes of stack whose lowest word is 0. */
static const unsigned char code_bytes[] = {
   0x55,                          /*  0: push %rbp          line 10 */
   0x31, 0xed,                    /*  1: xor  %ebp,%ebp     line 10 */
   0x48, 0x83, 0xec, 0x10,        /*  3: sub  $16,%rsp      line 10 */
   0x48, 0xc7, 0x04, 0x24,
   0x00, 0x00, 0x00, 0x00,        /*  7: movq $0,(%rsp)     line 11 */
   0x8b, 0x07,                    /* 15: mov  (%rdi),%eax   line 12 */
   0x85, 0xc0,                    /* 17: test %eax,%eax     line 12 */
   0x74, 0x07,                    /* 19: je   28            line 13 */
   0xb8, 0x01, 0x00, 0x00, 0x00,  /* 21: mov  $1,%eax       line 14 */
   0xeb, 0x05,                    /* 26: jmp  33                    */
   0xb8, 0x02, 0x00, 0x00, 0x00,  /* 28: mov  $2,%eax       line 15 */
   0x48, 0x83, 0xc4, 0x10,        /* 33: add  $16,%rsp      line 16 */
   0x5d,                          /* 37: pop  %rbp                  */
   0xc3                           /* 38: ret                        */
};

static const VgJitLine lines[] = {
   { 0, 10, NULL }, { 7, 11, NULL }, { 15, 12, NULL }, { 19, 13, NULL },
   { 21, 14, NULL }, { 28, 15, NULL }, { 33, 16, NULL }
};

/* The function's CFI as .eh_frame: a CIE (CFA = %rsp + 8, return
   address at CFA - 8, absolute FDE pointers) and one FDE, whose
   pc_begin is filled in at run time.  Little-endian. */
static unsigned char eh_frame[] = {
   /* CIE */
   0x14, 0x00, 0x00, 0x00,        /* length */
   0x00, 0x00, 0x00, 0x00,        /* CIE id */
   0x01,                          /* version */
   'z', 'R', 0x00,                /* augmentation */
   0x01,                          /* code alignment 1 */
   0x78,                          /* data alignment -8 */
   0x10,                          /* return address column 16 */
   0x01, 0x00,                    /* augmentation data: DW_EH_PE_absptr */
   0x0c, 0x07, 0x08,              /* DW_CFA_def_cfa %rsp+8 */
   0x90, 0x01,                    /* DW_CFA_offset %rip at cfa-8 */
   0x00, 0x00,                    /* DW_CFA_nop */
   /* FDE */
   0x24, 0x00, 0x00, 0x00,        /* length */
   0x1c, 0x00, 0x00, 0x00,        /* CIE pointer */
   0, 0, 0, 0, 0, 0, 0, 0,        /* pc_begin (offset 32) */
   sizeof code_bytes, 0, 0, 0, 0, 0, 0, 0,   /* pc_range */
   0x00,                          /* augmentation data: none */
   0x41,                          /* DW_CFA_advance_loc 1 (push) */
   0x0e, 0x10,                    /* DW_CFA_def_cfa_offset 16 */
   0x86, 0x02,                    /* DW_CFA_offset %rbp at cfa-16 */
   0x46,                          /* DW_CFA_advance_loc 6 (sub) */
   0x0e, 0x20,                    /* DW_CFA_def_cfa_offset 32 */
   0x5e,                          /* DW_CFA_advance_loc 30 (add) */
   0x0e, 0x10,                    /* DW_CFA_def_cfa_offset 16 */
   0x41,                          /* DW_CFA_advance_loc 1 (pop) */
   0x0e, 0x08,                    /* DW_CFA_def_cfa_offset 8 */
   0xc6,                          /* DW_CFA_restore %rbp */
   0x00, 0x00,                    /* DW_CFA_nop */
   0x00, 0x00, 0x00, 0x00         /* terminator */
};

static int (*place(unsigned char* code, const char* name,
                   unsigned long kind))(const int*)
{
   VgJitCode     desc = VG_JIT_CODE_INITIALIZER;
   unsigned long r, i;

   memcpy(code, code_bytes, sizeof code_bytes);
   desc.start       = code;
   desc.size        = sizeof code_bytes;
   desc.name        = name;
   desc.file        = "jit_unwind.src";
   desc.lines       = lines;
   desc.n_lines     = sizeof lines / sizeof lines[0];
   desc.unwind_kind = kind;
   if (kind == VG_JIT_UNWIND_FIXED_FRAME) {
      desc.prologue_size = 7;    /* push, xor, sub */
      desc.ra_offset     = 24;
      desc.fp_offset     = 16;
   } else if (kind == VG_JIT_UNWIND_EH_FRAME) {
      for (i = 0; i < 8; i++)
         eh_frame[32 + i] = (unsigned char)((unsigned long)code >> (8 * i));
      desc.eh_frame      = eh_frame;
      desc.eh_frame_size = sizeof eh_frame;
   }
   r = VALGRIND_JIT_REGISTER_CODE(&desc);
   printf("register %s: %lu, status %d\n", name, r,
          (int)VALGRIND_JIT_LAST_ERROR());
   return (int (*)(const int*))(void*)code;
}
#endif

int main(void)
{
#if defined(__x86_64__)
   unsigned char* code;
   int (*shape)(const int*);
   int (*cfi)(const int*);
   int (*no_cfi)(const int*);
   int* uninit;
   volatile int result;

   code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
   if (code == MAP_FAILED) {
      perror("mmap");
      return 1;
   }
   shape  = place(code, "jit_shape", VG_JIT_UNWIND_FIXED_FRAME);
   cfi    = place(code + 64, "jit_eh_frame", VG_JIT_UNWIND_EH_FRAME);
   no_cfi = place(code + 128, "jit_no_cfi", VG_JIT_UNWIND_NONE);

   uninit = malloc(sizeof *uninit);
   result = shape(uninit);
   result = cfi(uninit);
   result = no_cfi(uninit);
   (void)result;
   free(uninit);
   printf("called\n");

   munmap(code, 4096);
#endif
   return 0;
}
