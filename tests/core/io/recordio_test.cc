// RecordIO (core/src/io/recordio_*.cc): Weft writes the records of
// tests/data/recordio/ byte for byte as MXNet's recordio.py over dmlc-core
// does (scripts/gen_recordio_refs.py), reads those files back in order and by
// key, and packs/unpacks IRHeaders as recordio.pack/unpack.
#include <gtest/gtest.h>

#include <cstdio>

#include "core/io/recordio_refs.h"
#include "weft/recordio.h"

namespace weft {
namespace {

using namespace recordio_refs;  // NOLINT

std::string Framed(const std::string& payload) {
  std::string out;
  AppendRecordIO(payload.data(), payload.size(), &out);
  return out;
}

std::string U32(uint32_t v) {
  std::string s;
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}

TEST(RecordIO, FramesAsDmlcCore) {
  // Unsplit, padded: magic, lrecord (cflag 0, length 5), 5 bytes, 3 zeros.
  EXPECT_EQ(Framed("hello"), kMagic + U32(5) + "hello" + std::string(3, '\0'));
  EXPECT_EQ(Framed(""), kMagic + U32(0));
  // The magic at offset 0: an empty first part (cflag 1), the rest (cflag 3).
  EXPECT_EQ(Framed(kMagic + "ab"),
            kMagic + U32(1u << 29) + kMagic + U32((3u << 29) | 2) + "ab" + std::string(2, '\0'));
  // At offset 4 with a middle part (cflag 2) for a second aligned magic.
  EXPECT_EQ(Framed("abcd" + kMagic + "efgh" + kMagic), kMagic + U32((1u << 29) | 4) + "abcd" +
                                                           kMagic + U32((2u << 29) | 4) + "efgh" +
                                                           kMagic + U32(3u << 29));
  // An unaligned magic is payload like any other bytes.
  EXPECT_EQ(Framed("a" + kMagic), kMagic + U32(5) + "a" + kMagic + std::string(3, '\0'));
}

TEST(RecordIO, WritesMagicRefBytes) {
  const std::string ref = ReadFile(RefPath("magic.rec"));
  std::string framed;
  for (const auto& r : MagicRecords()) AppendRecordIO(r.data(), r.size(), &framed);
  EXPECT_EQ(framed, ref);
  const std::string path = TempPath("magic.rec");
  RecordIOWriter w(path);
  EXPECT_FALSE(w.has_index());
  for (const auto& r : MagicRecords()) w.Write(r.data(), r.size());
  EXPECT_EQ(w.Tell(), ref.size());
  w.Close();
  EXPECT_EQ(ReadFile(path), ref);
  std::remove(path.c_str());
}

TEST(RecordIO, WritesIndexedRefBytes) {
  const std::string rec = TempPath("indexed.rec"), idx = TempPath("indexed.idx");
  {
    RecordIOWriter w(rec, idx);
    EXPECT_TRUE(w.has_index());
    for (const auto& r : IndexedRecords()) w.WriteIdx(r.key, r.payload.data(), r.payload.size());
    w.Close();
  }
  EXPECT_EQ(ReadFile(rec), ReadFile(RefPath("indexed.rec")));
  EXPECT_EQ(ReadFile(idx), ReadFile(RefPath("indexed.idx")));
  std::remove(rec.c_str());
  std::remove(idx.c_str());
}

TEST(RecordIO, WritesPackedRefBytes) {
  const std::string rec = TempPath("packed.rec"), idx = TempPath("packed.idx");
  {
    RecordIOWriter w(rec, idx);
    for (const auto& r : PackedRecords()) {
      const std::string s = PackIRHeader(r.header, r.payload.data(), r.payload.size());
      w.WriteIdx(r.key, s.data(), s.size());
    }
  }  // the destructor closes
  EXPECT_EQ(ReadFile(rec), ReadFile(RefPath("packed.rec")));
  EXPECT_EQ(ReadFile(idx), ReadFile(RefPath("packed.idx")));
  std::remove(rec.c_str());
  std::remove(idx.c_str());
}

TEST(RecordIO, ReadsMagicRefInOrder) {
  const auto want = MagicRecords();
  RecordIOReader r(RefPath("magic.rec"));
  EXPECT_FALSE(r.has_index());
  std::string got;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_TRUE(r.Next(&got)) << "record " << i;
    EXPECT_EQ(got, want[i]) << "record " << i;
  }
  EXPECT_FALSE(r.Next(&got));
  EXPECT_FALSE(r.Next(&got));
  EXPECT_EQ(r.Tell(), r.size());
  r.Reset();
  ASSERT_TRUE(r.Next(&got));
  EXPECT_EQ(got, want[0]);
  // The same from memory.
  auto m = RecordIOReader::FromBytes(ReadFile(RefPath("magic.rec")), "magic bytes");
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_TRUE(m->Next(&got));
    EXPECT_EQ(got, want[i]);
  }
  EXPECT_FALSE(m->Next(&got));
}

TEST(RecordIO, ReadsIndexedRefByKey) {
  const auto want = IndexedRecords();
  RecordIOReader r(RefPath("indexed.rec"), RefPath("indexed.idx"));
  ASSERT_TRUE(r.has_index());
  std::vector<int64_t> keys;
  for (const auto& w : want) keys.push_back(w.key);
  EXPECT_EQ(r.index().keys(), keys);
  std::string got;
  for (size_t i = want.size(); i-- > 0;) {  // backwards: every read seeks
    r.ReadKey(want[i].key, &got);
    EXPECT_EQ(got, want[i].payload) << "key " << want[i].key;
  }
  EXPECT_EQ(r.index().Offset(12), 24u);
  r.ReadKey(3, &got);  // then sequential reads continue after it
  ASSERT_TRUE(r.Next(&got));
  EXPECT_EQ(got, want[4].payload);
  r.Seek(r.index().Offset(-2));
  ASSERT_TRUE(r.Next(&got));
  EXPECT_EQ(got, "negative key");
  EXPECT_FALSE(r.Next(&got));
}

TEST(RecordIO, UnpacksPackedRef) {
  const auto want = PackedRecords();
  RecordIOReader r(RefPath("packed.rec"), RefPath("packed.idx"));
  std::string got;
  for (const auto& w : want) {
    r.ReadKey(w.key, &got);
    size_t at = 0;
    const IRHeader h = UnpackIRHeader(got.data(), got.size(), &at);
    // pack's rules: flag = number of labels, label 0 when they follow.
    EXPECT_EQ(h.flag, w.header.labels.size()) << "key " << w.key;
    EXPECT_EQ(h.label, w.header.labels.empty() ? w.header.label : 0.0f);
    EXPECT_EQ(h.labels, w.header.labels);
    EXPECT_EQ(h.id, w.header.id);
    EXPECT_EQ(h.id2, w.header.id2);
    EXPECT_EQ(at, kIRHeaderBytes + 4 * w.header.labels.size());
    EXPECT_EQ(got.substr(at), w.payload);
  }
  IRHeader h = UnpackIRHeader(PackIRHeader(want[1].header, "p", 1).data(), 37, nullptr);
  EXPECT_EQ(h.labels, (std::vector<float>{1.0f, 2.5f, -4.0f}));
}

TEST(RecordIO, RoundTripsGeneratedRecords) {
  // Every length 0..40 with the magic at every offset that fits, plus a large record.
  std::vector<std::string> recs;
  for (int len = 0; len <= 40; ++len) {
    recs.push_back(Filler(len, len));
    for (int off = 0; off + 4 <= len; ++off) {
      std::string s = Filler(len, off);
      s.replace(off, 4, kMagic);
      recs.push_back(s);
    }
  }
  std::string big = Filler(1 << 20, 9);
  for (size_t i = 0; i + 4 <= big.size(); i += 4096) big.replace(i, 4, kMagic);
  recs.push_back(big);
  const std::string path = TempPath("roundtrip.rec"), idx = TempPath("roundtrip.idx");
  {
    RecordIOWriter w(path, idx);
    for (size_t i = 0; i < recs.size(); ++i)
      w.WriteIdx(int64_t(i) * 3, recs[i].data(), recs[i].size());
    w.Close();
    w.Close();  // a second Close is a no-op
  }
  RecordIOReader r(path, idx);
  std::string got;
  for (size_t i = 0; i < recs.size(); ++i) {
    ASSERT_TRUE(r.Next(&got));
    ASSERT_EQ(got, recs[i]) << "record " << i;
  }
  EXPECT_FALSE(r.Next(&got));
  r.ReadKey(3 * int64_t(recs.size() - 1), &got);
  EXPECT_EQ(got, big);
  std::remove(path.c_str());
  std::remove(idx.c_str());
}

TEST(RecordIO, IndexParsesAsMXNet) {
  // Surrounding whitespace, CRLF, extra fields, signs and a repeated key.
  RecordIOIndex idx = RecordIOIndex::Parse(" 1\t0\r\n+2\t16\textra\n1\t32\n-7\t 48 ", "t.idx");
  EXPECT_EQ(idx.keys(), (std::vector<int64_t>{1, 2, 1, -7}));
  EXPECT_EQ(idx.Offset(1), 32u);  // the last line of a key wins, as MXNet's dict
  EXPECT_EQ(idx.Offset(2), 16u);
  EXPECT_EQ(idx.Offset(-7), 48u);
  EXPECT_TRUE(RecordIOIndex::Parse("", "empty").keys().empty());
}

}  // namespace
}  // namespace weft
