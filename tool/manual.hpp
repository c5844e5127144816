// manual.hpp: the prose of vg-jit's manual, which main.cpp renders
// (--help, help COMMAND, COMMAND --help) together with the options each
// command declares there; help2man makes the vg-jit(1) man page from
// --help.  Nothing else holds this text.
#pragma once

namespace vgjit::manual_text {

// Text blocks below follow one convention: a line without leading blanks is
// running text (wrapped here already), a blank line ends a paragraph, and a
// line indented by blanks is shown as is.  help2man turns running text into
// paragraphs and "TAG  text" lines into tagged paragraphs.

/// The first line after the synopsis; also the NAME line of the man page.
inline constexpr const char* kSummary =
    "Inspect the files JIT runtimes write for profilers and the objects they\n"
    "register for debuggers.";

inline constexpr const char* kDescription =
    R"(JIT compilers (V8/Node.js, the JVM through a JVMTI agent, .NET,
wasmtime, QEMU, Python 3.12+, ...) describe the machine code they emit in
two kinds of files, which Valgrind with valgrind-jit reads too:

  jitdump   jit-<pid>.dump, the binary format of Linux perf
            (tools/perf/Documentation/jitdump-specification.txt), versions
            1 and 2: a file header, then CODE_LOAD, CODE_MOVE,
            CODE_DEBUG_INFO, CODE_CLOSE and CODE_UNWINDING_INFO records.
  perf map  /tmp/perf-<pid>.map, text, one "START SIZE name" line per
            function with START and SIZE in hexadecimal.

JITs built on LLVM (MCJIT, ORC) describe their code to debuggers instead
through the GDB JIT compilation interface (GDB manual, "JIT Compilation
Interface"): each module as an in-memory ELF object (symfile_addr,
symfile_size), relocatable (ET_REL), whose section headers hold the
load addresses of its code (sh_addr).  Saved to a file, such an object
is read by check and dump with the rules Valgrind's core applies before
it trusts one.

The format is detected from the file's first bytes (the ELF magic
"\x7fELF", the jitdump magic "JiTD") or its name (*.dump); anything
else is read as a perf map.  vg-jit uses the very parsers that are
compiled into Valgrind's core.  Files are taken to be complete: a
truncated final record, or a last line without its newline, is an error
here (Valgrind itself waits for the producer to finish writing it).)";

inline constexpr const char* kCheckText =
    R"(Validate each FILE and print every problem, one per line, as
    FILE:OFFSET: error: explanation     (jitdump, byte offset)
    FILE:LINE: error: explanation       (perf map, 1-based line)
    FILE: error: explanation            (the file as a whole)
followed by a summary line per file.  Errors: malformed header or
records (bad magic, other byte order, unknown version, sizes that do
not fit, unterminated names, line tables that overrun their record,
code ranges that wrap around), truncated records, record pids that
differ from the header's pid, a header pid that differs from the pid
in a jit-<pid>.dump name, perf map lines that do not parse.
Warnings: code ranges that partially overlap a live earlier entry
(runtimes reuse freed code memory without saying so, so the later
entry wins), CODE_LOAD records without code, CODE_DEBUG_INFO not
followed by the matching CODE_LOAD, CODE_MOVE of unknown code,
records after CODE_CLOSE, line number 0, names and file names that
are not valid UTF-8 or contain control characters (dump escapes
them).

An ELF object (GDB JIT interface) is checked as Valgrind's core checks
it before registering its functions; each problem is reported at the
byte offset of the header, section header or symbol at fault, and the
summary line reads "FILE: ELF object, N functions, E errors, W
warnings".  Errors (the object is malformed, and the core refuses it
or, for a debug section, its line tables or CFI): a file shorter than
the ELF header, another byte order or class than this machine's
programs, an object that is not relocatable, executable or shared, no
section header table or one past the end of the file, more than 65280
sections, an unexpected section header size, a misaligned section
header table or symbol table, any section whose offset and size lie
past the end of the file, no symbol table, a symbol table that is not
a whole number of symbols or links to no string table, a function or
file symbol whose name lies outside its string table or is not
NUL-terminated there, a code section of a relocatable object holding
functions but no load address (sh_addr 0), a function outside its
section, a function whose range wraps around.  Warnings (the core
registers the object, with a loss): functions that overlap (the core
registers both, the later replacing the earlier), names longer than
4095 bytes (that function is refused), a line table or CFI the core
refuses (a compressed DWARF section, REL relocations, relocations of
another machine than x86-64 and AArch64, of types other than
R_X86_64_64, _32, _32S (and _PC32, _PC64 in .eh_frame) in x86-64 objects
and R_AARCH64_ABS64, _ABS32, _ABS16 (and _PREL32, _PREL64 in .eh_frame)
in AArch64 ones, 32- and 16-bit ones that overflow at the sections' load
addresses, outside their section or against undefined
symbols; a .debug_line without .debug_info and .debug_abbrev), string
tables that do not end with a NUL byte, a malformed .debug_abbrev, an
unusable section name table (sections are listed without names).)";

inline constexpr const char* kDumpText =
    R"(List every record of a jitdump (offset, kind, timestamp, address
range, size, name, line-table entries, number of code bytes) or
every entry of a perf map (line, range, size, name), with problems
interleaved in the check format.  With --json, print one JSON object
instead: {"file", "format", "records" or "entries", "header",
"problems"}; addresses are "0x..." strings, other numbers are JSON
numbers, names are JSON strings in UTF-8 (a byte that is not part of
valid UTF-8 appears as the character U+0080..U+00FF of its value).
In the text listing, every byte of a name or file name that is not
part of valid UTF-8, and every control character, is written as \xHH,
and a backslash as \\, so that each item stays on one line.

For an ELF object (GDB JIT interface) dump lists its class, byte
order, type and machine, its size and source file (its first STT_FILE
symbol, which the core names the object after), the debug data the
core reads and can use (.debug_line; .eh_frame, else .debug_frame;
inlined subroutines: a DW_TAG_inlined_subroutine abbreviation in
.debug_abbrev, read with the line table), one "section" line per
executable section (index, name, [load address, end), size, file
offset) and one line per function as the core registers it (.symtab
STT_FUNC symbols with a size in an executable section):
    function [START, END) size N 'NAME' section S lines yes cfi yes inlined no
START is the section's sh_addr plus st_value in a relocatable object,
st_value in others.  "lines", "cfi" and "inlined" say whether the
line table, the CFI and the inlined subroutines of .debug_info cover
the function's section (in a relocatable object, whether their
relocations refer to it; otherwise whether they are present); the
DWARF itself is not decoded.  Problems follow, in the check format.
With --json: {"file", "format": "elf", "size", "object", "debug",
"sections", "functions", "problems"}.)";

inline constexpr const char* kAnnotateText =
    R"(Name the jitted code in a Callgrind profile taken with an unpatched
Valgrind (valgrind --tool=callgrind --dump-instr=yes PROGRAM), using
the jitdump files and perf maps the program wrote (each --map FILE;
format detected as above).  Stock Callgrind names code without
symbols after the address of the block where it was entered
("fn=0x0000000004855100" in object "???"): a pseudo-function holds
everything executed from a call target until the matching return,
including other functions reached by tail jumps, and calls to
non-entry addresses (or jumps into jitted code from other objects)
split one function into several pseudo-functions.  annotate moves
the cost of every instruction of a pseudo-function to the mapped
function containing that instruction, renames calls to
pseudo-functions, drops the calls from a function to pieces of
itself (a call to its own start address, i.e. recursion, stays),
and writes the result, a valid Callgrind profile, to OUT (stdout
without -o) for callgrind_annotate or KCachegrind.
Maps: their entries are applied in order, all FILEs in the order
given; an entry that overlaps earlier ones replaces them (runtimes
reuse code memory); jitdump CODE_MOVE moves a function.  The same
name at several addresses is one function.  Renamed functions get
the map's absolute path as object (ob=), like the patched core, and,
from a jitdump CODE_DEBUG_INFO line table, the table's file (fl=)
and per-instruction line numbers.
Exact: every event total (cost lines are moved, never changed);
with --dump-instr=yes each function's self cost, since each
instruction's cost is attributed by its own address; call counts.
Approximate: without --dump-instr=yes a pseudo-function's costs
all go to the function containing the block it was entered at (a
warning says so); the inclusive cost of a call edge is Callgrind's
(of the call as made, which may include code reached by tail jumps);
recursion depth suffixes ('2) are kept for costs in the entered
function and dropped for costs moved to other functions; code
replaced at the same address in one run cannot be told apart (the
profile has no time): its costs go to the last map entry.  Only
pseudo-functions in objects "???" or without object are touched.
Malformed profile lines are errors with their line number (no
output is written); problems in maps are reported and annotate
goes on with what could be read (exit status 1).)";

inline constexpr const char* kExportText =
    R"(Convert a Callgrind profile (or a Cachegrind profile, as a flat one)
into weighted stack samples for viewers that do not read Callgrind's
format: the Firefox Profiler's processed profile (JSON; open it at
profiler.firefox.com or with profiler-cli), or the folded stacks that
flame graph tools, speedscope and the Firefox Profiler import
("main;f;g 1234" per line, ';' in names replaced by ':').  The weights
are the counts of one event, exact integers: the samples add up to the
profile's total of the event (the "totals:" or "summary:" line, summed
over parts).

Functions keep their names, source files and lines (per-line costs
become frames with lines); a category tells JIT code (objects that are
not ELF files: client-request objects, jitdump files, perf maps, GDB
JIT objects) from native ELF code and from unnamed code (address-named
functions, object ???); each object (ob=) is a resource.

Stacks are exact when the profile has the contexts to make them:
with --separate-callers=N (N at least the call depth) each context
is called from one context, and its self cost becomes a sample of its
whole call chain.  Without contexts the profile tells only which
function called which, not which caller led to a callee of a function
with several callers, so a stack holds only the functions that were on
the stack of every call (its dominators), and the frame "[unknown
callers]" stands where the profile does not give the frames between:
no function is put under a caller that did not lead to it, and no cost
is split among guessed stacks.  A warning says so and the profile's
metadata (Stacks) too.  Recursive calls fold into the outermost one.

Several parts (--dump-every-bb=N, callgrind_control -d; in one file
or as several PROFILE files of one run, in order) make a time line:
each part's samples follow those of the part before it, placed by the
event's count (the time axis counts millions of the event).  Parts of
different threads (--separate-threads=yes) become threads.

The profiles of several processes (valgrind --trace-children=yes
writes a callgrind.out.<pid> per process), told apart by their "pid:"
lines, become one profile with a process per pid, in the order of
the pids, each with its own time line: the Firefox Profiler shows a
track per process, named after its command ("cmd:"): the program's
file name and its first argument, or an argument "--type=..." if there
is one (Chromium's process types), a path cut to its file name, as in
"chromium --type=renderer" for "/usr/lib/chromium/chromium
--no-sandbox --type=renderer --lang=en".  Folded stacks then start with
the process, "NAME [PID]".  Parts with one pid (dumps, parts of a
file) stay one process.

A malformed, truncated (no "totals:" line at the end of a part) or
inconsistent profile (totals that differ from the sum of the cost
lines) is an error with its file and line number, and nothing is
written: OUT is written through a temporary file and renamed.)";

inline constexpr const char* kProfilesText =
    R"(List the processes of Callgrind (or Cachegrind) profiles, one per
"pid:" (the files of one process, its dumps and parts, count as one),
with each process's pid, total cost of the event, the part of it in
JIT code and in unnamed code, and its name (as export names its
track), sorted by the share of JIT code: which process of a
multi-process run (valgrind --trace-children=yes) ran the JIT.  A
DIR stands for its files named callgrind.out* and cachegrind.out*.

JIT code is what export puts in its category JIT: functions whose
object is not an ELF file (a client-request object such as [jit] or
"minijit:calls.mj", a jitdump file, a perf map, a GDB JIT object, a
--dump-jit-code file).  Unnamed code (address-named functions, object
???) is counted apart: code nobody named, JIT or not.  The counts are
the self costs of the functions, exact, and add up to the total.

--json prints {"event", "processes": [{"pid", "command" (the whole
"cmd:"), "name", "total", "jit", "jit_share", "unnamed",
"unnamed_share", "threads", "parts", "files"}]} in the same order,
shares as fractions (0 to 1).  A malformed or truncated profile is an
error with its file and line, and nothing is listed.)";

inline constexpr const char* kHelpText = R"(Print this manual, or the part about COMMAND.)";

/// The EXIT STATUS entries: "TAG  text" lines.
inline constexpr const char* kExitText =
    R"(  0   every FILE is clean (check: no errors, and with --strict no
      warnings), or was listed without errors (dump), or the profile was
      rewritten and every map read cleanly (annotate), or the profile
      was converted and written (export), or the processes were listed
      (profiles).
  1   a problem was found: an error (or, with --strict, a warning) in a
      FILE, or a FILE could not be read; annotate: the profile is
      malformed or unreadable, OUT cannot be written, or a map had errors
      or named no code; export: a profile is malformed, truncated or
      unreadable, or OUT cannot be written (nothing is written);
      profiles: a profile is malformed, truncated or unreadable, or a
      DIR holds no profile.
  2   usage error: unknown command or option, a missing or bad argument,
      missing FILE; the message says which.)";

/// Examples: help2man sets lines that start with "$ " verbatim.
inline constexpr const char* kExamples = R"(  $ node --perf-prof app.js && vg-jit check jit-*.dump
  $ vg-jit dump --json /tmp/perf-1234.map | jq '.entries | length'
  $ vg-jit check jit-object.o && vg-jit dump jit-object.o
  $ valgrind --tool=callgrind --dump-instr=yes node --perf-basic-prof app.js
  $ vg-jit annotate --map /tmp/perf-1234.map callgrind.out.1234 -o named.out
  $ callgrind_annotate named.out
  $ valgrind --tool=callgrind --separate-callers=50 ./minijit calls.mj
  $ vg-jit export --format=firefox callgrind.out.1234 -o profile.json
  $ vg-jit export --format=folded callgrind.out.1234 | inferno-flamegraph > fg.svg
  $ valgrind --tool=callgrind --trace-children=yes chromium --no-sandbox
  $ vg-jit profiles . && vg-jit export callgrind.out.* -o browser.json)";

}  // namespace vgjit::manual_text
