/*--------------------------------------------------------------------*/
/*--- JIT code registry: JIT objects (synthetic DebugInfos, source ---*/
/*--- file pools) and line tables.                    jitobjects.c ---*/
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

/* A JIT object is the module its functions belong to.  It owns a
   synthetic DebugInfo (see priv_jitreg.h), allocated through
   debuginfo.c like every other one but kept off debugInfo_list, whose
   fndnpool holds the source file names of its functions' line tables.
   Objects are found by name through a hash table, and by the index a
   JitFn records through an XArray. */

#include "pub_core_basics.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_hashtable.h"
#include "pub_core_xarray.h"

#include "priv_misc.h"           /* dinfo_zalloc/free/strdup */
#include "priv_image.h"
#include "priv_d3basics.h"
#include "priv_tytypes.h"
#include "priv_storage.h"        /* DebugInfo, ML_(addFnDn) */
#include "priv_jitreg.h"
#include "priv_jitstore.h"       /* self */

/* What the line tables registered lost, for the -v summary. */
static struct {
   ULong        dropped;    /* entries dropped */
   JitLineDrops drops;      /* the same, by reason (n_given: entries of
                               the tables that lost some) */
   ULong        bad_files;  /* source file names that are not UTF-8 or
                               have control characters, treated as
                               none */
} line_stats;

static VgHashTable* objects       = NULL;  /* of JitObject, by name */
static XArray*      object_list   = NULL;  /* of JitObject*, by index */
static JitObject*   recent_object = NULL;

static Word cmp_object_node ( const void* aV, const void* bV )
{
   const JitObject* a = aV;
   const JitObject* b = bV;
   return VG_(strcmp)(a->name, b->name);
}

/* A synthetic DebugInfo for objname: see priv_jitreg.h. */
static DebugInfo* new_object_DebugInfo ( const HChar* objname )
{
   DebugInfo* di = ML_(alloc_unlisted_DebugInfo)(objname);
   di->soname      = ML_(dinfo_strdup)("di.jitobjects.di.soname", objname);
   di->first_epoch.n = 1;     /* valid in every epoch */
   di->last_epoch  = DiEpoch_INVALID();
   di->have_dinfo  = True;
   /* The one-slot symtab and loctab that lookups fill in. */
   di->symtab      = ML_(dinfo_zalloc)("di.jitobjects.di.symtab",
                                       sizeof(DiSym));
   di->symtab_used = di->symtab_size = 1;
   di->loctab      = ML_(dinfo_zalloc)("di.jitobjects.di.loctab",
                                       sizeof(DiLoc));
   di->loctab_used = di->loctab_size = 1;
   di->sizeof_fndn_ix = sizeof(UInt);
   di->loctab_fndn_ix = ML_(dinfo_zalloc)("di.jitobjects.di.fndn",
                                          sizeof(UInt));
   return di;
}

JitObject* ML_(jit_object_get) ( const HChar* objname )
{
   JitObject  key;
   JitObject* obj;

   if (recent_object != NULL && VG_(strcmp)(recent_object->name, objname) == 0)
      return recent_object;
   if (objects == NULL) {
      objects     = VG_(HT_construct)("di.jitobjects.objects");
      object_list = VG_(newXA)(ML_(dinfo_zalloc), "di.jitobjects.list",
                               ML_(dinfo_free), sizeof(JitObject*));
   }
   key.key  = ML_(jit_hash_bytes)(objname, VG_(strlen)(objname));
   key.name = objname;
   obj = VG_(HT_gen_lookup)(objects, &key, cmp_object_node);
   if (obj == NULL) {
      obj = ML_(dinfo_zalloc)("di.jitobjects.object", sizeof(JitObject));
      obj->key   = key.key;
      obj->di    = new_object_DebugInfo(objname);
      obj->name  = obj->di->fsm.filename;
      obj->index = (UInt)VG_(addToXA)(object_list, &obj);
      /* A JitFn holds 30 bits of it: each object has a DebugInfo, so
         memory runs out long before. */
      vg_assert(obj->index < JIT_MAX_OBJECTS);
      VG_(HT_add_node)(objects, obj);
   }
   recent_object = obj;
   return obj;
}

JitObject* ML_(jit_default_object) = NULL;

JitObject* ML_(jit_object_named) ( const HChar* object )
{
   JitObject* obj;
   SizeT      e_len;
   HChar*     e;
   if (object == NULL) {
      if (ML_(jit_default_object) == NULL)
         ML_(jit_default_object)
            = ML_(jit_object_get)(VG_JIT_DEFAULT_OBJECT);
      return ML_(jit_default_object);
   }
   if (ML_(jit_text_is_clean)(object, VG_(strlen)(object)))
      return ML_(jit_object_get)(object);
   e = ML_(jit_escaped_copy)(object, VG_(strlen)(object), &e_len);
   obj = ML_(jit_object_get)(e);
   ML_(dinfo_free)(e);
   return obj;
}

JitObject* ML_(jit_object_at) ( UInt index )
{
   return *(JitObject**)VG_(indexXA)(object_list, index);
}


/*------------------------------------------------------------*/
/*--- Line tables                                          ---*/
/*------------------------------------------------------------*/

/* Interns a source path in obj's file pool, split into directory and
   file name as DWARF line tables are. */
static UInt add_source_file ( JitObject* obj, const HChar* path )
{
   const HChar* slash = VG_(strrchr)(path, '/');
   if (slash == NULL || slash == path)
      return ML_(addFnDn)(obj->di, path, NULL);
   {
      SizeT dlen = slash - path;
      HChar dir[dlen + 1];
      VG_(memcpy)(dir, path, dlen);
      dir[dlen] = 0;
      return ML_(addFnDn)(obj->di, slash + 1, dir);
   }
}

/* add_source_file for a path that is shown only if it is clean text:
   returns 0 (no file) for an empty path, and counts in *n_bad a path
   that is not UTF-8 or holds control characters (producers write junk
   file names) and returns 0 for it. */
static UInt checked_source_file ( JitObject* obj, const HChar* path,
                                  /*OUT*/UWord* n_bad )
{
   if (path[0] == 0)
      return 0;
   if (!ML_(jit_text_is_clean)(path, VG_(strlen)(path))) {
      (*n_bad)++;
      return 0;
   }
   return add_source_file(obj, path);
}

/* Temporary line entry while building a table. */
typedef
   struct {
      UInt offset;
      UInt line;
      UInt fndn_ix;
      UInt index;   /* position in the producer's table */
   }
   TmpLine;

static Int cmp_tmp_line ( const void* aV, const void* bV )
{
   const TmpLine* a = aV;
   const TmpLine* b = bV;
   if (a->offset != b->offset) return a->offset < b->offset ? -1 : 1;
   if (a->index  != b->index)  return a->index  < b->index  ? -1 : 1;
   return 0;
}

/* The entries of reg's line table that are kept, copied into tmp (room
   for all), their files added to obj; those dropped are counted in
   drops by reason, and the file names treated as none in *n_bad_files.
   Returns how many are kept. */
static UWord kept_entries ( const JitRegistration* reg, JitObject* obj,
                            TmpLine* tmp, /*MOD*/JitLineDrops* drops,
                            /*MOD*/UWord* n_bad_files )
{
   UWord        i, n = 0;
   const HChar* last_file = NULL;
   UInt         last_fndn_ix = 0;
   UInt         default_fndn_ix = 0;

   if (reg->file != NULL)
      default_fndn_ix = checked_source_file(obj, reg->file, n_bad_files);
   for (i = 0; i < reg->n_lines; i++) {
      const JitSrcLine* e = &reg->lines[i];
      const HChar* path = e->file != NULL ? e->file : reg->file;
      UInt fndn_ix;
      if (e->offset >= reg->size) {
         drops->by[JitDrop_OUTSIDE]++;
         continue;
      }
      if (e->line == 0 || e->line > MAX_LINENO) {
         drops->by[e->line == 0 ? JitDrop_LINE_ZERO : JitDrop_LINE_HIGH]++;
         continue;
      }
      if (e->file == JIT_SRC_FILE_UNREADABLE) {
         drops->by[JitDrop_UNREADABLE]++;
         continue;
      }
      if (e->file == NULL) {
         fndn_ix = default_fndn_ix;
      } else if (e->file == last_file) {
         fndn_ix = last_fndn_ix;
      } else {
         fndn_ix = checked_source_file(obj, e->file, n_bad_files);
         last_file = e->file;
         last_fndn_ix = fndn_ix;
      }
      if (fndn_ix == 0) {   /* no file at all: the line means nothing */
         drops->by[path == NULL || path[0] == 0 ? JitDrop_NO_FILE
                                                : JitDrop_BAD_FILE]++;
         continue;
      }
      tmp[n].offset  = (UInt)e->offset;
      tmp[n].line    = (UInt)e->line;
      tmp[n].fndn_ix = fndn_ix;
      tmp[n].index   = (UInt)i;
      n++;
   }
   return n;
}

/* The line table of the n entries of tmp (n > 0; reordered here): by
   offset, and of entries with equal offsets the one that came last. */
static JitLineTab* sorted_table ( TmpLine* tmp, UWord n )
{
   JitLineTab* tab;
   UWord       i, out = 0;
   VG_(ssort)(tmp, n, sizeof(TmpLine), cmp_tmp_line);
   for (i = 0; i < n; i++) {
      if (i + 1 < n && tmp[i + 1].offset == tmp[i].offset)
         continue;   /* a later entry has the same offset */
      tmp[out++] = tmp[i];
   }
   tab = ML_(dinfo_zalloc)("di.jitobjects.lines",
                           sizeof(JitLineTab) + out * sizeof(JitLine));
   tab->n_lines = (UInt)out;
   for (i = 0; i < out; i++) {
      tab->lines[i].offset  = tmp[i].offset;
      tab->lines[i].line    = tmp[i].line;
      tab->lines[i].fndn_ix = tmp[i].fndn_ix;
   }
   return tab;
}

JitLineTab* ML_(jit_line_table_build) ( const JitRegistration* reg,
                                        JitObject* obj,
                                        /*OUT*/JitLineDrops* drops )
{
   TmpLine*    tmp;
   JitLineTab* tab = NULL;
   UWord       n, n_dropped, n_bad_files = 0;

   VG_(memset)(drops, 0, sizeof(*drops));
   if (reg->n_lines == 0 || reg->lines == NULL)
      return NULL;
   drops->n_given = reg->n_lines;
   tmp = ML_(dinfo_zalloc)("di.jitobjects.tmplines",
                           reg->n_lines * sizeof(TmpLine));
   n = kept_entries(reg, obj, tmp, drops, &n_bad_files);
   if (n > 0)
      tab = sorted_table(tmp, n);
   ML_(dinfo_free)(tmp);
   line_stats.bad_files += n_bad_files;
   n_dropped = ML_(jit_line_drops_total)(drops);
   if (n_dropped > 0) {
      ML_(jit_line_drops_add)(&line_stats.drops, drops);
      line_stats.dropped += n_dropped;
   }
   return tab;
}

ULong ML_(jit_lines_dropped) ( void )
{
   return line_stats.dropped;
}

ULong ML_(jit_bad_files) ( void )
{
   return line_stats.bad_files;
}

void ML_(jit_lines_print_summary) ( void )
{
   HChar why[400];
   if (line_stats.dropped == 0)
      return;
   ML_(jit_line_drops_text)(why, sizeof(why), &line_stats.drops, 0);
   VG_(umsg)("JIT: line-table entries dropped (of the tables that"
             " lost some): %s\n", why);
}

UWord ML_(jit_line_drops_total) ( const JitLineDrops* d )
{
   UWord n = 0;
   Int   r;
   for (r = 0; r < JitDrop_N; r++)
      n += d->by[r];
   return n;
}

void ML_(jit_line_drops_add) ( JitLineDrops* sum, const JitLineDrops* d )
{
   Int r;
   sum->n_given += d->n_given;
   for (r = 0; r < JitDrop_N; r++)
      sum->by[r] += d->by[r];
}

void ML_(jit_line_drops_text) ( HChar* buf, SizeT cap,
                                const JitLineDrops* d, UWord code_size )
{
   SizeT used;
   Int   r;
   Bool  first = True;
   if (cap == 0)
      return;
   VG_(snprintf)(buf, cap, "%lu of %lu",
                 ML_(jit_line_drops_total)(d), d->n_given);
   for (r = 0; r < JitDrop_N; r++) {
      used = VG_(strlen)(buf);
      if (d->by[r] == 0 || used + 1 >= cap)
         continue;
      VG_(snprintf)(buf + used, cap - used, "%s%lu ", first ? ": " : ", ",
                    d->by[r]);
      first = False;
      used = VG_(strlen)(buf);
      switch ((JitDropReason)r) {
         case JitDrop_OUTSIDE:
            if (code_size > 0)
               VG_(snprintf)(buf + used, cap - used, "at an offset at or"
                             " past the code's size (%lu bytes)", code_size);
            else
               VG_(snprintf)(buf + used, cap - used, "at an offset at or"
                             " past the code's size");
            break;
         case JitDrop_LINE_ZERO:
            VG_(snprintf)(buf + used, cap - used, "with line 0");
            break;
         case JitDrop_LINE_HIGH:
            VG_(snprintf)(buf + used, cap - used, "with a line above %d",
                          MAX_LINENO);
            break;
         case JitDrop_UNREADABLE:
            VG_(snprintf)(buf + used, cap - used, "whose file name is not"
                          " readable or longer than %d bytes",
                          VG_JIT_MAX_STRING);
            break;
         case JitDrop_NO_FILE:
            VG_(snprintf)(buf + used, cap - used, "with no file (neither"
                          " the entry nor the registration names one)");
            break;
         case JitDrop_BAD_FILE:
            VG_(snprintf)(buf + used, cap - used, "whose file name is not"
                          " UTF-8 or has control characters");
            break;
         default:
            break;
      }
   }
}

JitLineTab* ML_(jit_line_table_copy) ( const JitLineTab* t )
{
   SizeT       sz   = sizeof(JitLineTab) + t->n_lines * sizeof(JitLine);
   JitLineTab* copy = ML_(dinfo_zalloc)("di.jitobjects.lines", sz);
   VG_(memcpy)(copy, t, sz);
   return copy;
}

/*--------------------------------------------------------------------*/
/*--- end                                                          ---*/
/*--------------------------------------------------------------------*/
