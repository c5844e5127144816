// callgrind_profile.cpp - per-function sums of a Callgrind/Cachegrind profile.

#include "callgrind_profile.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

namespace vgjit {
namespace callgrind {

namespace {

void add(Costs& to, const Costs& c) {
    for (std::size_t i = 0; i < c.size(); ++i) to[i] += c[i];
}

}  // namespace

/// Sums what the Reader reports into a Profile.
class ProfileBuilder : public Handler {
public:
    ProfileBuilder(Profile& p, const std::string& source) : p_(p), reader_(*this, source) {}

    void run(std::istream& in) { reader_.read(in); }

private:
    Profile& p_;
    Reader reader_;
    bool seen_part_ = false;
    FunctionCosts* fn_ = nullptr;

    Costs zero() const { return Costs(p_.events_.size(), 0); }

    void part() override {
        if (seen_part_) reader_.fail("a second part (multi-part profiles are not supported)");
        seen_part_ = true;
    }

    void header(const std::string& key, const std::string& value, const std::string&) override {
        if (key == "events") {
            p_.events_ = reader_.events();
            p_.self_total_ = zero();
        } else if (key == "positions") {
            p_.positions_ = reader_.positions();
        } else if (key == "totals" || key == "summary") {
            Costs c = zero();
            const auto w = split_words(value);
            for (std::size_t i = 0; i < w.size(); ++i) Reader::parse_number(w[i], c[i]);
            if (key == "totals" || p_.totals_.empty()) p_.totals_ = c;
        }
        auto& slot = p_.header_[key];
        slot = slot.empty() ? value : slot + "\n" + value;
    }

    void function(const std::string& object, const std::string& file,
                  const std::string& name) override {
        FunctionKey k{object, file, name};
        FunctionCosts& f = p_.functions_[k];
        if (f.self.empty()) {
            f.key = k;
            f.self = zero();
        }
        fn_ = &f;
    }

    void cost(const Position& pos, const Costs& c) override {
        add(fn_->self, c);
        add(p_.self_total_, c);
        std::optional<std::uint64_t> instr, line;
        for (std::size_t i = 0; i < p_.positions_.size(); ++i) {
            if (p_.positions_[i] == "line") {
                line = pos.subpos[i];
                Costs& l = fn_->lines[{pos.file, pos.subpos[i]}];
                if (l.empty()) l = zero();
                add(l, c);
            } else if (p_.positions_[i] == "instr" || p_.positions_[i] == "addr") {
                instr = pos.subpos[i];
                Costs& a = fn_->instrs[pos.subpos[i]];
                if (a.empty()) a = zero();
                add(a, c);
            }
        }
        if (instr && line) fn_->instr_lines[*instr] = *line;
    }

    void call(const Call& c) override {
        const FunctionKey callee{c.object, c.file, c.name};
        CallEdge& e = p_.calls_[{fn_->key, callee}];
        if (e.inclusive.empty()) {
            e.caller = fn_->key;
            e.callee = callee;
            e.inclusive = zero();
        }
        e.count += c.count;
        add(e.inclusive, c.inclusive);
    }
};

Profile Profile::parse(std::istream& in, const std::string& source) {
    Profile p;
    ProfileBuilder(p, source).run(in);
    return p;
}

Profile Profile::parse_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw ParseError(path, 0, std::string("cannot open: ") + std::strerror(errno));
    return parse(in, path);
}

std::size_t Profile::event_index(const std::string& name) const {
    for (std::size_t i = 0; i < events_.size(); ++i)
        if (events_[i] == name) return i;
    throw std::out_of_range("event '" + name + "' is not in the profile");
}

std::uint64_t line_cost(const FunctionCosts& f, const std::string& file, std::uint64_t line,
                        std::size_t event) {
    const auto it = f.lines.find({file, line});
    return it == f.lines.end() ? 0 : it->second.at(event);
}

std::string strip_recursion_suffix(const std::string& name) {
    const std::size_t q = name.rfind('\'');
    if (q == std::string::npos || q == 0 || q + 1 == name.size()) return name;
    for (std::size_t i = q + 1; i < name.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(name[i]))) return name;
    return name.substr(0, q);
}

std::vector<const FunctionCosts*> Profile::functions_named(const std::string& name,
                                                           bool any_recursion_depth) const {
    std::vector<const FunctionCosts*> out;
    for (const auto& f : functions_)
        if (f.first.name == name ||
            (any_recursion_depth && strip_recursion_suffix(f.first.name) == name))
            out.push_back(&f.second);
    return out;
}

const Costs& Profile::totals() const { return totals_.empty() ? self_total_ : totals_; }

std::uint64_t Profile::object_cost(const std::string& object, const std::string& event) const {
    const std::size_t e = event_index(event);
    std::uint64_t sum = 0;
    for (const auto& f : functions_)
        if (f.first.object == object) sum += f.second.self[e];
    return sum;
}

std::uint64_t calls_to_any_depth(const Profile& p, const std::string& callee) {
    std::uint64_t n = 0;
    for (const auto& [keys, edge] : p.calls())
        if (strip_recursion_suffix(keys.second.name) == callee) n += edge.count;
    return n;
}

std::uint64_t calls_between_any_depth(const Profile& p, const std::string& caller,
                                      const std::string& callee) {
    std::uint64_t n = 0;
    for (const auto& [keys, edge] : p.calls())
        if (strip_recursion_suffix(keys.first.name) == caller &&
            strip_recursion_suffix(keys.second.name) == callee)
            n += edge.count;
    return n;
}

}  // namespace callgrind
}  // namespace vgjit
