// main.cpp: vg-jit, the command-line companion of valgrind-jit.
//
// Subcommands are listed in kCommands (runners) and kCommandDocs (their
// manual entries) below.  Exit statuses: 0 clean, 1 problems found, 2 usage error.
#include "commands.hpp"

#include <cstring>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace vgjit;

const char* const kVersion = "vg-jit 0.1.0";

// The manual.  --help, `help COMMAND`, --man (the vg-jit(1) man page) and
// the SYNOPSIS lines are all rendered from these tables, so the text exists
// once.  Text blocks follow one convention (see render_block_text/_roff):
// a line without leading blanks is running text, a blank line ends a
// paragraph, and a line indented by blanks is shown verbatim (with its
// indentation kept relative to the block).

const char* const kName =
    "inspect the files JIT runtimes write for profilers and the objects they register for debuggers";

const char* const kDescription = R"(JIT compilers (V8/Node.js, the JVM through a JVMTI agent, .NET,
wasmtime, QEMU, Python 3.12+, ...) describe the machine code they emit in
two kinds of files, which Valgrind with valgrind-jit reads too:

jitdump   jit-<pid>.dump, the binary format of Linux perf
          (tools/perf/Documentation/jitdump-specification.txt), versions 1
          and 2: a file header, then CODE_LOAD, CODE_MOVE,
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
else is read as a perf map.
vg-jit uses the very parsers that are compiled into Valgrind's core.
Files are taken to be complete: a truncated final record, or a last line
without its newline, is an error here (Valgrind itself waits for the
producer to finish writing it).)";

/// Help of one subcommand: its name, the arguments shown in the synopsis,
/// the heading of its COMMANDS entry and the entry's text block.
struct CommandDoc {
    const char* name;
    const char* synopsis;  ///< arguments after "vg-jit NAME"
    const char* heading;   ///< as the COMMANDS section names it
    const char* text;
};

const CommandDoc kCommandDocs[] = {
    {"check", "[--strict] [--quiet] [--format=FMT] FILE...", "check FILE...",
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
warnings". Errors (the object is malformed, and the core refuses it
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
section, a function whose range wraps around. Warnings (the core
registers the object, with a loss): functions that overlap (the core
registers both, the later replacing the earlier), names longer than
4095 bytes (that function is refused), a line table or CFI the core
refuses (a compressed DWARF section, REL relocations, relocations of
another machine than x86-64, of types other than R_X86_64_64, _32,
_32S (and _PC32, _PC64 in .eh_frame), 32-bit ones that overflow at the
sections' load addresses, outside their section or against undefined
symbols; a .debug_line without .debug_info and .debug_abbrev), string
tables that do not end with a NUL byte, a malformed .debug_abbrev, an
unusable section name table (sections are listed without names).)"},
    {"dump", "[--json] [--format=FMT] FILE", "dump FILE",
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
.debug_abbrev, read with the line table), one "section" line per executable section (index,
name, [load address, end), size, file offset) and one line per
function as the core registers it (.symtab STT_FUNC symbols with a
size in an executable section):
    function [START, END) size N 'NAME' section S lines yes cfi yes inlined no
START is the section's sh_addr plus st_value in a relocatable object,
st_value in others.  "lines", "cfi" and "inlined" say whether the
line table, the CFI and the inlined subroutines of .debug_info cover
the function's section (in a relocatable object, whether their
relocations refer to it; otherwise whether they are present); the
DWARF itself is not decoded.  Problems follow, in the check format.
With --json: {"file", "format": "elf", "size", "object", "debug",
"sections", "functions", "problems"}.)"},
    {"annotate", "--map FILE [--map FILE]... [-o OUT] [--verbose] PROFILE",
     "annotate --map FILE... PROFILE -o OUT",
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
goes on with what could be read (exit status 1).)"},
    {"export", "[--format=firefox|folded] [--event=EV] [-o OUT] [--verbose] PROFILE...",
     "export PROFILE...",
     R"(Convert a Callgrind profile (or a Cachegrind profile, as a flat one)
into weighted stack samples for viewers that do not read Callgrind's
format: --format=firefox (the default) writes the Firefox Profiler's
processed profile (JSON; open it at profiler.firefox.com or with
profiler-cli), --format=folded the folded stacks that flame graph
tools, speedscope and the Firefox Profiler import ("main;f;g 1234"
per line, ';' in names replaced by ':').  The weights are the counts
of one event (--event, default Ir), exact integers: the samples add up
to the profile's total of the event (the "totals:" or "summary:"
line, summed over parts).

Functions keep their names, source files and lines (per-line costs
become frames with lines); a category tells JIT code (objects that are
not ELF files: client-request objects, jitdump files, perf maps, GDB
JIT objects) from native ELF code and from unnamed code (address-named
functions, object ???); each object (ob=) is a resource.

Stacks are exact when the profile has the contexts to make them:
with --separate-callers=N (N at least the call depth) each context
is called from one context, and its self cost becomes a sample of its
whole call chain.  Otherwise stacks are rebuilt from the call edges,
a callee's cost split among its callers in proportion to the calls'
inclusive costs: a warning says so and the profile's metadata
(Stacks) too.  Recursive calls back into a function already on the
chain are not followed.

Several parts (--dump-every-bb=N, callgrind_control -d; in one file
or as several PROFILE files of one run, in order) make a time line:
each part's samples follow those of the part before it, placed by the
event's count (the time axis counts millions of the event).  Parts of
different threads (--separate-threads=yes) become threads.

A malformed, truncated (no "totals:" line at the end of a part) or
inconsistent profile (totals that differ from the sum of the cost
lines) is an error with its file and line number, and nothing is
written: OUT is written through a temporary file and renamed.)"},
    {"help", "[COMMAND]", "help [COMMAND]",
     R"(Print this manual, or the part about COMMAND.)"},
};

/// One entry of a tagged list (OPTIONS, EXIT STATUS): a tag and its text.
struct TaggedDoc {
    const char* tag;
    const char* text;
};

const TaggedDoc kOptionDocs[] = {
    {"--format=auto|jitdump|perfmap|elf",
     R"(Do not guess the format (check, dump).)"},
    {"--format=firefox|folded",
     R"(export: the output format (default firefox).)"},
    {"--event=EV",
     R"(export: the event whose counts weigh the samples (default Ir).)"},
    {"--strict",
     R"(check: warnings count as problems for the exit status.)"},
    {"--quiet, -q",
     R"(check: no summary lines; print only problems.)"},
    {"--json",
     R"(dump: JSON output.)"},
    {"--map FILE, --map=FILE",
     R"(annotate: a jitdump file or perf map naming jitted code (repeat for
several; later entries win on overlap).)"},
    {"-o OUT, --output=OUT",
     R"(annotate, export: where to write the rewritten or converted
profile ("-": stdout, the default of export).)"},
    {"--verbose, -v",
     R"(annotate, export: print what was read and written to stderr.)"},
    {"--help, -h",
     R"(Print this manual.)"},
    {"--man",
     R"(Print this manual as a man page (roff source of vg-jit(1); the
installed vg-jit.1 is made with it).)"},
    {"--version",
     R"(Print the version.)"},
};

const TaggedDoc kExitDocs[] = {
    {"0",
     R"(every FILE is clean (check: no errors, and with --strict no
warnings), or was listed without errors (dump),
or the profile was rewritten and every map read cleanly (annotate),
or the profile was converted and written (export).)"},
    {"1",
     R"(a problem was found: an error (or, with --strict, a warning) in a
FILE, or a FILE could not be read; annotate: the profile is
malformed or unreadable, OUT cannot be written, or a map had errors
or named no code; export: a profile is malformed, truncated or
unreadable, or OUT cannot be written (nothing is written).)"},
    {"2",
     R"(usage error: unknown command or option, missing FILE.)"},
};

const char* const kExamples = R"(    node --perf-prof app.js && vg-jit check jit-*.dump
    vg-jit dump --json /tmp/perf-1234.map | jq '.entries | length'
    vg-jit check jit-object.o && vg-jit dump jit-object.o
    valgrind --tool=callgrind --dump-instr=yes node --perf-basic-prof app.js
    vg-jit annotate --map /tmp/perf-1234.map callgrind.out.1234 -o named.out
    callgrind_annotate named.out
    valgrind --tool=callgrind --separate-callers=50 ./minijit calls.mj
    vg-jit export --format=firefox callgrind.out.1234 -o profile.json
    vg-jit export --format=folded callgrind.out.1234 | inferno-flamegraph > fg.svg)";

const char* const kSeeAlso = "valgrind(1), callgrind_annotate(1), cg_annotate(1), perf-report(1)";

// ---------------------------------------------------------------------------
// Rendering the manual
// ---------------------------------------------------------------------------

/// Appends text block `block` (see the convention above) with every line
/// indented by `indent` blanks; empty lines stay empty.
void render_block_text(std::string& out, const char* block, std::size_t indent) {
    const std::string pad(indent, ' ');
    std::string line;
    for (const char* p = block;; ++p) {
        if (*p == '\n' || *p == '\0') {
            out += line.empty() ? "\n" : pad + line + "\n";
            line.clear();
            if (*p == '\0') break;
        } else {
            line += *p;
        }
    }
}

/// `s` escaped for roff text: backslashes as \e, hyphens as \- (so that
/// options copy and paste), and a leading '.' or '\'' protected by \&.
std::string roff_escape(const std::string& s) {
    std::string out;
    if (!s.empty() && (s[0] == '.' || s[0] == '\'')) out += "\\&";
    for (char c : s) {
        if (c == '\\') out += "\\e";
        else if (c == '-') out += "\\-";
        else out += c;
    }
    return out;
}

/// Appends text block `block` as roff: running text as is (roff fills it),
/// a new paragraph as `par` (".PP" at the top level, ".IP" inside a tagged
/// paragraph), verbatim lines between .nf and .fi, indented by 4 (.in, which unlike
/// .RS/.RE keeps the indentation of a tagged paragraph).
void render_block_roff(std::string& out, const char* block, const char* par) {
    bool verbatim = false;
    bool pending_par = false;
    std::string line;
    auto flush = [&](bool end) {
        const bool is_blank = line.empty();
        const bool is_verbatim = !is_blank && line[0] == ' ';
        if (verbatim && !is_verbatim) {
            out += ".fi\n.in -4n\n";
            verbatim = false;
        }
        if (is_blank) {
            if (!end) pending_par = true;
        } else {
            if (pending_par) {
                out += std::string(par) + "\n";
                pending_par = false;
            }
            if (is_verbatim && !verbatim) {
                out += ".in +4n\n.nf\n";
                verbatim = true;
            }
            // Verbatim lines lose the first four blanks (.in +4n stands for them).
            out += roff_escape(is_verbatim && line.compare(0, 4, "    ") == 0 ? line.substr(4)
                                                                           : line) + "\n";
        }
        line.clear();
    };
    for (const char* p = block;; ++p) {
        if (*p == '\n') {
            flush(false);
        } else if (*p == '\0') {
            flush(true);
            break;
        } else {
            line += *p;
        }
    }
    if (verbatim) out += ".fi\n.in -4n\n";
}

/// "vg-jit NAME ARGS", the synopsis line of a subcommand.
std::string synopsis_line(const CommandDoc& c) {
    return std::string("vg-jit ") + c.name + " " + c.synopsis;
}

const char* const kGeneralSynopsis = "vg-jit --help | --man | --version";

/// The whole manual as plain text (what --help and `help` print).
std::string manual_text() {
    std::string out = "NAME\n    vg-jit - " + std::string(kName) + "\n\nSYNOPSIS\n";
    for (const CommandDoc& c : kCommandDocs) out += "    " + synopsis_line(c) + "\n";
    out += std::string("    ") + kGeneralSynopsis + "\n\nDESCRIPTION\n";
    render_block_text(out, kDescription, 4);
    out += "\nCOMMANDS\n";
    for (const CommandDoc& c : kCommandDocs) {
        out += std::string("    ") + c.heading + "\n";
        render_block_text(out, c.text, 8);
        out += "\n";
    }
    out += "OPTIONS\n";
    for (const TaggedDoc& o : kOptionDocs) {
        out += std::string("    ") + o.tag + "\n";
        render_block_text(out, o.text, 8);
    }
    out += "\nEXIT STATUS\n";
    for (const TaggedDoc& e : kExitDocs) {
        out += std::string("    ") + e.tag + "\n";
        render_block_text(out, e.text, 8);
    }
    out += "\nEXAMPLES\n";
    render_block_text(out, kExamples, 0);
    out += "\nSEE ALSO\n    " + std::string(kSeeAlso) + "\n";
    return out;
}

/// The manual as a man page, section 1, in the man(7) macros.
std::string manual_roff() {
    std::string out = ".\\\" vg-jit(1): generated by `vg-jit --man`; edit tool/main.cpp instead.\n";
    out += std::string(".TH VG-JIT 1 \"\" \"") + kVersion + "\" \"User Commands\"\n";
    out += ".nh\n.ad l\n";  // no hyphenation, ragged right: words stay whole
    out += ".SH NAME\nvg-jit \\- " + roff_escape(kName) + "\n.SH SYNOPSIS\n.nf\n";
    for (const CommandDoc& c : kCommandDocs) out += roff_escape(synopsis_line(c)) + "\n";
    out += roff_escape(kGeneralSynopsis) + "\n.fi\n.SH DESCRIPTION\n";
    render_block_roff(out, kDescription, ".PP");
    out += ".SH COMMANDS\n";
    for (const CommandDoc& c : kCommandDocs) {
        out += ".TP\n.B " + roff_escape(c.heading) + "\n";
        render_block_roff(out, c.text, ".IP");
    }
    out += ".SH OPTIONS\n";
    for (const TaggedDoc& o : kOptionDocs) {
        out += ".TP\n.B " + roff_escape(o.tag) + "\n";
        render_block_roff(out, o.text, ".IP");
    }
    out += ".SH \"EXIT STATUS\"\n";
    for (const TaggedDoc& e : kExitDocs) {
        out += ".TP\n.B " + roff_escape(e.tag) + "\n";
        render_block_roff(out, e.text, ".IP");
    }
    out += ".SH EXAMPLES\n";
    render_block_roff(out, kExamples, ".PP");
    out += ".SH \"SEE ALSO\"\n" + roff_escape(kSeeAlso) + "\n";
    return out;
}

/// The help of one subcommand: its synopsis and its COMMANDS entry.
std::string command_help(const CommandDoc& c) {
    std::string out = "SYNOPSIS\n    " + synopsis_line(c) + "\n\nDESCRIPTION\n    ";
    out += c.heading;
    out += "\n";
    render_block_text(out, c.text, 8);
    return out;
}

// ---------------------------------------------------------------------------
// Subcommands
// ---------------------------------------------------------------------------



int usage_error(const std::string& msg) {
    std::cerr << "vg-jit: " << msg << "\n"
              << "Try 'vg-jit --help' for more information.\n";
    return kExitUsage;
}

/// Parses --format=VALUE into `fmt`; false if VALUE is unknown.
bool parse_format(const std::string& v, Format& fmt) {
    if (v == "auto") fmt = Format::Auto;
    else if (v == "jitdump") fmt = Format::Jitdump;
    else if (v == "perfmap" || v == "perf-map") fmt = Format::Perfmap;
    else if (v == "elf") fmt = Format::Elf;
    else return false;
    return true;
}

/// Splits arguments into options (handled by `opt`, which returns false for
/// unknown ones) and operands; "--" ends options.  Returns false and sets
/// `bad` on an unknown option.
bool split_args(const std::vector<std::string>& args,
                const std::function<bool(const std::string&)>& opt,
                std::vector<std::string>& operands, std::string& bad) {
    bool options_done = false;
    for (const std::string& a : args) {
        if (!options_done && a == "--") {
            options_done = true;
        } else if (!options_done && a.size() > 1 && a[0] == '-') {
            if (!opt(a)) {
                bad = a;
                return false;
            }
        } else {
            operands.push_back(a);
        }
    }
    return true;
}

int cmd_check(const std::vector<std::string>& args) {
    CheckOptions o;
    std::vector<std::string> files;
    std::string bad;
    bool bad_format = false;
    auto opt = [&](const std::string& a) {
        if (a == "--strict") o.strict = true;
        else if (a == "--quiet" || a == "-q") o.quiet = true;
        else if (a.rfind("--format=", 0) == 0) bad_format = !parse_format(a.substr(9), o.analyze.format);
        else return false;
        return !bad_format;
    };
    if (!split_args(args, opt, files, bad))
        return usage_error(bad_format ? "check: unknown format in '" + bad + "'"
                                      : "check: unknown option '" + bad + "'");
    if (files.empty()) return usage_error("check: no FILE given");
    return run_check(files, o, std::cout);
}

int cmd_dump(const std::vector<std::string>& args) {
    DumpOptions o;
    std::vector<std::string> files;
    std::string bad;
    bool bad_format = false;
    auto opt = [&](const std::string& a) {
        if (a == "--json") o.json = true;
        else if (a.rfind("--format=", 0) == 0) bad_format = !parse_format(a.substr(9), o.analyze.format);
        else return false;
        return !bad_format;
    };
    if (!split_args(args, opt, files, bad))
        return usage_error(bad_format ? "dump: unknown format in '" + bad + "'"
                                      : "dump: unknown option '" + bad + "'");
    if (files.size() != 1)
        return usage_error(files.empty() ? "dump: no FILE given" : "dump: give exactly one FILE");
    return run_dump(files[0], o, std::cout);
}

int cmd_annotate(const std::vector<std::string>& args) {
    AnnotateOptions o;
    std::vector<std::string> operands;
    // -o OUT and --map FILE take the next argument: join them first.
    std::vector<std::string> joined;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if ((a == "-o" || a == "--output" || a == "--map") && i + 1 < args.size()) {
            joined.push_back((a == "--map" ? "--map=" : "--output=") + args[++i]);
        } else if (a == "-o" || a == "--output" || a == "--map") {
            return usage_error("annotate: option '" + a + "' needs an argument");
        } else {
            joined.push_back(a);
        }
    }
    std::string bad;
    auto opt = [&](const std::string& a) {
        if (a.rfind("--map=", 0) == 0 && a.size() > 6) o.maps.push_back(a.substr(6));
        else if (a.rfind("--output=", 0) == 0 && a.size() > 9) o.output = a.substr(9);
        else if (a == "--verbose" || a == "-v") o.verbose = true;
        else return false;
        return true;
    };
    if (!split_args(joined, opt, operands, bad))
        return usage_error("annotate: unknown option '" + bad + "'");
    if (o.maps.empty()) return usage_error("annotate: no --map FILE given");
    if (operands.size() != 1)
        return usage_error(operands.empty() ? "annotate: no PROFILE given"
                                            : "annotate: give exactly one PROFILE");
    o.profile = operands[0];
    return run_annotate(o);
}

int cmd_export(const std::vector<std::string>& args) {
    ExportCmdOptions o;
    std::vector<std::string> joined;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if ((a == "-o" || a == "--output") && i + 1 < args.size()) {
            joined.push_back("--output=" + args[++i]);
        } else if (a == "-o" || a == "--output") {
            return usage_error("export: option '" + a + "' needs an argument");
        } else {
            joined.push_back(a);
        }
    }
    std::string bad;
    bool bad_value = false;
    auto opt = [&](const std::string& a) {
        if (a.rfind("--format=", 0) == 0) {
            o.format = a.substr(9);
            bad_value = o.format != "firefox" && o.format != "folded";
        } else if (a.rfind("--event=", 0) == 0) {
            o.event = a.substr(8);
            bad_value = o.event.empty();
        } else if (a.rfind("--output=", 0) == 0 && a.size() > 9) {
            o.output = a.substr(9);
        } else if (a == "--verbose" || a == "-v") {
            o.verbose = true;
        } else {
            return false;
        }
        return !bad_value;
    };
    if (!split_args(joined, opt, o.profiles, bad))
        return usage_error(bad_value ? "export: bad value in '" + bad + "'"
                                     : "export: unknown option '" + bad + "'");
    if (o.profiles.empty()) return usage_error("export: no PROFILE given");
    return run_export(o);
}

int cmd_help(const std::vector<std::string>& args);

/// A subcommand: its name (as in kCommandDocs) and its runner.
struct Command {
    const char* name;
    int (*run)(const std::vector<std::string>&);
};

const Command kCommands[] = {
    {"check", cmd_check},
    {"dump", cmd_dump},
    {"annotate", cmd_annotate},
    {"export", cmd_export},
    {"help", cmd_help},
};

/// The documentation of subcommand `name`, or nullptr.
const CommandDoc* find_doc(const std::string& name) {
    for (const CommandDoc& d : kCommandDocs)
        if (name == d.name) return &d;
    return nullptr;
}

int cmd_help(const std::vector<std::string>& args) {
    if (args.empty()) {
        std::cout << manual_text();
        return kExitClean;
    }
    const CommandDoc* d = find_doc(args[0]);
    if (!d) return usage_error("help: unknown command '" + args[0] + "'");
    std::cout << command_help(*d);
    return kExitClean;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) return usage_error("no command given");
    const std::string first = args[0];
    if (first == "--help" || first == "-h") {
        std::cout << manual_text();
        return kExitClean;
    }
    if (first == "--man") {
        std::cout << manual_roff();
        return kExitClean;
    }
    if (first == "--version") {
        std::cout << kVersion << "\n";
        return kExitClean;
    }
    for (const Command& c : kCommands) {
        if (first == c.name) {
            std::vector<std::string> rest(args.begin() + 1, args.end());
            for (const std::string& a : rest)
                if (a == "--help" || a == "-h") return cmd_help({c.name});
            return c.run(rest);
        }
    }
    if (first.size() > 1 && first[0] == '-') return usage_error("unknown option '" + first + "'");
    return usage_error("unknown command '" + first + "'");
}
