// _npi_einsum against a nested-loop reference written here (every
// assignment of every letter, operands' extent-1 axes read at index 0),
// its gradient against finite differences, its shape inference and errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "util/test_util.h"

namespace weft {
namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> parts(1);
  for (char c : s) {
    if (c == sep)
      parts.emplace_back();
    else
      parts.back() += c;
  }
  return parts;
}

// The reference: `spec` is explicit and letters only ("zij,jk->zik"; the
// test spells out what "..." and implicit mode stand for). Sets `*shape`.
std::vector<double> Reference(const std::string& spec, const std::vector<NDArray>& in,
                              Shape* shape) {
  const size_t arrow = spec.find("->");
  const std::vector<std::string> terms = Split(spec.substr(0, arrow), ',');
  const std::string out = spec.substr(arrow + 2);
  std::map<char, int64_t> ext;
  std::vector<std::vector<double>> vals;
  for (size_t i = 0; i < in.size(); ++i) {
    vals.push_back(test::Values(in[i]));
    for (size_t a = 0; a < terms[i].size(); ++a)
      ext[terms[i][a]] = std::max(ext[terms[i][a]], in[i].shape()[static_cast<int>(a)]);
  }
  std::vector<int64_t> dims;
  for (char c : out) dims.push_back(ext[c]);
  *shape = Shape(dims);
  std::vector<double> y(static_cast<size_t>(shape->Size()), 0.0);
  std::vector<char> letters;
  for (const auto& kv : ext) letters.push_back(kv.first);
  std::map<char, int64_t> idx;
  for (char c : letters) idx[c] = 0;
  while (true) {
    double p = 1;
    for (size_t i = 0; i < in.size(); ++i) {
      int64_t off = 0;
      for (size_t a = 0; a < terms[i].size(); ++a) {
        const int64_t n = in[i].shape()[static_cast<int>(a)];
        off = off * n + (n == 1 ? 0 : idx[terms[i][a]]);
      }
      p *= vals[i][static_cast<size_t>(off)];
    }
    int64_t o = 0;
    for (char c : out) o = o * ext[c] + idx[c];
    y[static_cast<size_t>(o)] += p;
    size_t k = letters.size();
    while (k > 0) {
      char c = letters[k - 1];
      if (++idx[c] < ext[c]) break;
      idx[c] = 0;
      --k;
    }
    if (k == 0) break;
  }
  return y;
}

StringMap Params(const std::string& subscripts, size_t n) {
  return {{"subscripts", subscripts}, {"num_args", std::to_string(n)}};
}

struct Case {
  std::string subscripts;  // as given to the op
  std::string spec;        // the reference's explicit spelling
  std::vector<Shape> shapes;
};

// Enough multiply-adds in some that the GEMM path runs (m*n*k >= 256 per
// batch element), and too few in others (the loop).
const std::vector<Case>& Cases() {
  static const std::vector<Case> cases = {
      {"ij,jk->ik", "ij,jk->ik", {{3, 4}, {4, 5}}},                          // matmul, small
      {"ij,jk->ik", "ij,jk->ik", {{20, 30}, {30, 24}}},                      // matmul, GEMM
      {"ij,kj->ki", "ij,kj->ki", {{16, 12}, {18, 12}}},                      // transposed operands
      {"bhqd,bhkd->bhqk", "bhqd,bhkd->bhqk", {{2, 3, 8, 8}, {2, 3, 6, 8}}},  // attention scores
      {"bhqk,bhkd->bhqd", "bhqk,bhkd->bhqd", {{2, 3, 8, 6}, {2, 3, 6, 8}}},
      {"bqhd,bkhd->bhqk", "bqhd,bkhd->bhqk", {{2, 8, 3, 8}, {2, 6, 3, 8}}},  // permuted
      {"ij->ji", "ij->ji", {{3, 5}}},                                        // transpose
      {"abc->cab", "abc->cab", {{2, 3, 4}}},
      {"ii->", "ii->", {{4, 4}}},    // trace
      {"ii", "ii->", {{4, 4}}},      // trace, implicit
      {"ii->i", "ii->i", {{4, 4}}},  // diagonal
      {"bii->bi", "bii->bi", {{2, 3, 3}}},
      {"ij->i", "ij->i", {{3, 5}}},  // sums
      {"ijk->j", "ijk->j", {{2, 3, 4}}},
      {"ij->", "ij->", {{3, 5}}},
      {"i,j->ij", "i,j->ij", {{3}, {4}}},          // outer product
      {"i,j->ij", "i,j->ij", {{16}, {20}}},        // outer product, GEMM (k = 1)
      {"i,i->", "i,i->", {{7}, {7}}},              // inner product
      {"ij,jk", "ij,jk->ik", {{3, 4}, {4, 5}}},    // implicit
      {"kj,ji", "kj,ji->ik", {{3, 4}, {4, 5}}},    // implicit: sorted letters
      {"aB,cd", "aB,cd->Bacd", {{2, 3}, {4, 2}}},  // implicit: ASCII order, upper case first
      {"...ij,...jk->...ik", "zij,zjk->zik", {{2, 3, 4}, {2, 4, 5}}},  // ellipsis
      {"...ij,jk->...ik", "zyij,jk->zyik", {{2, 3, 3, 4}, {4, 5}}},
      {"...ij,...jk->...ik", "zyij,yjk->zyik", {{2, 1, 3, 4}, {5, 4, 6}}},  // broadcast
      {"...i,...i", "zi,zi->z", {{3, 4}, {3, 4}}},                          // implicit "..."
      {"i...->...i", "izy->zyi", {{2, 3, 4}}},
      {"...ij->ij", "zij->ij", {{2, 3, 4}}},  // "..." summed (PyTorch's reading)
      {"ij,jk,kl->il", "ij,jk,kl->il", {{3, 4}, {4, 5}, {5, 2}}},  // three operands
      {"ij,jk,kl->il", "ij,jk,kl->il", {{12, 16}, {16, 20}, {20, 10}}},
      {"ab,bc,cd", "ab,bc,cd->ad", {{2, 3}, {3, 4}, {4, 2}}},
      {"bi,bj,bk->bijk", "bi,bj,bk->bijk", {{2, 3}, {2, 4}, {2, 2}}},
      {"i,i,i->", "i,i,i->", {{5}, {5}, {5}}},
      {"ij,jk->ik", "ij,jk->ik", {{2, 1}, {3, 4}}},              // an extent-1 letter broadcasts
      {"iij,jk->ik", "iij,jk->ik", {{3, 3, 4}, {4, 5}}},         // diagonal and product
      {"ij,jk->i", "ij,jk->i", {{3, 4}, {4, 5}}},                // k summed in one operand
      {"ijk,ikl->jl", "ijk,ikl->jl", {{3, 10, 8}, {3, 8, 12}}},  // batch summed
      {" ij , jk -> ik ", "ij,jk->ik", {{3, 4}, {4, 5}}},        // spaces
  };
  return cases;
}

TEST(Einsum, MatchesNestedLoops) {
  for (DType dt : {DType::kFloat32, DType::kFloat64}) {
    for (const Case& c : Cases()) {
      std::vector<NDArray> in;
      for (size_t i = 0; i < c.shapes.size(); ++i)
        in.push_back(test::RandomArray(c.shapes[i], dt, -1, 1, static_cast<unsigned>(i + 1)));
      Shape want_shape;
      const std::vector<double> want = Reference(c.spec, in, &want_shape);
      const std::string what = StrCat(DTypeName(dt), " '", c.subscripts, "'");
      std::vector<NDArray> y = test::Run("_npi_einsum", in, Params(c.subscripts, in.size()));
      ASSERT_EQ(y[0].shape(), want_shape) << what;
      const std::vector<double> got = test::Values(y[0]);
      double scale = 1;
      for (double v : want) scale = std::max(scale, std::fabs(v));
      const double tol = (dt == DType::kFloat32 ? 1e-5 : 1e-12) * scale;
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_NEAR(got[i], want[i], tol) << what << " at " << i;
    }
  }
}

TEST(Einsum, AddRequestAccumulates) {
  NDArray a = test::Array({1, 2}, {1, 2}), b = test::Array({2, 1}, {3, 4});
  for (const char* sub : {"ij,jk->ik", "ij,jk->ki"}) {
    std::vector<NDArray> out = {test::Array({1, 1}, {100})};
    InvokeOptions opts;
    opts.reqs = {OpReq::kAdd};
    Invoke(&Runtime::Global(), "_npi_einsum", {a, b}, Params(sub, 2), &out, opts);
    EXPECT_EQ(test::Values(out[0]), (std::vector<double>{111})) << sub;
  }
}

// The gradient of every operand (_backward_npi_einsum) against central
// differences, float64: products, diagonals, broadcasts, sums, three operands.
TEST(Einsum, GradientsMatchNumeric) {
  const std::vector<std::pair<std::string, std::vector<Shape>>> cases = {
      {"ij,jk->ik", {{3, 4}, {4, 2}}},
      {"bhqd,bhkd->bhqk", {{1, 2, 3, 4}, {1, 2, 5, 4}}},
      {"ij,jk->ki", {{3, 4}, {4, 2}}},
      {"ii->i", {{3, 3}}},
      {"ii", {{3, 3}}},
      {"iij,jk->ik", {{3, 3, 2}, {2, 4}}},
      {"ij,jk->ik", {{2, 1}, {3, 4}}},
      {"...ij,...jk->...ik", {{2, 1, 3, 2}, {4, 2, 3}}},
      {"ij,jk->i", {{3, 4}, {4, 2}}},
      {"ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 2}}},
      {"i,j->ij", {{3}, {4}}},
      {"ij->ji", {{3, 4}}},
      {"ijk,ikl->jl", {{2, 16, 16}, {2, 16, 16}}},  // the GEMM path
  };
  for (const auto& [sub, shapes] : cases) {
    std::vector<NDArray> in;
    for (size_t i = 0; i < shapes.size(); ++i)
      in.push_back(
          test::RandomArray(shapes[i], DType::kFloat64, -1, 1, static_cast<unsigned>(7 + i)));
    std::string where;
    EXPECT_LT(test::GradientError("_npi_einsum", in, Params(sub, in.size()), {}, 1e-6, &where),
              1e-6)
        << sub << ": " << where;
  }
}

TEST(Einsum, InfersTheOutputShape) {
  const OpRegistry& reg = Runtime::Global().ops();
  const OpDef& op = reg.Get("_npi_einsum");
  NodePtr n = MakeOpNode(reg, "_npi_einsum", "e", {{MakeVariable("a")}, {MakeVariable("b")}},
                         Params("...ij,jk->...ki", 2));
  std::vector<Shape> in = {Shape({2, 3, 4}), Shape({4, 5})}, out = {Shape()};
  EXPECT_TRUE(op.infer_shape(n->attrs, &in, &out));
  EXPECT_EQ(out[0], Shape({2, 5, 3}));
  // An unknown extent stays unknown in the output; an unknown rank waits.
  in = {Shape({0, 3, 4}), Shape({4, 5})};
  out = {Shape()};
  EXPECT_FALSE(op.infer_shape(n->attrs, &in, &out));
  EXPECT_EQ(out[0], Shape({0, 5, 3}));
  in = {Shape(), Shape({4, 5})};
  out = {Shape()};
  EXPECT_FALSE(op.infer_shape(n->attrs, &in, &out));
  EXPECT_FALSE(out[0].ndim_known());
  // A given output shape that disagrees is an error naming the node.
  in = {Shape({2, 3, 4}), Shape({4, 5})};
  out = {Shape({2, 3, 5})};
  test::ExpectError([&] { op.infer_shape(n->attrs, &in, &out); }, StatusCode::kShape,
                    {"_npi_einsum (node 'e')", "output 0", "(2,5,3)"});
}

TEST(Einsum, BadSubscriptsAreClearErrors) {
  const OpRegistry& reg = Runtime::Global().ops();
  const OpDef& op = reg.Get("_npi_einsum");
  auto infer = [&](const std::string& sub, std::vector<Shape> in) {
    std::vector<NodeEntry> args;
    for (size_t i = 0; i < in.size(); ++i) args.push_back({MakeVariable("x" + std::to_string(i))});
    NodePtr n = MakeOpNode(reg, "_npi_einsum", "att", args, Params(sub, in.size()));
    std::vector<Shape> out = {Shape()};
    op.infer_shape(n->attrs, &in, &out);
  };
  using SC = StatusCode;
  const Shape s34({3, 4}), s45({4, 5});
  test::ExpectError(
      [&] {
        infer("ij,jk->ik", {s34, s45, s45});
      },
      SC::kInvalidArgument, {"(node 'att')", "'ij,jk->ik' name 2 operand(s), given 3"});
  test::ExpectError(
      [&] {
        infer("ij,jk->ik", {Shape({2, 3, 4}), s45});
      },
      SC::kShape,
      {"(node 'att')", "operand 0 has shape (2,3,4) of rank 3", "its term 'ij' names 2 axes"});
  test::ExpectError(
      [&] {
        infer("ij...,jk->ik", {Shape({3}), s45});
      },
      SC::kShape, {"operand 0", "rank 1", "'ij...' names 2 axes besides '...'"});
  test::ExpectError(
      [&] {
        infer("ij,jk->ik", {s34, Shape({5, 6})});
      },
      SC::kShape,
      {"(node 'att')", "letter 'j' has extent 4 in operand 0 (axis 1)",
       "but 5 in operand 1 (axis 0"});
  test::ExpectError([&] { infer("ii->i", {s34}); }, SC::kShape,
                    {"repeats letter 'i' (a diagonal) on axes 0 and 1", "extents 3 and 4"});
  test::ExpectError(
      [&] {
        infer("ij,j1->i", {s34, s45});
      },
      SC::kInvalidArgument, {"(node 'att')", "character '1' is not a subscript at position 4"});
  test::ExpectError([&] { infer("i.j->i", {s34}); }, SC::kInvalidArgument,
                    {"a '.' that is not part of '...' at position 1"});
  test::ExpectError([&] { infer("i...j...->i", {s34}); }, SC::kInvalidArgument,
                    {"a second '...' in one term"});
  test::ExpectError([&] { infer("ij->i->j", {s34}); }, SC::kInvalidArgument, {"a second '->'"});
  test::ExpectError([&] { infer("ij-i", {s34}); }, SC::kInvalidArgument,
                    {"a '-' not followed by '>'"});
  test::ExpectError([&] { infer("ij->ii", {s34}); }, SC::kInvalidArgument,
                    {"the output term 'ii' repeats letter 'i'"});
  test::ExpectError([&] { infer("ij->iz", {s34}); }, SC::kInvalidArgument,
                    {"output letter 'z' appears in no operand's term"});
  test::ExpectError([&] { infer("ij->i,j", {s34}); }, SC::kInvalidArgument,
                    {"a ',' in the output term"});
  // The same through a call (Invoke's inference).
  test::ExpectOpError("_npi_einsum", {test::Array({2}, {1, 2})}, Params("ij", 1), SC::kShape,
                      {"_npi_einsum", "rank 1", "names 2 axes"});
}

}  // namespace
}  // namespace weft
