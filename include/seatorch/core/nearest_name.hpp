// "Did you mean ...?": the known name nearest to a mistyped one, as git suggests commands.
//
// Distance is the optimal string alignment (Damerau-Levenshtein) distance: an insertion,
// a deletion, a substitution or a swap of two neighbouring characters is one edit, so
// "trian" is one edit from "train". A name is suggested only when it is plausibly what was
// meant: at most one edit for names of up to 5 characters, two for longer ones.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace seatorch::core {

// The number of edits that turn `a` into `b` (see above).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The name in `names` nearest to `typed`, when it is near enough to suggest; the first of
// equally near names wins. Nothing when no name is near (then list the names instead).
std::optional<std::string> nearest_name(std::string_view typed, std::span<const std::string> names);

}  // namespace seatorch::core
