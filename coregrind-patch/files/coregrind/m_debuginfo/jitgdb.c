
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

   This file follows the protocol and reads each entry's object;
   jitgdbobject.c keeps what the objects registered.  Each object is
   copied from client memory into core memory before it is parsed (the
   client may change it meanwhile), and every offset, size and index in
   it is checked against the copy by the rules of readgdbelf.c, which
   vg-jit applies too; a bad object is refused as a whole, with a
   warning.  Its function symbols (.symtab, STT_FUNC, in an executable
   section, size > 0) are registered in the
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

static VgHashTable* refused     = NULL;   /* of GdbRefused */
static UWord        n_refused_now = 0;    /* nodes in refused */
static XArray*      desc_cache  = NULL;   /* of GdbDescCache */
static XArray*      descs_seen  = NULL;   /* of Addr: lists read whole */

static struct {
   ULong notifications;
   ULong descriptors;
   ULong refused;        /* objects refused */
   ULong not_elf;        /* other objects that are not ELF: skipped */
}
stats;

static UInt  n_warnings = 0;
static ULong n_warnings_hidden = 0;   /* past MAX_WARNINGS */

void ML_(jit_gdb_warn) ( const HChar* fmt, ... )
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
   if (refused != NULL)
      return;
   refused    = VG_(HT_construct)("di.jitgdb.refused");
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

/* Appends the function f, found by the shared reader, to fns (an
   XArray of GdbObjFn). */
static void add_fn ( void* fns, const GdbElfFunction* f )
{
   GdbObjFn of;
   of.start = (Addr)f->start;
   of.size  = (UWord)f->size;
   of.name  = f->name;
   VG_(addToXA)((XArray*)fns, &of);
}

/* Parses the ELF image img[0..n) by the rules of readgdbelf.c: appends
   its functions to fns (of GdbObjFn) and sets *file to its source file
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
/*--- Registering and unregistering entries                ---*/
/*------------------------------------------------------------*/

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
      ML_(jit_gdb_register_beam)(ea, e->symfile_addr, e->symfile_size, &mod);
      return;
   }
   if (kind == BEAMJIT_MALFORMED) {
      note_refused(ea);
      if (VG_(clo_verbosity) > 1)
         ML_(jit_gdb_warn)("Erlang/OTP entry %#lx (%#lx, %llu bytes) refused: "
                           "%s\n", ea, e->symfile_addr, e->symfile_size, why);
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
   if (!read_entry(ea, e)) {
      stats.refused++;
      ML_(jit_gdb_warn)("code entry %#lx is not word-aligned readable client "
                        "memory (%lu bytes): refused\n", ea,
                        (UWord)sizeof(GdbCodeEntry));
      return False;
   }
   /* (An entry whose memory was reused unregisters the old object.) */
   if (ML_(jit_gdb_entry_registered)(ea, e->symfile_addr, e->symfile_size))
      return False;
   if (refused_already(ea))
      return False;
   if (e->symfile_size == 0 || e->symfile_size > MAX_OBJECT_SIZE) {
      note_refused(ea);
      ML_(jit_gdb_warn)("object of entry %#lx (%#lx) refused: its size, %llu "
                        "bytes, is not 1 to %llu bytes\n", ea,
                        e->symfile_addr, e->symfile_size,
                        (ULong)MAX_OBJECT_SIZE);
      return False;
   }
   if (!ML_(jit_client_readable)(e->symfile_addr, e->symfile_size)) {
      note_refused(ea);
      ML_(jit_gdb_warn)("object of entry %#lx (%#lx, %llu bytes) refused: not "
                        "readable client memory\n", ea, e->symfile_addr,
                        e->symfile_size);
      return False;
   }
   return True;
}

/* Registers the object of the client's entry at ea: checks the entry,
   copies the object (the client may change its bytes meanwhile), reads
   it by readgdbelf.c's rules (or as another format's object), its DWARF,
   then has jitgdbobject.c register its functions.  One exit frees the
   copies. */
static void register_entry ( Addr ea )
{
   GdbCodeEntry e;
   UChar*       img = NULL;
   XArray*      fns = NULL;
   const HChar* why;
   const HChar* file;

   if (!entry_to_read(ea, &e))
      return;
   img = ML_(dinfo_zalloc)("di.jitgdb.image", e.symfile_size);
   VG_(memcpy)(img, (const void*)e.symfile_addr, e.symfile_size);
   if (e.symfile_size < SELFMAG || VG_(memcmp)(img, ELFMAG, SELFMAG) != 0) {
      register_non_elf(ea, &e, img);
      goto out;
   }
   fns = VG_(newXA)(ML_(dinfo_zalloc), "di.jitgdb.fns", ML_(dinfo_free),
                    sizeof(GdbObjFn));
   why = parse_object(img, e.symfile_size, fns, &file);
   if (why != NULL) {
      note_refused(ea);
      ML_(jit_gdb_warn)("object of entry %#lx (%#lx, %llu bytes) refused: %s\n",
                        ea, e.symfile_addr, e.symfile_size, why);
      goto out;
   }

   ML_(jit_gdb_register_elf)(ea, e.symfile_addr, e.symfile_size, img, fns,
                             file);

 out:
   if (fns != NULL)
      VG_(deleteXA)(fns);
   ML_(dinfo_free)(img);
}

static void unregister_entry ( Addr ea )
{
   if (!ML_(jit_gdb_unregister_entry)(ea) && VG_(clo_trace_jit))
      VG_(dmsg)("jit-gdb: unregister entry %#lx: not registered\n", ea);
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
         ML_(jit_gdb_warn)("descriptor %#lx: entry %#lx on its list is not "
                           "readable: list refused\n", desc, fast);
         return;
      }
      fast = e.next_entry;
      n++;
      lam++;
      if (fast == slow && fast != 0) {
         ML_(jit_gdb_warn)("descriptor %#lx: its list of code entries has a "
                           "cycle: list refused\n", desc);
         return;
      }
      if (lam == power) {
         slow  = fast;
         power *= 2;
         lam   = 0;
      }
      if (n > MAX_LIST_ENTRIES) {
         ML_(jit_gdb_warn)("descriptor %#lx: more than %lu code entries: list "
                           "refused\n", desc, MAX_LIST_ENTRIES);
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
      ML_(jit_gdb_warn)("descriptor %#lx is not 4-aligned readable client "
                        "memory (%lu bytes): ignored\n", desc,
                        (UWord)sizeof(GdbDescriptor));
      return;
   }
   if (d.version != 1) {
      ML_(jit_gdb_warn)("descriptor %#lx has version %u, not 1: ignored\n",
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
         ML_(jit_gdb_warn)("descriptor %#lx: unknown action %u: ignored\n",
                           desc, d.action_flag);
         break;
   }
}

void VG_(jit_gdb_print_summary) ( void )
{
   GdbObjectStats o;
   if (VG_(clo_verbosity) < 2 || stats.notifications == 0)
      return;
   ML_(jit_gdb_object_stats)(&o);
   VG_(umsg)("JIT GDB interface: %llu notifications, %llu descriptors, "
             "%llu objects registered, %llu unregistered, %llu refused; "
             "%llu functions registered, %llu refused, %lu waiting; "
             "%llu functions with line tables, %llu line tables refused; "
             "%llu objects with CFI, %llu refused; "
             "%llu objects with inlined calls, %llu refused; "
             "%llu Erlang/OTP modules, %llu other objects not ELF "
             "(skipped)\n",
             stats.notifications, stats.descriptors, o.registered,
             o.unregistered, stats.refused, o.functions,
             o.functions_refused, o.waiting,
             o.functions_with_lines, o.line_tables_refused,
             o.objects_with_cfi, o.cfi_refused,
             o.objects_with_inlined, o.inlined_refused,
             o.beam_modules, stats.not_elf);
   if (n_warnings_hidden > 0)
      VG_(umsg)("JIT GDB interface: %llu further warnings were only"
                " counted\n", n_warnings_hidden);
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
