package ai.weft;

import java.nio.ByteBuffer;

/**
 * MXNet's RecordIO files ({@code .rec} with an optional {@code .idx}): {@link Writer} and {@link
 * Reader} are MXNet's {@code MXRecordIO}/{@code MXIndexedRecordIO}, {@link #pack}/{@link #unpack}
 * its {@code recordio.pack}/{@code unpack} of the image-record header. Files are byte-identical
 * to what MXNet writes; malformed ones fail with {@link WeftException} naming the byte offset.
 */
public final class RecordIO {
  private RecordIO() {}

  /** A record file being written (owned handle). */
  public static final class Writer extends NativeHandle {
    Writer(long h) {
      super(h);
    }

    @Override
    void free(long h) {
      weft_native.weft_recordio_writer_free(h);
    }

    /** Creates (or truncates) {@code path}, and {@code idxPath} for the index unless null. */
    public static Writer create(String path, String idxPath) {
      Native.ensureLoaded();
      return new Writer(weft_native.weft_recordio_writer_create(path, idxPath));
    }

    /** Appends one record (MXRecordIO.write). */
    public void write(byte[] record) {
      weft_native.weft_recordio_writer_write(handle(), NDArray.direct(record), record.length);
    }

    /** Appends one record and its index line (MXIndexedRecordIO.write_idx). */
    public void writeIdx(long key, byte[] record) {
      weft_native.weft_recordio_writer_write_idx(
          handle(), key, NDArray.direct(record), record.length);
    }

    /** Bytes written so far: the offset of the next record. */
    public long tell() {
      return weft_native.weft_recordio_writer_tell(handle());
    }
  }

  /** A record file being read (owned handle). */
  public static final class Reader extends NativeHandle {
    Reader(long h) {
      super(h);
    }

    @Override
    void free(long h) {
      weft_native.weft_recordio_reader_free(h);
    }

    /** Opens {@code path} with the index {@code idxPath} unless null (then by-key reads fail). */
    public static Reader create(String path, String idxPath) {
      Native.ensureLoaded();
      return new Reader(weft_native.weft_recordio_reader_create(path, idxPath));
    }

    /** The next record, or null at the end of the file (MXRecordIO.read). */
    public byte[] read() {
      ByteBuffer[] view = new ByteBuffer[1];
      int[] has = new int[1];
      weft_native.weft_recordio_reader_read(handle(), view, has);
      return has[0] == 0 ? null : copy(view[0]);
    }

    /** The record of {@code key} (MXIndexedRecordIO.read_idx). */
    public byte[] readIdx(long key) {
      ByteBuffer[] view = new ByteBuffer[1];
      weft_native.weft_recordio_reader_read_idx(handle(), key, view);
      return copy(view[0]);
    }

    /** The index's keys in file order. */
    public long[] keys() {
      long n = weft_native.weft_recordio_reader_num_keys(handle());
      long[] keys = new long[(int) n];
      long[] num = new long[1];
      weft_native.weft_recordio_reader_keys(handle(), keys, keys.length, num);
      return keys;
    }

    /** The next read starts at byte {@code offset}. */
    public void seek(long offset) {
      weft_native.weft_recordio_reader_seek(handle(), offset);
    }

    /** The byte offset of the next read. */
    public long tell() {
      return weft_native.weft_recordio_reader_tell(handle());
    }

    /** Rewinds to the first record. */
    public void reset() {
      weft_native.weft_recordio_reader_reset(handle());
    }

    private static byte[] copy(ByteBuffer b) {
      byte[] r = new byte[b == null ? 0 : b.remaining()];
      if (b != null) b.get(r);
      return r;
    }
  }

  /** MXNet's IRHeader: a scalar label (flag 0) or {@code labels} (flag = their count), ids. */
  public static final class Header {
    public final float label;
    public final float[] labels;
    public final long id;
    public final long id2;

    public Header(float label, float[] labels, long id, long id2) {
      this.label = label;
      this.labels = labels == null ? new float[0] : labels.clone();
      this.id = id;
      this.id2 = id2;
    }

    /** The header's flag: the number of labels following it. */
    public int flag() {
      return labels.length;
    }
  }

  /** An unpacked record: its header and payload. */
  public static final class Unpacked {
    public final Header header;
    public final byte[] payload;

    Unpacked(Header header, byte[] payload) {
      this.header = header;
      this.payload = payload;
    }
  }

  /** recordio.pack: the header, its labels, then {@code payload}. */
  public static byte[] pack(Header header, byte[] payload) {
    Native.ensureLoaded();
    return NDArray.takeBuffer(
        weft_native.weft_recordio_pack_header(
            header.label,
            header.labels,
            header.labels.length,
            header.id,
            header.id2,
            NDArray.direct(payload),
            payload.length));
  }

  /** recordio.unpack: the header (with its labels) and the payload of a packed record. */
  public static Unpacked unpack(byte[] record) {
    Native.ensureLoaded();
    ByteBuffer rec = NDArray.direct(record);
    int[] flag = new int[1];
    float[] label = new float[1];
    long[] id = new long[1];
    long[] id2 = new long[1];
    long[] offset = new long[1];
    weft_native.weft_recordio_unpack_header(rec, record.length, flag, label, id, id2, offset);
    float[] labels = new float[flag[0]];
    long[] num = new long[1];
    weft_native.weft_recordio_unpack_labels(rec, record.length, labels, labels.length, num);
    byte[] payload = java.util.Arrays.copyOfRange(record, (int) offset[0], record.length);
    return new Unpacked(new Header(label[0], labels, id[0], id2[0]), payload);
  }
}
