using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace Weft {

/// <summary>An operator's documentation. DefaultValue is null when required.</summary>
public sealed class OpParam {
  public string Name, Type, DefaultValue, Doc;
}

public sealed class OpInfo {
  public string Name, Doc;
  public IList<OpParam> Params;
}

/// <summary>Library-wide functions: versions, operator listing, leak counter.</summary>
public static class Library {
  public static string Version {
    get { Native.EnsureLoaded(); return weft_native.weft_version(); }
  }

  public static int AbiVersion {
    get { Native.EnsureLoaded(); return weft_native.weft_abi_version(); }
  }

  public static int BindingAbiVersion {
    get { return weft_native.weft_binding_abi_version(); }
  }

  /// <summary>Live native handles of every type (leak checks).</summary>
  public static long LiveHandleCount {
    get { Native.EnsureLoaded(); return (long)weft_native.weft_live_handle_count(); }
  }

  /// <summary>Canonical operator names, sorted.</summary>
  public static IList<string> OpNames() {
    Native.EnsureLoaded();
    ulong n = (ulong)weft_native.weft_op_count();
    var names = new List<string>((int)n);
    var s = new IntPtr[1];
    for (ulong i = 0; i < n; ++i) {
      weft_native.weft_op_name(i, s);
      names.Add(Str(s[0]));
    }
    return names;
  }

  public static OpInfo OpInfo(string op) {
    Native.EnsureLoaded();
    var doc = new IntPtr[1];
    var np = new ulong[1];
    weft_native.weft_op_info(op, doc, np);
    var info = new OpInfo { Name = op, Doc = Str(doc[0]), Params = new List<OpParam>() };
    for (ulong i = 0; i < np[0]; ++i) {
      IntPtr[] name = new IntPtr[1], type = new IntPtr[1], def = new IntPtr[1], pdoc = new IntPtr[1];
      weft_native.weft_op_param(op, i, name, type, def, pdoc);
      info.Params.Add(new OpParam { Name = Str(name[0]), Type = Str(type[0]),
                                    DefaultValue = Str(def[0]), Doc = Str(pdoc[0]) });
    }
    return info;
  }

  /// <summary>Loads an operator library (built against weft/op_plugin.h)
  /// and registers its operators; a library built for another plugin
  /// version is refused naming both versions.</summary>
  public static void LoadLibrary(string path) {
    Native.EnsureLoaded();
    weft_native.weft_load_library(path);
  }

  /// <summary>The operators registered by LoadLibrary, sorted.</summary>
  public static IList<string> LoadedOps() {
    Native.EnsureLoaded();
    return Symbol.Take(weft_native.weft_loaded_ops());
  }

  public static void Seed(ulong seed) { Native.EnsureLoaded(); weft_native.weft_random_seed(seed); }

  public static void WaitAll() { Native.EnsureLoaded(); weft_native.weft_wait_all(); }

  /// <summary>A library-owned UTF-8 string (null stays null).</summary>
  internal static string Str(IntPtr p) {
    if (p == IntPtr.Zero) return null;
    int n = 0;
    while (Marshal.ReadByte(p, n) != 0) ++n;
    var bytes = new byte[n];
    Marshal.Copy(p, bytes, 0, n);
    return System.Text.Encoding.UTF8.GetString(bytes);
  }
}

}
