// Must not compile: std::list's iterators are not random access, which every
// policy needs (chunks and tiles start at an offset). One message.
#include <cascade/cascade.cuh>

#include <list>

int reduce_a_list(const std::list<int>& values) {
  return cascade::reduce(cascade::seq, values.begin(), values.end(), 0);
}
