// LibSVMIter (core/src/train/libsvm_iter.cc): MXNet's documented example
// (iter_libsvm.cc) as dense batches, with and without a label file, the
// line syntax, and errors naming the file and line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "util/test_util.h"
#include "weft/libsvm_iter.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::ExpectError;

class LibSVMIterTest : public ::testing::Test {
 protected:
  // Writes `text` to a temporary file and returns its path (removed at the end).
  std::string File(const std::string& name, const std::string& text) {
    return files_.Write("libsvm_" + name, text);
  }
  LibSVMIterParams Params(const std::string& data, int batch_size) {
    LibSVMIterParams p;
    p.data_libsvm = data;
    p.data_shape = Shape({3});
    p.batch_size = batch_size;
    return p;
  }
  test::TempFiles files_;
};

// MXNet's data.t and label.t.
const char kData[] = "1.0 0:0.5 2:1.2\n-2.0\n-3.0 0:0.6 1:2.4 2:1.2\n4 2:-1.2\n";
const char kLabel[] = "1.0\n-2.0 0:0.125\n-3.0 2:1.2\n4 1:1.0 2:-1.2\n";

std::vector<double> Rounded(const NDArray& a) {
  std::vector<double> v = test::Values(a);
  for (double& x : v) x = static_cast<double>(static_cast<float>(x));
  return v;
}

TEST_F(LibSVMIterTest, MXNetExample) {
  LibSVMIter it(Params(File("data.t", kData), 3), &Runtime::Global());
  EXPECT_EQ(it.provide_data()[0].shape, Shape({3, 3}));
  EXPECT_EQ(it.provide_label()[0].shape, Shape({3}));
  ASSERT_TRUE(it.Next());
  EXPECT_EQ(test::Values(it.Value().data[0]),
            Rounded(test::Array(Shape({9}), {0.5, 0, 1.2, 0, 0, 0, 0.6, 2.4, 1.2})));
  EXPECT_EQ(test::Values(it.Value().label[0]), (std::vector<double>{1, -2, -3}));
  ASSERT_TRUE(it.Next());
  EXPECT_EQ(test::Values(it.Value().data[0]),
            Rounded(test::Array(Shape({9}), {0, 0, -1.2, 0.5, 0, 1.2, 0, 0, 0})));
  EXPECT_EQ(test::Values(it.Value().label[0]), (std::vector<double>{4, 1, -2}));
  EXPECT_EQ(it.Value().pad, 2);
  EXPECT_FALSE(it.Next());
  it.Reset();  // continues after the two wrapped rows
  ASSERT_TRUE(it.Next());
  EXPECT_EQ(test::Values(it.Value().label[0]), (std::vector<double>{-3, 4, 1}));
  EXPECT_EQ(it.Value().index, (std::vector<int64_t>{2, 3, 0}));
}

TEST_F(LibSVMIterTest, LabelFile) {
  LibSVMIterParams p = Params(File("data.t", kData), 3);
  p.label_libsvm = File("label.t", kLabel);
  p.label_shape = Shape({3});
  LibSVMIter it(p, &Runtime::Global());
  EXPECT_EQ(it.provide_label()[0].shape, Shape({3, 3}));
  ASSERT_TRUE(it.Next());
  EXPECT_EQ(test::Values(it.Value().label[0]),
            Rounded(test::Array(Shape({9}), {0, 0, 0, 0.125, 0, 0, 0, 0, 1.2})));
}

TEST_F(LibSVMIterTest, LineSyntax) {
  // Comments, blank and CRLF lines, a weight, a qid, tabs, spaces around ':'.
  const std::string text = "# header\n\n1:0.5 qid:3 2:7\r\n\t0\t1 : 2 # tail\n  \n-1 0:1 0:4\n";
  LibSVMIter it(Params(File("s.t", text), 3), &Runtime::Global());
  EXPECT_EQ(it.num_data(), 3);
  ASSERT_TRUE(it.Next());
  EXPECT_EQ(test::Values(it.Value().data[0]), (std::vector<double>{0, 0, 7, 0, 2, 0, 4, 0, 0}));
  EXPECT_EQ(test::Values(it.Value().label[0]), (std::vector<double>{1, 0, -1}));
}

TEST_F(LibSVMIterTest, Errors) {
  const auto bad = [&](const std::string& text, const std::string& part) {
    ExpectError([&] { LibSVMIter(Params(File("bad.t", text), 1), &Runtime::Global()); },
                StatusCode::kInvalidArgument, {part});
  };
  bad("1 0:1\n1 3:1\n", "bad.t: line 2: feature index 3 is out of range for 3 features");
  bad("1 0:1\n\n1 2\n", "line 3: feature 2 has no value");
  bad("x 0:1\n", "line 1: the label 'x 0:1' is not a number");
  bad("1 a:1\n", "line 1: 'a:1' is not a feature index");
  bad("1 -1:1\n", "is not a feature index");
  bad("# only a comment\n", "has no rows");
  const std::string data = File("data.t", kData);
  LibSVMIterParams p = Params(data, 2);
  p.label_shape = Shape({2});
  ExpectError([&] { LibSVMIter(p, &Runtime::Global()); }, StatusCode::kInvalidArgument,
              {"label_shape (2,) must be (1,) without label_libsvm"});
  p.label_libsvm = File("label.t", "1 0:1\n");
  ExpectError([&] { LibSVMIter(p, &Runtime::Global()); }, StatusCode::kInvalidArgument,
              {"has 1 rows, fewer than the 4 rows"});
  p = Params(data, 2);
  p.data_shape = Shape({3, 1});
  ExpectError([&] { LibSVMIter(p, &Runtime::Global()); }, StatusCode::kInvalidArgument,
              {"data_shape (3,1) must have one dimension"});
  ExpectError([&] { LibSVMIter(Params("/nonexistent/d.t", 2), &Runtime::Global()); },
              StatusCode::kIO, {"/nonexistent/d.t"});
  LibSVMIter small(Params(data, 9), &Runtime::Global());
  ExpectError([&] { small.Next(); }, StatusCode::kInvalidArgument, {"round_batch needs 5 rows"});
}

}  // namespace
}  // namespace weft
