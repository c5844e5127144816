// cmd_dump.cpp: `vg-jit dump [--json] FILE`.
#include "commands.hpp"
#include "text.hpp"

#include <nlohmann/json.hpp>

#include <iomanip>
#include <ostream>
#include <sstream>

namespace vgjit {

namespace {

/// `s` without blanks at the end of its lines.
std::string strip_trailing_blanks(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '\n')
            while (!out.empty() && out.back() == ' ') out.pop_back();
        out += c;
    }
    return out;
}

/// Human-readable listing, one record or entry per line, line-table
/// entries indented below their CODE_DEBUG_INFO record, problems in the
/// check format at the point where they were found.
class TextSink : public Sink {
public:
    TextSink(const std::string& file, std::ostream& out) : file_(file), out_(out) {}

    void format(Format f) override {
        if (f == Format::Perfmap) out_ << escape_text(file_) << ": perf map\n";
    }

    void jitdump_header(const JitdumpHeader& h) override {
        out_ << escape_text(file_) << ": jitdump version " << h.version << ", "
             << elf_machine_name(h.elf_mach) << " (e_machine " << h.elf_mach << "), pid " << h.pid
             << ", timestamp " << h.timestamp << ", flags " << hex(h.flags)
             << ((h.flags & JITDUMP_FLAG_ARCH_TIMESTAMP) ? " (arch timestamp)" : "") << ", header "
             << h.header_size << " bytes\n";
    }

    void jitdump_record(const JitdumpRecord& rec, bool known, const std::string& name,
                        const std::vector<DebugLine>& lines) override {
        std::ostringstream o;
        list(o, rec, known, name, lines);
        out_ << strip_trailing_blanks(o.str());
    }

    static void list(std::ostream& o, const JitdumpRecord& rec, bool known, const std::string& name,
                     const std::vector<DebugLine>& lines) {
        o << "@" << std::left << std::setw(10) << rec.file_offset << std::setw(20)
          << record_kind_name(rec.id) << " ts " << std::setw(20) << rec.timestamp << std::right;
        if (!known) {
            o << " unknown record, " << rec.total_size << " bytes skipped\n";
            return;
        }
        switch (rec.id) {
        case JITDUMP_CODE_LOAD: {
            const JitdumpCodeLoad& l = rec.u.load;
            o << " [" << hex(l.code_addr) << ", " << hex(l.code_addr + l.code_size) << ") size "
              << l.code_size << " '" << escape_text(name) << "' index " << l.code_index << " pid "
              << l.pid << " tid " << l.tid;
            if (l.vma != l.code_addr) o << " vma " << hex(l.vma);
            o << ", " << l.code_bytes << " code bytes\n";
            break;
        }
        case JITDUMP_CODE_MOVE: {
            const JitdumpCodeMove& m = rec.u.move;
            o << " index " << m.code_index << " " << hex(m.old_code_addr) << " -> ["
              << hex(m.new_code_addr) << ", " << hex(m.new_code_addr + m.code_size) << ") size "
              << m.code_size << " pid " << m.pid << " tid " << m.tid;
            if (m.vma != m.new_code_addr) o << " vma " << hex(m.vma);
            o << '\n';
            break;
        }
        case JITDUMP_CODE_DEBUG_INFO:
            o << " for " << hex(rec.u.debug.code_addr) << ", " << rec.u.debug.nr_entry
              << (rec.u.debug.nr_entry == 1 ? " line entry\n" : " line entries\n");
            for (const DebugLine& d : lines) {
                o << "      " << std::setw(18) << hex(d.code_addr) << "  "
                  << escape_text(d.filename) << ":" << d.line;
                if (d.discrim) o << " (discriminator " << d.discrim << ")";
                if (d.same_as_previous) o << " (same file as previous)";
                if (d.garbled) o << " (name field garbled: file unknown)";
                o << '\n';
            }
            break;
        case JITDUMP_CODE_CLOSE: o << '\n'; break;
        case JITDUMP_CODE_UNWINDING_INFO: {
            const JitdumpUnwindingInfo& u = rec.u.unwind;
            o << " unwinding_size " << u.unwinding_size << ", eh_frame_hdr_size "
              << u.eh_frame_hdr_size << ", mapped_size " << u.mapped_size << ", " << u.data_len
              << " data bytes\n";
            break;
        }
        default: o << '\n'; break;
        }
    }

    void perfmap_entry(std::uint64_t line, std::uint64_t, const PerfmapEntry& e,
                       const std::string& name) override {
        out_ << "L" << std::left << std::setw(8) << line << std::right << " [" << hex(e.start)
             << ", " << hex(e.start + e.size) << ") size " << e.size << " '" << escape_text(name)
             << "'\n";
    }

    void problem(const Problem& p) override {
        if (p.severity == Severity::Error) ++errors_;
        out_ << format_problem(file_, p) << '\n';
    }

    unsigned long long errors_ = 0;

private:
    const std::string& file_;
    std::ostream& out_;
};

/// JSON values whose keys keep the order they were set in.
using Json = nlohmann::ordered_json;

/// JSON document (nlohmann::ordered_json, so keys keep this order):
/// {"file": "...", "format": "jitdump"|"perfmap",
///  "records": [{"offset", "kind", "id", "total_size", "timestamp", ...}],  (jitdump)
///  "entries": [{"line", "offset", "start", "size", "end", "name"}],  (perf map)
///  "header": {...},                      (jitdump)
///  "problems": [{"severity", "offset"|"line", "message"}]}
/// Addresses are "0x..." strings; sizes, offsets and counts are numbers;
/// strings go through utf8_for_json().
class JsonSink : public Sink {
public:
    explicit JsonSink(const std::string& file) { doc_["file"] = utf8_for_json(file); }

    void format(Format f) override {
        is_jitdump_ = f == Format::Jitdump;
        doc_["format"] = is_jitdump_ ? "jitdump" : "perfmap";
        doc_[is_jitdump_ ? "records" : "entries"] = Json::array();
    }

    void jitdump_header(const JitdumpHeader& h) override {
        header_ = h;
        have_header_ = true;
    }

    void jitdump_record(const JitdumpRecord& rec, bool known, const std::string& name,
                        const std::vector<DebugLine>& lines) override {
        Json r;
        r["offset"] = static_cast<std::uint64_t>(rec.file_offset);
        r["kind"] = known ? record_kind_name(rec.id) : std::string("UNKNOWN");
        r["id"] = rec.id;
        r["total_size"] = rec.total_size;
        r["timestamp"] = static_cast<std::uint64_t>(rec.timestamp);
        if (known) {
            switch (rec.id) {
            case JITDUMP_CODE_LOAD: {
                const JitdumpCodeLoad& l = rec.u.load;
                r["pid"] = l.pid;
                r["tid"] = l.tid;
                r["vma"] = hex(l.vma);
                r["code_addr"] = hex(l.code_addr);
                r["code_size"] = static_cast<std::uint64_t>(l.code_size);
                r["code_index"] = static_cast<std::uint64_t>(l.code_index);
                r["name"] = utf8_for_json(name);
                r["code_bytes"] = static_cast<std::uint64_t>(l.code_bytes);
                break;
            }
            case JITDUMP_CODE_MOVE: {
                const JitdumpCodeMove& m = rec.u.move;
                r["pid"] = m.pid;
                r["tid"] = m.tid;
                r["vma"] = hex(m.vma);
                r["old_code_addr"] = hex(m.old_code_addr);
                r["new_code_addr"] = hex(m.new_code_addr);
                r["code_size"] = static_cast<std::uint64_t>(m.code_size);
                r["code_index"] = static_cast<std::uint64_t>(m.code_index);
                break;
            }
            case JITDUMP_CODE_DEBUG_INFO: {
                r["code_addr"] = hex(rec.u.debug.code_addr);
                r["nr_entry"] = static_cast<std::uint64_t>(rec.u.debug.nr_entry);
                Json entries = Json::array();
                for (const DebugLine& d : lines)
                    entries.push_back({{"code_addr", hex(d.code_addr)},
                                       {"file", utf8_for_json(d.filename)},
                                       {"line", d.line},
                                       {"discrim", d.discrim},
                                       {"same_as_previous", d.same_as_previous},
                                       {"garbled", d.garbled}});
                r["entries"] = std::move(entries);
                break;
            }
            case JITDUMP_CODE_UNWINDING_INFO: {
                const JitdumpUnwindingInfo& u = rec.u.unwind;
                r["unwinding_size"] = static_cast<std::uint64_t>(u.unwinding_size);
                r["eh_frame_hdr_size"] = static_cast<std::uint64_t>(u.eh_frame_hdr_size);
                r["mapped_size"] = static_cast<std::uint64_t>(u.mapped_size);
                r["data_bytes"] = static_cast<std::uint64_t>(u.data_len);
                break;
            }
            default: break;
            }
        }
        doc_["records"].push_back(std::move(r));
    }

    void perfmap_entry(std::uint64_t line, std::uint64_t offset, const PerfmapEntry& e,
                       const std::string& name) override {
        doc_["entries"].push_back({{"line", line},
                                   {"offset", offset},
                                   {"start", hex(e.start)},
                                   {"size", static_cast<std::uint64_t>(e.size)},
                                   {"end", hex(e.start + e.size)},
                                   {"name", utf8_for_json(name)}});
    }

    void problem(const Problem& p) override {
        if (p.severity == Severity::Error) ++errors_;
        problems_.push_back(p);
    }

    /// Writes the document and a newline to `out`.
    void finish(std::ostream& out) {
        if (have_header_)
            doc_["header"] = {{"version", header_.version},
                              {"header_size", header_.header_size},
                              {"elf_mach", header_.elf_mach},
                              {"machine", elf_machine_name(header_.elf_mach)},
                              {"pid", header_.pid},
                              {"timestamp", static_cast<std::uint64_t>(header_.timestamp)},
                              {"flags", static_cast<std::uint64_t>(header_.flags)}};
        Json problems = Json::array();
        for (const Problem& p : problems_) {
            Json j;
            j["severity"] = p.severity == Severity::Error ? "error" : "warning";
            if (p.has_where) j[p.by_line ? "line" : "offset"] = static_cast<std::uint64_t>(p.where);
            j["message"] = utf8_for_json(p.message);
            problems.push_back(std::move(j));
        }
        doc_["problems"] = std::move(problems);
        out << doc_.dump() << '\n';
    }

    unsigned long long errors_ = 0;

private:
    Json doc_;
    bool is_jitdump_ = false;
    bool have_header_ = false;
    JitdumpHeader header_{};
    std::vector<Problem> problems_;
};

}  // namespace

int run_dump(const std::string& file, const DumpOptions& opts, std::ostream& out) {
    if (opts.analyze.format == Format::Elf ||
        (opts.analyze.format == Format::Auto && is_elf_file(file)))
        return dump_elf(file, opts.json, out);
    if (opts.json) {
        JsonSink sink(file);
        analyze_file(file, opts.analyze, sink);
        sink.finish(out);
        return sink.errors_ ? kExitProblems : kExitClean;
    }
    TextSink sink(file, out);
    analyze_file(file, opts.analyze, sink);
    return sink.errors_ ? kExitProblems : kExitClean;
}

}  // namespace vgjit
