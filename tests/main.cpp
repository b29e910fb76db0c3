// The Catch2 entry point of the single seatorch test binary.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
