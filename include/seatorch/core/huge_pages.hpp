// Byte buffers backed by 2 MiB pages where the system grants them, for files read whole. In
// the virtual machines these sessions run on, the first touch of each 4 KiB page traps to the
// host (`pvm_irq_enable` in `perf`): a fresh 47 MB buffer for MNIST's training images took
// 180 ms to zero and fill from the file, and with its 2 MiB pages advised 11-30 ms in most runs
// (DECISIONS 90). Linux's transparent huge pages grant the hint where they are enabled for
// `madvise` (Debian's default) or always; elsewhere, and on other systems, it does nothing.
// Deliberately not here: any promise that huge pages are granted (a hint changes speed, never
// data), and the buffers of training, which gained nothing from them (DECISIONS 84).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace seatorch::core {

// `count` zero bytes in a buffer whose whole 2 MiB pages were advised as huge pages before the
// zeroing first touched them; a buffer too small to hold one is an ordinary vector.
std::vector<std::uint8_t> zeroed_bytes(std::size_t count);

}  // namespace seatorch::core
