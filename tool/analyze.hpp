// analyze.hpp: reads a jitdump file or a perf map with the shared parsers
// (coregrind-patch/files/coregrind/m_debuginfo/priv_jitformats.h) and
// reports what it finds, item by item, to a Sink.  Used by `vg-jit check`
// (problems only) and `vg-jit dump` (everything).
//
// Unlike Valgrind's core, which reads files that may still be growing,
// the tool treats a file as complete: a truncated final record or a last
// line without its newline is a problem here.
#pragma once

extern "C" {
#include "priv_jitformats.h"
}

#include <cstdint>
#include <string>
#include <vector>

namespace vgjit {

/// File formats the tool understands.  Elf is an in-memory object of the
/// GDB JIT interface saved to a file (elfobject.hpp); analyze_file does not
/// read it.
enum class Format { Auto, Jitdump, Perfmap, Elf };

/// How bad a problem is.  Errors make `check` fail; warnings are reported
/// but only fail with --strict.
enum class Severity { Warning, Error };

/// One finding.  `where` is a byte offset for jitdump files and a 1-based
/// line number for perf maps (see `by_line`).  `where` is absent
/// (has_where false) for problems about the whole file (e.g. unreadable).
struct Problem {
    Severity severity;
    bool has_where;
    bool by_line;
    std::uint64_t where;
    std::string message;
};

/// One decoded line-table entry of a CODE_DEBUG_INFO record (copied out of
/// the reader's buffer).
struct DebugLine {
    std::uint64_t code_addr;
    std::uint32_t line;
    std::uint32_t discrim;
    std::string filename;
    bool same_as_previous;
    bool garbled = false;  ///< name field not a name (V8's stale buffer): file unknown
};

/// Receives the analysis results in file order.  Pointers inside the
/// records point into a buffer that is only valid during the call; the
/// strings passed alongside are copies.
class Sink {
public:
    virtual ~Sink() = default;
    virtual void format(Format) {}
    virtual void jitdump_header(const JitdumpHeader&) {}
    /// A decoded record (JITDUMP_EV_RECORD or JITDUMP_EV_UNKNOWN, `known`
    /// false for the latter).  `name` is the CODE_LOAD name, `lines` the
    /// CODE_DEBUG_INFO entries.
    virtual void jitdump_record(const JitdumpRecord&, bool /*known*/, const std::string& /*name*/,
                                const std::vector<DebugLine>& /*lines*/) {}
    /// A perf map entry from line `line` starting at byte `offset`.
    virtual void perfmap_entry(std::uint64_t /*line*/, std::uint64_t /*offset*/,
                               const PerfmapEntry&, const std::string& /*name*/) {}
    virtual void problem(const Problem&) {}
};

/// Options that influence analysis.
struct AnalyzeOptions {
    Format format = Format::Auto;
};

/// Picks the format of `path`: ELF if its first four bytes are the ELF
/// magic, jitdump if they are the jitdump magic in either byte order or its
/// name ends in ".dump"; otherwise perf map.  `head` are the file's first
/// bytes.
Format detect_format(const std::string& path, const std::vector<unsigned char>& head);

/// Analyzes one file, reporting to `sink`.  Returns false only if the file
/// could not be opened or read (a Problem says why).  An ELF object (given
/// or detected) is reported as an error: it is neither a jitdump file nor a
/// perf map (`dump` and `check` read it with elfobject.hpp instead).
bool analyze_file(const std::string& path, const AnalyzeOptions& opts, Sink& sink);

/// The process id encoded in a file name of the form jit-<pid>.dump or
/// perf-<pid>.map (directory part ignored), or -1 if the name has no pid.
long long pid_from_file_name(const std::string& path);

/// Human name of a jitdump record id ("CODE_LOAD", ...; "id N" if unknown).
std::string record_kind_name(std::uint32_t id);

/// `v` in lower-case hexadecimal with a "0x" prefix ("0x1f"; 0 is "0x0").
std::string hex(std::uint64_t v);

/// Human name of an ELF e_machine value for the common architectures.
std::string elf_machine_name(std::uint32_t mach);

}  // namespace vgjit
