// Checkpoints: MXNet's model.save_checkpoint / load_checkpoint.
//
// A checkpoint is two files: `<prefix>-symbol.json` (the symbol, as
// SaveJSON writes it) and `<prefix>-<epoch as %04d>.params` (an NDArray
// list, ndarray_io.h, whose names are "arg:<name>" for arguments and
// "aux:<name>" for auxiliary states). Arrays on other devices are copied to
// the cpu to be written. Stateless; thread-safe for distinct files.
#ifndef WEFT_CHECKPOINT_H_
#define WEFT_CHECKPOINT_H_

#include <map>
#include <string>

#include "weft/ndarray.h"
#include "weft/symbol.h"

namespace weft {

class Runtime;

// "<prefix>-symbol.json" and "<prefix>-%04d.params". REQUIRES: epoch >= 0
// (else Error(kInvalidArgument)).
std::string CheckpointSymbolPath(const std::string& prefix);
std::string CheckpointParamsPath(const std::string& prefix, int epoch);

// Writes both files. Throws kInvalidArgument for a negative epoch, an empty
// name or a none array (naming it), kIO when a file cannot be written.
void SaveCheckpoint(const std::string& prefix, int epoch, const Symbol& symbol,
                    const std::map<std::string, NDArray>& args,
                    const std::map<std::string, NDArray>& aux);

struct Checkpoint {
  Symbol symbol;
  std::map<std::string, NDArray> args, aux;
};
// Reads both files (operators resolved in `rt`'s registry, arrays on its
// cpu(0); `rt` not null). Errors name the file: kIO when it
// cannot be read, kInvalidArgument when malformed or when a parameter name
// lacks the "arg:"/"aux:" prefix, kNotFound for unregistered operators.
Checkpoint LoadCheckpoint(const std::string& prefix, int epoch, Runtime* rt);

}  // namespace weft

#endif  // WEFT_CHECKPOINT_H_
