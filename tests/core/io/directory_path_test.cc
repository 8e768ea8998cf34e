// Every file loader says "<path> is a directory" when given one (they used
// to report a parser dump or a std::string internal error).
#include <gtest/gtest.h>

#include "core/json/json_test_util.h"
#include "weft/idx.h"
#include "weft/ndarray_io.h"
#include "weft/npy.h"
#include "weft/symbol_json.h"

namespace weft {
namespace {

TEST(FileLoaders, DirectoryIsNamedByEveryLoader) {
  const std::string dir = testing::TempDir();
  const std::vector<std::string> want = {dir + " is a directory"};
  test::ExpectWeftError([&] { LoadJSONFile(dir); }, StatusCode::kIO, want);
  test::ExpectWeftError([&] { LoadNDArraysFile(dir); }, StatusCode::kIO, want);
  test::ExpectWeftError([&] { LoadNpyFile(dir); }, StatusCode::kIO, want);
  test::ExpectWeftError([&] { LoadIDX(dir); }, StatusCode::kIO, want);
  test::ExpectWeftError([&] { LoadJSONFile(dir + "/no such file"); }, StatusCode::kIO,
                        {"no such file", "No such file"});
}

}  // namespace
}  // namespace weft
