using System.Collections.Generic;
using System.IO;
using NUnit.Framework;
using Weft;

namespace Weft.Tests {

/// <summary>The iterator factory (MXNet's iterators by name): the same case in JUnit and go
/// test.</summary>
[TestFixture]
public class DataIterFactoryTests : LiveHandleFixture {
  // conformance: data.iterator_factory
  [Test]
  public void IteratorFactory() {
    var csv = Path.GetTempFileName();
    File.WriteAllText(csv, "1,2,3\n4,5,6\n7,8,9\n10,11,12\n");
    try {
      using (var it = DataIter.Create("CSVIter", new Dictionary<string, object> {
                 { "data_csv", csv }, { "data_shape", "(3,)" }, { "batch_size", 2 } })) {
        int batches = 0;
        while (it.Next()) {
          var d = it.Data();
          if (batches == 0) Assert.AreEqual(new float[] { 1, 2, 3, 4, 5, 6 }, d["data"].ToFloatArray());
          foreach (var a in d.Values) a.Dispose();
          foreach (var a in it.Label().Values) a.Dispose();
          ++batches;
        }
        Assert.AreEqual(2, batches);
      }
    } finally {
      File.Delete(csv);
    }
    CollectionAssert.Contains(DataIter.Names(), "CSVIter");
    CollectionAssert.Contains(DataIter.Names(), "MNISTIter");
    Expect.Error(ErrorCode.NotFound, () => DataIter.Create("NoIter", new Dictionary<string, object>()), "NoIter");
  }
}

}
