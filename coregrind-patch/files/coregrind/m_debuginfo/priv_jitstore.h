/*--------------------------------------------------------------------*/
/*--- JIT code registry: the data its files share (functions,      ---*/
/*--- names, objects, line tables).               priv_jitstore.h ---*/
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

#ifndef __PRIV_JITSTORE_H
#define __PRIV_JITSTORE_H

#include "pub_core_basics.h"
#include "pub_core_debuginfo.h"
#include "priv_jitreg.h"         /* JitRegistration */

/* Design
   ------
   A JIT function is a JitFn record of 24 bytes: [start, start+size), a
   name, the JIT object it belongs to and whether it has extras.  Live
   functions never overlap.  The function store (jitstore.c) keeps them
   sorted by address in chunks, the line tables of the few that have
   one in a side table by start address, and the times a jitdump
   producer loaded the code, where they are kept, in an array of the
   chunk's; the name pool (jitnames.c) holds their
   names; each JIT object (jitobjects.c) owns a synthetic DebugInfo
   holding its name (Callgrind's ob=) and its pool of source file names,
   which line tables refer to.

   Epochs: every change advances the DebugInfo epoch, exactly as loading
   or unloading an ELF object does.  A function records the epoch it was
   registered in; with --keep-debuginfo=yes a removed function is
   archived with its last epoch (and the ExeContexts that mention its
   code are pinned to that epoch), so errors recorded earlier still
   print its name.  Without it, removed functions are freed. */

/* ---- Names (jitnames.c) ---- */

/* A 32-bit hash of the len bytes at s (word at a time, multiplicative). */
extern UInt ML_(jit_hash_bytes) ( const HChar* s, SizeT len );

/* A name in the pool; 0 means none. */
typedef UInt JitNameId;

/* A copy of s (len bytes, no NUL inside) with one more reference: a
   copy registered recently if there is one, else a new one. */
extern JitNameId ML_(jit_name_intern) ( const HChar* s, SizeT len );

/* One more reference to id. */
extern void ML_(jit_name_ref) ( JitNameId id );

/* One reference less to id (> 0 references); its bytes are reclaimed
   by the next compaction once none is left. */
extern void ML_(jit_name_release) ( JitNameId id );

/* The NUL-terminated name; valid until the next compaction (a safe
   point). */
extern const HChar* ML_(jit_name_str) ( JitNameId id );

/* At a safe point: moves the names in use into a fresh pool once dead
   names take more room than live ones (invalidating the symbol-name
   cache, which points into the pool). */
extern void ML_(jit_names_maybe_compact) ( void );

/* Prints the name pool's line of the -v summary. */
extern void ML_(jit_names_print_stats) ( void );

/* A copy of name (len bytes) in which each byte that is not part of a
   clean character (ML_(jit_clean_char_len)) is written as \xNN:
   what the registry keeps of a name or object name that is not clean
   text (counted).  Allocated with ML_(dinfo_zalloc) (the caller frees
   it); *out_len set. */
extern HChar* ML_(jit_escaped_copy) ( const HChar* name, SizeT len,
                                      /*OUT*/SizeT* out_len );

/* How many names ML_(jit_escaped_copy) escaped (function and object
   names), for the -v summary. */
extern ULong ML_(jit_n_names_escaped) ( void );

/* ---- Objects and line tables (jitobjects.c) ---- */

/* A JIT object: the module a function belongs to. */
typedef
   struct _JitObject {
      struct _JitObject* next;   /* VgHashTable link */
      UWord              key;    /* hash of the name */
      const HChar*       name;   /* == di->fsm.filename */
      DebugInfo*         di;     /* synthetic, never on debugInfo_list */
      UInt               index;  /* for ML_(jit_object_at) */
   }
   JitObject;

/* One line-table entry: code from `offset` up to the next entry's
   offset (or the end of the function) comes from line `line` of the
   file `fndn_ix` (an index in the object's DebugInfo fndnpool). */
typedef
   struct {
      UInt offset;
      UInt line;
      UInt fndn_ix;
   }
   JitLine;

typedef
   struct {
      UInt    n_lines;
      JitLine lines[0];  /* sorted by offset, offsets unique */
   }
   JitLineTab;

/* The JIT object called objname (non-empty), created with its synthetic
   DebugInfo on first use.  Objects live until the process exits (there
   are few of them). */
extern JitObject* ML_(jit_object_get) ( const HChar* objname );

/* The object with the given index. */
extern JitObject* ML_(jit_object_at) ( UInt index );

/* VG_JIT_DEFAULT_OBJECT's JitObject once ML_(jit_object_named) made it
   (for a registration naming no object), else NULL: read inline on
   every registration, which then needs no call. */
extern JitObject* ML_(jit_default_object);

/* Builds the line table of reg for obj: drops entries outside the code,
   with line 0 or too large, with an unusable file pointer, or with no
   file at all (a file name that is not UTF-8 or holds control
   characters, ML_(jit_text_is_clean), counts as none); sorts by offset;
   of entries with equal offsets keeps the one that came last.  Returns
   the table (NULL if nothing is left; free with ML_(dinfo_free)) and
   fills *drops (the entries dropped, by reason).  What is dropped, and
   the file names treated as none (each distinct name of consecutive
   entries once), are counted for the -v summary. */
extern JitLineTab* ML_(jit_line_table_build) ( const JitRegistration* reg,
                                               JitObject* obj,
                                               /*OUT*/JitLineDrops* drops );

/* What ML_(jit_line_table_build) counted: line-table entries dropped,
   and file names treated as none; and the -v summary's line of the
   entries dropped by reason (none if none was). */
extern ULong ML_(jit_lines_dropped) ( void );
extern ULong ML_(jit_bad_files) ( void );
extern void ML_(jit_lines_print_summary) ( void );

/* A copy of t (free with ML_(dinfo_free)). */
extern JitLineTab* ML_(jit_line_table_copy) ( const JitLineTab* t );

/* ---- The function store (jitstore.c) ---- */

/* A registered function: 24 bytes.  Most functions have neither a line
   table nor a load time, so these are not held here but found by
   ML_(jit_fn_lines) (in a side table) and ML_(jit_fn_loaded) (in an
   array of its chunk's). */
typedef
   struct {
      Addr        start;
      UInt        size;           /* bytes, > 0; start+size never wraps */
      UInt        first_epoch;    /* epoch it was registered in */
      JitNameId   name;
      UInt        obj       : 30; /* JIT object index */
      UInt        has_extra : 1;  /* it has a line table */
      UInt        archived  : 1;  /* the copy in an archived record */
   }
   JitFn;

/* Objects there can be (JitFn.obj). */
#define JIT_MAX_OBJECTS (1U << 30)

/* Records per chunk: 64 * 24 bytes, so that a chunk is about 1.5 KiB. */
#define FNS_PER_CHUNK 64

/* A chunk of live functions: those whose start is in [lo, last],
   sorted by start.  The chunks' ranges partition the address space (the
   first has lo == 0, the last has last == ~0) and are linked in address
   order.  Only a sole chunk is ever empty. */
typedef
   struct _JitFnChunk {
      Addr                lo;     /* the OSet key */
      Addr                last;
      struct _JitFnChunk* prev;
      struct _JitFnChunk* next;
      UInt                n;      /* records in use */
      ULong*              loaded; /* NULL, or FNS_PER_CHUNK load times
                                     of fns (see ML_(jit_fn_loaded)),
                                     0 where unknown: allocated when a
                                     function with one is added */
      JitFn               fns[FNS_PER_CHUNK];
   }
   JitFnChunk;

/* A live function's place: fns[i] of chunk c; c == NULL for none.  Valid
   until the store changes. */
typedef
   struct {
      JitFnChunk* c;
      UInt        i;
   }
   JitFnPos;

static inline JitFn* ML_(jit_fn_at) ( JitFnPos p )
{
   return &p.c->fns[p.i];
}

/* The live function containing a, or none. */
extern JitFnPos ML_(jit_fn_containing) ( Addr a );

/* The live function starting exactly at a, or none. */
extern JitFnPos ML_(jit_fn_starting_at) ( Addr a );

/* The first live function intersecting [a, a+len) (len > 0), or
   none. */
extern JitFnPos ML_(jit_first_intersecting) ( Addr a, SizeT len );

/* The store's last chunk (last == ~0; NULL until the first insert) and
   the number of live functions: jitstore.c keeps them, and
   ML_(jit_append_fn) reads them inline. */
typedef
   struct {
      JitFnChunk* last_chunk;
      ULong       n_live;
   }
   JitStoreTail;

extern JitStoreTail ML_(jit_store_tail);

/* Adds *f (no line table, no load time; f->has_extra and f->archived
   0) as the last live function if it starts above every live one and
   the last chunk has room, and returns True; otherwise changes nothing
   and returns False, for ML_(jit_insert_fn).  Inlined into the
   registration path: a JIT fills its code heap upward, so this is the
   common case. */
static inline Bool ML_(jit_append_fn) ( const JitFn* f )
{
   JitFnChunk* c = ML_(jit_store_tail).last_chunk;
   UInt        n;
   if (UNLIKELY(c == NULL))
      return False;
   n = c->n;
   if (UNLIKELY(n == FNS_PER_CHUNK || f->start < c->lo
                || (n > 0 && c->fns[n - 1].start >= f->start)))
      return False;
   c->fns[n] = *f;
   if (UNLIKELY(c->loaded != NULL))
      c->loaded[n] = 0;
   c->n = n + 1;
   ML_(jit_store_tail).n_live++;
   return True;
}

/* Inserts *f, which intersects no live function, with its line table
   (NULL: none; else owned by the store from now on) and the time its
   producer loaded it (in VG_(jit_time_now)'s clock; 0: unknown).
   f->has_extra and f->archived are set here. */
extern void ML_(jit_insert_fn) ( const JitFn* f, JitLineTab* lines,
                                 ULong loaded );

/* The line table of f, a live function or one that ML_(jit_find_archived)
   or ML_(jit_archived_nth) returned (not a copy), or NULL.  Valid until
   f is removed. */
extern const JitLineTab* ML_(jit_fn_lines) ( const JitFn* f );

/* When the producer loaded f (as for ML_(jit_fn_lines)), in
   VG_(jit_time_now)'s clock; 0: unknown. */
extern ULong ML_(jit_fn_loaded) ( const JitFn* f );

/* Takes the extras of live function f out of the store (it then has
   none): returns its line table, which the caller owns (NULL if none),
   and sets *loaded to its load time (0 if unknown). */
extern JitLineTab* ML_(jit_fn_take_extras) ( JitFn* f,
                                             /*OUT*/ULong* loaded );

/* Removes records [i, j) of chunk c, whose contents the caller has
   already released or archived. */
extern void ML_(jit_remove_fns) ( JitFnChunk* c, UInt i, UInt j );

/* How many functions are live. */
extern ULong ML_(jit_n_live) ( void );

/* Keeps a copy of f (just removed, --keep-debuginfo=yes, unmapped, or
   code that ran unnamed), with the extras taken from it with
   ML_(jit_fn_take_extras) (its line table `lines`, owned by the archive
   from now on, and its load time `loaded`), for lookups in epochs
   f->first_epoch .. last_epoch.  gone: when its code went, in
   VG_(jit_time_now)'s clock (the time of the removal, or the load time
   of the code that replaced it); 0: unknown. */
extern void ML_(jit_archive_fn) ( const JitFn* f, JitLineTab* lines,
                                  ULong loaded, UInt last_epoch,
                                  ULong gone );

/* How many functions are archived; they are numbered 0 .. n-1 in the
   order they were archived. */
extern Word ML_(jit_n_archived) ( void );

/* Archived function i (0 <= i < ML_(jit_n_archived)()), with its last
   epoch and the time its code went (see ML_(jit_archive_fn)).  Valid
   until the next function is archived. */
extern const JitFn* ML_(jit_archived_nth) ( Word i, /*OUT*/UInt* last_epoch,
                                            /*OUT*/ULong* gone );

/* The archived function describing (ep, a): of those that covered a
   and were valid in epoch ep, the last archived; or NULL.  Found
   through an index of the archive by address (not a walk of it). */
extern const JitFn* ML_(jit_find_archived) ( DiEpoch ep, Addr a );

/* The archived functions that covered address a, one a call: start
   with *it = -1; each call returns the archive index (for
   ML_(jit_archived_nth)) of the next one, in descending order of start
   address, or -1 when none is left (and on every later call).  The
   archive must not grow during the iteration. */
extern Word ML_(jit_archived_next_covering) ( Addr a, /*MOD*/Word* it );

/* Does an archived function intersect [a, a+len) (len > 0)? */
extern Bool ML_(jit_archived_overlaps) ( Addr a, SizeT len );

/* Replaces the name of every live and archived function by
   remap(name) (name pool compaction). */
extern void ML_(jit_rename_all) ( JitNameId (*remap)(JitNameId) );

/* For the gdbserver command v.info jit: prints (VG_(printf)) the live
   functions intersecting [a, a+len) (len > 0; clipped at the top of the
   address space)
   whose object is objname (NULL: any), at most JIT_MAX_LISTED, those
   kept after their unregistration (priv_jitkeep.h) marked as such, and
   how many are live and listed. */
extern void ML_(jit_print_live_fns) ( Addr a, SizeT len,
                                      const HChar* objname );

/* ---- Lookups (jitlookup.c) ---- */

/* The function that symbol and line lookups of (ep, a) describe: the
   live one if registered by epoch ep, else an archived one valid at ep;
   NULL if none. */
extern const JitFn* ML_(jit_fn_for_lookup) ( DiEpoch ep, Addr a );

/* The function name raw (a symbol table's) as VG_(get_fnname) shows it:
   demangled, and "(below main)" for what runs below main unless
   --show-below-main=yes.  Valid until the next demangling. */
extern const HChar* ML_(jit_shown_fnname) ( const HChar* raw );

/* ---- Names of code unmapped before they were read (jitlate.c) ---- */

/* Whether reg, refused as VG_JIT_ERR_NOT_CODE, is a name that arrived
   after its code was unmapped, for code that a tool translated unnamed
   there (docs/manual.md, "Names that arrive late"): a producer file's
   record (reg->may_name_unmapped), no live function in its range, no
   byte of the range executable client memory, and code translated
   unnamed in its pages. */
extern Bool ML_(jit_is_late_name_for_unmapped) ( const JitRegistration* reg );

/* Keeps the function of reg, whose code is gone, for the code that ran
   unnamed in its range: archived (never live: nothing runs there now),
   valid in every epoch up to this one, or only in this one if other
   functions were archived there (whose epochs it must not take), with
   its code gone now.  VG_(jit_late_name_epoch_at) then weighs it
   against the other functions the addresses had, by the same rules as
   any other.  The epoch advances, so that code placed there later is
   not described with it, and the cached answers of symbol lookups
   (which had no name for the code) are forgotten. */
extern void ML_(jit_archive_late_name) ( const JitRegistration* reg,
                                         JitNameId name, JitObject* obj,
                                         JitLineTab* lines );

/* ---- ELF objects' text (jitlookup.c) ---- */

/* Does [a, a+len) overlap the text of an ELF object that m_debuginfo
   knows (and has not archived)? */
extern Bool ML_(jit_overlaps_object_text) ( Addr a, SizeT len );

/* Whether the symbols of an ELF object whose text overlaps [a, a+len)
   name its first or last byte.  A producer's name (a perf map's, a
   jitdump's, a client request's) for code in an object's text is used
   where the object has no symbol for it (a stripped executable: V8
   embedders run their builtins from their own text and name them in
   their perf files); where it has one, the ELF name stays and the
   registration is refused, and a lookup that missed there has nothing
   to read for. */
extern Bool ML_(jit_elf_symbols_name) ( Addr a, SizeT len );

#endif   // __PRIV_JITSTORE_H

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
