// cmd_dump.cpp: `vg-jit dump [--json] FILE`.
#include "commands.hpp"
#include "json.hpp"
#include "text.hpp"

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
        out_ << escape_text(file_) << ": jitdump version " << h.version << ", " << elf_machine_name(h.elf_mach)
             << " (e_machine " << h.elf_mach << "), pid " << h.pid << ", timestamp "
             << h.timestamp << ", flags " << hex(h.flags)
             << ((h.flags & JITDUMP_FLAG_ARCH_TIMESTAMP) ? " (arch timestamp)" : "")
             << ", header " << h.header_size << " bytes\n";
    }

    void jitdump_record(const JitdumpRecord& rec, bool known, const std::string& name,
                        const std::vector<DebugLine>& lines) override {
        std::ostringstream o;
        list(o, rec, known, name, lines);
        out_ << strip_trailing_blanks(o.str());
    }

    static void list(std::ostream& o, const JitdumpRecord& rec, bool known,
                     const std::string& name, const std::vector<DebugLine>& lines) {
        o << "@" << std::left << std::setw(10) << rec.file_offset << std::setw(20)
             << record_kind_name(rec.id) << " ts " << std::setw(20) << rec.timestamp
             << std::right;
        if (!known) {
            o << " unknown record, " << rec.total_size << " bytes skipped\n";
            return;
        }
        switch (rec.id) {
        case JITDUMP_CODE_LOAD: {
            const JitdumpCodeLoad& l = rec.u.load;
            o << " [" << hex(l.code_addr) << ", " << hex(l.code_addr + l.code_size)
                 << ") size " << l.code_size << " '" << escape_text(name) << "' index " << l.code_index
                 << " pid " << l.pid << " tid " << l.tid;
            if (l.vma != l.code_addr) o << " vma " << hex(l.vma);
            o << ", " << l.code_bytes << " code bytes\n";
            break;
        }
        case JITDUMP_CODE_MOVE: {
            const JitdumpCodeMove& m = rec.u.move;
            o << " index " << m.code_index << " " << hex(m.old_code_addr) << " -> ["
                 << hex(m.new_code_addr) << ", " << hex(m.new_code_addr + m.code_size)
                 << ") size " << m.code_size << " pid " << m.pid << " tid " << m.tid;
            if (m.vma != m.new_code_addr) o << " vma " << hex(m.vma);
            o << '\n';
            break;
        }
        case JITDUMP_CODE_DEBUG_INFO:
            o << " for " << hex(rec.u.debug.code_addr) << ", " << rec.u.debug.nr_entry
                 << (rec.u.debug.nr_entry == 1 ? " line entry\n" : " line entries\n");
            for (const DebugLine& d : lines) {
                o << "      " << std::setw(18) << hex(d.code_addr) << "  " << escape_text(d.filename) << ":"
                     << d.line;
                if (d.discrim) o << " (discriminator " << d.discrim << ")";
                if (d.same_as_previous) o << " (same file as previous)";
                if (d.garbled) o << " (name field garbled: file unknown)";
                o << '\n';
            }
            break;
        case JITDUMP_CODE_CLOSE:
            o << '\n';
            break;
        case JITDUMP_CODE_UNWINDING_INFO: {
            const JitdumpUnwindingInfo& u = rec.u.unwind;
            o << " unwinding_size " << u.unwinding_size << ", eh_frame_hdr_size "
                 << u.eh_frame_hdr_size << ", mapped_size " << u.mapped_size << ", "
                 << u.data_len << " data bytes\n";
            break;
        }
        default:
            o << '\n';
            break;
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

/// JSON document:
/// {"file": "...", "format": "jitdump"|"perfmap",
///  "header": {...},                      (jitdump)
///  "records": [{"offset", "kind", "id", "total_size", "timestamp", ...}],
///  "entries": [{"line", "offset", "start", "size", "end", "name"}],  (perf map)
///  "problems": [{"severity", "offset"|"line", "message"}]}
/// Addresses are "0x..." strings; sizes, offsets and counts are numbers.
class JsonSink : public Sink {
public:
    JsonSink(const std::string& file, std::ostream& out) : out_(out), w_(out) {
        w_.begin_object();
        w_.key("file");
        w_.value(file);
    }

    void format(Format f) override {
        is_jitdump_ = f == Format::Jitdump;
        w_.key("format");
        w_.value(is_jitdump_ ? "jitdump" : "perfmap");
        w_.key(is_jitdump_ ? "records" : "entries");
        w_.begin_array();
        in_list_ = true;
    }

    void jitdump_header(const JitdumpHeader& h) override { header_ = h; have_header_ = true; }

    void jitdump_record(const JitdumpRecord& rec, bool known, const std::string& name,
                        const std::vector<DebugLine>& lines) override {
        w_.begin_object();
        w_.key("offset"); w_.value(static_cast<std::uint64_t>(rec.file_offset));
        w_.key("kind"); w_.value(known ? record_kind_name(rec.id) : std::string("UNKNOWN"));
        w_.key("id"); w_.value(rec.id);
        w_.key("total_size"); w_.value(rec.total_size);
        w_.key("timestamp"); w_.value(static_cast<std::uint64_t>(rec.timestamp));
        if (known) {
            switch (rec.id) {
            case JITDUMP_CODE_LOAD: {
                const JitdumpCodeLoad& l = rec.u.load;
                w_.key("pid"); w_.value(l.pid);
                w_.key("tid"); w_.value(l.tid);
                w_.key("vma"); w_.address(l.vma);
                w_.key("code_addr"); w_.address(l.code_addr);
                w_.key("code_size"); w_.value(static_cast<std::uint64_t>(l.code_size));
                w_.key("code_index"); w_.value(static_cast<std::uint64_t>(l.code_index));
                w_.key("name"); w_.value(name);
                w_.key("code_bytes"); w_.value(static_cast<std::uint64_t>(l.code_bytes));
                break;
            }
            case JITDUMP_CODE_MOVE: {
                const JitdumpCodeMove& m = rec.u.move;
                w_.key("pid"); w_.value(m.pid);
                w_.key("tid"); w_.value(m.tid);
                w_.key("vma"); w_.address(m.vma);
                w_.key("old_code_addr"); w_.address(m.old_code_addr);
                w_.key("new_code_addr"); w_.address(m.new_code_addr);
                w_.key("code_size"); w_.value(static_cast<std::uint64_t>(m.code_size));
                w_.key("code_index"); w_.value(static_cast<std::uint64_t>(m.code_index));
                break;
            }
            case JITDUMP_CODE_DEBUG_INFO:
                w_.key("code_addr"); w_.address(rec.u.debug.code_addr);
                w_.key("nr_entry"); w_.value(static_cast<std::uint64_t>(rec.u.debug.nr_entry));
                w_.key("entries");
                w_.begin_array();
                for (const DebugLine& d : lines) {
                    w_.begin_object();
                    w_.key("code_addr"); w_.address(d.code_addr);
                    w_.key("file"); w_.value(d.filename);
                    w_.key("line"); w_.value(d.line);
                    w_.key("discrim"); w_.value(d.discrim);
                    w_.key("same_as_previous"); w_.value(d.same_as_previous);
                    w_.key("garbled"); w_.value(d.garbled);
                    w_.end_object();
                }
                w_.end_array();
                break;
            case JITDUMP_CODE_UNWINDING_INFO: {
                const JitdumpUnwindingInfo& u = rec.u.unwind;
                w_.key("unwinding_size"); w_.value(static_cast<std::uint64_t>(u.unwinding_size));
                w_.key("eh_frame_hdr_size");
                w_.value(static_cast<std::uint64_t>(u.eh_frame_hdr_size));
                w_.key("mapped_size"); w_.value(static_cast<std::uint64_t>(u.mapped_size));
                w_.key("data_bytes"); w_.value(static_cast<std::uint64_t>(u.data_len));
                break;
            }
            default:
                break;
            }
        }
        w_.end_object();
    }

    void perfmap_entry(std::uint64_t line, std::uint64_t offset, const PerfmapEntry& e,
                       const std::string& name) override {
        w_.begin_object();
        w_.key("line"); w_.value(line);
        w_.key("offset"); w_.value(offset);
        w_.key("start"); w_.address(e.start);
        w_.key("size"); w_.value(static_cast<std::uint64_t>(e.size));
        w_.key("end"); w_.address(e.start + e.size);
        w_.key("name"); w_.value(name);
        w_.end_object();
    }

    void problem(const Problem& p) override {
        if (p.severity == Severity::Error) ++errors_;
        problems_.push_back(p);
    }

    void finish() {
        if (in_list_) w_.end_array();
        if (have_header_) {
            w_.key("header");
            w_.begin_object();
            w_.key("version"); w_.value(header_.version);
            w_.key("header_size"); w_.value(header_.header_size);
            w_.key("elf_mach"); w_.value(header_.elf_mach);
            w_.key("machine"); w_.value(elf_machine_name(header_.elf_mach));
            w_.key("pid"); w_.value(header_.pid);
            w_.key("timestamp"); w_.value(static_cast<std::uint64_t>(header_.timestamp));
            w_.key("flags"); w_.value(static_cast<std::uint64_t>(header_.flags));
            w_.end_object();
        }
        w_.key("problems");
        w_.begin_array();
        for (const Problem& p : problems_) {
            w_.begin_object();
            w_.key("severity"); w_.value(p.severity == Severity::Error ? "error" : "warning");
            if (p.has_where) {
                w_.key(p.by_line ? "line" : "offset");
                w_.value(static_cast<std::uint64_t>(p.where));
            }
            w_.key("message"); w_.value(p.message);
            w_.end_object();
        }
        w_.end_array();
        w_.end_object();
        out_ << '\n';
    }

    unsigned long long errors_ = 0;

private:
    std::ostream& out_;
    JsonWriter w_;
    bool is_jitdump_ = false;
    bool in_list_ = false;
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
        JsonSink sink(file, out);
        analyze_file(file, opts.analyze, sink);
        sink.finish();
        return sink.errors_ ? kExitProblems : kExitClean;
    }
    TextSink sink(file, out);
    analyze_file(file, opts.analyze, sink);
    return sink.errors_ ? kExitProblems : kExitClean;
}

}  // namespace vgjit
