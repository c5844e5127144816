
/*--------------------------------------------------------------------*/
/*--- Reading debug information that the client handed in.         ---*/
/*---                                                    jitguard.c ---*/
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

/* The trust boundary.  Bytes that the client controls reach readers
   that upstream wrote for files on disk: GDB JIT interface objects
   (.debug_line, .debug_info and the sections it refers to, .eh_frame,
   .debug_frame) and the .eh_frame of jitdump CODE_UNWINDING_INFO
   records and of VALGRIND_JIT_REGISTER_CODE.  Those readers end
   Valgrind on what they cannot handle, and a client's mistake must
   never do that.  The rule:

   1. What the registry's own code reads of client bytes (ELF and
      section headers, symbols, relocations, CIE pointer encodings) it
      checks before reading (jitgdb.c, jitgdbdwarf.c, jitcfi.c).
   2. Every call of an upstream reader on client bytes runs under
      ML_(jit_guarded): for its duration,
      - a read past the end of the image (image.c's overrun handler),
      - a failed vg_assert, or core panic, in the code the readers run
        (m_debuginfo and the containers and string functions they use),
      - a fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL) in Valgrind's own code
        (the same fault catcher Memcheck's leak search uses)
      ends the read instead of Valgrind.  readdwarf3.c, which has its
      own recovery point, takes such failures through it
      (ML_(jit_guard_divert)).  A reader that gives up by itself
      (ML_(symerr) with serious set: "Serious problem when reading debug
      info") reports to the guard instead of printing
      (ML_(jit_guard_note_failure)), and what it read is refused too.
   3. What a failed read gives is refused as a whole: the line table,
      CFI or inlined calls of that one object or record, with a warning
      that names it and says why, and a count in the -v summary.  What
      was valid elsewhere stays: an object with a corrupt .debug_line
      keeps its function names and its CFI.

   The test suite reaches this machinery through real reads with the
   hidden option --jit-guard-test=assert|fault|overrun (not in --help;
   a client cannot set Valgrind's options): every guarded read then
   fails in that way inside the guard, just before the reader runs, and
   the test checks that each is refused with its reason while the
   program runs on (tests/integration_gdbjit.cpp).  Without the option
   the code below costs one comparison per guarded read.

   Asserts in m_mallocfree and the address space manager are not taken:
   they mean that memory was corrupted, and going on would be worse than
   stopping.  A failed read may leak what the reader had allocated
   outside its DebugInfo (a few kilobytes per hostile object). */

#include "pub_core_basics.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_libcsetjmp.h"
#include "pub_core_libcsignal.h"
#include "pub_core_signals.h"
#include "pub_core_options.h"    /* VG_(clo_jit_guard_test) */
#include "priv_image.h"
#include "priv_jitguard.h"       /* self */

/* The values of --jit-guard-test (m_main.c). */
#define GUARD_TEST_NONE     0
#define GUARD_TEST_ASSERT   1
#define GUARD_TEST_FAULT    2
#define GUARD_TEST_OVERRUN  3
Int VG_(clo_jit_guard_test) = GUARD_TEST_NONE;

static Bool   guard_active  = False;
static Bool   guard_failing = False;   /* a failure is being delivered */
static void (*guard_divert)(const HChar*) = NULL;
static Bool   guard_noted   = False;
static HChar  guard_why[256];
static VG_MINIMAL_JMP_BUF(guard_env);

__attribute__((noreturn))
static void fail ( void )
{
   if (guard_divert != NULL && !guard_failing) {
      guard_failing = True;
      guard_divert(guard_why);
   }
   VG_MINIMAL_LONGJMP(guard_env);
}

__attribute__((noreturn))
static void on_overrun ( void )
{
   VG_(snprintf)(guard_why, sizeof(guard_why),
                 "a read past the end of its section");
   fail();
}

/* Whether an assertion of file (as __FILE__ names it) can be taken as
   a consequence of the input. */
static Bool takes_assert_of ( const HChar* file )
{
   return file == NULL
          || (VG_(strstr)(file, "m_mallocfree") == NULL
              && VG_(strstr)(file, "m_aspacemgr") == NULL);
}

static void on_assert ( const HChar* expr, const HChar* file, Int line,
                        const HChar* fn )
{
   if (!takes_assert_of(file))
      return;
   if (file == NULL)
      VG_(snprintf)(guard_why, sizeof(guard_why), "a failed check: %s",
                    expr);
   else
      VG_(snprintf)(guard_why, sizeof(guard_why),
                    "a failed check: '%s' at %s:%d (%s)",
                    expr, file, line, fn != NULL ? fn : "?");
   fail();
}

static void on_fault ( Int sigNo, Addr addr )
{
   vki_sigset_t mask;
   if (sigNo != VKI_SIGSEGV && sigNo != VKI_SIGBUS
       && sigNo != VKI_SIGFPE && sigNo != VKI_SIGILL)
      return;
   /* The handler runs with sigNo blocked: unblock it before leaving the
      handler by a jump, as Memcheck's leak search does. */
   VG_(sigprocmask)(VKI_SIG_SETMASK, NULL, &mask);
   VG_(sigdelset)(&mask, sigNo);
   VG_(sigprocmask)(VKI_SIG_SETMASK, &mask, NULL);
   VG_(snprintf)(guard_why, sizeof(guard_why),
                 "a fault (signal %d at address %#lx)", sigNo, addr);
   fail();
}

/* --jit-guard-test: the failure it asks for, made inside a guarded
   read as a reader would make it: a failed vg_assert in m_debuginfo, a
   load from address 0, a read past the end of an image. */
static void test_failure ( void )
{
   static UChar    byte = 0;
   static DiImage* img  = NULL;
   volatile Addr   zero = 0;
   switch (VG_(clo_jit_guard_test)) {
      case GUARD_TEST_ASSERT:
         vg_assert2(VG_(clo_jit_guard_test) != GUARD_TEST_ASSERT,
                    "--jit-guard-test=assert");
         break;
      case GUARD_TEST_FAULT:
         (void)*(volatile const UChar*)zero;
         break;
      case GUARD_TEST_OVERRUN:
         if (img == NULL)
            img = ML_(img_from_memory)((Addr)&byte, sizeof(byte),
                                       "jit-guard-test");
         (void)ML_(img_get_UChar)(img, sizeof(byte));
         break;
      default:
         break;
   }
}

const HChar* ML_(jit_guarded) ( void (*fn)(void* arg), void* arg )
{
   fault_catcher_t            prev_fault;
   assert_catcher_t           prev_assert;
   void                     (*prev_overrun)(void);
   vki_sigset_t               saved_mask;
   volatile Bool              failed = False;

   vg_assert(!guard_active);
   VG_(sigprocmask)(VKI_SIG_SETMASK, NULL, &saved_mask);
   guard_active  = True;
   guard_failing = False;
   guard_divert  = NULL;
   guard_noted   = False;
   guard_why[0]  = 0;
   prev_fault    = VG_(set_fault_catcher)(on_fault);
   prev_assert   = VG_(set_assert_catcher)(on_assert);
   prev_overrun  = ML_(img_set_overrun_handler)(on_overrun);
   if (VG_MINIMAL_SETJMP(guard_env) == 0) {
      if (UNLIKELY(VG_(clo_jit_guard_test) != GUARD_TEST_NONE))
         test_failure();
      fn(arg);
   } else {
      failed = True;
      VG_(sigprocmask)(VKI_SIG_SETMASK, &saved_mask, NULL);
   }
   ML_(img_set_overrun_handler)(prev_overrun);
   VG_(set_assert_catcher)(prev_assert);
   VG_(set_fault_catcher)(prev_fault);
   guard_active = False;
   guard_divert = NULL;
   return failed || guard_noted ? guard_why : NULL;
}

Bool ML_(jit_guard_divert) ( void (*fail_fn)(const HChar* why) )
{
   if (!guard_active)
      return False;
   guard_divert  = fail_fn;
   guard_failing = False;
   return True;
}

Bool ML_(jit_guard_note_failure) ( const HChar* why )
{
   if (!guard_active)
      return False;
   /* The first failure says why; readers may report more after it. */
   if (!guard_noted) {
      guard_noted = True;
      if (why != guard_why)
         VG_(snprintf)(guard_why, sizeof(guard_why), "%s",
                       why != NULL ? why : "the reader failed");
   }
   return True;
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
