// profile_export.cpp: reading Callgrind/Cachegrind profiles into weighted
// stack samples (convert): each file's parts read (Collector), their
// functions classified (classify), and the parts grouped into processes and
// threads; the stacks of each part are made by profile_stacks.cpp, the
// Firefox Profiler's form by profile_firefox.cpp, folded stacks by
// profile_folded.cpp (rules in profile_export.hpp).
#include "profile_export.hpp"

#include "callgrind_format.hpp"
#include "profile_parts.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace vgjit {
namespace exporting {

namespace {

using callgrind::ParseError;

bool is_address_name(const std::string& n) {
    if (n.size() < 3 || n[0] != '0' || (n[1] != 'x' && n[1] != 'X')) return false;
    return n.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos;
}

bool ends_with(const std::string& s, const std::string& t) {
    return s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0;
}

/// Whether `object` is an existing file that is not ELF (a producer's
/// file named as object); asked once per object.
bool non_elf_file(const std::string& object) {
    static std::unordered_map<std::string, bool> known;
    const auto it = known.find(object);
    if (it != known.end()) return it->second;
    std::ifstream f(object, std::ios::binary);
    char magic[4] = {};
    const bool r = f && f.read(magic, 4) &&
                   !(magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F');
    known.emplace(object, r);
    return r;
}

}  // namespace

Kind classify(const std::string& object, const std::string& name) {
    if (is_address_name(name) || object == "???") return Kind::Unnamed;
    if (object.empty()) return Kind::Native;  // Cachegrind names no objects
    if (object[0] != '/') return Kind::Jit;   // a JIT object's name, a --dump-jit-code file
    if (ends_with(object, ".dump") ||
        (ends_with(object, ".map") && object.find("/perf-") != std::string::npos))
        return Kind::Jit;
    if (non_elf_file(object)) return Kind::Jit;  // a producer's file
    return Kind::Native;
}

std::string process_name(const std::string& command) {
    const std::vector<std::string> words = callgrind::split_words(command);
    if (words.empty()) return "";
    auto file_name = [](const std::string& w) {
        const std::size_t slash = w.find_last_of('/');
        return slash == std::string::npos || slash + 1 == w.size() ? w : w.substr(slash + 1);
    };
    std::string name = file_name(words[0]);
    if (words.size() < 2) return name;
    const auto type = std::find_if(words.begin() + 1, words.end(), [](const std::string& w) {
        return w.compare(0, 7, "--type=") == 0;
    });
    std::string arg = file_name(type != words.end() ? *type : words[1]);
    if (arg.size() > 40) arg = arg.substr(0, 37) + "...";
    return name + " " + arg;
}

namespace {

/// Collects the parts of one file.
class Collector : public callgrind::Handler {
public:
    Collector(Converted& c, std::vector<RawPart>& parts, std::size_t file,
              std::map<std::tuple<std::string, std::string, std::string>, std::size_t>& functions)
        : c_(c), parts_(parts), event_(c.event), file_(file), functions_(functions) {}
    void set_reader(callgrind::Reader* r) { reader_ = r; }

    void part() override {
        finish_part();
        parts_.emplace_back();
        cur_ = &parts_.back();
        // Parts appended to a file (--combine-dumps=yes) have no header
        // of their own: the file's pid and command hold for them.
        cur_->pid = file_pid_;
        cur_->command = file_command_;
        cur_->file = file_;
        ev_ = -1;
        nodes_.clear();
        node_ = kNoStack;
    }
    void header(const std::string& key, const std::string& value, const std::string&) override {
        if (key == "cmd") {
            if (c_.command.empty()) c_.command = value;
            cur_->command = file_command_ = value;
        } else if (key == "pid") {
            if (c_.pid.empty()) c_.pid = value;
            cur_->pid = file_pid_ = value;
        } else if (key == "creator" && c_.creator.empty())
            c_.creator = value;
        else if (key == "thread")
            cur_->thread = value;
        else if (key == "events") {
            const auto& ev = reader_->events();
            if (c_.events.empty()) c_.events = ev;
            if (event_.empty() && !ev.empty()) c_.event = event_ = ev[0];
            for (std::size_t i = 0; i < ev.size(); ++i)
                if (ev[i] == event_) ev_ = static_cast<int>(i);
            if (ev_ < 0) {
                std::string names;
                for (const std::string& e : ev) names += (names.empty() ? "" : ", ") + e;
                reader_->fail("no event '" + event_ + "' in this part (its events: " + names + ")");
            }
        } else if ((key == "totals" || key == "summary") && cur_->body) {
            const auto words = callgrind::split_words(value);
            std::uint64_t v = 0;
            if (static_cast<std::size_t>(ev_) < words.size())
                callgrind::Reader::parse_number(words[static_cast<std::size_t>(ev_)], v);
            if (reader_->events() == c_.events) {
                c_.event_totals.resize(c_.events.size(), 0);
                for (std::size_t i = 0; i < words.size() && i < c_.events.size(); ++i) {
                    std::uint64_t t = 0;
                    callgrind::Reader::parse_number(words[i], t);
                    if (__builtin_add_overflow(c_.event_totals[i], t, &c_.event_totals[i]))
                        reader_->fail("the totals of " + c_.events[i] +
                                      " add up to more than 2^64");
                }
            }
            if (v != cur_->sum)
                reader_->fail("\"" + key + ":\" gives " + std::to_string(v) + " " + event_ +
                              " but the part's cost lines add up to " + std::to_string(cur_->sum) +
                              " (a damaged profile)");
            cur_->trailer = true;
        }
    }
    void function(const std::string& object, const std::string& file,
                  const std::string& name) override {
        cur_->body = true;
        node_ = node(object, file, name);
    }
    void cost(const callgrind::Position& pos, const callgrind::Costs& costs) override {
        Node& n = cur_->nodes[node_];
        add_unexplained(n, costs, +1);
        const std::uint64_t v = costs[static_cast<std::size_t>(ev_)];
        if (v == 0) return;
        std::uint64_t line = 0;
        const int li = reader_->position_index("line");
        if (li >= 0 && pos.file == n.file) line = pos.subpos[static_cast<std::size_t>(li)];
        if (__builtin_add_overflow(cur_->sum, v, &cur_->sum))
            reader_->fail("the part's costs of " + event_ + " add up to more than 2^64");
        if (!n.self.empty() && n.self.back().first == line)
            n.self.back().second += v;
        else
            n.self.push_back({line, v});
        n.self_sum += v;
        if (line && (n.first_line == 0 || line < n.first_line)) n.first_line = line;
    }
    void call(const callgrind::Call& call) override {
        const std::size_t to = node(call.object, call.file, call.name);
        const int li = reader_->position_index("line");
        const std::uint64_t site = li >= 0 && call.site.file == cur_->nodes[node_].file
                                       ? call.site.subpos[static_cast<std::size_t>(li)]
                                       : 0;
        RawPart& p = *cur_;
        const std::size_t e = p.edge_index.insert({node_, to}, p.edges.size(),
                                                  [&p](std::size_t i) { return p.edge_key(i); });
        if (e == cur_->edges.size())
            cur_->edges.push_back({node_, to, site, true});
        else if (cur_->edges[e].site_line != site)
            cur_->edges[e].one_site = false;
        add_unexplained(cur_->nodes[node_], call.inclusive, +1);
        add_unexplained(cur_->nodes[to], call.inclusive, -1);
    }

    /// Checks the last part read; `source` and `lines` for the error.
    void finish(const std::string& source, unsigned long lines) {
        if (cur_ && cur_->body && !cur_->trailer)
            throw ParseError(
                source, lines,
                "the profile ends without the \"totals:\" (or \"summary:\") line of its "
                "last part: truncated?");
        resolve();
    }

private:
    /// Adds `sign` times `costs` (one per event of the part) to the
    /// node's unexplained costs.
    void add_unexplained(Node& n, const callgrind::Costs& costs, int sign) {
        if (n.unexplained.size() < costs.size()) n.unexplained.resize(costs.size(), 0);
        for (std::size_t i = 0; i < costs.size(); ++i)
            n.unexplained[i] += sign * static_cast<__int128>(costs[i]);
    }

    void finish_part() {
        if (cur_ && cur_->body && !cur_->trailer)
            reader_->fail(
                "a new part begins before the \"totals:\" line of the one before: truncated?");
        resolve();
    }

    /// Gives the part's nodes their functions.  A name is split into
    /// function and callers (callgrind::split_context_name) only where every
    /// caller is the function of some node of the part: a quote in a plain
    /// name ("f'x" with no function "x") stays part of the name.
    void resolve() {
        if (!cur_) return;
        std::unordered_map<std::string, char> known;
        for (const Node& n : cur_->nodes)
            known[callgrind::split_context_name(*n.name).function] = 1;
        for (Node& n : cur_->nodes) {
            callgrind::ContextName cn = callgrind::split_context_name(*n.name);
            bool context = true;
            for (const std::string& caller : cn.callers)
                if (!known.count(caller)) context = false;
            if (!context) {
                cn.function = *n.name;
                cn.callers.clear();
            }
            if (!cn.callers.empty()) c_.has_contexts = true;
            auto fkey = std::make_tuple(n.object, n.file, std::move(cn.function));
            auto f = functions_.find(fkey);
            if (f == functions_.end()) {
                f = functions_.emplace(fkey, c_.functions.size()).first;
                Function fn;
                fn.object = n.object;
                fn.file = n.file;
                fn.name = std::get<2>(fkey);
                fn.kind = classify(n.object, fn.name);
                c_.functions.push_back(fn);
            }
            n.function = f->second;
            Function& fn = c_.functions[n.function];
            if (n.first_line && (fn.first_line == 0 || n.first_line < fn.first_line))
                fn.first_line = n.first_line;
            // The names are no longer needed; the costs by line, in order.
            std::string().swap(n.object);
            std::string().swap(n.file);
            n.name = nullptr;
            std::sort(n.self.begin(), n.self.end());
            std::size_t k = 0;
            for (std::size_t j = 0; j < n.self.size(); ++j) {
                if (k > 0 && n.self[k - 1].first == n.self[j].first)
                    n.self[k - 1].second += n.self[j].second;
                else
                    n.self[k++] = n.self[j];
            }
            n.self.resize(k);
            n.self.shrink_to_fit();
        }
        nodes_.clear();
    }

    /// The node of the current part with these names, made if new.
    std::size_t node(const std::string& object, const std::string& file, const std::string& name) {
        const auto it = nodes_.find(name);
        if (it != nodes_.end())
            for (std::size_t i = it->second; i != kNoStack; i = cur_->nodes[i].same_name) {
                const Node& n = cur_->nodes[i];
                if (n.object == object && n.file == file) return i;
            }
        Node n;
        n.object = object;
        n.file = file;
        if (it != nodes_.end()) {
            n.same_name = it->second;
            it->second = cur_->nodes.size();
            n.name = &it->first;
        } else {
            n.name = &nodes_.emplace(name, cur_->nodes.size()).first->first;
        }
        cur_->nodes.push_back(std::move(n));
        return cur_->nodes.size() - 1;
    }

    Converted& c_;
    std::vector<RawPart>& parts_;
    std::string event_;
    std::size_t file_;
    std::string file_pid_, file_command_;
    std::map<std::tuple<std::string, std::string, std::string>, std::size_t>& functions_;
    callgrind::Reader* reader_ = nullptr;
    RawPart* cur_ = nullptr;
    int ev_ = -1;
    std::unordered_map<std::string, std::size_t> nodes_;  // name -> its last node
    std::size_t node_ = kNoStack;
};

}  // namespace

const char* kind_name(Kind k) {
    switch (k) {
    case Kind::Jit: return "JIT";
    case Kind::Native: return "Native";
    case Kind::Unnamed: return "Unnamed";
    case Kind::Marker: return "Other";
    }
    return "Native";
}

Converted convert(const std::vector<std::string>& paths, const ExportOptions& opts) {
    Converted c;
    c.event = opts.event;
    std::vector<RawPart> parts;
    std::map<std::tuple<std::string, std::string, std::string>, std::size_t> functions;
    for (std::size_t fi = 0; fi < paths.size(); ++fi) {
        const std::string& path = paths[fi];
        std::ifstream in(path, std::ios::binary);
        if (!in) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
        Collector col(c, parts, fi, functions);
        callgrind::Reader reader(col, path);
        col.set_reader(&reader);
        reader.read(in);
        col.finish(path, reader.line_number());
    }
    // The processes, by pid as a number, and their threads, in the order
    // of their first parts.
    std::map<std::string, std::size_t> process_index;
    for (const RawPart& p : parts)
        if (process_index.emplace(p.pid, c.processes.size()).second) {
            Process proc;
            proc.pid = p.pid;
            proc.command = p.command;
            proc.name = process_name(p.command);
            c.processes.push_back(std::move(proc));
        }
    auto pid_order = [](const Process& a, const Process& b) {
        auto number = [](const std::string& pid) {
            std::uint64_t v = 0;
            const auto r = std::from_chars(pid.data(), pid.data() + pid.size(), v);
            const bool ok = !pid.empty() && r.ec == std::errc() && r.ptr == pid.data() + pid.size();
            return std::make_tuple(pid.empty() ? 0 : ok ? 1 : 2, v, pid);
        };
        return number(a.pid) < number(b.pid);
    };
    std::sort(c.processes.begin(), c.processes.end(), pid_order);
    for (std::size_t i = 0; i < c.processes.size(); ++i) process_index[c.processes[i].pid] = i;
    std::map<std::pair<std::size_t, std::string>, std::size_t> thread_index;
    for (std::size_t pi = 0; pi < c.processes.size(); ++pi)
        for (const RawPart& p : parts)
            if (process_index[p.pid] == pi &&
                thread_index.emplace(std::make_pair(pi, p.thread), c.threads.size()).second) {
                c.processes[pi].threads.push_back(c.threads.size());
                c.threads.push_back(Thread{p.thread, pi, {}, 0, {}});
            }
    StackBuilder sb(c);
    bool any_edge = false;
    for (const RawPart& p : parts) {
        const std::size_t pi = process_index[p.pid];
        Process& proc = c.processes[pi];
        if (proc.files.empty() || proc.files.back() != paths[p.file])
            proc.files.push_back(paths[p.file]);
        if (!p.edges.empty()) any_edge = true;
        convert_part(c, sb, p, c.threads[thread_index.at({pi, p.thread})]);
        if (__builtin_add_overflow(c.total, p.sum, &c.total) ||
            __builtin_add_overflow(proc.total, p.sum, &proc.total))
            throw std::runtime_error("the profile's total of " + c.event + " exceeds 2^64");
        ++proc.parts;
        ++c.parts;
    }
    if (!any_edge)
        c.stacks = Stacks::Flat;
    else
        c.stacks = c.ambiguous == 0 ? Stacks::Exact : Stacks::Rebuilt;
    return c;
}

}  // namespace exporting
}  // namespace vgjit
