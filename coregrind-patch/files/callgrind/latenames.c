/*--------------------------------------------------------------------*/
/*--- Callgrind                                                    ---*/
/*---                  Names that JIT code got late.   latenames.c ---*/
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

/* JITs often write a function's name after its code ran (buffered
   jitdump writers, perf maps written at exit); the core reads such
   names at the latest when the client exits, before the final dump.

   A BB without a name when Callgrind first saw it gets a function
   named after its address ("0x...", object and file "???"), one per
   translation, in no hash table (its BB refers to it), stamped with
   the time it was translated (VG_(jit_time_now)): a JIT may put other
   code at the same address later and name both late.

   Before every dump (CLG_(bind_late_names)), each such function whose
   address has a name now is bound to the function the address had when
   the code was translated (VG_(jit_late_name_epoch_at)), or keeps its
   address name when the producer files do not tell.  The first
   address-named function of a name is renamed in place, keeping its
   contexts, BBCCs and call edges; further pieces or versions of the
   same function are replaced by it in every context, and the contexts
   are rehashed.  Contexts that now list the same functions share one
   dump number, so the profile has the function once.  Its lines are
   those of the name it got (CLG_(late_debug_pos)), also when its BB
   was discarded before the name arrived (CLG_(late_kept_pos)).

   Code in an object's text that the object's symbols do not name (a
   stripped executable whose runtime names its own code in its perf
   files, as V8 does its builtins) has stock Callgrind's function named
   after the BB's address, in the object and in its table.  It is bound
   the same way, to the name the producer files give the address now,
   but never renamed in place, and never named after another object
   mapped there since or after the code's creator.  Without a
   producer's name it stays as stock Callgrind dumps it.

   A late-named block entered by a jump from another function (a JIT
   chaining its blocks) would have been a call had the name been known:
   CLG_(charge_late_named_blocks) moves its costs to a context of its
   own function.

   Code that no late name reaches is named after the code that made
   its memory executable ("[JIT code of F]" in "LIBRARY[jit]"), which
   the core gives Callgrind only here (VG_(jit_defer_creator_names),
   called when Callgrind starts), so that such code, while it runs,
   stays unnamed and open to names that arrive late. */

#include "global.h"

/*------------------------------------------------------------*/
/*--- Address-named functions                              ---*/
/*------------------------------------------------------------*/

/* Address-named functions of code without a name (one per translation)
 * not renamed yet: how many, and the functions in the order they were
 * made (for bind_address_named_fns) */
static UInt    unbound_address_named = 0;
static XArray* address_named_fns = NULL;   /* of fn_node* */

void CLG_(late_init_fn)(fn_node* fn)
{
    fn->bound_fn = 0;
    fn->bound_epoch = 0;
    fn->name_epoch = VG_(current_DiEpoch)();
    fn->jit_time = 0;
    fn->jit_discarded = False;
    fn->binding_target = False;
    fn->got_name_late = False;
}

void CLG_(late_note_unnamed)(fn_node* fn, BB* bb)
{
    if (address_named_fns == NULL)
        address_named_fns = VG_(newXA)(VG_(malloc), "cl.latenames.anf.1",
                                       VG_(free), sizeof(fn_node*));
    VG_(addToXA)(address_named_fns, &fn);
    unbound_address_named++;
    VG_(jit_note_unnamed_code)(bb_addr(bb));
    fn->jit_time = VG_(jit_time_now)();
}

/* Whether fn is in an object's text that its symbols do not name (a
 * stripped executable), rather than in code outside every object. */
static Bool in_object_text(const fn_node* fn)
{
    return VG_(strcmp)(fn->file->obj->name, "???") != 0;
}

/* Whether fn is named after its address (see CLG_(get_fn_node)): code
 * outside every object, or in an object's text where the object has no
 * symbol; the address in *addr. */
static Bool address_named_fn(const fn_node* fn, Addr* addr)
{
    const HChar* p = fn->name;
    Addr a = 0;
    Int  digits = 0;

    if (p[0] != '0' || p[1] != 'x' ||
	VG_(strcmp)(fn->file->name, "???") != 0)
	return False;
    for (p += 2; *p; p++, digits++) {
	HChar c = *p;
	Int d = (c >= '0' && c <= '9') ? c - '0'
	      : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
	if (d < 0 || digits >= 2 * (Int)sizeof(Addr))
	    return False;   /* " [PLT]" and the like: not JIT code */
	a = (a << 4) | (Addr)d;
    }
    if (digits == 0) return False;
    *addr = a + fn->file->obj->offset;
    return True;
}

/* The function node named fnname in file, or 0 (none is created). */
static fn_node* find_fn_node_infile(const file_node* file, const HChar *fnname)
{
    fn_node* fn = file->fns[CLG_(fn_name_hash)(fnname, file->fns_size)];
    while (fn != NULL && VG_(strcmp)(fnname, fn->name) != 0)
	fn = fn->next;
    return fn;
}

/* Whether the address-named fn can become the function named fnname
 * itself (see rename_fn_node): not when the name's --separate-callers
 * or --separate-recs settings differ from the ones fn's contexts and
 * BBCCs were made with, nor when dumps go to one file, where earlier
 * parts already gave fn's number its address name. */
static Bool can_rename_fn_node(const fn_node* fn, const HChar* fnname)
{
    fn_node probe;

    if (CLG_(clo).combine_dumps) return False;
    {
       HChar name[VG_(strlen)(fnname) + 1];
       VG_(strcpy)(name, fnname);
       probe = *fn;
       probe.name = name;
       CLG_(update_fn_config)(&probe);
    }
    return probe.separate_callers == fn->separate_callers
	&& probe.separate_recursions == fn->separate_recursions;
}

/* Makes the address-named fn the function fnname in file, keeping its
 * node: its contexts, BBCCs and call edges stay as they are, as if the
 * name had been known when the code ran.  Nothing is allocated but the
 * name. */
static void rename_fn_node(fn_node* fn, file_node* file, const HChar* fnname)
{
    SizeT      len = VG_(strlen)(fnname);
    UInt       idx;

    /* Address-named functions are in no hash table (see
       CLG_(get_fn_node)). */
    unbound_address_named--;
    fn->name = (HChar*) CLG_(new_record)("cl.latenames.rfn.1", len + 1);
    VG_(memcpy)(fn->name, fnname, len + 1);
    fn->file = file;
    idx = CLG_(fn_name_hash)(fn->name, file->fns_size);
    fn->next = file->fns[idx];
    file->fns[idx] = fn;
    file->fns_count++;
    if (file->fns_count > file->fns_size) {
	/* The other address-named functions may follow: room for them
	   at once rather than a rehash per doubling. */
	UInt size = 2 * file->fns_size + 1;
	if (size < file->fns_count + unbound_address_named)
	    size = file->fns_count + unbound_address_named;
	CLG_(grow_fn_table)(file, size);
    }

    fn->is_malloc  = (VG_(strcmp)(fn->name, "malloc")==0);
    fn->is_realloc = (VG_(strcmp)(fn->name, "realloc")==0);
    fn->is_free    = (VG_(strcmp)(fn->name, "free")==0);
    CLG_(update_fn_config)(fn);
}

/* Binds the address-named fn to the function fnname of di, file
 * dirname/filename, looked up in epoch ep. */
static fn_node* bind_late_name(fn_node* fn, DiEpoch ep, DebugInfo* di,
                               const HChar* dirname, const HChar* filename,
                               const HChar* fnname)
{
    file_node*  file;
    fn_node*    bound;

    fn->name_epoch = ep;
    fn->got_name_late = True;

    file  = CLG_(get_file_node)(CLG_(get_obj_node)(di), dirname, filename);
    bound = find_fn_node_infile(file, fnname);
    /* (Address-named functions in an object's text are in its hash
       table, as in stock Callgrind: never renamed.) */
    if (bound == 0 && !in_object_text(fn) && can_rename_fn_node(fn, fnname)) {
	/* The first piece of code with this name: it becomes the
	   function. */
	rename_fn_node(fn, file, fnname);
	fn->binding_target = True;
	return fn;
    }
    /* Another piece, or version, of a function that has a node: dumped
       as that node (see CLG_(bind_late_names)). */
    if (bound == 0)
	bound = CLG_(get_fn_node_infile)(file, fnname);
    bound->binding_target = True;
    bound->name_epoch = ep;
    if (bound->pure_cxt == 0) {
	/* First seen: the attributes CLG_(get_fn_node) gives a new
	 * function (JIT code is text, never PLT or the dynamic linker). */
	fn_node* pure[2];
	pure[0] = 0;
	pure[1] = bound;
	bound->pure_cxt   = CLG_(get_cxt)(pure+1);
	bound->is_malloc  = (VG_(strcmp)(bound->name, "malloc")==0);
	bound->is_realloc = (VG_(strcmp)(bound->name, "realloc")==0);
	bound->is_free    = (VG_(strcmp)(bound->name, "free")==0);
	CLG_(update_fn_config)(bound);
    }
    return bound;
}

/* Code that no late name reached: named after the code that made its
 * memory executable, if the core knows (VG_(jit_defer_creator_names)),
 * else it keeps its address name.  Each address-named function keeps
 * its own node, as stock Callgrind splits unknown code at the
 * addresses calls entered it at, and its name says where:
 * "[JIT code of F] 0xADDR".  A profile of a large runtime's unannounced
 * code keeps its hot spots and call graph, and a wildcard
 * ("[JIT code of F]*") still selects all of it.  These functions are no
 * late-named blocks (CLG_(charge_late_named_blocks)): blocks entered by
 * a jump stay with the function that jumped, as in stock Callgrind. */
static fn_node* bind_creator_name(fn_node* fn, Addr a)
{
    const HChar* fnname;
    DebugInfo*   di;
    fn_node*     bound;

    if (!VG_(jit_creator_name_at)(a, fn->jit_time, &fnname, &di))
	return fn;
    {
	HChar name[VG_(strlen)(fnname) + 24];
	VG_(sprintf)(name, "%s %#lx", fnname, a);
	bound = bind_late_name(fn, VG_(current_DiEpoch)(), di, "", "???", name);
    }
    fn->got_name_late = False;
    return bound;
}

/* Binds fn to fnname, the function of di at a in epoch ep, with a's
 * source position there ("???" if it has none). */
static fn_node* bind_found_name(fn_node* fn, DiEpoch ep, DebugInfo* di,
                                Addr a, const HChar* fnname)
{
    const HChar *filename, *dirname;
    UInt        line;

    if (!VG_(get_filename_linenum)(ep, a, &filename, &dirname, &line)) {
	filename = "???";
	dirname  = "";
    }
    return bind_late_name(fn, ep, di, dirname, filename, fnname);
}

/* Binds fn as CLG_(late_bound_fn) says, looking the name up. */
static fn_node* look_up_late_name(fn_node* fn)
{
    const HChar *fnname, *filename, *dirname;
    UInt        line;
    DebugInfo*  di;
    Addr        a;
    DiEpoch     ep;

    /* Also a function renamed before: it keeps its late name. */
    if (!address_named_fn(fn, &a)) return fn;
    fn->got_name_late = False;
    if (in_object_text(fn)) {
        /* Text that the object's symbols do not name: a name only from
           the producer files, never from another object mapped there
           since or from the code's creator. */
        ep = VG_(jit_late_name_epoch)(a);
        di = VG_(find_DebugInfo)(ep, a);
        if (di == 0
            || VG_(strcmp)(VG_(DebugInfo_get_filename)(di),
                           fn->file->obj->name) != 0
            || !VG_(get_fnname)(ep, a, &fnname))
            return fn;
        return bind_found_name(fn, ep, di, a, fnname);
    }
    if (fn->jit_time != 0) {
        /* The function that was at the address when the code was
           translated, if the producer's records tell. */
        if (!VG_(jit_late_name_epoch_at)(a, fn->jit_time,
                                         !fn->jit_discarded, &ep))
            return bind_creator_name(fn, a);
    } else {
        /* The name the address had last (also if the JIT freed the
           code). */
        ep = VG_(jit_late_name_epoch)(a);
    }
    /* Code outside every object: only the JIT code registry can name
       it, and asking it alone spares a search of every object's
       tables per look-up. */
    if (!VG_(jit_get_fnname_linenum)(ep, a, &di, &fnname, &filename,
                                     &dirname, &line))
	return bind_creator_name(fn, a);
    return bind_late_name(fn, ep, di, dirname, filename, fnname);
}

/* Names change only with the debug info epoch (every JIT registration
 * advances it): a dump asks once per function and epoch. */
fn_node* CLG_(late_bound_fn)(fn_node* fn)
{
    UInt now = VG_(current_DiEpoch)().n;

    if (fn->bound_epoch != now || fn->bound_fn == 0) {
	fn->bound_fn = look_up_late_name(fn);
	fn->bound_epoch = now;
    }
    return fn->bound_fn;
}

/* Binds every address-named function as CLG_(late_bound_fn) says, in
 * the order they were made, and forgets those that became a named
 * function.  JITs mostly emit code upward, so this order looks the
 * names up address after address, where the order a dump meets them in
 * (its contexts) jumps around the whole registry. */
static void bind_address_named_fns(void)
{
    Word i, n, kept = 0;
    Addr a;

    if (address_named_fns == NULL) return;
    n = VG_(sizeXA)(address_named_fns);
    for (i = 0; i < n; i++) {
	fn_node* fn = *(fn_node**)VG_(indexXA)(address_named_fns, i);
	(void)CLG_(late_bound_fn)(fn);
	if (address_named_fn(fn, &a))
	    *(fn_node**)VG_(indexXA)(address_named_fns, kept++) = fn;
    }
    VG_(dropTailXA)(address_named_fns, n - kept);
}

/* Whether fn's code got its name late: fn became that function, or is
 * dumped as CLG_(late_bound_fn)(fn). */
Bool CLG_(has_late_name)(fn_node* fn)
{
    (void)CLG_(late_bound_fn)(fn);
    return fn->got_name_late;
}

/*------------------------------------------------------------*/
/*--- Contexts                                             ---*/
/*------------------------------------------------------------*/

/* How many recursion levels (dump numbers) new_cxt gives a context
 * whose top function is top. */
static UInt cxt_recursions(const fn_node* top)
{
    return top->separate_recursions < 1 ? 1 : top->separate_recursions;
}

/* Orders contexts by hash, then size, then function list: contexts
 * listing the same functions are neighbours. */
static Int cmp_fns(const void* x, const void* y)
{
    const Context* a = *(const Context* const*)x;
    const Context* b = *(const Context* const*)y;
    UInt i;
    if (a->hash != b->hash) return a->hash < b->hash ? -1 : 1;
    if (a->size != b->size) return a->size < b->size ? -1 : 1;
    for (i = 0; i < a->size; i++)
	if (a->fn[i] != b->fn[i]) return a->fn[i] < b->fn[i] ? -1 : 1;
    return 0;
}

static Int cmp_ptr(const void* x, const void* y)
{
    const Context* a = *(const Context* const*)x;
    const Context* b = *(const Context* const*)y;
    return a < b ? -1 : a > b ? 1 : 0;
}

/* Whether cxt is in sorted[0 .. n-1] (sorted by address). */
static Bool is_in(Context* const* sorted, UInt n, const Context* cxt)
{
    UInt lo = 0, hi = n;
    while (lo < hi) {
	UInt mid = lo + (hi - lo) / 2;
	if (sorted[mid] == cxt) return True;
	if (sorted[mid] < cxt) lo = mid + 1; else hi = mid;
    }
    return False;
}

/* A rebound context may now list the same functions as other contexts
 * (the named function's own, or another piece of the same function):
 * in the dump they must be one function, so all of them take the
 * smallest dump number among them.  Dump numbers only name contexts in
 * the output, a range of as many as the context has recursion levels;
 * contexts whose range no longer fits their top function (odd: its
 * recursion levels are set apart by name, see --separate-recs-<fn>)
 * neither take nor give a number.
 *
 * Contexts listing the same functions share a hash, so a bucket holds
 * all of them: each bucket that holds a rebound context is sorted once
 * by function list and every run of equal lists takes its smallest
 * number.  The cost is O(c log c) for the c contexts of those buckets,
 * whatever the number of contexts that became one (creator names merge
 * tens of thousands of contexts of a Scheme system's code into a few
 * lists; comparing each rebound context with its whole bucket cost
 * minutes). */
static void share_dump_numbers(cxt_hash* cxts, Context** rebound, UInt n,
			       Context** misfit, UInt n_misfit)
{
    UChar*    seen;
    Context** run;
    UInt      i, cap = 0;

    if (n == 0) return;
    VG_(ssort)(misfit, n_misfit, sizeof(Context*), cmp_ptr);
    seen = (UChar*) CLG_MALLOC("cl.latenames.sdn.1", cxts->size);
    VG_(memset)(seen, 0, cxts->size);
    for (i = 0; i < n; i++) {
	UInt b = (UInt) (rebound[i]->hash % cxts->size);
	if (!seen[b] && cxts->table[b] && cxts->table[b]->next) {
	    seen[b] = 1;
	    cap++;
	}
    }
    run = NULL;
    for (i = 0; i < n && cap > 0; i++) {
	UInt     b = (UInt) (rebound[i]->hash % cxts->size), m = 0, j, k;
	Context* other;
	if (seen[b] != 1) continue;
	seen[b] = 2;   /* once per bucket */
	for (other = cxts->table[b]; other; other = other->next)
	    if (!is_in(misfit, n_misfit, other)) m++;
	if (m < 2) continue;
	run = (Context**) VG_(realloc)("cl.latenames.sdn.2", run,
				       m * sizeof(Context*));
	m = 0;
	for (other = cxts->table[b]; other; other = other->next)
	    if (!is_in(misfit, n_misfit, other)) run[m++] = other;
	VG_(ssort)(run, m, sizeof(Context*), cmp_fns);
	for (j = 0; j < m; j = k) {
	    UInt number = run[j]->base_number;
	    for (k = j + 1; k < m && cmp_fns(&run[j], &run[k]) == 0; k++)
		if (run[k]->base_number < number) number = run[k]->base_number;
	    for (; j < k; j++) run[j]->base_number = number;
	}
    }
    if (run) VG_(free)(run);
    VG_(free)(seen);
}

/* Every context entry that is an address-named function with a name
 * now is replaced by the named function, so the costs of all its
 * contexts are dumped under that function, with its callers and
 * callees, as if the name had been known when the code ran.  Contexts
 * are then rehashed under their new function lists.  Functions still
 * without a name are left alone.  Called before each dump; later
 * executions of the same code create fresh contexts, bound again at
 * the next dump.
 */
static UInt bind_contexts(void)
{
    cxt_hash* cxts = CLG_(get_cxt_hash)();
    Context **all, *cxt, *next;
    Context **misfit;
    UInt     i, j, n = 0, changed = 0, fits = 0, misfits = 0;

    if (cxts->entries == 0) return 0;
    bind_address_named_fns();

    /* Binding may create contexts (a new function's pure context) and
     * resize the table: work on a list taken first. */
    all = (Context**) CLG_MALLOC("cl.latenames.bln.1",
                                 cxts->entries * sizeof(Context*));
    for (i = 0; i < cxts->size; i++)
	for (cxt = cxts->table[i]; cxt; cxt = cxt->next)
	    if (n < cxts->entries) all[n++] = cxt;
    misfit = (Context**) CLG_MALLOC("cl.latenames.bln.2",
                                    n * sizeof(Context*));

    for (i = 0; i < n; i++) {
	Bool  rebound = False;
	UWord hash = 0;
	UInt  recs;
	cxt = all[i];
	recs = cxt_recursions(cxt->fn[0]);
	for (j = 0; j < cxt->size; j++) {
	    fn_node* bound = CLG_(late_bound_fn)(cxt->fn[j]);
	    if (bound != cxt->fn[j]) {
		cxt->fn[j] = bound;
		rebound = True;
	    }
	    hash = (hash<<7) + (hash>>25) + (UWord)cxt->fn[j];
	}
	if (!rebound) continue;
	cxt->hash = hash;
	changed++;
	/* The rebound ones move to the front of all (only entries already
	   visited are overwritten), those that no longer fit to misfit. */
	if (recs == cxt_recursions(cxt->fn[0]))
	    all[fits++] = cxt;
	else
	    misfit[misfits++] = cxt;
    }

    if (changed > 0) {
	/* Rehash in place: collect every entry, then relink. */
	Context* list = 0;
	for (i = 0; i < cxts->size; i++) {
	    for (cxt = cxts->table[i]; cxt; cxt = next) {
		next = cxt->next;
		cxt->next = list;
		list = cxt;
	    }
	    cxts->table[i] = 0;
	}
	for (cxt = list; cxt; cxt = next) {
	    UInt idx = (UInt) (cxt->hash % cxts->size);
	    next = cxt->next;
	    cxt->next = cxts->table[idx];
	    cxts->table[idx] = cxt;
	}
	share_dump_numbers(cxts, all, fits, misfit, misfits);
    }
    VG_(free)(misfit);
    VG_(free)(all);
    return changed;
}

UInt CLG_(bind_late_names)(void)
{
    UInt late = bind_contexts();

    if (late > 0 && VG_(clo_verbosity) > 1)
        VG_(message)(Vg_DebugMsg, "%u contexts of address-named code "
                     "bound to names that arrived late\n", late);
    return late;
}

/*------------------------------------------------------------*/
/*--- Source positions                                     ---*/
/*------------------------------------------------------------*/

/* Code translated without a name takes its positions from the name it
 * had then, when dumped (see CLG_(late_debug_pos)). */
Bool CLG_(late_discard_bb)(BB* bb)
{
    if (bb->fn) bb->fn->jit_discarded = True;
    return bb->fn && bb->fn->jit_time != 0;
}

/* Code translated without a name (see CLG_(get_fn_node)): the
 * positions of the name it got late, from the time it was translated;
 * none if it got no name, whatever the address holds now. */
Bool CLG_(late_debug_pos)(BBCC* bbcc, Addr addr, AddrPos* p, Bool* found)
{
    BB* bb = bbcc->bb;
    const HChar *lfile, *ldir;
    UInt lline;
    fn_node* top = bbcc->cxt->fn[0];
    const HChar* topname;

    if (bb->fn == 0 || bb->fn->jit_time == 0) return False;
    *found = False;
    if (CLG_(has_late_name)(bb->fn))
        *found = VG_(get_filename_linenum)(bb->fn->name_epoch, addr,
                                           &lfile, &ldir, &lline);
    /* Without a name of its own (code a later function had too), run as
       part of a function named late that covers it: that function's
       lines. */
    else if (top->binding_target
             && VG_(get_fnname)(top->name_epoch, addr, &topname)
             && VG_(strcmp)(topname, top->name) == 0)
        *found = VG_(get_filename_linenum)(top->name_epoch, addr,
                                           &lfile, &ldir, &lline);
    if (!*found) {
        lfile = "???";
        ldir  = "";
        lline = 0;
    }
    p->file = CLG_(get_file_node)(bb->obj, ldir, lfile);
    p->line = lline;
    p->addr = addr - bb->obj->offset;
    p->bb_addr = bb->offset;
    return True;
}

/* A BB that ran without a name and was discarded before its name
 * arrived: positions from the line table that came with the name. */
Bool CLG_(late_kept_pos)(BB* bb, Addr addr, AddrPos* p)
{
    const HChar *lfile, *ldir;
    UInt lline;

    if (bb->fn == 0 || !CLG_(has_late_name)(bb->fn)) return False;
    if (!VG_(get_filename_linenum)(VG_(jit_late_name_epoch)(addr),
                                   addr, &lfile, &ldir, &lline))
        return False;
    p->file = CLG_(get_file_node)(bb->obj, ldir, lfile);
    p->line = lline;
    p->addr = addr - bb->obj->offset;
    p->bb_addr = bb->offset;
    return True;
}

/*------------------------------------------------------------*/
/*--- Blocks entered by a jump                             ---*/
/*------------------------------------------------------------*/

/* Blocks of code that got its name only after it ran, entered by a
 * jump from another function (a JIT chaining its blocks, as QEMU
 * does): without a name, such a block was charged to the function
 * that jumped there.  With the name known, the jump would have entered
 * the block's own function (a jump to a function's first instruction
 * counts as a call), so the block's costs move to a context of its own
 * function on top of the jumping one.  The calls are not recreated:
 * the jumps were never counted.  Works on the current thread's BBCCs;
 * called before they are dumped.
 */
UInt CLG_(charge_late_named_blocks)(void)
{
  bbcc_hash* current_bbccs = CLG_(get_current_bbcc_hash)();
  BBCC *bbcc;
  UInt i, j, k, moved = 0;

  for (i = 0; i < current_bbccs->size; i++) {
    for (bbcc = current_bbccs->table[i]; bbcc; bbcc = bbcc->next) {
      Context* cxt = bbcc->cxt;
      fn_node* top = cxt->fn[0];
      fn_node* own;
      fn_node** stack;

      if (bbcc->bb->fn == 0) continue;
      own = CLG_(late_bound_fn)(bbcc->bb->fn);
      if (!bbcc->bb->fn->got_name_late || own == top) continue;
      /* The recursion levels of a BBCC follow its function's setting. */
      if (own->separate_recursions != top->separate_recursions) continue;

      /* CLG_(get_cxt) reads a 0-terminated stack downwards from its top. */
      stack = (fn_node**) CLG_MALLOC("cl.latenames.clnb.1",
                                     (cxt->size + 2) * sizeof(fn_node*));
      stack[0] = 0;
      for (k = 0; k < cxt->size; k++)
        stack[cxt->size - k] = cxt->fn[k];
      stack[cxt->size + 1] = own;
      cxt = CLG_(get_cxt)(stack + cxt->size + 1);
      CLG_FREE(stack);

      for (j = 0; j < top->separate_recursions; j++)
        if (bbcc->rec_array[j]) bbcc->rec_array[j]->cxt = cxt;
      moved++;
    }
  }
  return moved;
}

/*--------------------------------------------------------------------*/
/*--- end                                              latenames.c ---*/
/*--------------------------------------------------------------------*/
