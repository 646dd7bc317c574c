// A list that describes every value of an enum (phases.hpp, mechanisms.hpp): checked at compile time to name each
// value once, so that a value added to the enum and not to its list does not build.
#pragma once
#include <array>
#include <cstddef>

namespace p2psim {

/// Whether `list`, whose entries name their value in `field`, names each of the enum's `Count` values once.
template <std::size_t Count, class Info, std::size_t N, class Enum>
constexpr bool lists_each_value_once(const std::array<Info, N>& list, Enum Info::*field) {
  std::array<int, Count> seen{};
  for (const auto& info : list) ++seen[static_cast<std::size_t>(info.*field)];
  for (int n : seen)
    if (n != 1) return false;
  return N == Count;
}

}  // namespace p2psim
