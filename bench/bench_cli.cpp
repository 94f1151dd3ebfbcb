/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The C++ CUDA benches' command line and medians (bench_cli.h). */
#include "bench_cli.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace bench_cli {

bool size(const char *text, int &w, int &h)
{
  int tw, th;
  if (sscanf(text, "%dx%d", &tw, &th) != 2 || tw <= 0 || th <= 0)
    return false;
  w = tw;
  h = th;
  return true;
}

std::vector<std::string> words(const char *list)
{
  std::vector<std::string> v;
  std::string cur;
  for (const char *p = list;; p++) {
    if (*p == ',' || !*p) {
      if (!cur.empty())
        v.push_back(cur);
      cur.clear();
      if (!*p)
        break;
    } else {
      cur += *p;
    }
  }
  return v;
}

std::vector<int> ints(const char *list)
{
  std::vector<int> v;
  for (const char *p = list; *p;) {
    v.push_back(atoi(p));
    p = strchr(p, ',');
    if (!p)
      break;
    p++;
  }
  return v;
}

double median(std::vector<double> v)
{
  if (v.empty())
    return -1.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace bench_cli
