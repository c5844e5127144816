
/*--------------------------------------------------------------------*/
/*--- Reading objects registered through the GDB JIT interface.    ---*/
/*---                                                     jitgdb.c ---*/
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

/* The protocol (GDB manual, "JIT Compilation Interface")
   -----------------------------------------------------
   A JIT defines, in one of its objects,

      struct jit_code_entry { jit_code_entry* next_entry;
                              jit_code_entry* prev_entry;
                              const char*     symfile_addr;
                              uint64_t        symfile_size; };
      struct jit_descriptor { uint32_t version;       (1)
                              uint32_t action_flag;   (0 none,
                                                       1 register,
                                                       2 unregister)
                              jit_code_entry* relevant_entry;
                              jit_code_entry* first_entry; };
      struct jit_descriptor __jit_debug_descriptor;
      void __jit_debug_register_code(void);   (empty, not inlined)

   To register an object (an ELF file image in its memory) it links a
   new entry into the list, sets action_flag and relevant_entry and
   calls __jit_debug_register_code; to unregister, it unlinks the entry
   first.  LLVM registers relocatable objects (ET_REL) whose section
   headers it has rewritten to hold the sections' load addresses, so a
   symbol's address is its section's sh_addr plus its st_value; objects
   of other types hold absolute symbol values.

   Design
   ------
   The core's preload library wraps __jit_debug_register_code of every
   object (soname "*") and passes the wrapped function's address to the
   core before calling it.  The DebugInfo holding that address is the
   object whose __jit_debug_descriptor describes the change, as a
   debugger pairs them; the pairing is cached per DebugInfo.  The first
   time a descriptor is seen, its whole list is read, so entries made
   before (or without) a notification are registered too.  Processing
   is idempotent: an entry already registered with the same object is
   left alone, an unknown entry being unregistered is ignored.

   Each object is copied from client memory into core memory before it
   is parsed (the client may change it meanwhile), and every offset,
   size and index in it is checked against the copy by the rules of
   readgdbelf.c, which vg-jit applies too; a bad object is refused as a
   whole, with a warning.  Its function symbols (.symtab,
   STT_FUNC, in an executable section, size > 0) are registered in the
   JIT code registry (ML_(jit_register)), named after the object's
   STT_FILE symbol (the module's source file) or "<jit object #N>", so
   lookups stay as flat as for any registered code and the registry's
   epoch rules apply.  Functions whose code is not yet executable
   client memory wait in a pending list until an mprotect makes it so.
   Unregistering an entry removes the functions it registered.

   An object's DWARF line tables (jitgdbdwarf.c) are read when the
   object is registered, and each function is registered with the
   entries that cover its code (a waiting function keeps them until it
   is registered); a line table that cannot be read is refused with a
   warning and the object keeps its names. */

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
#include "pub_core_jitgdb.h"     /* self */

#include "priv_misc.h"           /* dinfo_zalloc/free/strdup */
#include "priv_image.h"
#include "priv_d3basics.h"
#include "priv_tytypes.h"
#include "priv_storage.h"
#include "priv_jitreg.h"
#include "priv_jitcfi.h"         /* the CFI store */
#include "priv_jitkeep.h"        /* code kept after unregistration */
#include "priv_jitgdb.h"         /* self */
#include "priv_readbeamjit.h"    /* BEAMJIT_* */
#include "priv_readgdbelf.h"     /* the ELF object rules */


/* Limits on what a client may hand in. */
#define MAX_OBJECT_SIZE   GDBELF_MAX_OBJECT_SIZE /* bytes per object */
#define MAX_LIST_ENTRIES  (1UL << 22)            /* entries per list */
#define MAX_WARNINGS      100

/* The client's layouts (same word size as the core). */
typedef
   struct {
      Addr  next_entry;
      Addr  prev_entry;
      Addr  symfile_addr;
      ULong symfile_size;
   }
   GdbCodeEntry;

typedef
   struct {
      UInt version;
      UInt action_flag;
      Addr relevant_entry;
      Addr first_entry;
   }
   GdbDescriptor;

#define GDB_JIT_NOACTION   0
#define GDB_JIT_REGISTER   1
#define GDB_JIT_UNREGISTER 2

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

/* A DebugInfo and the descriptor found in it (0: none). */
typedef
   struct {
      ULong di_handle;
      Addr  desc;
   }
   GdbDescCache;

/* An entry whose object was refused during the notification being
   handled, remembered so that seeing it again then (on the list read
   whole, then as the relevant entry) gives no second warning.  The
   client does not run during a notification, so the entry cannot
   change; a later notification reads it again. */
typedef
   struct _GdbRefused {
      struct _GdbRefused* next;   /* VgHashNode */
      UWord               key;    /* the entry's client address */
   }
   GdbRefused;

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
static VgHashTable* refused     = NULL;   /* of GdbRefused */
static UWord        n_refused_now = 0;    /* nodes in refused */
static XArray*      pending     = NULL;   /* of GdbPending */
static XArray*      desc_cache  = NULL;   /* of GdbDescCache */
static XArray*      descs_seen  = NULL;   /* of Addr: lists read whole */
static ULong        n_object_ids = 0;

static struct {
   ULong notifications;
   ULong descriptors;
   ULong registered;
   ULong unregistered;
   ULong refused;
   ULong functions;
   ULong functions_refused;
   ULong functions_with_lines;
   ULong line_tables_refused;
   ULong objects_with_cfi;
   ULong cfi_refused;
   ULong objects_with_inlined;
   ULong inlined_refused;
   ULong beam_modules;   /* Erlang/OTP entries read (jitgdbbeam.c) */
   ULong not_elf;        /* other objects that are not ELF: skipped */
}
stats;

static UInt  n_warnings = 0;
static ULong n_warnings_hidden = 0;   /* past MAX_WARNINGS */

static void warn ( const HChar* fmt, ... ) PRINTF_CHECK(1, 2);
static void warn ( const HChar* fmt, ... )
{
   va_list vargs;
   HChar   buf[512];
   if (n_warnings >= MAX_WARNINGS) {
      n_warnings_hidden++;
      return;
   }
   n_warnings++;
   va_start(vargs, fmt);
   VG_(vsnprintf)(buf, sizeof(buf), fmt, vargs);
   va_end(vargs);
   VG_(umsg)("Warning: GDB JIT interface: %s", buf);
   if (n_warnings == MAX_WARNINGS)
      VG_(umsg)("Warning: further GDB JIT interface warnings"
                " are only counted\n");
}

static void init ( void )
{
   if (objects != NULL)
      return;
   objects    = VG_(HT_construct)("di.jitgdb.objects");
   refused    = VG_(HT_construct)("di.jitgdb.refused");
   pending    = VG_(newXA)(ML_(dinfo_zalloc), "di.jitgdb.pending",
                           ML_(dinfo_free), sizeof(GdbPending));
   desc_cache = VG_(newXA)(ML_(dinfo_zalloc), "di.jitgdb.desc_cache",
                           ML_(dinfo_free), sizeof(GdbDescCache));
   descs_seen = VG_(newXA)(ML_(dinfo_zalloc), "di.jitgdb.descs_seen",
                           ML_(dinfo_free), sizeof(Addr));
}

/* Reads the client's entry at a; False if it is not readable. */
static Bool read_entry ( Addr a, /*OUT*/GdbCodeEntry* e )
{
   if (!VG_IS_WORD_ALIGNED(a) || !ML_(jit_client_readable)(a, sizeof(*e)))
      return False;
   VG_(memcpy)(e, (const void*)a, sizeof(*e));
   return True;
}


/*------------------------------------------------------------*/
/*--- Finding the descriptor                               ---*/
/*------------------------------------------------------------*/

/* Is name "__jit_debug_descriptor", possibly with an ELF symbol version
   ("@LLVM_14", "@@LLVM_14")? */
static Bool is_descriptor_name ( const HChar* name )
{
   static const HChar want[] = "__jit_debug_descriptor";
   SizeT n = sizeof(want) - 1;
   return name != NULL && VG_(strncmp)(name, want, n) == 0
          && (name[n] == 0 || name[n] == '@');
}

/* The address of the data symbol __jit_debug_descriptor in di, or 0. */
static Addr find_descriptor_in ( const DebugInfo* di )
{
   Word i;
   for (i = 0; i < di->symtab_used; i++) {
      const DiSym* s = &di->symtab[i];
      if (s->isText)
         continue;
      if (is_descriptor_name(s->pri_name))
         return s->avmas.main;
      if (s->sec_names != NULL) {
         const HChar** sn;
         for (sn = s->sec_names; *sn != NULL; sn++)
            if (is_descriptor_name(*sn))
               return s->avmas.main;
      }
   }
   return 0;
}

/* The descriptor paired with the __jit_debug_register_code at orig_fn:
   the one defined by the same object; 0 if there is none. */
static Addr descriptor_for ( Addr orig_fn )
{
   GdbDescCache c;
   Word         i;
   DebugInfo*   di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), orig_fn);
   if (di == NULL || di->handle == 0)
      return 0;
   for (i = 0; i < VG_(sizeXA)(desc_cache); i++) {
      const GdbDescCache* p = VG_(indexXA)(desc_cache, i);
      if (p->di_handle == di->handle)
         return p->desc;
   }
   c.di_handle = di->handle;
   c.desc      = find_descriptor_in(di);
   VG_(addToXA)(desc_cache, &c);
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit-gdb: %s: __jit_debug_descriptor %s%#lx\n",
                di->fsm.filename ? di->fsm.filename : "???",
                c.desc ? "at " : "not found, ", c.desc);
   return c.desc;
}

static Bool read_descriptor ( Addr a, /*OUT*/GdbDescriptor* d )
{
   if (!VG_IS_4_ALIGNED(a) || !ML_(jit_client_readable)(a, sizeof(*d)))
      return False;
   VG_(memcpy)(d, (const void*)a, sizeof(*d));
   return True;
}


/*------------------------------------------------------------*/
/*--- Parsing an object (in core memory)                   ---*/
/*------------------------------------------------------------*/

/* A function found in an object. */
typedef
   struct {
      Addr         start;
      UWord        size;
      const HChar* name;   /* in the object's copy */
   }
   ObjFn;

/* Appends the function f, found by the shared reader, to fns (an
   XArray of ObjFn). */
static void add_fn ( void* fns, const GdbElfFunction* f )
{
   ObjFn of;
   of.start = (Addr)f->start;
   of.size  = (UWord)f->size;
   of.name  = f->name;
   VG_(addToXA)((XArray*)fns, &of);
}

/* Parses the ELF image img[0..n) by the rules of readgdbelf.c: appends
   its functions to fns (of ObjFn) and sets *file to its source file
   (or NULL).  Returns NULL on success, else why the object is refused
   (a text with its numbers, valid until the next call). */
static const HChar* parse_object ( const UChar* img, ULong n,
                                   XArray* fns,
                                   /*OUT*/const HChar** file )
{
   static HChar why[200];
   GdbElfObject o;

   *file = NULL;
   if (ML_(gdbelf_open)(&o, img, n, NULL, NULL) == GDBELF_OK)
      (void)ML_(gdbelf_functions)(&o, add_fn, fns);
   if (o.error.code != GDBELF_OK)
      return ML_(gdbelf_describe_in)(&o, &o.error, why, sizeof(why));
   *file = o.file;
   return NULL;
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
/*--- Registering and unregistering entries                ---*/
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
      warn("%u function%s of %s refused: %s (the first: %s at %#lx, %lu"
           " bytes)\n", t->n_refused, t->n_refused == 1 ? "" : "s", what,
           by, t->first_name, t->first_start, t->first_size);
   }
   if (t->n_long_names > 0)
      warn("%u function%s of %s refused: the name is longer than %d bytes"
           " (VG_JIT_MAX_STRING; the longest is %lu bytes)\n",
           t->n_long_names, t->n_long_names == 1 ? "" : "s", what,
           VG_JIT_MAX_STRING, t->longest_name);
   if (t->n_dropping > 0) {
      ML_(jit_line_drops_text)(drops, sizeof(drops), &t->drops, 0);
      warn("line-table entries of %u function%s of %s dropped: %s\n",
           t->n_dropping, t->n_dropping == 1 ? "" : "s", what, drops);
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

/* Adds the functions of an Erlang/OTP module entry at ea (whose copy
   is img) as the object `mod` names (taking what mod holds). */
static void register_beam_module ( Addr ea, const GdbCodeEntry* e,
                                   GdbBeamModule* mod )
{
   GdbObject* obj = ML_(dinfo_zalloc)("di.jitgdb.object", sizeof(GdbObject));
   Word       i;
   UInt       n_now = 0;
   FnTally    tally;
   HChar      what[JIT_PRINTABLE_BUF + 48];
   VG_(memset)(&tally, 0, sizeof(tally));
   obj->key          = ea;
   obj->symfile_addr = e->symfile_addr;
   obj->symfile_size = e->symfile_size;
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
                ea, obj->name, e->symfile_addr, e->symfile_size,
                (UWord)VG_(sizeXA)(mod->fns), n_now, obj->n_pending);
   ML_(jit_printable_copy)(what, obj->name);
   VG_(sprintf)(what + VG_(strlen)(what), " (entry %#lx)", ea);
   report_fns(&tally, what);
   ML_(jit_gdb_beam_free_fns)(mod->fns);
}

/* Counts the object of entry ea as refused, and remembers it for the
   rest of the notification (refused_already). */
static void note_refused ( Addr ea )
{
   GdbRefused* r = ML_(dinfo_zalloc)("di.jitgdb.refused", sizeof(GdbRefused));
   stats.refused++;
   r->key = ea;
   VG_(HT_add_node)(refused, r);
   n_refused_now++;
}

/* True if the object of entry ea was refused during this
   notification. */
static Bool refused_already ( Addr ea )
{
   return n_refused_now > 0 && VG_(HT_lookup)(refused, ea) != NULL;
}

/* The object of the entry at ea (whose copy is img) is not ELF: an
   Erlang/OTP module is read; anything else is skipped without a
   warning, as GDB skips objects no reader of its claims (it is no
   error of the user's).  Only an entry that claims Erlang/OTP's format
   but is malformed is refused, with a warning under -v. */
static void register_non_elf ( Addr ea, const GdbCodeEntry* e,
                               const UChar* img )
{
   GdbBeamModule mod;
   const HChar*  why;
   Int kind = ML_(jit_gdb_beam_read)(img, e->symfile_size, &mod, &why);
   if (kind == BEAMJIT_MODULE) {
      register_beam_module(ea, e, &mod);
      return;
   }
   if (kind == BEAMJIT_MALFORMED) {
      note_refused(ea);
      if (VG_(clo_verbosity) > 1)
         warn("Erlang/OTP entry %#lx (%#lx, %llu bytes) refused: %s\n",
              ea, e->symfile_addr, e->symfile_size, why);
      return;
   }
   stats.not_elf++;
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit-gdb: entry %#lx: object %#lx (%llu bytes) is not an "
                "ELF object%s: skipped\n", ea, e->symfile_addr,
                e->symfile_size, kind == BEAMJIT_EMULATOR
                                 ? " (Erlang/OTP's emulator entry)" : "");
}

/* Reads the client's entry at ea into *e and says whether its object
   is to be read: not when the entry is unreadable or its object is
   registered already, refused during this notification, of a size out
   of range or not readable client memory (each refusal warned about
   and counted).  An entry whose memory was reused for another object
   unregisters the old one. */
static Bool entry_to_read ( Addr ea, /*OUT*/GdbCodeEntry* e )
{
   GdbObject* obj;
   if (!read_entry(ea, e)) {
      stats.refused++;
      warn("code entry %#lx is not word-aligned readable client memory"
           " (%lu bytes): refused\n", ea, (UWord)sizeof(GdbCodeEntry));
      return False;
   }
   obj = VG_(HT_lookup)(objects, ea);
   if (obj != NULL) {
      if (obj->symfile_addr == e->symfile_addr
          && obj->symfile_size == e->symfile_size)
         return False;   /* already registered */
      /* The entry's memory was reused without an unregistration. */
      unregister_object(obj, "replace");
   }
   if (refused_already(ea))
      return False;
   if (e->symfile_size == 0 || e->symfile_size > MAX_OBJECT_SIZE) {
      note_refused(ea);
      warn("object of entry %#lx (%#lx) refused: its size, %llu bytes, is"
           " not 1 to %llu bytes\n", ea, e->symfile_addr, e->symfile_size,
           (ULong)MAX_OBJECT_SIZE);
      return False;
   }
   if (!ML_(jit_client_readable)(e->symfile_addr, e->symfile_size)) {
      note_refused(ea);
      warn("object of entry %#lx (%#lx, %llu bytes) refused: not readable"
           " client memory\n", ea, e->symfile_addr, e->symfile_size);
      return False;
   }
   return True;
}

/* A new registered object for entry ea, named after its source file
   (or "<jit object #N>" when it has none or it is too long). */
static GdbObject* new_elf_object ( Addr ea, const GdbCodeEntry* e,
                                   const HChar* file )
{
   HChar      buf[48];
   GdbObject* obj = ML_(dinfo_zalloc)("di.jitgdb.object", sizeof(GdbObject));
   obj->key          = ea;
   obj->symfile_addr = e->symfile_addr;
   obj->symfile_size = e->symfile_size;
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
   fns (of ObjFn) into *dwarf, warns about what is refused, and hands its
   CFI and inlined calls to the CFI store. */
static void read_object_dwarf ( GdbObject* obj, Addr ea, const UChar* img,
                                ULong n, const XArray* fns,
                                /*OUT*/GdbDwarf* dwarf )
{
   Addr code_lo = ~(Addr)0, code_hi = 0;
   Word i;
   for (i = 0; i < VG_(sizeXA)(fns); i++) {
      const ObjFn* f = VG_(indexXA)(fns, i);
      if (f->start < code_lo) code_lo = f->start;
      if (f->start + f->size > code_hi) code_hi = f->start + f->size;
   }
   ML_(jit_gdb_dwarf_read)(img, n, code_lo, code_hi, obj->name, dwarf);
   if (dwarf->lines_why != NULL) {
      stats.line_tables_refused++;
      warn("line table of %s (entry %#lx) refused: %s\n",
           obj->name, ea, dwarf->lines_why);
   }
   if (dwarf->cfi_why != NULL) {
      stats.cfi_refused++;
      warn("CFI of %s (entry %#lx) refused: %s\n",
           obj->name, ea, dwarf->cfi_why);
   }
   if (dwarf->inl_why != NULL) {
      stats.inlined_refused++;
      warn("inlined calls of %s (entry %#lx) refused: %s\n",
           obj->name, ea, dwarf->inl_why);
   }
   if (dwarf->kept != NULL)
      use_dwarf(obj, dwarf->kept, code_lo, code_hi);
}

/* Registers the functions fns (of ObjFn) of obj (entry ea) with their
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
      const ObjFn* f = VG_(indexXA)(fns, i);
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

/* Registers the object of the client's entry at ea: checks the entry,
   copies the object (the client may change its bytes meanwhile), reads
   it by readgdbelf.c's rules (or as another format's object), its DWARF,
   then registers its functions.  One exit frees the copies. */
static void register_entry ( Addr ea )
{
   GdbCodeEntry e;
   GdbObject*   obj;
   UChar*       img = NULL;
   XArray*      fns = NULL;
   const HChar* why;
   const HChar* file;
   UInt         n_now;
   GdbDwarf     dwarf;
   FnTally      tally;
   HChar        what[JIT_PRINTABLE_BUF + 48];

   if (!entry_to_read(ea, &e))
      return;
   img = ML_(dinfo_zalloc)("di.jitgdb.image", e.symfile_size);
   VG_(memcpy)(img, (const void*)e.symfile_addr, e.symfile_size);
   if (e.symfile_size < SELFMAG || VG_(memcmp)(img, ELFMAG, SELFMAG) != 0) {
      register_non_elf(ea, &e, img);
      goto out;
   }
   fns = VG_(newXA)(ML_(dinfo_zalloc), "di.jitgdb.fns", ML_(dinfo_free),
                    sizeof(ObjFn));
   why = parse_object(img, e.symfile_size, fns, &file);
   if (why != NULL) {
      note_refused(ea);
      warn("object of entry %#lx (%#lx, %llu bytes) refused: %s\n",
           ea, e.symfile_addr, e.symfile_size, why);
      goto out;
   }

   obj = new_elf_object(ea, &e, file);
   read_object_dwarf(obj, ea, img, e.symfile_size, fns, &dwarf);
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
                ea, e.symfile_addr, e.symfile_size, obj->name,
                (UWord)VG_(sizeXA)(fns), n_now, obj->n_pending);
   ML_(jit_printable_copy)(what, obj->name);
   VG_(sprintf)(what + VG_(strlen)(what), " (entry %#lx)", ea);
   report_fns(&tally, what);

 out:
   if (fns != NULL)
      VG_(deleteXA)(fns);
   ML_(dinfo_free)(img);
}

static void unregister_entry ( Addr ea )
{
   GdbObject*  obj = VG_(HT_lookup)(objects, ea);
   if (obj == NULL) {
      if (VG_(clo_trace_jit))
         VG_(dmsg)("jit-gdb: unregister entry %#lx: not registered\n", ea);
      return;
   }
   stats.unregistered++;
   unregister_object_keeping_code(obj);
}

/* Reads the whole list of descriptor desc (first seen now) and
   registers every entry on it.  A list that is cyclic, too long or
   leads to unreadable memory is refused as a whole. */
static void read_whole_list ( Addr desc, Addr first )
{
   Addr         slow = first, fast = first;
   UWord        n = 0, power = 1, lam = 0;
   GdbCodeEntry e;

   /* Brent's cycle detection: fast walks, slow jumps to it at powers
      of two; they meet again iff the list has a cycle. */
   while (fast != 0) {
      if (!read_entry(fast, &e)) {
         warn("descriptor %#lx: entry %#lx on its list is not readable:"
              " list refused\n", desc, fast);
         return;
      }
      fast = e.next_entry;
      n++;
      lam++;
      if (fast == slow && fast != 0) {
         warn("descriptor %#lx: its list of code entries has a cycle:"
              " list refused\n", desc);
         return;
      }
      if (lam == power) {
         slow  = fast;
         power *= 2;
         lam   = 0;
      }
      if (n > MAX_LIST_ENTRIES) {
         warn("descriptor %#lx: more than %lu code entries: list refused\n",
              desc, MAX_LIST_ENTRIES);
         return;
      }
   }
   if (VG_(clo_trace_jit))
      VG_(dmsg)("jit-gdb: descriptor %#lx: %lu entries already on its"
                " list\n", desc, n);
   /* Registering calls out (the tool discards translations) but never
      into the client: the list stays as validated. */
   for (fast = first; fast != 0 && n > 0; fast = e.next_entry, n--) {
      if (!read_entry(fast, &e))
         return;
      register_entry(fast);
   }
}

void VG_(jit_gdb_notify) ( ThreadId tid, Addr orig_fn )
{
   GdbDescriptor d;
   Addr          desc;
   Word          i;
   Bool          seen = False;

   if (!VG_(clo_jit_gdb_interface))
      return;
   init();
   stats.notifications++;
   if (n_refused_now > 0) {
      /* Forget the refusals of the last notification. */
      VG_(HT_destruct)(refused, ML_(dinfo_free));
      refused       = VG_(HT_construct)("di.jitgdb.refused");
      n_refused_now = 0;
   }
   desc = descriptor_for(orig_fn);
   if (desc == 0)
      return;   /* a __jit_debug_register_code without a descriptor */
   if (!read_descriptor(desc, &d)) {
      warn("descriptor %#lx is not 4-aligned readable client memory"
           " (%lu bytes): ignored\n", desc, (UWord)sizeof(GdbDescriptor));
      return;
   }
   if (d.version != 1) {
      warn("descriptor %#lx has version %u, not 1: ignored\n",
           desc, d.version);
      return;
   }
   for (i = 0; i < VG_(sizeXA)(descs_seen); i++)
      if (*(const Addr*)VG_(indexXA)(descs_seen, i) == desc)
         seen = True;
   if (!seen) {
      VG_(addToXA)(descs_seen, &desc);
      stats.descriptors++;
      read_whole_list(desc, d.first_entry);
   }
   switch (d.action_flag) {
      case GDB_JIT_NOACTION:
         break;
      case GDB_JIT_REGISTER:
         register_entry(d.relevant_entry);
         break;
      case GDB_JIT_UNREGISTER:
         unregister_entry(d.relevant_entry);
         break;
      default:
         warn("descriptor %#lx: unknown action %u: ignored\n",
              desc, d.action_flag);
         break;
   }
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

void VG_(jit_gdb_print_summary) ( void )
{
   if (VG_(clo_verbosity) < 2 || stats.notifications == 0)
      return;
   VG_(umsg)("JIT GDB interface: %llu notifications, %llu descriptors, "
             "%llu objects registered, %llu unregistered, %llu refused; "
             "%llu functions registered, %llu refused, %lu waiting; "
             "%llu functions with line tables, %llu line tables refused; "
             "%llu objects with CFI, %llu refused; "
             "%llu objects with inlined calls, %llu refused; "
             "%llu Erlang/OTP modules, %llu other objects not ELF "
             "(skipped)\n",
             stats.notifications, stats.descriptors, stats.registered,
             stats.unregistered, stats.refused, stats.functions,
             stats.functions_refused,
             pending ? (UWord)VG_(sizeXA)(pending) : 0UL,
             stats.functions_with_lines, stats.line_tables_refused,
             stats.objects_with_cfi, stats.cfi_refused,
             stats.objects_with_inlined, stats.inlined_refused,
             stats.beam_modules, stats.not_elf);
   if (n_warnings_hidden > 0)
      VG_(umsg)("JIT GDB interface: %llu further warnings were only"
                " counted\n", n_warnings_hidden);
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
