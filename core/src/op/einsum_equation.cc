// EinsumEquation::Parse and EinsumLayout::Bind (weft/einsum.h): the
// subscripts grammar and its binding to the operands' shapes.
#include <algorithm>
#include <array>

#include "weft/einsum.h"
#include "weft/status.h"

namespace weft {
namespace op {

namespace {

// A letter's index in the per-character tables.
size_t Code(char c) { return static_cast<unsigned char>(c); }

bool IsLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// A character as a message shows it: 'x', or its code when unprintable.
std::string CharText(char c) {
  const unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  return "byte " + std::to_string(u);
}

std::string TermText(const EinsumTerm& t) {
  if (t.ellipsis < 0) return t.letters;
  return t.letters.substr(0, t.ellipsis) + "..." + t.letters.substr(t.ellipsis);
}

// Merges the extents of operand i (shape s, labels l->inputs[i]) into
// l->extents; `first` keeps where each label first had an extent > 1.
void MergeExtents(const std::string& text, const std::string& who, size_t i, const Shape& s,
                  EinsumLayout* l, std::vector<std::pair<size_t, int>>* first) {
  const std::vector<int>& labels = l->inputs[i];
  for (int a = 0; a < s.ndim(); ++a) {
    const int lab = labels[a];
    const int64_t x = s[a];
    if (x == 0) continue;
    for (int b = 0; b < a; ++b)
      if (labels[b] == lab && s[b] != 0 && s[b] != x)
        Fail(StatusCode::kShape, who, ": operand ", i, " of shape ", s.ToString(), " repeats ",
             l->LabelName(lab), " (a diagonal) on axes ", b, " and ", a, " of different extents ",
             s[b], " and ", x);
    int64_t& ext = l->extents[lab];
    if (x == 1) {
      if (ext == 0) ext = 1;
    } else if (ext <= 1) {
      ext = x;
      (*first)[lab] = {i, a};
    } else if (ext != x) {
      Fail(StatusCode::kShape, who, ": subscripts '", text, "': ", l->LabelName(lab),
           " has extent ", ext, " in operand ", (*first)[lab].first, " (axis ",
           (*first)[lab].second, ") but ", x, " in operand ", i, " (axis ", a, ", shape ",
           s.ToString(), ")");
    }
  }
}

// Appends the labels of term t's axes: its letters' ids, and where its
// "..." stands the last `ell` of the `e_max` "..." labels.
void AppendLabels(const EinsumTerm& t, int ell, int e_max, const std::array<int, 128>& id,
                  std::vector<int>* labels) {
  const int n = static_cast<int>(t.letters.size());
  for (int k = 0; k <= n; ++k) {
    if (k == t.ellipsis)
      for (int e = e_max - ell; e < e_max; ++e) labels->push_back(e);
    if (k < n) labels->push_back(id[Code(t.letters[k])]);
  }
}

// The implicit output of `inputs`: "..." when a term has one, then the
// letters that appear exactly once, sorted by ASCII code.
EinsumTerm ImplicitOutput(const std::vector<EinsumTerm>& inputs) {
  std::array<int, 128> count{};
  EinsumTerm out;
  for (const EinsumTerm& t : inputs) {
    for (char c : t.letters) ++count[Code(c)];
    if (t.ellipsis >= 0) out.ellipsis = 0;
  }
  for (size_t c = 0; c < count.size(); ++c)
    if (count[c] == 1) out.letters += static_cast<char>(c);
  return out;
}

}  // namespace

EinsumEquation EinsumEquation::Parse(const std::string& s, const std::string& who) {
  auto bad = [&](size_t pos, const std::string& why) {
    Fail(StatusCode::kInvalidArgument, who, ": subscripts '", s, "': ", why, " at position ", pos,
         " (expected letters a-z, A-Z, ',', '->' and '...')");
  };
  EinsumEquation eq;
  eq.text = s;
  EinsumTerm term;
  bool in_output = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ' ') continue;
    if (IsLetter(c)) {
      term.letters += c;
    } else if (c == '.') {
      if (s.compare(i, 3, "...") != 0) bad(i, "a '.' that is not part of '...'");
      if (term.ellipsis >= 0) bad(i, "a second '...' in one term");
      term.ellipsis = static_cast<int>(term.letters.size());
      i += 2;
    } else if (c == ',') {
      if (in_output) bad(i, "a ',' in the output term");
      eq.inputs.push_back(term);
      term = EinsumTerm();
    } else if (c == '-') {
      if (i + 1 >= s.size() || s[i + 1] != '>') bad(i, "a '-' not followed by '>'");
      if (in_output) bad(i, "a second '->'");
      eq.inputs.push_back(term);
      term = EinsumTerm();
      in_output = true;
      ++i;
    } else if (c == '>') {
      bad(i, "a '>' without '-'");
    } else {
      bad(i, "character " + CharText(c) + " is not a subscript");
    }
  }
  if (in_output) {
    eq.explicit_output = true;
    eq.output = term;
  } else {
    eq.inputs.push_back(term);
    eq.output = ImplicitOutput(eq.inputs);
  }
  if (eq.explicit_output) {
    const std::string& out = eq.output.letters;
    for (size_t i = 0; i < out.size(); ++i) {
      if (out.find(out[i], i + 1) != std::string::npos)
        Fail(StatusCode::kInvalidArgument, who, ": subscripts '", s, "': the output term '",
             TermText(eq.output), "' repeats letter '", out[i], "'");
      bool found = false;
      for (const EinsumTerm& t : eq.inputs)
        found = found || t.letters.find(out[i]) != std::string::npos;
      if (!found)
        Fail(StatusCode::kInvalidArgument, who, ": subscripts '", s, "': output letter '", out[i],
             "' appears in no operand's term");
    }
  }
  return eq;
}

std::string EinsumEquation::ExplicitText() const {
  std::string s;
  for (size_t i = 0; i < inputs.size(); ++i) s += (i ? "," : "") + TermText(inputs[i]);
  return s + "->" + TermText(output);
}

Shape EinsumLayout::OutputShape() const {
  std::vector<int64_t> dims;
  for (int l : output) dims.push_back(extents[l]);
  return Shape(dims);
}

std::string EinsumLayout::LabelName(int label) const {
  if (names[label] != 0) return std::string("letter '") + names[label] + "'";
  return "'...' axis " + std::to_string(label);
}

EinsumLayout EinsumLayout::Bind(const EinsumEquation& eq, const std::vector<Shape>& shapes,
                                const std::string& who) {
  const size_t nops = eq.inputs.size();
  if (shapes.size() != nops)
    Fail(StatusCode::kInvalidArgument, who, ": subscripts '", eq.text, "' name ", nops,
         " operand(s), given ", shapes.size(), " (num_args)");
  // How many axes "..." stands for in each operand; the widest sets the
  // broadcast axes (labels 0 .. E-1), which narrower ones align right to.
  std::vector<int> ell(nops, 0);
  int e_max = 0;
  for (size_t i = 0; i < nops; ++i) {
    const EinsumTerm& t = eq.inputs[i];
    const int rank = shapes[i].ndim(), named = static_cast<int>(t.letters.size());
    if (t.ellipsis < 0 && rank != named)
      Fail(StatusCode::kShape, who, ": operand ", i, " has shape ", shapes[i].ToString(),
           " of rank ", rank, " but its term '", TermText(t), "' names ", named, " axes");
    if (t.ellipsis >= 0 && rank < named)
      Fail(StatusCode::kShape, who, ": operand ", i, " has shape ", shapes[i].ToString(),
           " of rank ", rank, " but its term '", TermText(t), "' names ", named,
           " axes besides '...'");
    ell[i] = t.ellipsis < 0 ? 0 : rank - named;
    e_max = std::max(e_max, ell[i]);
  }
  EinsumLayout l;
  l.names.assign(e_max, 0);
  std::array<int, 128> id;
  id.fill(-1);
  for (const EinsumTerm& t : eq.inputs)
    for (char c : t.letters)
      if (id[Code(c)] < 0) {
        id[Code(c)] = static_cast<int>(l.names.size());
        l.names.push_back(c);
      }
  l.extents.assign(l.names.size(), 0);
  // Where each label first had an extent > 1: (operand, axis).
  std::vector<std::pair<size_t, int>> first(l.names.size());
  for (size_t i = 0; i < nops; ++i) {
    AppendLabels(eq.inputs[i], ell[i], e_max, id, &l.inputs.emplace_back());
    MergeExtents(eq.text, who, i, shapes[i], &l, &first);
  }
  AppendLabels(eq.output, e_max, e_max, id, &l.output);
  return l;
}

}  // namespace op
}  // namespace weft
