// RecordIO errors: truncated files at every byte, a wrong magic, bad cflag
// sequences, oversized records, malformed indexes and headers each give a
// clear weft::Error naming the byte offset, line or field; nothing crashes.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "core/io/recordio_refs.h"
#include "weft/recordio.h"

namespace weft {
namespace {

using namespace recordio_refs;  // NOLINT
using test::ExpectError;

std::string U32(uint32_t v) {
  std::string s;
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}

// Reads every record of `bytes`; the message of the first error, or "".
std::string ReadAll(const std::string& bytes, std::vector<std::string>* got) {
  auto r = RecordIOReader::FromBytes(bytes, "t.rec");
  std::string rec;
  try {
    while (r->Next(&rec)) got->push_back(rec);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::kInvalidArgument) << e.what();
    return e.what();
  }
  return "";
}

TEST(RecordIOErrors, TruncatedAtEveryByte) {
  const std::string ref = ReadFile(RefPath("magic.rec"));
  const auto want = MagicRecords();
  std::vector<size_t> ends;  // where each record ends
  std::string framed;
  for (const auto& r : want) {
    AppendRecordIO(r.data(), r.size(), &framed);
    ends.push_back(framed.size());
  }
  for (size_t cut = 0; cut < ref.size(); ++cut) {
    std::vector<std::string> got;
    const std::string err = ReadAll(ref.substr(0, cut), &got);
    size_t complete = 0;
    while (complete < ends.size() && ends[complete] <= cut) ++complete;
    ASSERT_EQ(got.size(), complete) << "cut at " << cut;
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], want[i]);
    const bool at_boundary = cut == 0 || ends[complete - 1] == cut;
    if (at_boundary) {
      EXPECT_EQ(err, "") << "cut at " << cut;
    } else {
      EXPECT_NE(err.find("t.rec: truncated record at byte offset "), std::string::npos)
          << "cut at " << cut << ": " << err;
    }
  }
}

TEST(RecordIOErrors, NamesTheOffset) {
  std::vector<std::string> got;
  // A part needs 16 bytes (5 + padding), 4 remain.
  EXPECT_EQ(ReadAll(kMagic + U32(13) + "abcd", &got),
            "t.rec: truncated record at byte offset 0: the part holds 13 bytes (16 padded), 4 "
            "remain");
  const std::string one = kMagic + U32(1) + std::string("x\0\0\0", 4);
  EXPECT_EQ(ReadAll(one + one + "\x01\x02\x03\x04" + U32(0), &got),
            "t.rec: wrong magic at byte offset 24: expected 0xced7230a, found 0x04030201 (not a "
            "RecordIO record start)");
  EXPECT_EQ(got.size(), 2u);
  EXPECT_EQ(ReadAll(one + kMagic + U32(2u << 29), &got),
            "t.rec: bad cflag sequence at byte offset 12: a record starts with cflag 2 (expected "
            "0, or 1 for a split record)");
  EXPECT_EQ(ReadAll(kMagic + U32(1u << 29) + kMagic + U32(1u << 29), &got),
            "t.rec: bad cflag sequence at byte offset 8: the split record that starts at byte "
            "offset 0 continues with cflag 1 (expected 2 or 3)");
  EXPECT_NE(ReadAll(kMagic + U32(1u << 29) + kMagic + U32(0), &got).find("continues with cflag 0"),
            std::string::npos);
  EXPECT_EQ(ReadAll(kMagic + U32(5u << 29), &got),
            "t.rec: bad cflag 5 in the part at byte offset 0 (expected 0 to 3)");
  EXPECT_EQ(ReadAll(kMagic + U32((1u << 29) | 4) + "abcd", &got),
            "t.rec: truncated record at byte offset 0: the file ends at byte 12 inside a split "
            "record (expected a part with cflag 2 or 3)");
}

TEST(RecordIOErrors, TellStaysAtTheBadRecord) {
  const std::string one = kMagic + U32(1) + std::string("x\0\0\0", 4);
  auto r = RecordIOReader::FromBytes(one + kMagic + U32(7u << 29), "t.rec");
  std::string rec;
  ASSERT_TRUE(r->Next(&rec));
  ExpectError([&] { r->Next(&rec); }, StatusCode::kInvalidArgument, {"bad cflag 7", "offset 12"});
  EXPECT_EQ(r->Tell(), 12u);
  ExpectError([&] { r->Seek(21); }, StatusCode::kInvalidArgument,
              {"cannot seek to byte offset 21: the file has 20 bytes"});
  r->Seek(20);
  EXPECT_FALSE(r->Next(&rec));
}

TEST(RecordIOErrors, RecordOverTheLimit) {
  const char small[4] = {};
  std::string out;
  ExpectError([&] { AppendRecordIO(small, size_t{1} << 29, &out); }, StatusCode::kInvalidArgument,
              {"a record of 536870912 bytes is over the format's limit of 536870911"});
  EXPECT_TRUE(out.empty());
  ExpectError([&] { AppendRecordIO(nullptr, 3, &out); }, StatusCode::kInvalidArgument,
              {"NULL but its size is 3"});
}

TEST(RecordIOErrors, Files) {
  ExpectError([] { RecordIOReader r("/nonexistent/x.rec"); }, StatusCode::kIO,
              {"/nonexistent/x.rec"});
  ExpectError([] { RecordIOReader r(test::TestDataDir()); }, StatusCode::kIO, {"is a directory"});
  ExpectError([] { RecordIOReader r(RefPath("magic.rec"), "/nonexistent/x.idx"); }, StatusCode::kIO,
              {"/nonexistent/x.idx"});
  ExpectError([] { RecordIOWriter w("/nonexistent/dir/x.rec"); }, StatusCode::kIO,
              {"cannot open '/nonexistent/dir/x.rec' for writing"});
  const std::string path = TempPath("closed.rec");
  RecordIOWriter w(path);
  ExpectError([&] { w.WriteIdx(1, "a", 1); }, StatusCode::kInvalidArgument,
              {"key 1", "has no index file"});
  w.Close();
  ExpectError([&] { w.Write("a", 1); }, StatusCode::kInvalidArgument, {"is closed"});
  std::remove(path.c_str());
}

TEST(RecordIOErrors, ReadByKey) {
  RecordIOReader plain(RefPath("indexed.rec"));
  std::string rec;
  ExpectError([&] { plain.ReadKey(5, &rec); }, StatusCode::kInvalidArgument,
              {"indexed.rec: the reader has no index"});
  RecordIOReader r(RefPath("indexed.rec"), RefPath("indexed.idx"));
  ExpectError([&] { r.ReadKey(4, &rec); }, StatusCode::kNotFound, {"no record has key 4"});
  auto index = std::make_unique<RecordIOIndex>(RecordIOIndex::Parse("1\t4\n2\t120\n3\t999\n", "m"));
  auto m = RecordIOReader::FromBytes(ReadFile(RefPath("indexed.rec")), "mem.rec", std::move(index));
  ExpectError([&] { m->ReadKey(1, &rec); }, StatusCode::kInvalidArgument,
              {"key 1 (offset 4): mem.rec: wrong magic at byte offset 4"});
  ExpectError([&] { m->ReadKey(2, &rec); }, StatusCode::kInvalidArgument,
              {"key 2 has offset 120, at or past the end of the file (120 bytes)"});
  ExpectError([&] { m->ReadKey(3, &rec); }, StatusCode::kInvalidArgument, {"offset 999"});
}

TEST(RecordIOErrors, MalformedIndex) {
  const auto bad = [](const std::string& text, const std::string& part) {
    ExpectError([&] { RecordIOIndex::Parse(text, "t.idx"); }, StatusCode::kInvalidArgument, {part});
  };
  bad("1 0\n", "t.idx: line 1: expected 'key<TAB>offset', found '1 0'");
  bad("1\t0\n\n2\t8\n", "t.idx: line 2: expected 'key<TAB>offset', found ''");
  bad("1\t0\nimg_1\t8\n", "t.idx: line 2: the key 'img_1' is not an integer");
  bad("99999999999999999999\t0\n", "is not an integer in int64 range");
  bad("1\t-8\n", "t.idx: line 1: the offset '-8' is not a non-negative integer");
  bad("1\t8x\n", "the offset '8x'");
  bad("1\t\n", "line 1: expected 'key<TAB>offset', found '1'");  // strip() takes the tab
  bad("1\t \t5\n", "the offset ' ' is not");
}

TEST(RecordIOErrors, MalformedHeader) {
  const std::string h = PackIRHeader(IRHeader{}, "", 0);
  ASSERT_EQ(h.size(), kIRHeaderBytes);
  ExpectError([&] { UnpackIRHeader(h.data(), 23, nullptr); }, StatusCode::kInvalidArgument,
              {"IRHeader: the record has 23 bytes, fewer than the header's 24"});
  std::string flagged = U32(3) + h.substr(4) + std::string(8, '\0');
  ExpectError([&] { UnpackIRHeader(flagged.data(), flagged.size(), nullptr); },
              StatusCode::kInvalidArgument,
              {"flag 3 announces 3 float32 labels (12 bytes) but 8 bytes follow the header"});
  std::string huge = U32(0xffffffffu) + h.substr(4);
  ExpectError([&] { UnpackIRHeader(huge.data(), huge.size(), nullptr); },
              StatusCode::kInvalidArgument, {"flag 4294967295", "but 0 bytes follow"});
  ExpectError([&] { UnpackIRHeader(nullptr, 30, nullptr); }, StatusCode::kInvalidArgument,
              {"NULL"});
  ExpectError([&] { PackIRHeader(IRHeader{}, nullptr, 2); }, StatusCode::kInvalidArgument,
              {"payload is NULL but its size is 2"});
}

}  // namespace
}  // namespace weft
