// Every file loader says "<path> is a directory" when given one (they used
// to report a parser dump or a std::string internal error).
#include <gtest/gtest.h>

#include "core/json/json_test_util.h"
#include "weft/runtime.h"
#include "weft/idx.h"
#include "weft/ndarray_io.h"
#include "weft/npy.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

TEST(FileLoaders, DirectoryIsNamedByEveryLoader) {
  const std::string dir = testing::TempDir();
  const std::vector<std::string> want = {dir + " is a directory"};
  test::ExpectWeftError([&] { LoadJSONFile(dir, Runtime::Global().ops()); }, StatusCode::kIO, want);
  test::ExpectWeftError([&] { LoadNDArraysFile(dir, &Runtime::Global()); }, StatusCode::kIO, want);
  test::ExpectWeftError([&] { LoadNpyFile(dir, &Runtime::Global()); }, StatusCode::kIO, want);
  test::ExpectWeftError([&] { LoadIDX(dir, &Runtime::Global()); }, StatusCode::kIO, want);
  test::ExpectWeftError([&] { LoadJSONFile(dir + "/no such file", Runtime::Global().ops()); },
                        StatusCode::kIO, {"no such file", "No such file"});
}

}  // namespace
}  // namespace weft
