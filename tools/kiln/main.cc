// kiln: the command line (placeholder until the CLI lands).
#include <cstdio>

int main() {
  std::puts("kiln");
  return 0;
}
