package ai.weft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** RecordIO (issue 44): the same case in NUnit and go test. */
@ExtendWith(LiveHandles.class)
class RecordIOTest {
  // The magic 0xced7230a as it lies in a file, twice: a payload the writer must split.
  static final byte[] MAGIC_PAYLOAD = {0x0a, 0x23, (byte) 0xd7, (byte) 0xce, 1, 2, 3, 4,
      0x0a, 0x23, (byte) 0xd7, (byte) 0xce};

  // conformance: recordio.round_trip_index_and_header
  @Test
  void roundTripIndexAndHeader() throws java.io.IOException {
    Path dir = Files.createTempDirectory("weft-rec");
    String rec = dir.resolve("a.rec").toString();
    String idx = dir.resolve("a.idx").toString();
    byte[][] records = {{1, 2, 3, 4, 5}, MAGIC_PAYLOAD, {}};
    try (RecordIO.Writer w = RecordIO.Writer.create(rec, idx)) {
      w.writeIdx(10, records[0]);
      assertEquals(16, w.tell()); // 8 bytes of framing, 5 padded to 8
      w.writeIdx(11, records[1]);
      w.writeIdx(12, records[2]);
    }
    try (RecordIO.Reader r = RecordIO.Reader.create(rec, idx)) {
      for (byte[] want : records) assertArrayEquals(want, r.read());
      assertNull(r.read());
      assertArrayEquals(new long[] {10, 11, 12}, r.keys());
      assertArrayEquals(MAGIC_PAYLOAD, r.readIdx(11));
      assertArrayEquals(records[0], r.readIdx(10));
      r.reset();
      assertEquals(0, r.tell());
      WeftException e = assertThrows(WeftException.class, () -> r.readIdx(99));
      assertEquals(ErrorCode.NOT_FOUND, e.code(), e.getMessage());
    }
    byte[] packed =
        RecordIO.pack(new RecordIO.Header(0, new float[] {1.5f, -2}, 7, 9), new byte[] {42});
    assertEquals(24 + 8 + 1, packed.length);
    RecordIO.Unpacked u = RecordIO.unpack(packed);
    assertEquals(2, u.header.flag());
    assertArrayEquals(new float[] {1.5f, -2}, u.header.labels);
    assertEquals(7, u.header.id);
    assertEquals(9, u.header.id2);
    assertArrayEquals(new byte[] {42}, u.payload);
    RecordIO.Unpacked scalar =
        RecordIO.unpack(RecordIO.pack(new RecordIO.Header(3.5f, null, 1, 0), new byte[0]));
    assertEquals(3.5f, scalar.header.label);
    assertEquals(0, scalar.header.flag());

    Path bad = dir.resolve("bad.rec");
    Files.write(bad, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
    try (RecordIO.Reader r = RecordIO.Reader.create(bad.toString(), null)) {
      WeftException e = assertThrows(WeftException.class, r::read);
      assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
      assertTrue(e.getMessage().contains("offset 0"), e.getMessage());
    }
    WeftException shortRec =
        assertThrows(WeftException.class, () -> RecordIO.unpack(new byte[] {1, 2}));
    assertEquals(ErrorCode.INVALID_ARGUMENT, shortRec.code());
  }
}
