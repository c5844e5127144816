// cmd_check.cpp: `vg-jit check FILE...`.
#include "commands.hpp"
#include "text.hpp"

#include <ostream>

namespace vgjit {

std::string format_problem(const std::string& file, const Problem& p) {
    // Messages quote names from the file: escape them (text.hpp) so that a
    // problem stays one line of valid UTF-8.
    std::string s = escape_text(file);
    if (p.has_where) s += ":" + std::to_string(p.where);
    s += p.severity == Severity::Error ? ": error: " : ": warning: ";
    s += escape_text(p.message);
    return s;
}

namespace {

/// Counts items and problems of one file, printing each problem, and adds
/// the checks that only `check` makes: names and file names that are not
/// text (text.hpp), one warning per record or entry.
class CheckSink : public Sink {
public:
    CheckSink(const std::string& file, std::ostream& out) : file_(file), out_(out) {}
    void format(Format f) override { format_ = f; }
    void jitdump_record(const JitdumpRecord& rec, bool known, const std::string& name,
                        const std::vector<DebugLine>& lines) override {
        ++items_;
        if (!known) return;
        if (rec.id == JITDUMP_CODE_LOAD) {
            const std::string why = text_problem(name);
            if (!why.empty())
                warn(false, rec.file_offset, "CODE_LOAD name '" + name + "' is not text: " + why);
        } else if (rec.id == JITDUMP_CODE_DEBUG_INFO) {
            std::size_t bad = 0, first = 0;
            std::string first_why;
            for (std::size_t i = 0; i < lines.size(); ++i) {
                if (lines[i].same_as_previous) continue;
                const std::string why = text_problem(lines[i].filename);
                if (why.empty()) continue;
                if (bad++ == 0) {
                    first = i;
                    first_why = why;
                }
            }
            if (bad)
                warn(false, rec.file_offset,
                     "CODE_DEBUG_INFO: " + std::to_string(bad) + " of " +
                         std::to_string(lines.size()) +
                         " line entries have a file name that is not text (first: entry " +
                         std::to_string(first) + ", '" + lines[first].filename + "': " + first_why +
                         ")");
        }
    }
    void perfmap_entry(std::uint64_t line, std::uint64_t, const PerfmapEntry&,
                       const std::string& name) override {
        ++items_;
        const std::string why = text_problem(name);
        if (!why.empty()) warn(true, line, "name '" + name + "' is not text: " + why);
    }
    void problem(const Problem& p) override {
        (p.severity == Severity::Error ? errors_ : warnings_)++;
        out_ << format_problem(file_, p) << '\n';
    }
    Format format_ = Format::Auto;
    unsigned long long items_ = 0, errors_ = 0, warnings_ = 0;

private:
    void warn(bool by_line, std::uint64_t where, const std::string& message) {
        problem(Problem{Severity::Warning, true, by_line, where, message});
    }

    const std::string& file_;
    std::ostream& out_;
};

}  // namespace

int run_check(const std::vector<std::string>& files, const CheckOptions& opts, std::ostream& out) {
    bool bad = false;
    for (const std::string& f : files) {
        if (opts.analyze.format == Format::Elf ||
            (opts.analyze.format == Format::Auto && is_elf_file(f))) {
            if (!check_elf(f, opts, out)) bad = true;
            continue;
        }
        CheckSink sink(f, out);
        analyze_file(f, opts.analyze, sink);
        if (sink.errors_ || (opts.strict && sink.warnings_)) bad = true;
        if (!opts.quiet && sink.format_ != Format::Auto) {
            out << f << ": " << (sink.format_ == Format::Jitdump ? "jitdump, " : "perf map, ")
                << sink.items_
                << (sink.format_ == Format::Jitdump
                        ? (sink.items_ == 1 ? " record, " : " records, ")
                        : (sink.items_ == 1 ? " entry, " : " entries, "))
                << sink.errors_ << (sink.errors_ == 1 ? " error, " : " errors, ") << sink.warnings_
                << (sink.warnings_ == 1 ? " warning" : " warnings") << '\n';
        }
    }
    return bad ? kExitProblems : kExitClean;
}

}  // namespace vgjit
