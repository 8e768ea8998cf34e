// `weft im2rec`: MXNet's tools/im2rec.py. With --list it writes image lists
// (.lst) from a folder tree (cli_im2rec.cc); without, it packs the images of
// every PREFIX*.lst into .rec/.idx files (cli_im2rec_pack.cc). Internal to
// the CLI.
#ifndef WEFT_TOOLS_CLI_IM2REC_H_
#define WEFT_TOOLS_CLI_IM2REC_H_

#include <cstdint>
#include <string>
#include <vector>

namespace weft_cli {

struct Im2RecOptions {
  std::string prefix, root;
  bool list = false;
  std::vector<std::string> exts = {".jpeg", ".jpg", ".png"};
  int chunks = 1;
  double train_ratio = 1.0, test_ratio = 0.0;
  bool recursive = false, shuffle = true;
  uint64_t seed = 100;  // MXNet's im2rec seeds Python's random with 100
  bool pass_through = false, center_crop = false, pack_label = false;
  int resize = 0, quality = 95, num_thread = 1, color = 1;
  std::string encoding = ".jpg";
};

// One line of a .lst: the image index, its path (relative to the root) and labels.
struct ListItem {
  int64_t index = 0;
  std::string path;
  std::vector<double> labels;
};

// im2rec.py's make_list: writes PREFIX[_i][_train|_val|_test].lst.
int MakeList(const Im2RecOptions& o);
// im2rec.py's main without --list: packs every PREFIX*.lst.
int PackLists(const Im2RecOptions& o);
// The items of a .lst (lines im2rec.py would skip are reported on stderr).
std::vector<ListItem> ReadList(const std::string& path);

}  // namespace weft_cli

#endif  // WEFT_TOOLS_CLI_IM2REC_H_
