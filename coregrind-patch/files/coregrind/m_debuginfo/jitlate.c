
/*--------------------------------------------------------------------*/
/*--- Names that arrive late: producer files read at client exit.  ---*/
/*---                                                    jitlate.c ---*/
/*--------------------------------------------------------------------*/

/*
   This file is part of Valgrind, a dynamic binary instrumentation
   framework.

   Copyright (C) 2026 the valgrind-jit authors.

   This program is free software; you can redistribute it and/or
   modify it under the terms of the GNU General Public License as
   published by the Free Software Foundation; either version 2 of the
   License, or (at your option) any later version.

   This program is distributed in the hope that it will be useful, but
   WITHOUT ANY WARRANTY; without even the implied warranty of
   MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
   General Public License for more details.

   You should have received a copy of the GNU General Public License
   along with this program; if not, see <http://www.gnu.org/licenses/>.

   The GNU General Public License is contained in the file COPYING.
*/

/* Producers buffer what they write (CPython 3.13's jitdump writer, V8's
   4 KiB blocks) or write their perf map only at exit (HotSpot's
   -XX:+DumpPerfMapAtExit), so many names reach the files after the code
   they describe ran.  When the client has exited, and before the tool
   writes its results (tool_fini), the core reads every followed file to
   its end and opens a perf map that appeared only now.

   Registrations made then differ from those made while the client runs:

   - No translation is discarded.  Nothing runs any more, and a discard
     would make Callgrind freeze the source positions of the discarded
     blocks as they are now, without the names that just arrived.
   - A function that replaces nothing is valid from the first epoch on
     (first_epoch 0): stack traces recorded while it ran, before its name
     arrived (Memcheck's leak check, origins), are described with it.  A
     function that replaces another one at exit is valid only from now
     on, so earlier code is never described with a name it did not have.

   Tools that bind names when they write their results (Callgrind at
   dump time, Cachegrind at exit) look them up in the epoch that
   VG_(jit_late_name_epoch) gives: the current one, or, for code the
   runtime freed before it exited (the registry keeps unmapped functions),
   the last epoch in which the address had a function. */

#include "pub_core_basics.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcprint.h"
#include "pub_core_options.h"
#include "pub_core_transtab.h"
#include "pub_core_jitreg.h"

#include "priv_jitreg.h"
#include "priv_jitstore.h"

/* True from the start of VG_(jit_read_producers_at_exit) on. */
static Bool  exiting = False;
/* Functions registered at exit (counted for -v). */
static ULong n_named_at_exit = 0;

Bool ML_(jit_is_exiting) ( void )
{
   return exiting;
}

void ML_(jit_discard_translations) ( Addr a, ULong len, const HChar* who )
{
   if (exiting)
      return;   /* nothing runs any more: keep what the tool knows */
   /* Code just emitted never ran: skip the call (and its debug-log
      line), which would find nothing to discard. */
   if (!VG_(may_have_translations)(a, len))
      return;
   VG_(discard_translations)(a, len, who);
}

UInt ML_(jit_first_epoch_for_new) ( Bool replaces_code )
{
   if (exiting) {
      n_named_at_exit++;
      if (!replaces_code)
         return 0;
   }
   return VG_(current_DiEpoch)().n;
}

void VG_(jit_read_producers_at_exit) ( void )
{
   if (exiting)
      return;
   exiting = True;
   ML_(jit_read_files_to_end)();
}

DiEpoch VG_(jit_late_name_epoch) ( Addr a )
{
   DiEpoch ep = VG_(current_DiEpoch)();
   UInt    last;
   if (ML_(jit_fn_containing)(a).c == NULL
       && ML_(jit_last_archived_at)(a, &last))
      ep.n = last;   /* unmapped since: the epoch it was last valid in */
   return ep;
}

void ML_(jit_print_late_summary) ( void )
{
   if (VG_(clo_verbosity) < 2 || !exiting)
      return;
   VG_(umsg)("JIT: %llu functions named at exit (from producer files "
             "read to their end)\n", n_named_at_exit);
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
