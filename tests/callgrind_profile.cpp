// callgrind_profile.cpp - a reader for Callgrind/Cachegrind profile files.

#include "callgrind_profile.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <unordered_map>

namespace vgjit {
namespace callgrind {

ParseError::ParseError(const std::string& source, unsigned long line, const std::string& message)
    : std::runtime_error(source + (line ? ":" + std::to_string(line) : std::string()) + ": " + message),
      line_(line) {}

class Parser {
public:
    Parser(Profile& p, const std::string& source) : p_(p), source_(source) {}

    void run(std::istream& in) {
        std::string line;
        bool inBody = false;
        while (std::getline(in, line)) {
            ++lineNo_;
            if (!line.empty() && line.back() == '\r') line.pop_back();
            std::size_t b = 0;
            while (b < line.size() && (line[b] == ' ' || line[b] == '\t')) ++b;
            if (b == line.size() || line[b] == '#') continue;
            const char c = line[0];
            if (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '*') {
                if (!inBody) fail("cost line before the \"events:\" header");
                costLine(line);
                continue;
            }
            // "key: value" header line, or "spec=value" body line.
            const std::size_t colon = line.find(':');
            const std::size_t eq = line.find('=');
            if (colon != std::string::npos && (eq == std::string::npos || colon < eq) &&
                isKey(line.substr(0, colon))) {
                header(line.substr(0, colon), trim(line.substr(colon + 1)));
                if (line.compare(0, colon, "events") == 0) inBody = true;
                continue;
            }
            if (eq == std::string::npos) fail("unrecognised line '" + line + "'");
            if (!inBody) fail("body line before the \"events:\" header");
            spec(line.substr(0, eq), line.substr(eq + 1));
        }
        if (!inBody) fail("no \"events:\" header", 0);
        if (pendingCall_ || skipJumpSource_) fail("file ends after a calls=/jump= line", 0);
    }

private:
    Profile& p_;
    std::string source_;
    unsigned long lineNo_ = 0;

    // Name compression tables.
    std::unordered_map<std::uint64_t, std::string> objects_, files_, fns_;

    // Current position context.
    std::string object_;           // ob=
    std::string fnFile_ = "???";   // fl=
    std::string posFile_ = "???";  // fl= or fi=/fe=
    FunctionCosts* fn_ = nullptr;  // fn=

    // Pending call target (cob=/cfi=/cfn=, then calls=).
    bool haveCob_ = false, haveCfi_ = false, haveCfn_ = false;
    std::string cob_, cfi_, cfn_;
    bool pendingCall_ = false;
    std::uint64_t callCount_ = 0;
    FunctionKey callee_;
    bool skipJumpSource_ = false;

    std::vector<std::uint64_t> last_;  // last ordinary cost line's subpositions

    [[noreturn]] void fail(const std::string& msg, unsigned long line) const {
        throw ParseError(source_, line, msg);
    }
    [[noreturn]] void fail(const std::string& msg) const { fail(msg, lineNo_); }

    static std::string trim(const std::string& s) {
        std::size_t b = s.find_first_not_of(" \t");
        if (b == std::string::npos) return std::string();
        std::size_t e = s.find_last_not_of(" \t");
        return s.substr(b, e - b + 1);
    }

    static bool isKey(const std::string& k) {
        if (k.empty()) return false;
        for (char c : k)
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != ' ')
                return false;
        return true;
    }

    static std::vector<std::string> split(const std::string& s) {
        std::vector<std::string> out;
        std::istringstream is(s);
        std::string w;
        while (is >> w) out.push_back(w);
        return out;
    }

    Costs zero() const { return Costs(p_.events_.size(), 0); }

    void header(const std::string& key, const std::string& value) {
        if (key == "events") {
            if (!p_.events_.empty()) fail("more than one \"events:\" line (multi-part files are not supported)");
            p_.events_ = split(value);
            if (p_.events_.empty()) fail("empty \"events:\" line");
            p_.selfTotal_ = zero();
        } else if (key == "positions") {
            if (!p_.events_.empty()) fail("\"positions:\" after \"events:\"");
            p_.positions_ = split(value);
            if (p_.positions_.empty()) fail("empty \"positions:\" line");
            for (const auto& s : p_.positions_)
                if (s != "instr" && s != "line" && s != "bb" && s != "addr")
                    fail("unknown subposition '" + s + "' in \"positions:\"");
        } else if (key == "totals" || key == "summary") {
            if (p_.events_.empty()) fail("\"" + key + ":\" before \"events:\"");
            Costs c = zero();
            auto words = split(value);
            if (words.size() > c.size()) fail("more costs than events in \"" + key + ":\"");
            for (std::size_t i = 0; i < words.size(); ++i) c[i] = number(words[i], "cost");
            if (key == "totals" || p_.totals_.empty()) p_.totals_ = c;
        }
        auto& slot = p_.header_[key];
        slot = slot.empty() ? value : slot + "\n" + value;
    }

    std::uint64_t number(const std::string& w, const char* what) const {
        if (w.empty()) fail(std::string("missing ") + what);
        errno = 0;
        char* end = nullptr;
        const bool hex = w.size() > 2 && w[0] == '0' && (w[1] == 'x' || w[1] == 'X');
        unsigned long long v = std::strtoull(w.c_str(), &end, hex ? 16 : 10);
        if (errno != 0 || *end != '\0' || !std::isxdigit(static_cast<unsigned char>(w[hex ? 2 : 0])))
            fail(std::string("invalid ") + what + " '" + w + "'");
        return v;
    }

    // Parses the subpositions starting at words[0]; relative ones are based
    // on last_.
    std::vector<std::uint64_t> subpositions(const std::vector<std::string>& words) const {
        const std::size_t n = p_.positions_.size();
        if (words.size() < n) fail("cost line has fewer than " + std::to_string(n) + " subpositions");
        std::vector<std::uint64_t> pos(n);
        for (std::size_t i = 0; i < n; ++i) {
            const std::string& w = words[i];
            const std::uint64_t base = i < last_.size() ? last_[i] : 0;
            if (w == "*") {
                pos[i] = base;
            } else if (w[0] == '+' || w[0] == '-') {
                std::uint64_t d = number(w.substr(1), "relative subposition");
                pos[i] = w[0] == '+' ? base + d : base - d;
            } else {
                pos[i] = number(w, "subposition");
            }
        }
        return pos;
    }

    Costs costs(const std::vector<std::string>& words) const {
        const std::size_t n = p_.positions_.size();
        Costs c = zero();
        if (words.size() - n > c.size()) fail("more costs than events on a cost line");
        for (std::size_t i = n; i < words.size(); ++i) c[i - n] = number(words[i], "cost");
        return c;
    }

    static void add(Costs& to, const Costs& c) {
        for (std::size_t i = 0; i < c.size(); ++i) to[i] += c[i];
    }

    void costLine(const std::string& line) {
        const auto words = split(line);
        if (skipJumpSource_) {  // the position line after jump=/jcnd=
            subpositions(words);
            skipJumpSource_ = false;
            return;
        }
        if (!fn_) fail("cost line before any fn=");
        const auto pos = subpositions(words);
        const Costs c = costs(words);
        if (pendingCall_) {
            pendingCall_ = false;
            CallEdge& e = p_.calls_[{fn_->key, callee_}];
            if (e.inclusive.empty()) {
                e.caller = fn_->key;
                e.callee = callee_;
                e.inclusive = zero();
            }
            e.count += callCount_;
            add(e.inclusive, c);
            return;
        }
        last_ = pos;
        add(fn_->self, c);
        add(p_.selfTotal_, c);
        for (std::size_t i = 0; i < p_.positions_.size(); ++i) {
            if (p_.positions_[i] == "line") {
                Costs& l = fn_->lines[{posFile_, pos[i]}];
                if (l.empty()) l = zero();
                add(l, c);
            } else if (p_.positions_[i] == "instr" || p_.positions_[i] == "addr") {
                Costs& a = fn_->instrs[pos[i]];
                if (a.empty()) a = zero();
                add(a, c);
            }
        }
    }

    // Resolves name compression in `value` against `table`.
    std::string name(const std::string& value, std::unordered_map<std::uint64_t, std::string>& table) const {
        if (value.size() >= 2 && value[0] == '(' && std::isdigit(static_cast<unsigned char>(value[1]))) {
            const std::size_t close = value.find(')');
            if (close == std::string::npos) fail("unterminated compressed name '" + value + "'");
            const std::uint64_t id = number(value.substr(1, close - 1), "name id");
            std::string rest = value.substr(close + 1);
            if (rest.empty()) {
                auto it = table.find(id);
                if (it == table.end()) fail("undefined compressed name (" + std::to_string(id) + ")");
                return it->second;
            }
            if (rest[0] == ' ') rest.erase(0, 1);
            table[id] = rest;
            return rest;
        }
        return value;
    }

    void spec(const std::string& key, const std::string& value) {
        if (pendingCall_ && key != "calls") fail("'" + key + "=' between calls= and its cost line");
        if (key == "ob") {
            object_ = name(value, objects_);
        } else if (key == "fl") {
            fnFile_ = posFile_ = name(value, files_);
        } else if (key == "fi" || key == "fe") {
            posFile_ = name(value, files_);
        } else if (key == "fn") {
            FunctionKey k{object_, fnFile_, name(value, fns_)};
            FunctionCosts& f = p_.functions_[k];
            if (f.self.empty()) {
                f.key = k;
                f.self = zero();
            }
            fn_ = &f;
            posFile_ = fnFile_;
        } else if (key == "cob") {
            cob_ = name(value, objects_);
            haveCob_ = true;
        } else if (key == "cfi" || key == "cfl") {
            cfi_ = name(value, files_);
            haveCfi_ = true;
        } else if (key == "cfn") {
            cfn_ = name(value, fns_);
            haveCfn_ = true;
        } else if (key == "calls") {
            if (!fn_) fail("calls= before any fn=");
            if (!haveCfn_) fail("calls= without a preceding cfn=");
            const auto words = split(value);
            if (words.empty()) fail("calls= without a count");
            callCount_ = number(words[0], "call count");
            std::vector<std::string> target(words.begin() + 1, words.end());
            if (!target.empty()) subpositions(target);  // validated, not needed
            callee_ = FunctionKey{haveCob_ ? cob_ : object_, haveCfi_ ? cfi_ : posFile_, cfn_};
            haveCob_ = haveCfi_ = haveCfn_ = false;
            pendingCall_ = true;
        } else if (key == "jump" || key == "jcnd") {
            skipJumpSource_ = true;
        } else if (key == "jfi") {
            name(value, files_);
        } else if (key == "jfn") {
            name(value, fns_);
        } else if (key == "rec" || key == "frfn") {
            // Context separation markers: not needed for self/call costs.
            if (key == "frfn") name(value, fns_);
        } else {
            fail("unknown specification '" + key + "='");
        }
    }
};

Profile Profile::parse(std::istream& in, const std::string& source) {
    Profile p;
    Parser(p, source).run(in);
    return p;
}

Profile Profile::parseFile(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw ParseError(path, 0, std::string("cannot open: ") + std::strerror(errno));
    return parse(in, path);
}

std::size_t Profile::eventIndex(const std::string& name) const {
    for (std::size_t i = 0; i < events_.size(); ++i)
        if (events_[i] == name) return i;
    throw std::out_of_range("event '" + name + "' is not in the profile");
}

std::uint64_t lineCost(const FunctionCosts& f, const std::string& file, std::uint64_t line,
                       std::size_t event) {
    const auto it = f.lines.find({file, line});
    return it == f.lines.end() ? 0 : it->second.at(event);
}

std::string stripRecursionSuffix(const std::string& name) {
    const std::size_t q = name.rfind('\'');
    if (q == std::string::npos || q == 0 || q + 1 == name.size()) return name;
    for (std::size_t i = q + 1; i < name.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(name[i]))) return name;
    return name.substr(0, q);
}

std::vector<const FunctionCosts*> Profile::functionsNamed(const std::string& name,
                                                          bool anyRecursionDepth) const {
    std::vector<const FunctionCosts*> out;
    for (const auto& f : functions_)
        if (f.first.name == name || (anyRecursionDepth && stripRecursionSuffix(f.first.name) == name))
            out.push_back(&f.second);
    return out;
}

const Costs& Profile::totals() const {
    return totals_.empty() ? selfTotal_ : totals_;
}

std::uint64_t Profile::objectCost(const std::string& object, const std::string& event) const {
    const std::size_t e = eventIndex(event);
    std::uint64_t sum = 0;
    for (const auto& f : functions_)
        if (f.first.object == object) sum += f.second.self[e];
    return sum;
}

} // namespace callgrind
} // namespace vgjit
