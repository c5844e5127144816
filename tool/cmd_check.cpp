// cmd_check.cpp: `vg-jit check FILE...`.
#include "commands.hpp"

#include <ostream>

namespace vgjit {

std::string format_problem(const std::string& file, const Problem& p) {
    std::string s = file;
    if (p.has_where) s += ":" + std::to_string(p.where);
    s += p.severity == Severity::Error ? ": error: " : ": warning: ";
    s += p.message;
    return s;
}

namespace {

class CheckSink : public Sink {
public:
    CheckSink(const std::string& file, std::ostream& out) : file_(file), out_(out) {}
    void format(Format f) override { format_ = f; }
    void jitdump_record(const JitdumpRecord&, bool, const std::string&,
                        const std::vector<DebugLine>&) override { ++items_; }
    void perfmap_entry(std::uint64_t, std::uint64_t, const PerfmapEntry&,
                       const std::string&) override { ++items_; }
    void problem(const Problem& p) override {
        (p.severity == Severity::Error ? errors_ : warnings_)++;
        out_ << format_problem(file_, p) << '\n';
    }
    Format format_ = Format::Auto;
    unsigned long long items_ = 0, errors_ = 0, warnings_ = 0;

private:
    const std::string& file_;
    std::ostream& out_;
};

}  // namespace

int run_check(const std::vector<std::string>& files, const CheckOptions& opts, std::ostream& out) {
    bool bad = false;
    for (const std::string& f : files) {
        CheckSink sink(f, out);
        analyze_file(f, opts.analyze, sink);
        if (sink.errors_ || (opts.strict && sink.warnings_)) bad = true;
        if (!opts.quiet && sink.format_ != Format::Auto) {
            out << f << ": "
                << (sink.format_ == Format::Jitdump ? "jitdump, " : "perf map, ")
                << sink.items_
                << (sink.format_ == Format::Jitdump ? (sink.items_ == 1 ? " record, " : " records, ")
                                                    : (sink.items_ == 1 ? " entry, " : " entries, "))
                << sink.errors_ << (sink.errors_ == 1 ? " error, " : " errors, ")
                << sink.warnings_ << (sink.warnings_ == 1 ? " warning" : " warnings") << '\n';
        }
    }
    return bad ? kExitProblems : kExitClean;
}

}  // namespace vgjit
