// CSVIter (core/src/train/csv_iter.cc): MXNet's documented examples of
// round_batch on and off (iter_csv.cc), reshaped rows, labels, int dtypes,
// dmlc-core's parsing rules, and errors naming the file and row.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "util/test_util.h"
#include "weft/csv_iter.h"
#include "weft/runtime.h"

namespace weft {
namespace {

using test::ExpectError;

class CSVIterTest : public ::testing::Test {
 protected:
  // Writes `text` to a temporary file and returns its path (removed at the end).
  std::string File(const std::string& name, const std::string& text) {
    return files_.Write("csv_" + name, text);
  }
  CSVIterParams Params(const std::string& data, int batch_size) {
    CSVIterParams p;
    p.data_csv = data;
    p.data_shape = Shape({3});
    p.batch_size = batch_size;
    return p;
  }
  test::TempFiles files_;
};

// The next batch's data as doubles, and its pad; fails the test at the end.
std::vector<double> NextData(CSVIter* it, int* pad) {
  EXPECT_TRUE(it->Next());
  *pad = it->Value().pad;
  return test::Values(it->Value().data[0]);
}

const char kData[] = "1,2,3\n2,3,4\n3,4,5\n4,5,6\n";  // MXNet's data/data.csv

TEST_F(CSVIterTest, BatchSizeTwo) {
  CSVIter it(Params(File("d.csv", kData), 2), &Runtime::Global());
  int pad = -1;
  EXPECT_EQ(NextData(&it, &pad), (std::vector<double>{1, 2, 3, 2, 3, 4}));
  EXPECT_EQ(NextData(&it, &pad), (std::vector<double>{3, 4, 5, 4, 5, 6}));
  EXPECT_EQ(pad, 0);
  EXPECT_EQ(it.Value().index, (std::vector<int64_t>{2, 3}));
  EXPECT_FALSE(it.Next());
  it.Reset();
  EXPECT_EQ(NextData(&it, &pad), (std::vector<double>{1, 2, 3, 2, 3, 4}));
}

TEST_F(CSVIterTest, RoundBatchWrapsAndContinues) {
  CSVIter it(Params(File("d.csv", kData), 3), &Runtime::Global());
  int pad = -1;
  EXPECT_EQ(NextData(&it, &pad), (std::vector<double>{1, 2, 3, 2, 3, 4, 3, 4, 5}));
  EXPECT_EQ(pad, 0);
  EXPECT_EQ(NextData(&it, &pad), (std::vector<double>{4, 5, 6, 1, 2, 3, 2, 3, 4}));
  EXPECT_EQ(pad, 2);
  EXPECT_EQ(it.Value().index, (std::vector<int64_t>{3, 0, 1}));
  EXPECT_FALSE(it.Next());
  it.Reset();  // does not rewind: the second pass starts after the wrapped rows
  EXPECT_EQ(NextData(&it, &pad), (std::vector<double>{3, 4, 5, 4, 5, 6, 1, 2, 3}));
  EXPECT_EQ(pad, 1);
  EXPECT_FALSE(it.Next());
}

TEST_F(CSVIterTest, NoRoundBatchKeepsStaleRows) {
  CSVIterParams p = Params(File("d.csv", kData), 3);
  p.round_batch = false;
  CSVIter it(p, &Runtime::Global());
  int pad = -1;
  for (int pass = 0; pass < 2; ++pass) {
    EXPECT_EQ(NextData(&it, &pad), (std::vector<double>{1, 2, 3, 2, 3, 4, 3, 4, 5}));
    EXPECT_EQ(NextData(&it, &pad), (std::vector<double>{4, 5, 6, 2, 3, 4, 3, 4, 5}));
    EXPECT_EQ(pad, 2);
    EXPECT_FALSE(it.Next());
    it.Reset();
  }
}

TEST_F(CSVIterTest, ShapesLabelsAndDescs) {
  CSVIterParams p = Params(File("d.csv", "1,2,3,4,5,6\n7,8,9,10,11,12\n"), 2);
  p.data_shape = Shape({3, 2});
  CSVIter it(p, &Runtime::Global());
  ASSERT_TRUE(it.Next());
  EXPECT_EQ(it.Value().data[0].shape(), Shape({2, 3, 2}));
  EXPECT_EQ(test::Values(it.Value().label[0]), (std::vector<double>{0, 0}));  // no label_csv
  EXPECT_EQ(it.provide_data()[0].name, "data");
  EXPECT_EQ(it.provide_label()[0].name, "softmax_label");
  EXPECT_EQ(it.provide_label()[0].shape, Shape({2, 1}));
  p.label_csv = File("l.csv", "1,0\n0,1\n1,1\n");  // extra label rows are ignored
  p.label_shape = Shape({2});
  CSVIter labelled(p, &Runtime::Global());
  ASSERT_TRUE(labelled.Next());
  EXPECT_EQ(test::Values(labelled.Value().label[0]), (std::vector<double>{1, 0, 0, 1}));
}

TEST_F(CSVIterTest, ParsesAsDmlc) {
  // CRLF, blank lines, a BOM, spaces, text after a number, an empty field skipped.
  CSVIterParams p =
      Params(File("d.csv", "\xEF\xBB\xBF 1, 2.5 ,3\r\n\r\n\n4,,5x,6\n-1e2,0.25,7abc"), 3);
  CSVIter it(p, &Runtime::Global());
  int pad = -1;
  EXPECT_EQ(NextData(&it, &pad), (std::vector<double>{1, 2.5, 3, 4, 5, 6, -100, 0.25, 7}));
  EXPECT_EQ(it.num_data(), 3);
  p = Params(File("i.csv", "0x10,010,-3\n2147483648,4294967297,9\n"), 2);
  p.dtype = DType::kInt32;
  CSVIter i32(p, &Runtime::Global());
  EXPECT_EQ(NextData(&i32, &pad), (std::vector<double>{16, 8, -3, -2147483648.0, 1, 9}));
  EXPECT_EQ(i32.Value().data[0].dtype(), DType::kInt32);
  p.dtype = DType::kInt64;
  CSVIter i64(p, &Runtime::Global());
  EXPECT_EQ(NextData(&i64, &pad), (std::vector<double>{16, 8, -3, 2147483648.0, 4294967297.0, 9}));
}

TEST_F(CSVIterTest, Errors) {
  const std::string data = File("d.csv", kData);
  ExpectError([&] { CSVIter(Params(data, 0), &Runtime::Global()); }, StatusCode::kInvalidArgument,
              {"batch_size is 0"});
  CSVIterParams p = Params(File("bad.csv", "1,2,3\n4,5\n"), 1);
  ExpectError([&] { CSVIter(p, &Runtime::Global()); }, StatusCode::kInvalidArgument,
              {"bad.csv: row 2 has 2 values, data_shape (3,) needs 3"});
  p = Params(data, 2);
  p.label_csv = File("l.csv", "1\n2\n");
  ExpectError([&] { CSVIter(p, &Runtime::Global()); }, StatusCode::kInvalidArgument,
              {"l.csv has 2 rows, fewer than the 4 rows of"});
  p = Params(data, 2);
  p.dtype = DType::kFloat64;
  ExpectError([&] { CSVIter(p, &Runtime::Global()); }, StatusCode::kDType,
              {"dtype float64 is not supported"});
  p = Params("/nonexistent/d.csv", 2);
  ExpectError([&] { CSVIter(p, &Runtime::Global()); }, StatusCode::kIO, {"/nonexistent/d.csv"});
  ExpectError([&] { CSVIter(Params(File("e.csv", "\n\n"), 2), &Runtime::Global()); },
              StatusCode::kInvalidArgument, {"has no rows"});
  CSVIter small(Params(data, 9), &Runtime::Global());
  ExpectError([&] { small.Next(); }, StatusCode::kInvalidArgument,
              {"round_batch needs 5 rows from the start", "it has 4"});
}

}  // namespace
}  // namespace weft
