/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The command line and the medians of the C++ CUDA benches
 * (gpuccl-batch-bench, gpuccl-host-path-bench): a frame's --size, comma
 * lists, the upper median of a series. The C frame benches' options are
 * in frame_timing.h. */
#ifndef GPUCCL_BENCH_CLI_H
#define GPUCCL_BENCH_CLI_H

#include <string>
#include <vector>

namespace bench_cli {

/* "WxH" with both above 0 into w and h; false (w, h untouched) else. */
bool size(const char *text, int &w, int &h);

/* "a,b,c": its words, empty ones dropped. */
std::vector<std::string> words(const char *list);

/* "1,4,8": its numbers, atoi's of each piece. */
std::vector<int> ints(const char *list);

/* The middle value, the upper one of an even count; -1 when v is empty. */
double median(std::vector<double> v);

} // namespace bench_cli

#endif /* GPUCCL_BENCH_CLI_H */
