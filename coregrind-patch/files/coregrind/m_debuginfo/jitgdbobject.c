/*--------------------------------------------------------------------*/
/*--- The objects registered through the GDB JIT interface: their  ---*/
/*--- functions, waiting or registered.                jitgdbobject.c ---*/
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


/* jitgdb.c follows the protocol and reads each entry's object; this
   file keeps what an object registered: its functions in the JIT code
   registry (ML_(jit_register)), those whose code is not yet
   executable client memory in a pending list until an mprotect makes it
   so, its CFI and inlined calls in the CFI store; and removes them when
   the entry is unregistered or reused, keeping the functions whose code
   stays mapped (jitkeep.c).  One warning per object sums up its refused
   functions and dropped line-table entries (FnTally). */

#include "pub_core_basics.h"
#include "pub_core_vki.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_options.h"
#include "pub_core_aspacemgr.h"
#include "pub_core_hashtable.h"
#include "pub_core_xarray.h"

#include "priv_misc.h"           /* dinfo_zalloc/free/strdup */
#include "priv_image.h"
#include "priv_d3basics.h"
#include "priv_tytypes.h"
#include "priv_storage.h"
#include "priv_jitreg.h"
#include "priv_jitcfi.h"         /* the CFI store */
#include "priv_jitkeep.h"        /* code kept after unregistration */
#include "priv_jitgdb.h"         /* self */


/* A registered code entry (by client address). */
typedef
   struct _GdbObject {
      struct _GdbObject* next;   /* VgHashNode */
      UWord              key;    /* the entry's client address */
      Addr               symfile_addr;
      ULong              symfile_size;
      HChar*             name;   /* the object's name (owned) */
      XArray*            fns;    /* of Addr: starts registered */
      UInt               n_pending;
      DedupPoolAlloc*    paths;  /* source paths of its line tables, or
                                    NULL (owned) */
      Bool               has_dwarf; /* its CFI and inlined calls are in
                                    the CFI store (jitcfi.c) */
      Addr               dwarf_lo; /* their range's start there */
   }
   GdbObject;

/* A function waiting for its code to become executable. */
typedef
   struct {
      UWord  key;      /* its GdbObject */
      Addr   start;
      UWord  size;
      HChar* name;     /* owned */
      JitSrcLine* lines;   /* owned, or NULL; files in the object's paths */
      UWord  n_lines;
   }
   GdbPending;

/* The functions of one object refused or registered with line-table
   entries dropped, for one warning each per object. */
typedef
   struct {
      UInt         n_refused;
      ULong        refused_by[JIT_N_STATUS_SLOTS];
      HChar        first_name[JIT_PRINTABLE_BUF];  /* the first refused */
      Addr         first_start;
      UWord        first_size;
      UInt         n_long_names; /* names above VG_JIT_MAX_STRING */
      SizeT        longest_name;
      UInt         n_dropping;   /* functions that lost line entries */
      JitLineDrops drops;        /* their entries, by reason */
   }
   FnTally;

static VgHashTable* objects     = NULL;   /* of GdbObject */
static XArray*      pending     = NULL;   /* of GdbPending */
static ULong        n_object_ids = 0;

static GdbObjectStats stats;

static void init ( void )
{
   if (objects != NULL)
      return;
   objects = VG_(HT_construct)("di.jitgdb.objects");
   pending = VG_(newXA)(ML_(dinfo_zalloc), "di.jitgdb.pending",
                        ML_(dinfo_free), sizeof(GdbPending));
}


/*------------------------------------------------------------*/
/*--- CFI and inlined calls for the unwinder and describers ---*/
/*------------------------------------------------------------*/

/* Stops using obj's CFI and inlined calls (unless a newer object's
   replaced them in the store). */
static void drop_dwarf ( GdbObject* obj )
{
   if (!obj->has_dwarf)
      return;
   (void)ML_(jit_cfi_remove)(obj->dwarf_lo, JitCfiGdbObject, obj->key);
   obj->has_dwarf = False;
}

/* Uses di for [lo, hi), obj's code (the store drops the CFI of older
   objects whose ranges overlap it). */
static void use_dwarf ( GdbObject* obj, DebugInfo* di, Addr lo, Addr hi )
{
   /* Code kept after an unregistration there is gone first, with its
      CFI (which the entry added below would otherwise replace). */
   ML_(jit_kept_end_range)(lo, hi - lo, JitKeptReused);
   if (di->cfsi_used > 0)
      stats.objects_with_cfi++;
   if (di->inltab_used > 0)
      stats.objects_with_inlined++;
   ML_(jit_cfi_add)(lo, hi, di, JitCfiGdbObject, obj->key);
   obj->has_dwarf = True;
   obj->dwarf_lo  = lo;
}


/*------------------------------------------------------------*/
/*--- Registering and unregistering objects                ---*/
/*------------------------------------------------------------*/

static Bool is_exec ( Addr a, UWord len )
{
   return VG_(am_is_valid_for_client)(a, len, VKI_PROT_EXEC);
}

/* Gives the warnings t has gathered about functions of the object
   `what` names: one for those refused, one for those that lost
   line-table entries. */
static void report_fns ( const FnTally* t, const HChar* what )
{
   HChar by[JIT_REFUSALS_BUF];
   HChar drops[400];
   if (t->n_refused > 0) {
      ML_(jit_refusals_text)(by, t->refused_by);
      ML_(jit_gdb_warn)("%u function%s of %s refused: %s (the first: %s at "
                        "%#lx, %lu bytes)\n", t->n_refused,
                        t->n_refused == 1 ? "" : "s", what, by, t->first_name,
                        t->first_start, t->first_size);
   }
   if (t->n_long_names > 0)
      ML_(jit_gdb_warn)("%u function%s of %s refused: the name is longer than "
                        "%d bytes (VG_JIT_MAX_STRING; the longest is %lu "
                        "bytes)\n", t->n_long_names,
                        t->n_long_names == 1 ? "" : "s", what,
                        VG_JIT_MAX_STRING, t->longest_name);
   if (t->n_dropping > 0) {
      ML_(jit_line_drops_text)(drops, sizeof(drops), &t->drops, 0);
      ML_(jit_gdb_warn)("line-table entries of %u function%s of %s dropped: "
                        "%s\n", t->n_dropping, t->n_dropping == 1 ? "" : "s",
                        what, drops);
   }
}

/* Counts a function name longer than VG_JIT_MAX_STRING in t. */
static void tally_long_name ( FnTally* t, SizeT len )
{
   stats.functions_refused++;
   t->n_long_names++;
   if (len > t->longest_name)
      t->longest_name = len;
}

/* Registers one function of obj in the registry; True if it is.  A
   refusal or dropped line-table entries are counted in t. */
static Bool register_fn ( GdbObject* obj, Addr start, UWord size,
                          const HChar* name,
                          const JitSrcLine* lines, UWord n_lines,
                          FnTally* t )
{
   JitRegistration reg = { 0 };
   JitLineDrops    drops;
   Int             st;
   reg.start  = start;
   reg.size   = size;
   reg.name   = name;
   reg.object = obj->name;
   reg.lines   = lines;
   reg.n_lines = n_lines;
   reg.drops   = &drops;
   st = ML_(jit_register)(&reg, JitAtSafePoint);
   if (!ML_(jit_status_applied)(st)) {
      stats.functions_refused++;
      if (t->n_refused++ == 0) {
         ML_(jit_printable_copy)(t->first_name, name);
         t->first_start = start;
         t->first_size  = size;
      }
      t->refused_by[ML_(jit_status_slot)(st)]++;
      return False;
   }
   if (st == VG_JIT_WARN_LINES_DROPPED) {
      t->n_dropping++;
      ML_(jit_line_drops_add)(&t->drops, &drops);
   }
   VG_(addToXA)(obj->fns, &start);
   stats.functions++;
   if (n_lines > 0)
      stats.functions_with_lines++;
   return True;
}

/* Removes what obj registered (and its pending functions), then obj. */
static void unregister_object ( GdbObject* obj, const HChar* why )
{
   Word i;
   UInt n = 0;
   for (i = 0; i < VG_(sizeXA)(obj->fns); i++) {
      Addr start = *(const Addr*)VG_(indexXA)(obj->fns, i);
      if (ML_(jit_unregister)(start) == VG_JIT_OK)
         n++;
   }
   if (obj->n_pending > 0) {
      Word j = 0;
      for (i = 0; i < VG_(sizeXA)(pending); i++) {
         GdbPending* p = VG_(indexXA)(pending, i);
         if (p->key == obj->key) {
            ML_(dinfo_free)(p->name);
            if (p->lines != NULL)
               ML_(dinfo_free)(p->lines);
            continue;
         }
         *(GdbPending*)VG_(indexXA)(pending, j++) = *p;
      }
      VG_(dropTailXA)(pending, VG_(sizeXA)(pending) - j);
   }
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit-gdb: %s entry %#lx (%s): %u functions removed\n",
                why, obj->key, obj->name, n);
   (void)VG_(HT_remove)(objects, obj->key);
   VG_(deleteXA)(obj->fns);
   if (obj->paths != NULL)
      VG_(deleteDedupPA)(obj->paths);
   drop_dwarf(obj);
   ML_(dinfo_free)(obj->name);
   ML_(dinfo_free)(obj);
}

/* Removes obj, which its JIT unregistered, but keeps its functions
   whose code stays mapped (jitkeep.c) with their names, line tables,
   CFI and inlined calls: LLVM JITs unregister each object when they
   dispose of their execution engine, and memory managers that outlive
   it (Mesa's llvmpipe) keep running the code. */
static void unregister_object_keeping_code ( GdbObject* obj )
{
   UWord n     = (UWord)VG_(sizeXA)(obj->fns);
   UWord n_kept = ML_(jit_keep_unregistered)(
                     n > 0 ? (const Addr*)VG_(indexXA)(obj->fns, 0) : NULL,
                     n, obj->has_dwarf, obj->dwarf_lo, JitCfiGdbObject,
                     obj->key);
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit-gdb: unregister entry %#lx (%s): %lu functions kept"
                " while their code stays\n", obj->key, obj->name, n_kept);
   /* Its CFI belongs to the kept functions now, and no function is
      left to unregister. */
   obj->has_dwarf = False;
   VG_(dropTailXA)(obj->fns, VG_(sizeXA)(obj->fns));
   unregister_object(obj, "unregister");
}

void ML_(jit_gdb_register_beam) ( Addr ea, Addr symfile_addr,
                                  ULong symfile_size, GdbBeamModule* mod )
{
   GdbObject* obj = ML_(dinfo_zalloc)("di.jitgdb.object", sizeof(GdbObject));
   Word       i;
   UInt       n_now = 0;
   FnTally    tally;
   HChar      what[JIT_PRINTABLE_BUF + 48];
   init();
   VG_(memset)(&tally, 0, sizeof(tally));
   obj->key          = ea;
   obj->symfile_addr = symfile_addr;
   obj->symfile_size = symfile_size;
   obj->name         = mod->module;
   obj->paths        = mod->paths;
   obj->fns = VG_(newXA)(ML_(dinfo_zalloc), "di.jitgdb.obj.fns",
                         ML_(dinfo_free), sizeof(Addr));
   VG_(HT_add_node)(objects, obj);
   stats.registered++;
   stats.beam_modules++;
   for (i = 0; i < VG_(sizeXA)(mod->fns); i++) {
      GdbBeamFn* f = VG_(indexXA)(mod->fns, i);
      if (is_exec(f->start, f->size)) {
         if (register_fn(obj, f->start, f->size, f->name,
                         f->lines, f->n_lines, &tally))
            n_now++;
      } else {
         GdbPending p;
         p.key     = ea;
         p.start   = f->start;
         p.size    = f->size;
         p.name    = f->name;
         p.lines   = f->lines;
         p.n_lines = f->n_lines;
         f->name   = ML_(dinfo_strdup)("di.jitgdb.pending.name", "");
         f->lines  = NULL;
         VG_(addToXA)(pending, &p);
         obj->n_pending++;
      }
   }
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit-gdb: register entry %#lx: Erlang module %s (%#lx, "
                "%llu bytes): %lu functions, %u registered, %u waiting for"
                " executable code\n",
                ea, obj->name, symfile_addr, symfile_size,
                (UWord)VG_(sizeXA)(mod->fns), n_now, obj->n_pending);
   ML_(jit_printable_copy)(what, obj->name);
   VG_(sprintf)(what + VG_(strlen)(what), " (entry %#lx)", ea);
   report_fns(&tally, what);
   ML_(jit_gdb_beam_free_fns)(mod->fns);
}

/* A new registered object for entry ea, named after its source file
   (or "<jit object #N>" when it has none or it is too long). */
static GdbObject* new_elf_object ( Addr ea, Addr symfile_addr,
                                   ULong symfile_size, const HChar* file )
{
   HChar      buf[48];
   GdbObject* obj = ML_(dinfo_zalloc)("di.jitgdb.object", sizeof(GdbObject));
   obj->key          = ea;
   obj->symfile_addr = symfile_addr;
   obj->symfile_size = symfile_size;
   n_object_ids++;
   if (file != NULL && VG_(strlen)(file) <= VG_JIT_MAX_STRING) {
      obj->name = ML_(dinfo_strdup)("di.jitgdb.name", file);
   } else {
      VG_(snprintf)(buf, sizeof(buf), "<jit object #%llu>", n_object_ids);
      obj->name = ML_(dinfo_strdup)("di.jitgdb.name", buf);
   }
   obj->fns = VG_(newXA)(ML_(dinfo_zalloc), "di.jitgdb.obj.fns",
                         ML_(dinfo_free), sizeof(Addr));
   VG_(HT_add_node)(objects, obj);
   stats.registered++;
   return obj;
}

/* Reads the DWARF of obj (entry ea, image img[0..n)) for its functions
   fns (of GdbObjFn) into *dwarf, warns about what is refused, and hands its
   CFI and inlined calls to the CFI store. */
static void read_object_dwarf ( GdbObject* obj, Addr ea, const UChar* img,
                                ULong n, const XArray* fns,
                                /*OUT*/GdbDwarf* dwarf )
{
   Addr code_lo = ~(Addr)0, code_hi = 0;
   Word i;
   for (i = 0; i < VG_(sizeXA)(fns); i++) {
      const GdbObjFn* f = VG_(indexXA)(fns, i);
      if (f->start < code_lo) code_lo = f->start;
      if (f->start + f->size > code_hi) code_hi = f->start + f->size;
   }
   ML_(jit_gdb_dwarf_read)(img, n, code_lo, code_hi, obj->name, dwarf);
   if (dwarf->lines_why != NULL) {
      stats.line_tables_refused++;
      ML_(jit_gdb_warn)("line table of %s (entry %#lx) refused: %s\n",
                        obj->name, ea, dwarf->lines_why);
   }
   if (dwarf->cfi_why != NULL) {
      stats.cfi_refused++;
      ML_(jit_gdb_warn)("CFI of %s (entry %#lx) refused: %s\n", obj->name, ea,
                        dwarf->cfi_why);
   }
   if (dwarf->inl_why != NULL) {
      stats.inlined_refused++;
      ML_(jit_gdb_warn)("inlined calls of %s (entry %#lx) refused: %s\n",
                        obj->name, ea, dwarf->inl_why);
   }
   if (dwarf->kept != NULL)
      use_dwarf(obj, dwarf->kept, code_lo, code_hi);
}

/* Registers the functions fns (of GdbObjFn) of obj (entry ea) with their
   lines from `lines` (may be NULL): those in executable memory now, the
   others when it becomes so (`pending`).  Returns how many were
   registered now; refusals are counted in *tally. */
static UInt register_object_fns ( GdbObject* obj, Addr ea,
                                  const XArray* fns, const GdbLineSet* lines,
                                  FnTally* tally )
{
   UInt n_now = 0;
   Word i;
   for (i = 0; i < VG_(sizeXA)(fns); i++) {
      const GdbObjFn* f = VG_(indexXA)(fns, i);
      UWord        n_lines;
      JitSrcLine*  fn_lines;
      SizeT        name_len = VG_(strlen)(f->name);
      if (name_len > VG_JIT_MAX_STRING) {
         tally_long_name(tally, name_len);
         continue;
      }
      fn_lines = ML_(jit_gdb_lines_for)(lines, f->start, f->size, &n_lines);
      if (is_exec(f->start, f->size)) {
         if (register_fn(obj, f->start, f->size, f->name,
                         fn_lines, n_lines, tally))
            n_now++;
         if (fn_lines != NULL)
            ML_(dinfo_free)(fn_lines);
      } else {
         GdbPending p;
         p.key     = ea;
         p.start   = f->start;
         p.size    = f->size;
         p.name    = ML_(dinfo_strdup)("di.jitgdb.pending.name", f->name);
         p.lines   = fn_lines;
         p.n_lines = n_lines;
         VG_(addToXA)(pending, &p);
         obj->n_pending++;
      }
   }
   return n_now;
}

void ML_(jit_gdb_register_elf) ( Addr ea, Addr symfile_addr,
                                 ULong symfile_size, const UChar* img,
                                 const XArray* fns, const HChar* file )
{
   GdbObject* obj;
   UInt       n_now;
   GdbDwarf   dwarf;
   FnTally    tally;
   HChar      what[JIT_PRINTABLE_BUF + 48];

   init();
   obj = new_elf_object(ea, symfile_addr, symfile_size, file);
   read_object_dwarf(obj, ea, img, symfile_size, fns, &dwarf);
   VG_(memset)(&tally, 0, sizeof(tally));
   n_now = register_object_fns(obj, ea, fns, dwarf.lines, &tally);
   if (dwarf.lines != NULL) {
      obj->paths = ML_(jit_gdb_lines_take_paths)(dwarf.lines);
      ML_(jit_gdb_lines_free)(dwarf.lines);
   }
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit-gdb: register entry %#lx: object %#lx (%llu bytes)"
                " %s: %lu functions, %u registered, %u waiting for"
                " executable code\n",
                ea, symfile_addr, symfile_size, obj->name,
                (UWord)VG_(sizeXA)(fns), n_now, obj->n_pending);
   ML_(jit_printable_copy)(what, obj->name);
   VG_(sprintf)(what + VG_(strlen)(what), " (entry %#lx)", ea);
   report_fns(&tally, what);
}

Bool ML_(jit_gdb_entry_registered) ( Addr ea, Addr symfile_addr,
                                     ULong symfile_size )
{
   GdbObject* obj;
   init();
   obj = VG_(HT_lookup)(objects, ea);
   if (obj == NULL)
      return False;
   if (obj->symfile_addr == symfile_addr && obj->symfile_size == symfile_size)
      return True;
   /* The entry's memory was reused without an unregistration. */
   unregister_object(obj, "replace");
   return False;
}

Bool ML_(jit_gdb_unregister_entry) ( Addr ea )
{
   GdbObject* obj;
   init();
   obj = VG_(HT_lookup)(objects, ea);
   if (obj == NULL)
      return False;
   stats.unregistered++;
   unregister_object_keeping_code(obj);
   return True;
}

void ML_(jit_gdb_notify_mprotect) ( Addr a, SizeT len, UInt prot )
{
   Word    i, j;
   FnTally tally;
   HChar   what[64];
   ML_(jit_kept_notify_mprotect)(a, len, prot);
   if (pending == NULL || VG_(sizeXA)(pending) == 0
       || !(prot & VKI_PROT_EXEC) || len == 0)
      return;
   VG_(memset)(&tally, 0, sizeof(tally));
   /* Take the ready ones out first: registering discards translations,
      which calls the tool, which must see a consistent list. */
   for (i = 0; i < VG_(sizeXA)(pending); ) {
      GdbPending p = *(const GdbPending*)VG_(indexXA)(pending, i);
      GdbObject* obj;
      if (!(p.start < a + len && a < p.start + p.size)
          || !is_exec(p.start, p.size)) {
         i++;
         continue;
      }
      /* Remove entry i (order does not matter). */
      j = VG_(sizeXA)(pending) - 1;
      *(GdbPending*)VG_(indexXA)(pending, i)
         = *(const GdbPending*)VG_(indexXA)(pending, j);
      VG_(dropTailXA)(pending, 1);
      obj = VG_(HT_lookup)(objects, p.key);
      if (obj != NULL) {
         obj->n_pending--;
         (void)register_fn(obj, p.start, p.size, p.name,
                           p.lines, p.n_lines, &tally);
      }
      ML_(dinfo_free)(p.name);
      if (p.lines != NULL)
         ML_(dinfo_free)(p.lines);
   }
   VG_(sprintf)(what, "the code made executable at %#lx-%#lx", a, a + len);
   report_fns(&tally, what);
}

void ML_(jit_gdb_object_stats) ( /*OUT*/GdbObjectStats* out )
{
   *out = stats;
   out->waiting = pending != NULL ? (UWord)VG_(sizeXA)(pending) : 0;
}

/*--------------------------------------------------------------------*/
/*--- end                                           jitgdbobject.c ---*/
/*--------------------------------------------------------------------*/
