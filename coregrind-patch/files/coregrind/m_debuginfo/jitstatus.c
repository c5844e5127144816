/*--------------------------------------------------------------------*/
/*--- JIT code registry: what its statuses say, and the refusals   ---*/
/*--- counted by status.                               jitstatus.c ---*/
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

/* Every operation of the registry answers a status (Vg_JitStatus of
   valgrind/jit.h, or one of the core's own, priv_jitreg.h): the client
   requests return it, and the warnings of every source (client
   requests, producer files, the GDB JIT interface, names waiting for
   their code) print its text.  The registrations and moves refused,
   from client requests and producer files, are counted here by status
   for the -v summary; each source counts its own as well, in arrays of
   the same slots, and prints them with ML_(jit_print_refusals). */

#include "pub_core_basics.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcprint.h"

#include "priv_jitreg.h"         /* self */
#include "priv_jitpending.h"     /* JIT_STATUS_WAITING */

/* Registrations and moves refused, and the same by status. */
static ULong refused = 0;
static ULong refused_by[JIT_N_STATUS_SLOTS];

const HChar* ML_(jit_status_text) ( Int st )
{
   switch (st) {
      case VG_JIT_OK:                  return "ok";
      case VG_JIT_ERR_NOT_RUNNING:     return "not running";
      case VG_JIT_ERR_BAD_DESCRIPTOR:  return "bad descriptor";
      case VG_JIT_ERR_BAD_NAME:        return "bad name";
      case VG_JIT_ERR_BAD_STRING:      return "bad object or file name";
      case VG_JIT_ERR_BAD_RANGE:       return "bad address range";
      case VG_JIT_ERR_NOT_CODE:        return "range is not executable"
                                              " client memory";
      case VG_JIT_ERR_OVERLAPS_OBJECT: return "range overlaps the text of"
                                              " a loaded object";
      case VG_JIT_ERR_BAD_LINE_TABLE:  return "bad line table";
      case VG_JIT_ERR_NOT_REGISTERED:  return "nothing registered there";
      case VG_JIT_ERR_BAD_UNWIND:      return "bad unwind information";
      case VG_JIT_ERR_BAD_INLINE:      return "bad inline table";
      case VG_JIT_WARN_REPLACED:       return "replaced overlapping code";
      case VG_JIT_WARN_LINES_DROPPED:  return "line-table entries dropped";
      case JIT_STATUS_RANGE_BUSY:      return "range holds registered code"
                                              " (only replaced at a safe"
                                              " point)";
      case JIT_STATUS_NAMED_LATE:      return "named code that ran there"
                                              " before it was unmapped";
      case VG_JIT_WARN_PENDING:
      case JIT_STATUS_WAITING:         return "waits for its range to"
                                              " become executable";
      default:                         return "unknown status";
   }
}

void ML_(jit_note_refused) ( Int st )
{
   refused++;
   refused_by[ML_(jit_status_slot)(st)]++;
}

ULong ML_(jit_n_refused) ( void )
{
   return refused;
}

Int ML_(jit_refusals_text) ( HChar* buf, const ULong* by )
{
   Int i, n = 0;
   buf[0] = 0;
   for (i = 0; i < JIT_N_STATUS_SLOTS; i++) {
      if (by[i] == 0)
         continue;
      n += VG_(sprintf)(buf + n, "%s%llu %s", n ? ", " : "", by[i],
                        i == 0 ? "other" : ML_(jit_status_text)(i));
   }
   return n;
}

void ML_(jit_print_refusals) ( const HChar* prefix, const ULong* by )
{
   HChar line[JIT_REFUSALS_BUF];
   if (ML_(jit_refusals_text)(line, by) > 0)
      VG_(umsg)("%s%s\n", prefix, line);
}

void ML_(jit_print_refusal_summary) ( void )
{
   ML_(jit_print_refusals)("JIT: refused: ", refused_by);
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
