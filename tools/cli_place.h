// Helpers of `weft place` (cli_place.cc).
#ifndef WEFT_TOOLS_CLI_PLACE_H_
#define WEFT_TOOLS_CLI_PLACE_H_

#include <string>

namespace weft_cli {

// Prints the MXNet JSON of a placed graph (every node's device in its
// "__device__" attribute) as a Graphviz digraph on stdout.
void PrintPlacementDot(const std::string& json_text);

}  // namespace weft_cli

#endif  // WEFT_TOOLS_CLI_PLACE_H_
