using System;
using System.Runtime.InteropServices;

namespace Weft {

/// <summary>
/// A record file being written (MXNet's MXRecordIO / MXIndexedRecordIO; owned handle). Files are
/// byte-identical to what MXNet writes.
/// </summary>
public sealed class RecordWriter : NativeHandle {
  RecordWriter(long h) : base(h, Frees.RecordWriter) {}

  /// <summary>Creates (or truncates) path, and idxPath for the index unless null.</summary>
  public static RecordWriter Create(string path, string idxPath = null) {
    Native.EnsureLoaded();
    return new RecordWriter(weft_native.weft_recordio_writer_create(path, idxPath));
  }

  /// <summary>Appends one record (MXRecordIO.write).</summary>
  public unsafe void Write(byte[] record) {
    if (record == null) throw new ArgumentNullException("record");
    fixed (byte* p = record) weft_native.weft_recordio_writer_write(Handle, (IntPtr)p, (ulong)record.Length);
  }

  /// <summary>Appends one record and its index line (MXIndexedRecordIO.write_idx).</summary>
  public unsafe void WriteIdx(long key, byte[] record) {
    if (record == null) throw new ArgumentNullException("record");
    fixed (byte* p = record) weft_native.weft_recordio_writer_write_idx(Handle, key, (IntPtr)p, (ulong)record.Length);
  }

  /// <summary>Bytes written so far: the offset of the next record.</summary>
  public ulong Tell() { return (ulong)weft_native.weft_recordio_writer_tell(Handle); }
}

/// <summary>
/// A record file being read (MXNet's MXRecordIO / MXIndexedRecordIO; owned handle). Malformed
/// files fail with WeftException naming the byte offset.
/// </summary>
public sealed class RecordReader : NativeHandle {
  RecordReader(long h) : base(h, Frees.RecordReader) {}

  /// <summary>Opens path with the index idxPath unless null (then the by-key reads fail).</summary>
  public static RecordReader Open(string path, string idxPath = null) {
    Native.EnsureLoaded();
    return new RecordReader(weft_native.weft_recordio_reader_create(path, idxPath));
  }

  static byte[] Copy(IntPtr data, ulong size) {
    var r = new byte[checked((int)size)];
    if (r.Length > 0) Marshal.Copy(data, r, 0, r.Length);
    return r;
  }

  /// <summary>The next record, or null at the end of the file (MXRecordIO.read).</summary>
  public byte[] Read() {
    var data = new IntPtr[1];
    var size = new ulong[1];
    var has = new int[1];
    weft_native.weft_recordio_reader_read(Handle, data, size, has);
    return has[0] == 0 ? null : Copy(data[0], size[0]);
  }

  /// <summary>The record of key (MXIndexedRecordIO.read_idx).</summary>
  public byte[] ReadIdx(long key) {
    var data = new IntPtr[1];
    var size = new ulong[1];
    weft_native.weft_recordio_reader_read_idx(Handle, key, data, size);
    return Copy(data[0], size[0]);
  }

  /// <summary>The index's keys in file order.</summary>
  public long[] Keys() {
    var keys = new long[checked((int)weft_native.weft_recordio_reader_num_keys(Handle))];
    var num = new ulong[1];
    weft_native.weft_recordio_reader_keys(Handle, keys, (ulong)keys.Length, num);
    return keys;
  }

  /// <summary>The next read starts at byte offset.</summary>
  public void Seek(ulong offset) { weft_native.weft_recordio_reader_seek(Handle, offset); }

  /// <summary>The byte offset of the next read.</summary>
  public ulong Tell() { return (ulong)weft_native.weft_recordio_reader_tell(Handle); }

  /// <summary>Rewinds to the first record.</summary>
  public void Reset() { weft_native.weft_recordio_reader_reset(Handle); }
}

/// <summary>MXNet's IRHeader: a scalar Label (flag 0) or Labels (flag = their count), and two ids.</summary>
public sealed class RecordHeader {
  public float Label { get; set; }
  public float[] Labels { get; set; } = new float[0];
  public ulong Id { get; set; }
  public ulong Id2 { get; set; }
}

/// <summary>recordio.pack / unpack: the image-record header before a payload.</summary>
public static class RecordIO {
  /// <summary>recordio.pack: the header, its labels, then payload.</summary>
  public static unsafe byte[] Pack(RecordHeader header, byte[] payload) {
    if (header == null) throw new ArgumentNullException("header");
    if (payload == null) throw new ArgumentNullException("payload");
    Native.EnsureLoaded();
    var labels = header.Labels ?? new float[0];
    fixed (byte* p = payload)
      return NDArray.TakeBuffer(weft_native.weft_recordio_pack_header(
          header.Label, labels, (ulong)labels.Length, header.Id, header.Id2, (IntPtr)p, (ulong)payload.Length));
  }

  /// <summary>recordio.unpack: the header (with its labels) and a copy of the payload.</summary>
  public static unsafe RecordHeader Unpack(byte[] record, out byte[] payload) {
    if (record == null) throw new ArgumentNullException("record");
    Native.EnsureLoaded();
    var flag = new int[1];
    var label = new float[1];
    var id = new ulong[1];
    var id2 = new ulong[1];
    var offset = new ulong[1];
    var num = new ulong[1];
    float[] labels;
    fixed (byte* p = record) {
      weft_native.weft_recordio_unpack_header((IntPtr)p, (ulong)record.Length, flag, label, id, id2, offset);
      labels = new float[flag[0]];
      weft_native.weft_recordio_unpack_labels((IntPtr)p, (ulong)record.Length, labels, (ulong)labels.Length, num);
    }
    payload = new byte[record.Length - (int)offset[0]];
    Array.Copy(record, (int)offset[0], payload, 0, payload.Length);
    return new RecordHeader { Label = label[0], Labels = labels, Id = id[0], Id2 = id2[0] };
  }
}

}
