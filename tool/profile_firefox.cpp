// profile_firefox.cpp: a converted profile in the Firefox Profiler's
// processed format (write_firefox, profile_export.hpp): the small values
// made with nlohmann/json, the large tables (stacks, frames, functions,
// samples) streamed element by element.
#include "profile_export.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <map>
#include <ostream>
#include <string_view>
#include <unordered_map>

namespace vgjit {
namespace exporting {

namespace {

using nlohmann::json;

/// The largest integer a JSON reader keeps exactly in a double.
constexpr std::uint64_t kMaxExactDouble = (std::uint64_t{1} << 53);

/// The profile's string table: each distinct string once, numbered in
/// the order first asked for.
class Strings {
public:
    std::size_t operator()(const std::string& s) {
        auto it = index_.find(s);
        if (it != index_.end()) return it->second;
        array_.push_back(s);
        index_.emplace(s, array_.size() - 1);
        return array_.size() - 1;
    }
    const std::vector<std::string>& array() const { return array_; }

private:
    std::vector<std::string> array_;
    std::unordered_map<std::string, std::size_t> index_;
};

/// How the stacks were made, in words, for the profile's "Stacks" entry.
std::string stacks_text(const Converted& c) {
    switch (c.stacks) {
    case Stacks::Exact:
        return c.has_contexts ? "exact (from Callgrind's contexts, --separate-callers)"
                              : "exact (every function was called from one caller)";
    case Stacks::Rebuilt:
        if (c.has_contexts)
            return "exact (from Callgrind's contexts) for " + std::to_string(c.exact_weight) +
                   " of " + std::to_string(c.total) + " " + c.event + "; " +
                   std::to_string(c.ambiguous) +
                   " contexts had several callers (chains longer than --separate-callers, "
                   "recursion deeper than --separate-recs): their stacks stop at the frame " +
                   kUnknownCallers + " below the callers every one of their calls had";
        return "rebuilt from call edges, whole for " + std::to_string(c.exact_weight) + " of " +
               std::to_string(c.total) + " " + c.event + ": " + std::to_string(c.ambiguous) +
               " functions had several callers, and the profile does not say which call led "
               "where; their stacks stop at the frame " +
               kUnknownCallers +
               " below the callers every one of their calls had (take the profile with "
               "--separate-callers=N for whole stacks)";
    case Stacks::Flat: return "flat: the profile has no calls (one frame per sample)";
    }
    return "";
}

/// Writes JSON text to a stream through a buffer: the large arrays of a
/// profile (stacks, frames, samples) element by element, without a
/// document tree in memory.
class JsonWriter {
public:
    explicit JsonWriter(std::ostream& out) : out_(out) { buf_.reserve(kBuffer + 64); }
    JsonWriter(const JsonWriter&) = delete;
    JsonWriter& operator=(const JsonWriter&) = delete;
    ~JsonWriter() { flush(); }

    JsonWriter& raw(std::string_view s) {
        buf_.append(s.data(), s.size());
        if (buf_.size() >= kBuffer) flush();
        return *this;
    }
    JsonWriter& number(std::uint64_t v) {
        char b[24];
        const auto r = std::to_chars(b, b + sizeof b, v);
        return raw(std::string_view(b, static_cast<std::size_t>(r.ptr - b)));
    }
    /// The shortest text that reads back as `v`.
    JsonWriter& real(double v) {
        char b[32];
        const auto r = std::to_chars(b, b + sizeof b, v);
        return raw(std::string_view(b, static_cast<std::size_t>(r.ptr - b)));
    }
    /// A value of any size made by nlohmann/json; invalid UTF-8 in its
    /// strings (profiles are byte strings) is replaced, not fatal.
    JsonWriter& value(const nlohmann::json& j) {
        return raw(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
    /// "key":
    JsonWriter& key(std::string_view k) {
        raw("\"");
        raw(k);
        return raw("\":");
    }
    /// An array of `n` numbers, the i-th being get(i).
    template <class Get>
    JsonWriter& numbers(std::size_t n, Get get) {
        raw("[");
        for (std::size_t i = 0; i < n; ++i) {
            if (i) raw(",");
            number(get(i));
        }
        return raw("]");
    }
    void flush() {
        out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
        buf_.clear();
    }

private:
    static constexpr std::size_t kBuffer = 1 << 16;
    std::ostream& out_;
    std::string buf_;
};

/// The profile's categories, by kind of code: 0 is the default (grey),
/// also the marker's.
json categories() {
    return json::array({
        {{"name", "Other"}, {"color", "grey"}, {"subcategories", {"Other"}}},
        {{"name", "JIT"}, {"color", "green"}, {"subcategories", {"Other"}}},
        {{"name", "Native"}, {"color", "blue"}, {"subcategories", {"Other"}}},
        {{"name", "Unnamed"}, {"color", "red"}, {"subcategories", {"Other"}}},
    });
}

/// The index in categories() of code of kind k.
std::uint64_t category_of(Kind k) {
    return k == Kind::Jit ? 1 : k == Kind::Native ? 2 : k == Kind::Unnamed ? 3 : 0;
}

/// The function table's columns that the functions do not hold as they
/// are (name strings, flags, resource and source indices), and the
/// tables of resources (one per object) and sources (one per file) those
/// indices refer to.
struct FunctionColumns {
    std::vector<std::uint64_t> name, flags, resource, source;
    json res_name = json::array(), res_host = json::array(), res_type = json::array();
    json src_id = json::array(), src_file = json::array(), src_line = json::array(),
         src_col = json::array(), src_map = json::array(), src_content = json::array();
};

/// The FunctionColumns of c's functions, their strings added to `str`
/// (each function's object, file and name in turn).
FunctionColumns function_columns(const Converted& c, Strings& str) {
    FunctionColumns fc;
    std::map<std::string, std::size_t> resource_index, source_index;
    const std::size_t nfuncs = c.functions.size();
    fc.name.resize(nfuncs);
    fc.flags.resize(nfuncs);
    fc.resource.resize(nfuncs);
    fc.source.resize(nfuncs);
    for (std::size_t i = 0; i < nfuncs; ++i) {
        const Function& f = c.functions[i];
        std::uint64_t flags = 0;
        std::size_t res = 0, src = 0;
        if (!f.object.empty()) {
            auto it = resource_index.find(f.object);
            if (it == resource_index.end()) {
                it = resource_index.emplace(f.object, fc.res_name.size()).first;
                fc.res_name.push_back(str(f.object));
                fc.res_host.push_back(nullptr);
                fc.res_type.push_back(1);  // a library
            }
            res = it->second;
            flags |= 4;
        }
        if (!f.file.empty() && f.file != "???") {
            auto it = source_index.find(f.file);
            if (it == source_index.end()) {
                it = source_index.emplace(f.file, fc.src_file.size()).first;
                fc.src_id.push_back(nullptr);
                fc.src_file.push_back(str(f.file));
                fc.src_line.push_back(1);
                fc.src_col.push_back(1);
                fc.src_map.push_back(nullptr);
                fc.src_content.push_back(nullptr);
            }
            src = it->second;
            flags |= 8;
        }
        if (f.first_line) flags |= 16;
        if (f.kind == Kind::Jit) flags |= 1 | 2;  // shown by the JavaScript-only call tree too
        fc.name[i] = str(f.name);
        fc.flags[i] = flags;
        fc.resource[i] = res;
        fc.source[i] = src;
    }
    return fc;
}

/// The entries of the profile's "Valgrind profile" box: how the stacks
/// were made, the event, the totals, the parts and processes, the creator.
json extra_entries(const Converted& c) {
    json entries = json::array({
        {{"label", "Stacks"}, {"format", "string"}, {"value", stacks_text(c)}},
        {{"label", "Weights"},
         {"format", "string"},
         {"value", "counts of " + c.event + " (the time line counts millions of " + c.event + ")"}},
        {{"label", "Total " + c.event}, {"format", "string"}, {"value", std::to_string(c.total)}},
        {{"label", "Parts (dumps)"}, {"format", "integer"}, {"value", c.parts}},
    });
    if (c.processes.size() > 1)
        entries.push_back(
            {{"label", "Processes"}, {"format", "integer"}, {"value", c.processes.size()}});
    for (std::size_t i = 0; i < c.events.size() && i < c.event_totals.size(); ++i)
        if (c.events[i] != c.event)
            entries.push_back({{"label", "Total " + c.events[i]},
                               {"format", "string"},
                               {"value", std::to_string(c.event_totals[i])}});
    if (!c.creator.empty())
        entries.push_back({{"label", "Creator"}, {"format", "string"}, {"value", c.creator}});
    return entries;
}

/// The profile's "meta" object.
json meta(const Converted& c) {
    std::uint64_t end = 0;
    for (const Thread& t : c.threads) end = std::max(end, t.total);
    return {
        {"interval", 1},
        {"startTime", 0},
        {"endTime", static_cast<double>(end) / 1e6},
        {"processType", 0},
        {"product", c.command.empty() ? std::string("Valgrind profile") : c.command},
        {"stackwalk", 0},
        {"version", 27},
        {"preprocessedProfileVersion", kFirefoxProcessedVersion},
        {"categories", categories()},
        {"markerSchema", json::array()},
        {"symbolicated", true},
        {"usesOnlyOneStackType", true},
        {"importedFrom", c.creator.empty() ? std::string("Valgrind") : c.creator},
        {"sourceCodeIsNotOnSearchfox", true},
        {"extra", json::array({{{"label", "Valgrind profile"}, {"entries", extra_entries(c)}}})},
        // Which stacks: kept as plain values for tools that read the file.
        {"vgjitStacks", c.stacks == Stacks::Exact  ? "exact"
                        : c.stacks == Stacks::Flat ? "flat"
                                                   : "rebuilt"},
        {"vgjitEvent", c.event},
        {"vgjitTotal", std::to_string(c.total)},
        {"vgjitExactWeight", std::to_string(c.exact_weight)},
    };
}

/// "stackTable":{...}, : each stack's frame and its parent's offset (0
/// for a root).
void write_stack_table(JsonWriter& w, const Converted& c) {
    const std::size_t nstacks = c.stack_table.size();
    w.key("stackTable").raw("{").key("frame").numbers(nstacks, [&](std::size_t i) {
        return c.stack_table[i].frame;
    });
    w.raw(",").key("prefixOffset").numbers(nstacks, [&](std::size_t i) {
        const Stack& s = c.stack_table[i];
        return s.parent == kNoStack ? 0 : i - s.parent;
    });
    w.raw(",").key("length").number(nstacks).raw("},");
}

/// "frameTable":{...}, : each frame's function, line and category.
void write_frame_table(JsonWriter& w, const Converted& c) {
    auto zeros = [](std::size_t) { return std::uint64_t{0}; };
    const std::size_t nframes = c.frames.size();
    w.key("frameTable").raw("{").key("flags").numbers(nframes, [&](std::size_t i) {
        return std::uint64_t{4} | (c.frames[i].line ? 16 : 0);
    });
    for (const char* k : {"address"}) w.raw(",").key(k).numbers(nframes, zeros);
    w.raw(",").key("category").numbers(nframes, [&](std::size_t i) {
        return category_of(c.functions[c.frames[i].function].kind);
    });
    for (const char* k : {"subcategory", "lib", "nativeSymbol", "innerWindowID"})
        w.raw(",").key(k).numbers(nframes, zeros);
    w.raw(",").key("line").numbers(nframes, [&](std::size_t i) { return c.frames[i].line; });
    for (const char* k : {"column", "originalLocation"}) w.raw(",").key(k).numbers(nframes, zeros);
    w.raw(",").key("func").numbers(nframes, [&](std::size_t i) { return c.frames[i].function; });
    w.raw(",").key("length").number(nframes).raw("},");
}

/// "funcTable":{...}, : each function's name, flags, resource, source
/// and first line.
void write_func_table(JsonWriter& w, const Converted& c, const FunctionColumns& fc) {
    auto zeros = [](std::size_t) { return std::uint64_t{0}; };
    const std::size_t nfuncs = c.functions.size();
    w.key("funcTable").raw("{").key("name").numbers(nfuncs, [&](std::size_t i) {
        return fc.name[i];
    });
    w.raw(",").key("flags").numbers(nfuncs, [&](std::size_t i) { return fc.flags[i]; });
    w.raw(",").key("resource").numbers(nfuncs, [&](std::size_t i) { return fc.resource[i]; });
    w.raw(",").key("source").numbers(nfuncs, [&](std::size_t i) { return fc.source[i]; });
    w.raw(",").key("lineNumber").numbers(nfuncs, [&](std::size_t i) {
        return c.functions[i].first_line;
    });
    for (const char* k : {"columnNumber", "originalLocation"})
        w.raw(",").key(k).numbers(nfuncs, zeros);
    w.raw(",").key("length").number(nfuncs).raw("},");
}

/// The resource and source tables (taken from `fc`), and the empty
/// tables of native symbols and source locations, each followed by ','.
void write_resources_and_sources(JsonWriter& w, FunctionColumns& fc) {
    w.key("resourceTable")
        .value({{"length", fc.res_name.size()},
                {"name", std::move(fc.res_name)},
                {"host", std::move(fc.res_host)},
                {"type", std::move(fc.res_type)}})
        .raw(",");
    w.key("nativeSymbols")
        .value({{"libIndex", json::array()},
                {"address", json::array()},
                {"name", json::array()},
                {"functionSize", json::array()},
                {"length", 0}})
        .raw(",");
    w.key("sources")
        .value({{"length", fc.src_file.size()},
                {"id", std::move(fc.src_id)},
                {"filename", std::move(fc.src_file)},
                {"startLine", std::move(fc.src_line)},
                {"startColumn", std::move(fc.src_col)},
                {"sourceMapURL", std::move(fc.src_map)},
                {"content", std::move(fc.src_content)}})
        .raw(",");
    w.key("sourceLocationTable")
        .value({{"source", json::array()},
                {"line", json::array()},
                {"column", json::array()},
                {"length", 0}})
        .raw(",");
}

/// A thread's fields before its samples: its process (pid, name), its
/// name and whether it is its process's main thread, no markers.
json thread_head(const Converted& c, const Thread& t) {
    const Process& proc = c.processes.at(t.process);
    const bool main_thread = t.id == "1" || proc.threads.size() == 1;
    const std::string pid = proc.pid.empty() ? std::string("0") : proc.pid;
    // The profiler names a process's track after its main thread.
    std::string name = proc.threads.size() > 1 ? "Thread " + t.id : std::string("Main thread");
    if (c.processes.size() > 1 && main_thread)
        name = proc.name.empty() ? "Process " + pid : proc.name;
    return {
        {"processType", "default"},
        {"processName", proc.name.empty() ? "Process " + pid : proc.name},
        {"processStartupTime", 0},
        {"processShutdownTime", static_cast<double>(t.total) / 1e6},
        {"registerTime", 0},
        {"unregisterTime", nullptr},
        {"pausedRanges", json::array()},
        {"name", name},
        {"isMainThread", main_thread},
        {"pid", pid},
        {"tid", t.id},
        {"markers",
         {{"data", json::array()},
          {"name", json::array()},
          {"startTime", json::array()},
          {"endTime", json::array()},
          {"phase", json::array()},
          {"category", json::array()},
          {"length", 0}}},
    };
}

/// One thread, its samples streamed: each field in turn (the stacks, the
/// times, the weights).  A weight past 2^53 becomes several samples, so
/// that JSON readers (doubles) keep every weight exact.
void write_thread(JsonWriter& w, const Converted& c, const Thread& t, bool first_thread) {
    std::size_t ns = 0;
    for (const Sample& s : t.samples) ns += (s.weight + kMaxExactDouble - 1) / kMaxExactDouble;
    std::string text = thread_head(c, t).dump(-1, ' ', false, json::error_handler_t::replace);
    text.pop_back();  // the closing brace: the samples follow
    w.raw(first_thread ? "" : ",").raw(text).raw(",").key("samples").raw("{");
    for (int field = 0; field < 3; ++field) {
        w.key(field == 0 ? "stack" : field == 1 ? "time" : "weight").raw("[");
        bool first = true;
        for (const Sample& s : t.samples) {
            std::uint64_t left = s.weight, at = s.time;
            while (left) {
                const std::uint64_t part = std::min(left, kMaxExactDouble);
                if (!first) w.raw(",");
                first = false;
                if (field == 0)
                    w.number(s.stack);
                else if (field == 1)
                    w.real(static_cast<double>(at) / 1e6);  // the time line counts millions
                else
                    w.number(part);
                left -= part;
                at += part;
            }
        }
        w.raw("],");
    }
    w.key("weightType").raw("\"samples\",").key("length").number(ns).raw("}}");
}

}  // namespace

void write_firefox(const Converted& c, std::ostream& out) {
    Strings str;
    FunctionColumns fc = function_columns(c, str);
    JsonWriter w(out);
    w.raw("{").key("meta").value(meta(c)).raw(",").key("libs").raw("[],").key("shared").raw("{");
    write_stack_table(w, c);
    write_frame_table(w, c);
    write_func_table(w, c, fc);
    write_resources_and_sources(w, fc);
    w.key("stringArray").raw("[");
    for (std::size_t i = 0; i < str.array().size(); ++i) {
        if (i) w.raw(",");
        w.value(str.array()[i]);
    }
    w.raw("]},").key("threads").raw("[");
    for (std::size_t ti = 0; ti < c.threads.size(); ++ti)
        write_thread(w, c, c.threads[ti], ti == 0);
    w.raw("]}\n");
    w.flush();
}

}  // namespace exporting
}  // namespace vgjit
