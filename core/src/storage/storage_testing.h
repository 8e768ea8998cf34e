// Test hook of the storage pools (fault injection): makes allocations fail
// on demand, so tests can walk a failure over every allocation of a whole
// workload and check that each surfaces as a clean weft::Error. Internal to
// core (tests reach it through core/src).
#ifndef WEFT_CORE_SRC_STORAGE_STORAGE_TESTING_H_
#define WEFT_CORE_SRC_STORAGE_STORAGE_TESTING_H_

#include <cstddef>

namespace weft {

// From now on, the `nth` StoragePool::Alloc call (1 = the next one, on any
// pool and thread) and the `count` - 1 calls after it throw
// Error(kOutOfMemory) naming the test hook; 0 turns the hook off.
// Thread-safe.
void SetAllocFailureForTesting(size_t nth, size_t count = 1);
// StoragePool::Alloc calls the hook has refused since it was last set.
size_t AllocFailuresForTesting();

}  // namespace weft

#endif  // WEFT_CORE_SRC_STORAGE_STORAGE_TESTING_H_
