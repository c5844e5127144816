/*--------------------------------------------------------------------*/
/*--- Unwinding code that has no unwind information of its own.    ---*/
/*---                                                  jitunwind.c ---*/
/*--------------------------------------------------------------------*/

/*
   This file is part of Valgrind, a dynamic binary instrumentation
   framework.

   Copyright (C) 2026 the valgrind-jit authors.

   This program is free software; you can redistribute it and/or
   modify it under the terms of the GNU General Public License as
   published by the Free Software Foundation; either version 3 of the
   License, or (at your option) any later version.

   This program is distributed in the hope that it will be useful, but
   WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
   General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program; if not, see <http://www.gnu.org/licenses/>.

   The GNU General Public License is contained in the file COPYING.
*/

/* JIT code that nobody describes (PCRE2's sljit keeps neither CFI nor
   a frame pointer) ends a stack trace: after CFI, upstream's amd64
   unwinder takes %rbp as a frame pointer when it points into the
   stack, which in such code is any register's value, and else the word
   at %rsp as the return address, which holds only at a function's
   first instruction.  Memcheck then prints one or two frames, the
   second often garbage, and never main.

   VG_(jit_unwind_without_cfi) is asked by the amd64 unwinder after CFI
   failed and before it guesses, and only answers for executable client
   code outside every ELF object's text (anonymous or shared memory, JIT
   code with no CFI): ELF code, and frames at addresses that are not
   code (the guesses past the outermost frame), unwind exactly as
   upstream's do.  It accepts a return address only if the bytes before
   it are a call instruction in executable client memory (a direct call
   E8 rel32, or an indirect FF /2 with its ModRM, SIB and displacement
   bytes, with or without a REX prefix):

   1. the frame pointer's frame: when %rbp points into the stack at or
      above %rsp and [%rbp+8] is such a return address, the frame is
      the one upstream's unwinder takes (V8's frames, and any JIT code
      that keeps a frame pointer, unwind as upstream's unwinder would
      unwind them);
   2. else the first word from %rsp up (at most SCAN_BYTES) that is
      such a return address: its slot is the caller's stack pointer
      minus 8, and %rbp is left as it is (a JIT that does not use it as
      a frame pointer has not changed it for its caller, or has saved
      it, which only CFI would tell).

   A stale return address left in the frame's locals may be taken for
   the caller; the frames after it are then still unwound by their own
   CFI, and the guess is no worse than upstream's.  Otherwise it
   returns False and upstream's unwinder goes on by its own rules, as
   it always does with --jit-unwind-scan=no. */

#include "pub_core_basics.h"
#include "pub_core_vki.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_aspacemgr.h"
#include "pub_core_options.h"     /* VG_(clo_jit_unwind_scan) */
#include "pub_core_jitreg.h"      /* self */

#include "priv_jitstore.h"        /* ML_(jit_overlaps_object_text) */

#if defined(VGA_amd64)

/* How far up from %rsp a return address is looked for. */
#define SCAN_BYTES 8192

/* Length of the ModRM-addressed operand starting at its ModRM byte
   m[0] (mod/rm forms, SIB, displacement). */
static UInt modrm_len ( const UChar* m )
{
   UInt mod = m[0] >> 6, rm = m[0] & 7, len = 1;
   if (mod == 3)
      return 1;
   if (rm == 4) {
      len++;                                   /* SIB */
      if (mod == 0 && (m[1] & 7) == 5)
         len += 4;                             /* no base: disp32 */
   } else if (mod == 0 && rm == 5) {
      return 5;                                /* RIP-relative */
   }
   if (mod == 1) len += 1;
   if (mod == 2) len += 4;
   return len;
}

/* Whether a may be a user-space code address (no segment lookup). */
static Bool in_user_range ( Addr a )
{
   return a >= 0x10000 && a <= 0x7FFFFFFFFFFFULL;
}

/* Whether ra is a return address: the bytes just before it, in
   executable client memory, are a call instruction. */
static Bool is_return_address ( Addr ra )
{
   const UChar* b;
   UInt k;
   if (!in_user_range(ra))
      return False;
   if (!VG_(am_is_valid_for_client)(ra - 8, 9, VKI_PROT_READ | VKI_PROT_EXEC))
      return False;
   b = (const UChar*)ra;
   if (b[-5] == 0xE8)
      return True;                             /* call rel32 */
   for (k = 2; k <= 8; k++) {
      const UChar* op = b - k;
      if (op[0] == 0xFF && ((op[1] >> 3) & 7) == 2
          && 1 + modrm_len(op + 1) == k)
         return True;                          /* call r/m64 */
      if (k >= 3 && (op[0] & 0xF0) == 0x40 && op[1] == 0xFF
          && ((op[2] >> 3) & 7) == 2 && 2 + modrm_len(op + 2) == k)
         return True;                          /* REX call r/m64 */
   }
   return False;
}

Bool VG_(jit_unwind_without_cfi) ( /*MOD*/D3UnwindRegs* uregs,
                                   Addr fp_min, Addr fp_max )
{
   Addr sp = uregs->xsp, bp = uregs->xbp, w, limit;

   if (!VG_(clo_jit_unwind_scan))
      return False;
   /* A frame at an address that is not client code is a guess already
      (upstream's word at %rsp, taken past the outermost frame): a scan
      from it would find nothing but cost a segment lookup a word. */
   if (!in_user_range(uregs->xip)
       || !VG_(am_is_valid_for_client)(uregs->xip, 1, VKI_PROT_EXEC))
      return False;
   if (ML_(jit_overlaps_object_text)(uregs->xip, 1))
      return False;   /* ELF code: upstream's rules */
   if (sp < fp_min || sp >= fp_max)
      return False;

   /* 1. A frame pointer whose frame holds a return address. */
   if (bp >= sp && bp >= fp_min && bp <= fp_max - 2 * sizeof(Addr)) {
      Addr ra = ((const Addr*)bp)[1];
      if (is_return_address(ra)) {
         uregs->xip = ra;
         uregs->xsp = bp + 2 * sizeof(Addr);
         uregs->xbp = ((const Addr*)bp)[0];
         return True;
      }
   }

   /* 2. The first return address on the stack. */
   limit = fp_max - sizeof(Addr);
   if (limit - sp > SCAN_BYTES)
      limit = sp + SCAN_BYTES;
   for (w = VG_ROUNDUP(sp, sizeof(Addr)); w <= limit; w += sizeof(Addr)) {
      Addr ra = *(const Addr*)w;
      if (is_return_address(ra)) {
         uregs->xip = ra;
         uregs->xsp = w + sizeof(Addr);
         return True;
      }
   }
   return False;
}

#else  /* !VGA_amd64 */

Bool VG_(jit_unwind_without_cfi) ( /*MOD*/D3UnwindRegs* uregs,
                                   Addr fp_min, Addr fp_max )
{
   (void)uregs; (void)fp_min; (void)fp_max;
   return False;
}

#endif

/*--------------------------------------------------------------------*/
/*--- end                                              jitunwind.c ---*/
/*--------------------------------------------------------------------*/
