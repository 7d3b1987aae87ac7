// The one translation unit that holds doctest's runner (main). The test cases
// live in the test_*.cpp files; ctest runs this executable once per file
// (--source-file filter, see CMakeLists.txt).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest.h>
