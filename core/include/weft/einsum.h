// Einstein summation (`_npi_einsum`, MXNet 1.9's name; ONNX's Einsum): the
// subscripts string parsed, then bound to the operands' shapes. Shape
// inference (core/src/op/einsum.cc) and the CPU kernels
// (kernels/cpu/einsum.cc) read the subscripts through these two functions,
// so they cannot disagree. Plain values; thread-safe.
//
// Grammar (NumPy's): terms of letters (a-z, A-Z), each with at most one
// "...", separated by ','; optionally "->" and the output term; spaces are
// ignored. A letter repeated within one term takes that operand's diagonal.
// Without "->" (implicit mode) the output is the "..." axes followed by the
// letters that appear exactly once, sorted (ASCII: upper case first).
// "..." stands for the operand's axes that the letters do not name; those
// of all operands broadcast against each other aligned to the right, as
// NumPy's arrays do. An output without "..." sums those axes (PyTorch's
// reading; NumPy refuses it). An axis of extent 1 broadcasts against a
// larger extent of the same letter.
#ifndef WEFT_EINSUM_H_
#define WEFT_EINSUM_H_

#include <cstdint>
#include <string>
#include <vector>

#include "weft/shape.h"

namespace weft {
namespace op {

// One term: its letters in order and where its "..." stands.
struct EinsumTerm {
  std::string letters;  // the axis letters, without the "..."
  int ellipsis = -1;    // the index in `letters` before which "..." stands, or -1
};

struct EinsumEquation {
  std::string text;  // the subscripts as given
  std::vector<EinsumTerm> inputs;
  bool explicit_output = false;  // "->" given
  // The output term as given, or in implicit mode the implied one: "..."
  // when an operand's term has one, then the letters that appear exactly
  // once, sorted by ASCII code.
  EinsumTerm output;

  // The equation without spaces and with its output term written out
  // ("ij,jk" -> "ij,jk->ik"): read the same by any einsum whatever its
  // implicit mode's sort order.
  std::string ExplicitText() const;

  // Parses `subscripts`. Throws Error(kInvalidArgument) whose message starts
  // with `who` (e.g. "operator _npi_einsum (node 'e')") and names the
  // offending character and its position, a misplaced '.', a second "->"
  // or a letter repeated in (or missing from the operands of) the output.
  static EinsumEquation Parse(const std::string& subscripts, const std::string& who);
};

// The equation bound to the operands' shapes: every axis of every operand
// and of the output carries a label; a label is a letter or one axis of
// "...". Extents are the largest over the label's axes (1 broadcasts), 0
// where no operand knows it.
struct EinsumLayout {
  std::vector<char> names;               // per label: its letter, 0 for a "..." axis
  std::vector<int64_t> extents;          // per label
  std::vector<std::vector<int>> inputs;  // per operand, per axis: its label
  std::vector<int> output;               // per output axis: its label (no repeats)

  // The output's shape (unknown extents 0).
  Shape OutputShape() const;
  // How a label reads in a message: "letter 'j'" or "'...' axis 1".
  std::string LabelName(int label) const;

  // Binds `eq` to operands of `shapes` (ranks known, extents may be 0).
  // Throws Error whose message starts with `who`: kInvalidArgument when the
  // operand count is not the equation's; kShape when an operand's rank does
  // not match its term, when two axes of one letter have different extents
  // (other than 1), or when a repeated letter's axes differ.
  static EinsumLayout Bind(const EinsumEquation& eq, const std::vector<Shape>& shapes,
                           const std::string& who);
};

}  // namespace op
}  // namespace weft

#endif  // WEFT_EINSUM_H_
