/*--------------------------------------------------------------------*/
/*--- Callgrind                                                    ---*/
/*---                  Names that JIT code got late.   latenames.h ---*/
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

/* Included at the end of global.h: everything here uses its types. */

#ifndef CLG_LATENAMES_H
#define CLG_LATENAMES_H

/* --- from latenames.c (see there for the rules) --- */

/* Sets fn's late-naming fields to "nothing known" (a new node). */
void     CLG_(late_init_fn)(fn_node* fn);
/* fn is the address-named function of a new translation of code that
   no debug info described (bb): stamps it with the time and keeps it
   for binding. */
void     CLG_(late_note_unnamed)(fn_node* fn, BB* bb);
/* The node to dump in place of fn: the function that fn's address is
   named by now (fn itself, renamed, or another node), else fn. */
fn_node* CLG_(late_bound_fn)(fn_node* fn);
/* Whether fn's code got its name late (see CLG_(late_bound_fn)). */
Bool     CLG_(has_late_name)(fn_node* fn);
/* Before a dump: binds every context to the late names (with a -v
   message); returns how many contexts changed. */
UInt     CLG_(bind_late_names)(void);
/* bb, whose costs are kept, is discarded.  True if its positions must
   not be kept now (unnamed code: they come from its late name). */
Bool     CLG_(late_discard_bb)(BB* bb);
/* The position of addr in bbcc if its BB is unnamed code (sets *p and
   *found, returns True); False for other code. */
Bool     CLG_(late_debug_pos)(BBCC* bbcc, Addr addr, AddrPos* p,
                              Bool* found);
/* The position of addr, in the discarded bb whose kept position was
   not found, from the late name's line table: True and *p set, or
   False. */
Bool     CLG_(late_kept_pos)(BB* bb, Addr addr, AddrPos* p);
/* Before a dump: moves the current thread's BBCCs of late-named code
   entered by a jump to a context of their own function; returns how
   many moved. */
UInt     CLG_(charge_late_named_blocks)(void);

/* --- for latenames.c: from fn.c and context.c --- */

/* fn.c's hash of a name in a table of table_size chains. */
UInt      CLG_(fn_name_hash)(const HChar* name, UInt table_size);
/* Grows file's function table to size chains (at most fn.c's cap;
   never shrinks). */
void      CLG_(grow_fn_table)(file_node* file, UInt size);
/* The function fnname of file, created if needed. */
fn_node*  CLG_(get_fn_node_infile)(file_node* file, const HChar* fnname);
/* The table of contexts. */
cxt_hash* CLG_(get_cxt_hash)(void);

#endif /* CLG_LATENAMES_H */

/*--------------------------------------------------------------------*/
/*--- end                                              latenames.h ---*/
/*--------------------------------------------------------------------*/
