/*--------------------------------------------------------------------*/
/*--- The creator of JIT code nobody announces: the first frame   ---*/
/*--- outside the C library on the stack.         jitcreatorname.c ---*/
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


/* Who made code executable, for jitcreator.c: the creators (a function
   name "[JIT code of F]" and a JIT object "OBJECT[jit]", one per
   function and object, never freed), found on the stack of the thread
   that made memory executable (ML_(jit_creator_from_stack)) and
   remembered by their call site so that the same site costs no second
   stack trace; and the runtimes that can name their own code, for the
   hint at exit.  The rule for which frame names the code is in
   jitcreator.c's header comment. */

#include "pub_core_basics.h"
#include "pub_core_vki.h"
#include "pub_core_debuginfo.h"
#include "pub_core_libcbase.h"
#include "pub_core_libcassert.h"
#include "pub_core_libcprint.h"
#include "pub_core_libcfile.h"
#include "pub_core_libcproc.h"     /* VG_(gettimeofday) */
#include "pub_core_aspacemgr.h"
#include "pub_core_options.h"
#include "pub_core_oset.h"
#include "pub_core_xarray.h"
#include "pub_core_stacktrace.h"
#include "pub_core_machine.h"      /* VG_(get_IP), VG_(get_SP) */
#include "pub_core_threadstate.h"
#include "pub_core_jitreg.h"

#include "priv_misc.h"           /* dinfo_zalloc, dinfo_free, dinfo_strdup */
#include "priv_jitreg.h"
#include "priv_jitstore.h"       /* ML_(jit_object_get) */
#include "priv_jitcreator.h"     /* self */

/* Frames looked at for the creator. */
#define N_CREATOR_IPS 24

/*------------------------------------------------------------*/
/*--- Which objects and functions name code                ---*/
/*------------------------------------------------------------*/

static const HChar* base_name ( const HChar* path )
{
   const HChar* b = VG_(strrchr)(path, '/');
   return b != NULL ? b + 1 : path;
}

Bool ML_(jit_has_prefix) ( const HChar* s, const HChar* prefix )
{
   return VG_(strncmp)(s, prefix, VG_(strlen)(prefix)) == 0;
}

/* The C library, the dynamic linker and Valgrind's preload libraries:
   they map memory for others. */
static Bool is_system_object ( const HChar* path )
{
   const HChar* b = base_name(path);
   return ML_(jit_has_prefix)(b, "libc.so") || ML_(jit_has_prefix)(b, "libc-")
          || ML_(jit_has_prefix)(b, "ld-linux") || ML_(jit_has_prefix)(b, "ld64.so")
          || ML_(jit_has_prefix)(b, "ld.so") || ML_(jit_has_prefix)(b, "ld-musl")
          || ML_(jit_has_prefix)(b, "libc.musl") || ML_(jit_has_prefix)(b, "libpthread")
          || ML_(jit_has_prefix)(b, "libdl.so") || ML_(jit_has_prefix)(b, "libdl-")
          || ML_(jit_has_prefix)(b, "vgpreload_");
}

/* Whether the (raw or demangled) function name fn reads as memory
   management: a word of "alloc", "mmap", "commit", "protect",
   "permission", "reserve", "getmem" or "memory" in it, in any case.
   Large runtimes make their code executable from their page allocator
   (V8's v8::base::OS::SetPermissions, HotSpot's os::pd_commit_memory,
   JavaScriptCore's WTF::OSAllocator::tryReserveUncommitted, Mono's
   mono_valloc, Chez Scheme's S_getmem): that names memory, not the
   JIT, so the object's name is used instead. */
static Bool is_memory_routine ( const HChar* fn )
{
   static const HChar* const words[] = {
      "alloc", "mmap", "commit", "protect", "permission", "reserve",
      "getmem", "memory"
   };
   SizeT i, k, n = VG_(strlen)(fn);
   for (i = 0; i < n; i++)
      for (k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
         const HChar* w = words[k];
         SizeT        m = 0;
         while (w[m] != 0 && i + m < n
                && VG_(tolower)(fn[i + m]) == w[m])
            m++;
         if (w[m] == 0)
            return True;
      }
   return False;
}

/* Whether name is a creator object's ("...[jit]"). */
static Bool is_creator_object ( const HChar* name )
{
   SizeT n = VG_(strlen)(name);
   return n >= 5 && VG_(strcmp)(name + n - 5, "[jit]") == 0;
}

/*------------------------------------------------------------*/
/*--- The creators                                         ---*/
/*------------------------------------------------------------*/

static XArray* creators = NULL;   /* of JitCreator, never shrinks */
static ULong   n_stacks = 0;      /* stack traces taken */

/* The index in creators of the creator "[JIT code of FN]" (of_file:
   "[code of FN]") in the object at obj_path: the one made before for
   FN and that object, else one added now.  FN is found as the symbol table has it (raw:
   VG_(get_fnname_raw)) and demangled, as VG_(get_fnname) would, only
   for a new creator: a JIT making memory executable from the same
   function again pays no demangling. */
static UInt find_or_add_creator ( const HChar* fn, Bool raw,
                                  const HChar* obj_path, Bool of_file )
{
   SizeT        obj_len = VG_(strlen)(obj_path);
   HChar        objname[obj_len + 6];
   UInt         hash, obj, i;
   const HChar* shown = fn;
   JitCreator   c;

   /* Code of a file is the file's; JIT code goes to "OBJECT[jit]". */
   VG_(sprintf)(objname, of_file ? "%s" : "%s[jit]", obj_path);
   hash = ML_(jit_hash_bytes)(fn, VG_(strlen)(fn));
   obj  = ML_(jit_object_get)(objname)->index;
   if (creators == NULL)
      creators = VG_(newXA)(ML_(dinfo_zalloc), "di.jitcreator.creators",
                            ML_(dinfo_free), sizeof(JitCreator));
   for (i = 0; i < VG_(sizeXA)(creators); i++) {
      const JitCreator* e = VG_(indexXA)(creators, i);
      if (e->hash == hash && e->obj == obj && VG_(strcmp)(e->key, fn) == 0)
         return i;
   }
   c.key = ML_(dinfo_strdup)("di.jitcreator.key", fn);
   if (raw)
      shown = ML_(jit_shown_fnname)(c.key);
   {
      HChar name[VG_(strlen)(shown) + 15];
      VG_(sprintf)(name, of_file ? "[code of %s]" : "[JIT code of %s]",
                   shown);
      c.name = ML_(dinfo_strdup)("di.jitcreator.name", name);
   }
   c.obj    = obj;
   c.hash   = hash;
   c.ranges = 0;
   c.named  = False;
   /* Decided once per creator, not per range made. */
   c.memory = raw && is_memory_routine(c.key);
   return (UInt)VG_(addToXA)(creators, &c);
}

JitCreator* ML_(jit_creator_get) ( UInt ci )
{
   vg_assert(creators != NULL && ci < VG_(sizeXA)(creators));
   return VG_(indexXA)(creators, ci);
}

UWord ML_(jit_n_creators) ( void )
{
   return creators != NULL ? (UWord)VG_(sizeXA)(creators) : 0;
}

ULong ML_(jit_creator_n_stacks) ( void )
{
   return n_stacks;
}

UInt ML_(jit_creator_of_file) ( const HChar* path )
{
   return find_or_add_creator(base_name(path), False, path, True);
}

/*------------------------------------------------------------*/
/*--- The memo of call sites                               ---*/
/*------------------------------------------------------------*/

/* Creators decided by the two innermost frames alone, by their
   addresses: a JIT that makes memory executable again and again from
   the same call site (a new page for each function) pays no stack trace
   and no name lookup.  An entry is made only when the frames up to the
   one that decided are ELF code and that frame has a name (see
   ML_(jit_creator_from_stack)), and dropped when memory under either address is
   mapped, unmapped, moved or made executable, which is how the code
   there could be replaced.

   The second address is found without unwinding where the system call
   wrappers are leaf functions whose return address is the word at the
   stack pointer (amd64, x86): an entry is made only when the unwinder
   found it there, and since where a function keeps its return address
   depends on the instruction only, the same first address finds it
   there again.  Elsewhere a two-frame stack trace gives it. */
typedef
   struct {
      Addr ip[2];
      UInt creator;
      Bool used;
   }
   CreatorMemo;

#define N_CREATOR_MEMO 64   /* a power of two */

static CreatorMemo creator_memo[N_CREATOR_MEMO];
/* The indices of the used entries, in no order. */
static UInt memo_used[N_CREATOR_MEMO];
static UInt n_memo_used = 0;

static CreatorMemo* memo_slot ( const Addr* ip )
{
   UWord h = (ip[0] ^ (ip[1] * 0x9E3779B1UL)) >> 4;
   return &creator_memo[h & (N_CREATOR_MEMO - 1)];
}

void ML_(jit_creator_memo_forget) ( Addr a, Addr last )
{
   UInt i = 0;
   while (i < n_memo_used) {
      CreatorMemo* m = &creator_memo[memo_used[i]];
      if ((m->ip[0] >= a && m->ip[0] <= last)
          || (m->ip[1] >= a && m->ip[1] <= last)) {
         m->used = False;
         memo_used[i] = memo_used[--n_memo_used];
      } else {
         i++;
      }
   }
}

/* Remembers that the two innermost frames key decide creator ci. */
static void memo_remember ( CreatorMemo* m, const Addr* key, UInt ci )
{
   if (!m->used)
      memo_used[n_memo_used++] = (UInt)(m - creator_memo);
   m->ip[0]   = key[0];
   m->ip[1]   = key[1];
   m->creator = ci;
   m->used    = True;
}

/* The addresses of the two innermost frames of thread tid, as the
   memo's key; False if there are not two. */
static Bool innermost_two ( ThreadId tid, Addr* key )
{
#if defined(VGA_amd64) || defined(VGA_x86)
   Addr sp = VG_(get_SP)(tid);
   if (!VG_(am_is_valid_for_client)(sp, sizeof(Addr), VKI_PROT_READ))
      return False;
   key[0] = VG_(get_IP)(tid);
   /* As the unwinder gives it: within the call, not after it. */
   key[1] = *(const Addr*)sp - 1;
   return True;
#else
   return VG_(get_StackTrace)(tid, key, 2, NULL, NULL, 0) == 2;
#endif
}

/*------------------------------------------------------------*/
/*--- The creator of the running thread's request          ---*/
/*------------------------------------------------------------*/

/* The first frame outside the system objects (is_system_object) and
   code named here, then the first frame of that object with a name,
   unless it names memory management (is_memory_routine), else the
   object. */
UInt ML_(jit_creator_from_stack) ( void )
{
   Addr         ips[N_CREATOR_IPS];
   ThreadId     tid = VG_(get_running_tid)();
   DiEpoch      ep  = VG_(current_DiEpoch)();
   UInt         n = 0, i, j;
   Int          at = -1;
   const HChar* obj;
   const HChar* fn;
   CreatorMemo* memo = NULL;

   if (VG_(is_valid_tid)(tid)) {
      Addr key[2];
      if (innermost_two(tid, key)) {
         memo = memo_slot(key);
         if (memo->used && memo->ip[0] == key[0] && memo->ip[1] == key[1]) {
            return memo->creator;
         }
      }
      n = VG_(get_StackTrace)(tid, ips, N_CREATOR_IPS, NULL, NULL, 0);
      n_stacks++;
      /* Remembered only under the key it will be found by. */
      if (memo != NULL && (n < 2 || key[0] != ips[0] || key[1] != ips[1]))
         memo = NULL;
   }
   for (i = 0; i < n; i++) {
      if (!VG_(get_objname)(ep, ips[i], &obj) || is_creator_object(obj)
          || ML_(jit_creator_range_has)(ips[i]))
         continue;   /* code with no object, or code named here (JIT
                        code, or the code of a file such as a Lisp
                        image) */
      if (at < 0)
         at = (Int)i;   /* the fallback: the innermost frame of an object */
      if (!is_system_object(obj)) {
         at = (Int)i;
         break;
      }
   }
   if (at < 0)
      return find_or_add_creator("unknown code", False, "???", False);

   /* The object's path stays valid: copy it before the next lookup. */
   (void)VG_(get_objname)(ep, ips[at], &obj);
   {
      HChar obj_path[VG_(strlen)(obj) + 1];
      VG_(strcpy)(obj_path, obj);
      for (j = (UInt)at; j < n; j++) {
         const HChar* o;
         if (!VG_(get_objname)(ep, ips[j], &o) || VG_(strcmp)(o, obj_path) != 0)
            break;
         if (VG_(get_fnname_raw)(ep, ips[j], &fn) && fn[0] != 0) {
            UInt ci = find_or_add_creator(fn, True, obj_path, False);
            /* A runtime's own page allocator names no JIT: its object
               does ("node", "libjvm.so"). */
            if (ML_(jit_creator_get)(ci)->memory)
               ci = find_or_add_creator(base_name(obj_path), False,
                                        obj_path, False);
            /* Decided by the two innermost frames: remembered. */
            if (memo != NULL && j < 2
                && ML_(jit_overlaps_object_text)(ips[0], 1)
                && (j == 0 || ML_(jit_overlaps_object_text)(ips[1], 1))) {
               memo_remember(memo, ips, ci);
            }
            return ci;
         }
      }
      return find_or_add_creator(base_name(obj_path), False, obj_path,
                                 False);
   }
}

/*------------------------------------------------------------*/
/*--- Hints at exit                                        ---*/
/*------------------------------------------------------------*/

/* Runtimes that name their own JIT code when asked, recognised by the
   file name of the object that made their code executable (its creator
   object, without "[jit]"), and how to ask. */
static const struct {
   const HChar* object_prefix;
   const HChar* runtime;
   const HChar* how;
} hints[] = {
   { "node", "Node.js",
     "node --perf-basic-prof with valgrind --jit-perf-map=yes, or"
     " node --perf-prof (a jitdump, with lines)" },
   { "libnode", "Node.js",
     "node --perf-basic-prof with valgrind --jit-perf-map=yes, or"
     " node --perf-prof (a jitdump, with lines)" },
   { "deno", "Deno",
     "deno run --v8-flags=--perf-basic-prof with valgrind"
     " --jit-perf-map=yes" },
   { "libjvm.so", "HotSpot",
     "java -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit with"
     " valgrind --jit-perf-map=yes" },
   { "mono-sgen", "Mono", "mono --jitmap with valgrind --jit-perf-map=yes" },
   { "libmonosgen", "Mono",
     "mono --jitmap with valgrind --jit-perf-map=yes" },
   { "libpython3.", "CPython 3.12+",
     "python3 -X perf with valgrind --jit-perf-map=yes, or -X perf_jit"
     " (3.13+, a jitdump)" },
   { "python3.", "CPython 3.12+",
     "python3 -X perf with valgrind --jit-perf-map=yes, or -X perf_jit"
     " (3.13+, a jitdump)" },
   { "opcache.so", "PHP",
     "php -d opcache.jit_debug=0x10 with valgrind --jit-perf-map=yes, or"
     " 0x20 (a jitdump)" },
   { "qemu-", "QEMU",
     "qemu -perfmap with valgrind --jit-perf-map=yes, or -jitdump" },
   { "libjavascriptcoregtk", "JavaScriptCore",
     "JSC_useJITDump=1 in the environment (a jitdump, written into"
     " JSC_jitDumpDirectory and read with no option)" },
   { "bun", "Bun",
     "BUN_JSC_useJITDump=1 in the environment (a jitdump, written into"
     " BUN_JSC_jitDumpDirectory and read with no option)" },
};

void ML_(jit_creator_print_hints) ( Bool announced )
{
   Bool shown[sizeof(hints) / sizeof(hints[0])];
   Word i;
   UInt k;
   if (VG_(clo_verbosity) < 1 || announced || creators == NULL)
      return;
   VG_(memset)(shown, 0, sizeof(shown));
   for (i = 0; i < VG_(sizeXA)(creators); i++) {
      const JitCreator* c = VG_(indexXA)(creators, i);
      const HChar*   b;
      if (!c->named)
         continue;
      b = base_name(ML_(jit_object_at)(c->obj)->name);
      for (k = 0; k < sizeof(hints) / sizeof(hints[0]); k++) {
         Bool seen = False;
         UInt j;
         if (shown[k] || !ML_(jit_has_prefix)(b, hints[k].object_prefix))
            continue;
         /* One line per runtime, whichever of its objects made code. */
         for (j = 0; j < k; j++)
            if (shown[j] && VG_(strcmp)(hints[j].runtime,
                                        hints[k].runtime) == 0)
               seen = True;
         shown[k] = True;
         if (!seen)
            VG_(umsg)("JIT: %s's code ran without names (named after the"
                      " object that made it); %s names each function:"
                      " %s\n", hints[k].runtime, hints[k].runtime,
                      hints[k].how);
      }
   }
}

/*--------------------------------------------------------------------*/
/*--- end                                         jitcreatorname.c ---*/
/*--------------------------------------------------------------------*/
