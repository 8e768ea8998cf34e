using System.IO;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>RecordIO (issue 44): the same case in JUnit and go test.</summary>
[TestFixture]
public class RecordIOTests : LiveHandleFixture {
  // The magic 0xced7230a as it lies in a file, twice: a payload the writer must split.
  static readonly byte[] MagicPayload = { 0x0a, 0x23, 0xd7, 0xce, 1, 2, 3, 4, 0x0a, 0x23, 0xd7, 0xce };

  // conformance: recordio.round_trip_index_and_header
  [Test]
  public void RoundTripIndexAndHeader() {
    var dir = Directory.CreateDirectory(Path.Combine(Path.GetTempPath(), "weft-rec-" + System.Guid.NewGuid())).FullName;
    try {
      string rec = Path.Combine(dir, "a.rec"), idx = Path.Combine(dir, "a.idx");
      var records = new[] { new byte[] { 1, 2, 3, 4, 5 }, MagicPayload, new byte[0] };
      using (var w = RecordWriter.Create(rec, idx)) {
        w.WriteIdx(10, records[0]);
        Assert.AreEqual(16UL, w.Tell());  // 8 bytes of framing, 5 padded to 8
        w.WriteIdx(11, records[1]);
        w.WriteIdx(12, records[2]);
      }
      using (var r = RecordReader.Open(rec, idx)) {
        foreach (var want in records) Assert.AreEqual(want, r.Read());
        Assert.IsNull(r.Read());
        Assert.AreEqual(new long[] { 10, 11, 12 }, r.Keys());
        Assert.AreEqual(MagicPayload, r.ReadIdx(11));
        Assert.AreEqual(records[0], r.ReadIdx(10));
        r.Reset();
        Assert.AreEqual(0UL, r.Tell());
        var e = Assert.Throws<WeftException>(() => r.ReadIdx(99));
        Assert.AreEqual(ErrorCode.NotFound, e.Code, e.Message);
      }
      var packed = RecordIO.Pack(new RecordHeader { Labels = new[] { 1.5f, -2f }, Id = 7, Id2 = 9 }, new byte[] { 42 });
      Assert.AreEqual(24 + 8 + 1, packed.Length);
      byte[] payload;
      var h = RecordIO.Unpack(packed, out payload);
      Assert.AreEqual(new[] { 1.5f, -2f }, h.Labels);
      Assert.AreEqual(7UL, h.Id);
      Assert.AreEqual(9UL, h.Id2);
      Assert.AreEqual(new byte[] { 42 }, payload);
      var scalar = RecordIO.Unpack(RecordIO.Pack(new RecordHeader { Label = 3.5f, Id = 1 }, new byte[0]), out payload);
      Assert.AreEqual(3.5f, scalar.Label);
      Assert.AreEqual(0, scalar.Labels.Length);

      var bad = Path.Combine(dir, "bad.rec");
      File.WriteAllBytes(bad, new byte[] { 1, 2, 3, 4, 5, 6, 7, 8 });
      using (var r = RecordReader.Open(bad)) {
        var e = Assert.Throws<WeftException>(() => r.Read());
        Assert.AreEqual(ErrorCode.InvalidArgument, e.Code);
        StringAssert.Contains("offset 0", e.Message);
      }
      var shortRec = Assert.Throws<WeftException>(() => RecordIO.Unpack(new byte[] { 1, 2 }, out payload));
      Assert.AreEqual(ErrorCode.InvalidArgument, shortRec.Code);
    } finally {
      Directory.Delete(dir, true);
    }
  }
}

}
