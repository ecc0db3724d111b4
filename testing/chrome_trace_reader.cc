#include "testing/chrome_trace_reader.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace hipmem::testing {
namespace {

struct Json {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  double number = 0;
  bool integral = false;
  std::string text;  // kString; for kNumber, its spelling
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;

  const Json* Get(absl::string_view key) const {
    for (const auto& [k, v] : members) {
      if (k == key) return &v;
    }
    return nullptr;
  }
};

// RFC 8259, strictly: one value, whitespace around it, nothing else.
class Parser {
 public:
  explicit Parser(absl::string_view in) : in_(in) {}

  absl::StatusOr<Json> ParseDocument() {
    Json value;
    if (!Value(value)) return Error();
    SkipSpace();
    if (pos_ != in_.size()) return Fail("text after the JSON value"), Error();
    return value;
  }

 private:
  absl::Status Error() const { return absl::InvalidArgumentError(absl::StrCat("JSON at byte ", pos_, ": ", why_)); }
  bool Fail(const char* why) {
    if (why_.empty()) why_ = why;
    return false;
  }
  void SkipSpace() {
    while (pos_ < in_.size() && (in_[pos_] == ' ' || in_[pos_] == '\n' || in_[pos_] == '\r' || in_[pos_] == '\t')) {
      ++pos_;
    }
  }
  bool Literal(absl::string_view word) {
    if (in_.substr(pos_, word.size()) != word) return Fail("unknown literal");
    pos_ += word.size();
    return true;
  }
  bool Value(Json& out) {
    if (++depth_ > 64) return Fail("nested too deeply");
    SkipSpace();
    if (pos_ >= in_.size()) return Fail("unexpected end");
    bool ok = false;
    switch (in_[pos_]) {
      case '{': ok = Object(out); break;
      case '[': ok = Array(out); break;
      case '"': out.kind = Json::Kind::kString; ok = String(out.text); break;
      case 't': out.kind = Json::Kind::kBool; out.boolean = true; ok = Literal("true"); break;
      case 'f': out.kind = Json::Kind::kBool; ok = Literal("false"); break;
      case 'n': out.kind = Json::Kind::kNull; ok = Literal("null"); break;
      default: ok = Number(out);
    }
    --depth_;
    return ok;
  }
  bool Object(Json& out) {
    out.kind = Json::Kind::kObject;
    ++pos_;
    SkipSpace();
    if (pos_ < in_.size() && in_[pos_] == '}') return ++pos_, true;
    while (true) {
      SkipSpace();
      std::string key;
      if (pos_ >= in_.size() || in_[pos_] != '"' || !String(key)) return Fail("expected a member name");
      SkipSpace();
      if (pos_ >= in_.size() || in_[pos_] != ':') return Fail("expected ':'");
      ++pos_;
      Json value;
      if (!Value(value)) return false;
      out.members.emplace_back(std::move(key), std::move(value));
      SkipSpace();
      if (pos_ < in_.size() && in_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < in_.size() && in_[pos_] == '}') return ++pos_, true;
      return Fail("expected ',' or '}'");
    }
  }
  bool Array(Json& out) {
    out.kind = Json::Kind::kArray;
    ++pos_;
    SkipSpace();
    if (pos_ < in_.size() && in_[pos_] == ']') return ++pos_, true;
    while (true) {
      Json value;
      if (!Value(value)) return false;
      out.items.push_back(std::move(value));
      SkipSpace();
      if (pos_ < in_.size() && in_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < in_.size() && in_[pos_] == ']') return ++pos_, true;
      return Fail("expected ',' or ']'");
    }
  }
  static void AppendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xc0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xe0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else {
      out.push_back(static_cast<char>(0xf0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    }
  }
  bool Hex4(uint32_t& out) {
    if (pos_ + 4 > in_.size()) return Fail("short \\u escape");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = in_[pos_++];
      out <<= 4;
      if (c >= '0' && c <= '9') out |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') out |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') out |= static_cast<uint32_t>(c - 'A' + 10);
      else return Fail("bad \\u escape");
    }
    return true;
  }
  bool String(std::string& out) {
    ++pos_;  // the opening quote
    while (pos_ < in_.size()) {
      const char c = in_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in a string");
      if (c != '\\') {
        out.push_back(c);
        continue;
      }
      if (pos_ >= in_.size()) break;
      switch (in_[pos_++]) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(cp)) return false;
          if (cp >= 0xd800 && cp < 0xdc00) {
            uint32_t low = 0;
            if (in_.substr(pos_, 2) != "\\u") return Fail("lone high surrogate");
            pos_ += 2;
            if (!Hex4(low) || low < 0xdc00 || low > 0xdfff) return Fail("bad low surrogate");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          } else if (cp >= 0xdc00 && cp < 0xe000) {
            return Fail("lone low surrogate");
          }
          AppendUtf8(out, cp);
          break;
        }
        default: return Fail("bad escape");
      }
    }
    return Fail("unterminated string");
  }
  bool Number(Json& out) {
    const size_t start = pos_;
    auto digit = [&] { return pos_ < in_.size() && in_[pos_] >= '0' && in_[pos_] <= '9'; };
    if (pos_ < in_.size() && in_[pos_] == '-') ++pos_;
    if (!digit()) return Fail("expected a value");
    if (in_[pos_] == '0') {
      ++pos_;
    } else {
      while (digit()) ++pos_;
    }
    out.integral = true;
    if (pos_ < in_.size() && in_[pos_] == '.') {
      ++pos_;
      if (!digit()) return Fail("expected a digit after '.'");
      while (digit()) ++pos_;
      out.integral = false;
    }
    if (pos_ < in_.size() && (in_[pos_] == 'e' || in_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < in_.size() && (in_[pos_] == '+' || in_[pos_] == '-')) ++pos_;
      if (!digit()) return Fail("expected an exponent");
      while (digit()) ++pos_;
      out.integral = false;
    }
    out.kind = Json::Kind::kNumber;
    out.text = std::string(in_.substr(start, pos_ - start));
    out.number = std::stod(out.text);
    return true;
  }

  absl::string_view in_;
  size_t pos_ = 0;
  int depth_ = 0;
  std::string why_;
};

std::string Render(const Json& v) {
  switch (v.kind) {
    case Json::Kind::kNull: return "null";
    case Json::Kind::kBool: return v.boolean ? "true" : "false";
    case Json::Kind::kNumber: return v.text;
    case Json::Kind::kString: return v.text;
    case Json::Kind::kArray: {
      std::string out = "[";
      for (const Json& item : v.items) absl::StrAppend(&out, out.size() > 1 ? "," : "", Render(item));
      return out + "]";
    }
    case Json::Kind::kObject: {
      std::string out = "{";
      for (const auto& [k, item] : v.members) absl::StrAppend(&out, out.size() > 1 ? "," : "", k, ":", Render(item));
      return out + "}";
    }
  }
  return "";
}

constexpr double kSlackUs = 0.0005;  // timestamps are printed to the nanosecond

bool Contains(const TraceEvent& outer, double ts) { return outer.ts - kSlackUs <= ts && ts <= outer.ts + outer.dur + kSlackUs; }

absl::Status Bad(size_t index, const TraceEvent& e, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("event ", index, " (\"", e.name, "\", ph ", e.ph, "): ", why));
}

}  // namespace

const TraceEvent* Parent(const std::vector<TraceEvent>& events, const TraceEvent& inner) {
  const TraceEvent* best = nullptr;
  for (const TraceEvent& e : events) {
    if (&e == &inner || e.ph != "X" || e.pid != inner.pid || e.tid != inner.tid) continue;
    if (!Contains(e, inner.ts) || !Contains(e, inner.ts + inner.dur)) continue;
    if (e.dur < inner.dur || (e.dur == inner.dur && e.ts == inner.ts && &e > &inner)) continue;
    if (best == nullptr || e.dur < best->dur) best = &e;
  }
  return best;
}

absl::StatusOr<std::vector<TraceEvent>> ReadChromeTrace(absl::string_view json,
                                                        const std::set<std::string>& allowed_categories) {
  Parser parser(json);
  absl::StatusOr<Json> doc = parser.ParseDocument();
  if (!doc.ok()) return doc.status();
  if (doc->kind != Json::Kind::kArray) return absl::InvalidArgumentError("the trace is not a JSON array");
  std::vector<TraceEvent> events;
  for (size_t i = 0; i < doc->items.size(); ++i) {
    const Json& item = doc->items[i];
    TraceEvent e;
    if (item.kind != Json::Kind::kObject) return absl::InvalidArgumentError(absl::StrCat("event ", i, ": not an object"));
    const Json* name = item.Get("name");
    const Json* ph = item.Get("ph");
    const Json* pid = item.Get("pid");
    const Json* tid = item.Get("tid");
    if (ph == nullptr || ph->kind != Json::Kind::kString) return Bad(i, e, "no string \"ph\"");
    e.ph = ph->text;
    if (name == nullptr || name->kind != Json::Kind::kString) return Bad(i, e, "no string \"name\"");
    e.name = name->text;
    if (pid == nullptr || !pid->integral || tid == nullptr || !tid->integral) return Bad(i, e, "no integer pid/tid");
    e.pid = static_cast<int64_t>(pid->number);
    e.tid = static_cast<int64_t>(tid->number);
    if (const Json* cat = item.Get("cat"); cat != nullptr) {
      if (cat->kind != Json::Kind::kString) return Bad(i, e, "\"cat\" is not a string");
      e.cat = cat->text;
      if (!allowed_categories.contains(e.cat)) return Bad(i, e, absl::StrCat("category \"", e.cat, "\" not allowed"));
    }
    if (e.ph != "M") {
      const Json* ts = item.Get("ts");
      if (ts == nullptr || ts->kind != Json::Kind::kNumber) return Bad(i, e, "no numeric \"ts\"");
      e.ts = ts->number;
    }
    if (e.ph == "X") {
      const Json* dur = item.Get("dur");
      if (dur == nullptr || dur->kind != Json::Kind::kNumber || dur->number < 0) return Bad(i, e, "no \"dur\" >= 0");
      e.dur = dur->number;
    } else if (e.ph == "s" || e.ph == "t" || e.ph == "f") {
      const Json* id = item.Get("id");
      if (id == nullptr || (id->kind != Json::Kind::kString && id->kind != Json::Kind::kNumber)) {
        return Bad(i, e, "a flow event without \"id\"");
      }
      e.id = id->text;
      if (const Json* bp = item.Get("bp"); bp != nullptr) e.bp = bp->text;
    } else if (e.ph != "i" && e.ph != "I" && e.ph != "M") {
      return Bad(i, e, "a phase this reader does not know");
    }
    if (const Json* args = item.Get("args"); args != nullptr) {
      if (args->kind != Json::Kind::kObject) return Bad(i, e, "\"args\" is not an object");
      for (const auto& [k, v] : args->members) e.args[k] = Render(v);
    }
    events.push_back(std::move(e));
  }

  // Complete events nest per thread.
  std::map<std::pair<int64_t, int64_t>, std::vector<const TraceEvent*>> by_thread;
  for (const TraceEvent& e : events) {
    if (e.ph == "X") by_thread[{e.pid, e.tid}].push_back(&e);
  }
  for (auto& [thread, slices] : by_thread) {
    std::sort(slices.begin(), slices.end(), [](const TraceEvent* a, const TraceEvent* b) {
      return a->ts != b->ts ? a->ts < b->ts : a->dur > b->dur;
    });
    std::vector<const TraceEvent*> open;
    for (const TraceEvent* e : slices) {
      while (!open.empty() && open.back()->ts + open.back()->dur <= e->ts + kSlackUs) open.pop_back();
      if (!open.empty() && e->ts + e->dur > open.back()->ts + open.back()->dur + kSlackUs) {
        return absl::InvalidArgumentError(absl::StrCat("slices \"", open.back()->name, "\" and \"", e->name,
                                                       "\" overlap on thread ", thread.second, " without nesting"));
      }
      open.push_back(e);
    }
  }

  // Flows: per id, in time order, every step and end comes after a start; each point lies inside a slice of its
  // thread. A chain may stay open (the process ended first).
  std::map<std::string, std::vector<const TraceEvent*>> flows;
  for (size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    if (e.ph != "s" && e.ph != "t" && e.ph != "f") continue;
    bool inside = false;
    for (const TraceEvent* slice : by_thread[{e.pid, e.tid}]) inside = inside || Contains(*slice, e.ts);
    if (!inside) return Bad(i, e, "a flow point outside every slice of its thread");
    flows[e.id].push_back(&e);
  }
  for (auto& [id, points] : flows) {
    std::stable_sort(points.begin(), points.end(),
                     [](const TraceEvent* a, const TraceEvent* b) { return a->ts < b->ts; });
    bool open = false;
    for (const TraceEvent* p : points) {
      // A start while the id is open abandons the open chain (the format lets ids be reused).
      if (p->ph != "s" && !open) {
        return absl::InvalidArgumentError(absl::StrCat("flow ", id, ": a ", p->ph, " point before its start"));
      }
      open = p->ph != "f";
    }
  }
  return events;
}

}  // namespace hipmem::testing
