// A C# program compiled against the Weft NuGet package's contents
// (tests/install/run_csharp.sh): prints which libweft.so.0 the process mapped,
// runs relu on a 2x3 array and checks the result. Prints
// "weft csharp consumer ok" on success, exits 1 otherwise.
using System;
using System.IO;
using System.Linq;
using Weft;

static class Consumer {
  static int Main() {
    float[] output;
    using (var x = NDArray.FromArray(new float[] {-1, 2, -3, 4, -5, 6}, 2, 3))
    using (var y = Ops.Call("relu", null, x)) {
      output = y.ToFloatArray();
    }
    var mapped = File.ReadAllLines("/proc/self/maps").Where(l => l.Contains("libweft.so.0"))
                     .Select(l => l.Substring(l.IndexOf('/'))).Distinct().ToArray();
    Console.WriteLine("native: " + string.Join(", ", mapped));
    if (!output.SequenceEqual(new float[] {0, 2, 0, 4, 0, 6})) {
      Console.Error.WriteLine("relu gave " + string.Join(" ", output));
      return 1;
    }
    if (Library.LiveHandleCount != 0) {
      Console.Error.WriteLine(Library.LiveHandleCount + " handles left");
      return 1;
    }
    Console.WriteLine("weft csharp consumer ok: weft " + Library.Version + ", ABI " + Library.AbiVersion);
    return 0;
  }
}
