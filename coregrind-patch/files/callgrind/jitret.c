/*--------------------------------------------------------------------*/
/*--- Callgrind                                                    ---*/
/*---            Returns into JIT code below the call.    jitret.c ---*/
/*--------------------------------------------------------------------*/

/*
   This file is part of Callgrind, a Valgrind tool for call tracing.

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

/* Callgrind takes a return for the return of the call on top of its
   call stack only if the stack pointer after it is not below the one
   the call left (CLG_(setup_bbcc) in bbcc.c); a return below it is
   taken for a jump, and a jump out of a function is counted as a
   call.  JITs call out-of-line prologue routines that build the
   caller's frame and return into the caller below the frame they were
   called with: V8's baseline code (Sparkplug) starts with a call of
   the builtin BaselineOutOfLinePrologue, which pops its return
   address, pushes the frame of the baseline function and returns.
   Each call of a baseline function was counted twice: once from its
   caller, once from the prologue routine "calling" it.

   The rule: a return into JIT code (code that is in no ELF object's
   text: its object node has no text mapping, a JIT object named by the
   registry or the anonymous object "???") whose target is the return
   address of the call on top of the call stack returns from that call,
   wherever the stack pointer is.  Returns into ELF code are judged by
   stock Callgrind's rule, so the counts of programs without JIT code
   do not change (an ELF function returning below its frame to its
   caller is still a jump there). */

#include "global.h"

/* Whether a return to bb, with the stack pointer below the one that
   top_ce's call left, returns from that call (see above). */
Bool CLG_(jit_return_below_frame)(const call_entry* top_ce, BB* bb)
{
   const obj_node* obj = bb->obj;

   if (top_ce->ret_addr == 0 || top_ce->ret_addr != bb_addr(bb))
      return False;
   /* ELF code: its object node has the DebugInfo's text mapping. */
   if (obj->start != 0 || obj->size != 0)
      return False;
   CLG_DEBUG(1, "     Return below the call's frame into JIT code %#lx\n",
             bb_addr(bb));
   return True;
}

/*--------------------------------------------------------------------*/
/*--- end                                                 jitret.c ---*/
/*--------------------------------------------------------------------*/
