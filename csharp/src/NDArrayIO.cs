using System;
using System.Collections.Generic;
using System.IO;
using System.Runtime.InteropServices;

namespace Weft {

/// <summary>
/// NDArray serialisation in memory and on streams: MXNet NDArray lists
/// (".params", weft_ndarray_save_buffer / weft_ndarray_load_buffer) and NumPy
/// .npy images (weft_ndarray_*_npy*). Bytes from the library are copied out
/// of a library-owned buffer that is freed before the method returns; byte[]
/// inputs are pinned for the call and copied by the library. Streams are read
/// to their end (or written) by the calling thread; they are not closed.
/// </summary>
public sealed partial class NDArray {
  /// <summary>The .params bytes of named arrays (what Save(path, ...) writes).</summary>
  public static byte[] SaveToBytes(IDictionary<string, NDArray> arrays) {
    Native.EnsureLoaded();
    var names = NDArrayLists.Names(arrays);
    var hs = NDArrayLists.Handles(arrays);
    long o = weft_native.weft_ndarray_save_buffer(hs, names, (ulong)hs.Length);
    GC.KeepAlive(arrays);
    return TakeBuffer(o);
  }

  /// <summary>Writes the .params bytes of named arrays to stream.</summary>
  public static void Save(Stream stream, IDictionary<string, NDArray> arrays) {
    if (stream == null) throw new ArgumentNullException("stream");
    var b = SaveToBytes(arrays);
    stream.Write(b, 0, b.Length);
  }

  /// <summary>Loads an NDArray list from .params bytes by name, in order (unnamed: "0", "1", ...).</summary>
  public static unsafe Dictionary<string, NDArray> Load(byte[] data) {
    if (data == null) throw new ArgumentNullException("data");
    Native.EnsureLoaded();
    fixed (byte* p = data) return NDArrayLists.Take(weft_native.weft_ndarray_load_buffer((IntPtr)p, (ulong)data.Length));
  }

  /// <summary>As Load(byte[]) reading stream to its end.</summary>
  public static Dictionary<string, NDArray> Load(Stream stream) { return Load(ReadAll(stream)); }

  /// <summary>Loads a NumPy .npy file into a new cpu(0) array.</summary>
  public static NDArray LoadNpy(string path) {
    Native.EnsureLoaded();
    return new NDArray(weft_native.weft_ndarray_load_npy(path));
  }

  /// <summary>A new cpu(0) array from the bytes of a .npy image.</summary>
  public static unsafe NDArray LoadNpy(byte[] data) {
    if (data == null) throw new ArgumentNullException("data");
    Native.EnsureLoaded();
    fixed (byte* p = data) return new NDArray(weft_native.weft_ndarray_load_npy_buffer((IntPtr)p, (ulong)data.Length));
  }

  /// <summary>As LoadNpy(byte[]) reading stream to its end.</summary>
  public static NDArray LoadNpy(Stream stream) { return LoadNpy(ReadAll(stream)); }

  /// <summary>Saves the array as a .npy file (float32/64, int32/64, uint8).</summary>
  public void SaveNpy(string path) { weft_native.weft_ndarray_save_npy(Handle, path); }

  /// <summary>The .npy image of the array (the bytes numpy.save writes).</summary>
  public byte[] ToNpyBytes() {
    return TakeBuffer(weft_native.weft_ndarray_save_npy_buffer(Handle));
  }

  /// <summary>Writes the .npy image of the array to stream.</summary>
  public void SaveNpy(Stream stream) {
    if (stream == null) throw new ArgumentNullException("stream");
    var b = ToNpyBytes();
    stream.Write(b, 0, b.Length);
  }

  /// <summary>Copies and frees a WeftBuffer.</summary>
  internal static byte[] TakeBuffer(long raw) {
    using (var buf = new WeftHandle(raw, Frees.Buffer)) {
      var data = new IntPtr[1];
      var size = new ulong[1];
      weft_native.weft_buffer_data(buf, data, size);
      var r = new byte[checked((int)size[0])];
      if (r.Length > 0) Marshal.Copy(data[0], r, 0, r.Length);
      return r;
    }
  }

  static byte[] ReadAll(Stream stream) {
    if (stream == null) throw new ArgumentNullException("stream");
    using (var ms = new MemoryStream()) {
      stream.CopyTo(ms);
      return ms.ToArray();
    }
  }
}

}
